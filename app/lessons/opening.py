"""Opening a lesson and the welcome page: Help → Lessons, Help → Welcome, a lesson
file, the tour, the slide deck and `--lesson` all come here (`window.opening`).

`Opening` is handed the Lessons dock and panel, the welcome page's maker (the
window's `welcome.get`: made on first use, forgotten on close) and the widget the page
opens over; never the window. Where the dock then sits is the window's business:
`shown` tells it (app/lessons/presenter_install.py: a side column down to the
window's bottom, or under the canvas in presenter mode).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QDialog, QDockWidget, QWidget

if TYPE_CHECKING:
    from app.lessons.panel import LessonsPanel


class Opening(QObject):
    """Shows the Lessons dock (opening a lesson in it) and the welcome page."""

    shown = Signal()  # the Lessons dock was shown: the window arranges it for its mode

    def __init__(
        self, dock: QDockWidget, panel: LessonsPanel, welcome_page: Callable[[], QDialog], over: QWidget
    ) -> None:
        super().__init__(dock)
        self.dock = dock
        self.panel = panel
        self.welcome_page = welcome_page
        self.over = over

    def show_lessons(self, lesson_id: str | None = None, step: int = 0) -> bool:
        """Show the Lessons dock; with an id, open that lesson at `step` (0-based)."""
        dock, panel = self.dock, self.panel
        dock.show()
        dock.raise_()
        opened = True
        if lesson_id is not None:
            opened = panel.open_lesson(lesson_id, step)
        elif panel.runner is None and panel.lessons:
            opened = panel.open_lesson(panel.lessons[0].id)
        self.shown.emit()  # the lesson's column to the window's bottom now, not a turn later
        return opened

    def show_welcome(self) -> QDialog:
        """The welcome page (Help → Welcome; also at start unless turned off)."""
        dialog = self.welcome_page()
        dialog.show()
        # over the lower part of the window, so the graph it introduces stays in sight
        frame = self.over.frameGeometry()
        dialog.move(frame.center().x() - dialog.width() // 2, max(frame.top(), frame.bottom() - dialog.height() - 24))
        dialog.raise_()
        return dialog
