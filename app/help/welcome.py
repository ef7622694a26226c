"""The welcome page: what a first start shows, and Help → Welcome later.

Three ways in, side by side: a guided lesson, an example graph, or a file
opened recently. A "Don't show this at start" box remembers the choice in
QSettings (`welcome/dont_show`). The page asks nothing of the window: it says
what was chosen (`lessonChosen`, `fileChosen`) and the window opens it; it is
handed its parent, the lessons and a way to list the recent files (the window's
`files.recent_files`). It keeps no state of its own.
"""

import os
from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.files.examples import examples
from app.look.theme import set_base_font
from app.settings import settings

KEY_DONT_SHOW = "welcome/dont_show"
KEY_SHOWN = "welcome/shown"
RECENT_KEY = "recentFiles"  # app/files/actions.py's key, read only when no list is handed over
MAX_RECENT = 8


def should_show_at_start() -> bool:
    return not _bool(settings().value(KEY_DONT_SHOW, False))


def recent_files(listed: Callable[[], list[str]] | None = None) -> list[str]:
    """The recent files, existing files only: `listed()` (app/files/actions.py owns the
    list: the window's `files.recent_files`), else the list in the settings."""
    if listed is not None:
        paths = listed()
    else:
        paths = _as_list(settings().value(RECENT_KEY))
    return [p for p in paths if isinstance(p, str) and os.path.isfile(p)][:MAX_RECENT]


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value else []
    return list(value)


def _bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.lower() in ("1", "true", "yes")
    return bool(value)


class WelcomeDialog(QDialog):
    """Start here: a lesson, an example or a recent file. `parent` is the window (its
    icon heads the page), `lessons` the course's, `recent` lists the recent files."""

    lessonChosen = Signal(str)
    fileChosen = Signal(str)

    def __init__(
        self, parent: QWidget, lessons: Iterable[Any] = (), recent: Callable[[], list[str]] | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("WelcomeDialog")
        self.setWindowTitle("Welcome to Backprop Studio")
        layout = QVBoxLayout(self)
        layout.setSpacing(10)

        head = QHBoxLayout()
        icon = QLabel()
        if not parent.windowIcon().isNull():
            icon.setPixmap(parent.windowIcon().pixmap(64, 64))
        head.addWidget(icon, 0, Qt.AlignmentFlag.AlignTop)
        intro = QVBoxLayout()
        title = QLabel("Welcome to Backprop Studio")
        set_base_font(title, 22, bold=True)
        blurb = QLabel(
            "See what backpropagation does, one chain-rule step at a time. "
            "Start with a lesson, open an example graph, or type an expression in "
            "the Editor. Every number on screen comes from the engine."
        )
        blurb.setWordWrap(True)
        intro.addWidget(title)
        intro.addWidget(blurb)
        head.addLayout(intro, 1)
        layout.addLayout(head)

        columns = QHBoxLayout()
        self.lesson_list = self._column(columns, "Lessons", "Open a guided lesson (double-click or Enter)")
        for lesson in lessons:
            item = QListWidgetItem(f"{lesson.order}. {lesson.title}")
            item.setData(Qt.ItemDataRole.UserRole, lesson.id)
            item.setToolTip(lesson.summary)
            self.lesson_list.addItem(item)
        self.example_list = self._column(columns, "Examples", "Open an example graph (double-click or Enter)")
        for title_text, description, path in examples():
            item = QListWidgetItem(title_text)
            item.setData(Qt.ItemDataRole.UserRole, path)
            item.setToolTip(description or os.path.basename(path))
            self.example_list.addItem(item)
        self.recent_list = self._column(columns, "Recent files", "Open a graph you worked on lately")
        paths = recent_files(recent)
        for path in paths:
            item = QListWidgetItem(os.path.basename(path))
            item.setData(Qt.ItemDataRole.UserRole, path)
            item.setToolTip(path)
            self.recent_list.addItem(item)
        if not paths:
            item = QListWidgetItem("Nothing yet: files you open or save show up here.")
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.recent_list.addItem(item)
        layout.addLayout(columns, 1)

        self.lesson_list.itemActivated.connect(lambda item: self._choose_lesson(item.data(Qt.ItemDataRole.UserRole)))
        self.example_list.itemActivated.connect(lambda item: self._choose_file(item.data(Qt.ItemDataRole.UserRole)))
        self.recent_list.itemActivated.connect(self._recent_activated)

        bottom = QHBoxLayout()
        self.dont_show = QCheckBox("Don't show this at start")
        self.dont_show.setToolTip("You can always open this page again from Help → Welcome")
        self.dont_show.setChecked(not should_show_at_start())
        self.dont_show.toggled.connect(lambda on: settings().setValue(KEY_DONT_SHOW, bool(on)))
        bottom.addWidget(self.dont_show)
        bottom.addStretch(1)
        self.first_lesson = QPushButton("Start the first lesson")
        self.first_lesson.setToolTip("Begin the track at lesson 1")
        self.first_lesson.setEnabled(self.lesson_list.count() > 0)
        self.first_lesson.clicked.connect(self._start_first_lesson)
        self.close_button = QPushButton("Close")
        self.close_button.setToolTip("Keep the tutorial graph and look around")
        self.close_button.setDefault(True)
        self.close_button.clicked.connect(self.close)
        bottom.addWidget(self.first_lesson)
        bottom.addWidget(self.close_button)
        layout.addLayout(bottom)
        settings().setValue(KEY_SHOWN, True)
        self.resize(900, 520)

    def _column(self, row: QHBoxLayout, heading: str, tip: str) -> QListWidget:
        col = QVBoxLayout()
        label = QLabel(heading)
        set_base_font(label, 15, bold=True)
        lst = QListWidget()
        lst.setToolTip(tip)
        lst.setWordWrap(True)
        col.addWidget(label)
        col.addWidget(lst, 1)
        row.addLayout(col, 1)
        return lst

    def _recent_activated(self, item: QListWidgetItem) -> None:
        path = item.data(Qt.ItemDataRole.UserRole)
        if path:  # not the "Nothing yet" line
            self._choose_file(path)

    def _start_first_lesson(self) -> None:
        if self.lesson_list.count():
            self._choose_lesson(self.lesson_list.item(0).data(Qt.ItemDataRole.UserRole))

    def _choose_lesson(self, lesson_id: str) -> None:
        self.lessonChosen.emit(lesson_id)
        self.close()

    def _choose_file(self, path: str) -> None:
        self.fileChosen.emit(path)
        self.close()
