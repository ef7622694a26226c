"""No exception escapes to Qt: a last line of defence for bugs we did not foresee.

PySide6 prints an exception raised inside a slot and carries on, or, from some
virtual overrides, aborts the process. `install_excepthook()` replaces
`sys.excepthook` so every uncaught exception on the GUI thread is

* written with its traceback to a log file in the user data directory,
* shown in a dialog that says what happened, with the details and a
  "Copy report" button,

and the app keeps running with the user's work intact. Expected errors (a bad
expression, a bad file) never get here: they are caught where they happen and
shown in context.
"""

import datetime
import os
import platform
import sys
import traceback
from typing import Any

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QApplication, QMessageBox


def log_path() -> str:
    base = QStandardPaths.writableLocation(QStandardPaths.AppDataLocation) or os.path.expanduser("~")
    os.makedirs(base, exist_ok=True)
    return os.path.join(base, "backprop-studio-errors.log")


def format_report(exc_type: Any, exc: BaseException, tb: Any) -> str:
    from app import __version__

    lines = [
        f"Backprop Studio {__version__} — {datetime.datetime.now().isoformat(timespec='seconds')}",
        f"Python {platform.python_version()} on {platform.platform()}",
        "",
    ]
    lines += traceback.format_exception(exc_type, exc, tb)
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


class ErrorReporter:
    """The excepthook. Keeps the last report; shows at most one dialog at a time."""

    def __init__(self, show_dialog=True) -> None:
        self.show_dialog = show_dialog
        self.last_report = ""
        self.count = 0
        self._showing = False
        self._previous: Any = None  # the excepthook before ours

    def install(self) -> None:
        self._previous = sys.excepthook
        sys.excepthook = self

    def uninstall(self) -> None:
        if sys.excepthook is self:
            sys.excepthook = self._previous or sys.__excepthook__

    def __call__(self, exc_type, exc, tb) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            QApplication.quit()
            return
        self.count += 1
        self.last_report = format_report(exc_type, exc, tb)
        sys.stderr.write(self.last_report)
        try:
            with open(log_path(), "a", encoding="utf-8") as log:
                log.write(self.last_report + "\n")
        except OSError:
            pass
        if self.show_dialog and not self._showing and QApplication.instance() is not None:
            self._showing = True
            try:
                self._dialog(exc_type, exc)
            finally:
                self._showing = False

    def _dialog(self, exc_type, exc) -> None:
        box = QMessageBox(QApplication.activeWindow())
        box.setIcon(QMessageBox.Warning)
        box.setWindowTitle("Backprop Studio — internal error")
        box.setText(
            f"Something went wrong: {exc_type.__name__}: {exc}\n\n"
            "Your work is still open. You can carry on, and save it to be safe."
        )
        box.setInformativeText(f"A report was written to {log_path()}")
        box.setDetailedText(self.last_report)
        copy = box.addButton("Copy report", QMessageBox.ActionRole)
        box.addButton(QMessageBox.Close)
        box.exec()
        if box.clickedButton() is copy:
            QApplication.clipboard().setText(self.last_report)


def install_excepthook(show_dialog: bool = True) -> ErrorReporter:
    reporter = ErrorReporter(show_dialog)
    reporter.install()
    return reporter
