"""The list of lessons and how far the student got in each.

Progress lives in the app's QSettings (UI state, not a file): per lesson the
furthest step reached, 0-based, and the lesson opened last.
"""

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QListWidget, QListWidgetItem

from app.settings import settings

PROGRESS_KEY = "lessons/progress/"  # + lesson id -> the furthest step reached (0-based)
LAST_KEY = "lessons/last"


# -----------------------------------------------------------------------------
# The progress model


def furthest_step(s, lesson_id):
    """The furthest step of the lesson reached so far in settings `s`; -1 if none."""
    return _int(s.value(PROGRESS_KEY + lesson_id, -1), -1)


def record_step(lesson_id, index):
    """Step `index` of the lesson is on screen: remember it if it is the furthest yet."""
    s = settings()
    if furthest_step(s, lesson_id) < index:
        s.setValue(PROGRESS_KEY + lesson_id, index)


def _int(value, default):
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


# -----------------------------------------------------------------------------
# The list


class LessonList(QListWidget):
    """The lessons in order, each with how far the student got; the current one in bold.
    Each item holds its lesson id under `Qt.UserRole`."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setToolTip("The lessons, in order; the numbers say how far you got. Double-click (or Enter) to open one")
        self.setTextElideMode(Qt.ElideRight)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setMinimumHeight(80)

    def fill(self, lessons):
        self.clear()
        for lesson in lessons:
            item = QListWidgetItem()
            item.setData(Qt.UserRole, lesson.id)
            item.setToolTip(lesson.summary)
            self.addItem(item)

    def refresh(self, lessons, runner):
        """Each lesson's mark (steps, k/n or done); `runner`'s lesson is the current one."""
        s = settings()
        for row, lesson in enumerate(lessons):
            item = self.item(row)
            n = len(lesson.steps)
            reached = furthest_step(s, lesson.id)
            if runner is not None and runner.lesson is lesson:
                reached = max(reached, runner.index)
            if reached >= n - 1:
                mark = "✓ done"
            elif reached >= 0:
                mark = f"{reached + 1}/{n}"
            else:
                mark = f"{n} steps"
            item.setText(f"{lesson.order}. {lesson.title}  —  {mark}")
            current = runner is not None and runner.lesson is lesson
            font = item.font()
            font.setBold(current)
            item.setFont(font)
