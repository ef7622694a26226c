"""Opening a lesson and the welcome page in the main window: Help → Lessons, Help →
Welcome, a lesson file, the tour, the slide deck and `--lesson` all come here.

Plain functions taking the `MainWindow`; the welcome page is the window's
`window.welcome` (a LazyPage: made by the window on first use, forgotten on close).
"""

from typing import Any

from PySide6.QtCore import Qt, QTimer

from app.lessons.presenter_layout import presenter_canvas, presenter_layout, size_presenter_docks
from app.lessons.side_fit import in_side_dock, reach_bottom


def show_lessons(window: Any, lesson_id: str | None = None, step: int = 0) -> bool:
    """Show the Lessons dock; with an id, open that lesson at `step` (0-based)."""
    dock = window.docks["lessons"]
    dock.show()
    dock.raise_()
    opened = True
    if lesson_id is not None:
        opened = window.lessons.open_lesson(lesson_id, step)
    elif window.lessons.runner is None and window.lessons.lessons:
        opened = window.lessons.open_lesson(window.lessons.lessons[0].id)
    if in_side_dock(window):  # the lesson's column to the window's bottom now, not a turn later
        reach_bottom(window)
    if window.appearance.presenting and window.dockWidgetArea(dock) != Qt.DockWidgetArea.BottomDockWidgetArea:
        # opened during presenter mode: the lesson goes under the canvas, as presenter mode
        # arranges it, not into the side column (where 2x text is cut to a few letters a line)
        presenter_layout(window)
        presenter_canvas(window)
        QTimer.singleShot(0, window, lambda: size_presenter_docks(window))
    return opened


def show_welcome(window: Any) -> Any:
    """The welcome page (Help → Welcome; also at start unless turned off)."""
    dialog = window.welcome.get()
    dialog.show()
    # over the lower part of the window, so the graph it introduces stays in sight
    frame = window.frameGeometry()
    dialog.move(frame.center().x() - dialog.width() // 2, max(frame.top(), frame.bottom() - dialog.height() - 24))
    dialog.raise_()
    return dialog
