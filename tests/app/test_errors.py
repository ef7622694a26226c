"""An exception that escapes a slot is logged and reported; the app keeps running."""

import sys

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QPushButton

from app import errors


def test_exception_in_a_slot_is_reported_and_logged(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr(errors, "log_path", lambda: str(tmp_path / "errors.log"))
    reporter = errors.install_excepthook(show_dialog=False)
    try:
        button = QPushButton("boom")
        qtbot.addWidget(button)

        def explode():
            raise RuntimeError("slot exploded")

        button.clicked.connect(explode)
        button.click()
        qtbot.waitUntil(lambda: reporter.count == 1)
        assert "RuntimeError: slot exploded" in reporter.last_report
        assert "slot exploded" in (tmp_path / "errors.log").read_text(encoding="utf-8")
        button.setText("still alive")  # the app carries on
        assert button.text() == "still alive"
    finally:
        reporter.uninstall()
    assert sys.excepthook is not reporter


def test_dialog_offers_copy_report(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QApplication, QMessageBox

    monkeypatch.setattr(errors, "log_path", lambda: str(tmp_path / "errors.log"))
    reporter = errors.ErrorReporter(show_dialog=True)
    seen = {}

    def answer():
        box = next(w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible())
        seen["text"] = box.text()
        copy = next(b for b in box.buttons() if b.text() == "Copy report")
        copy.click()

    QTimer.singleShot(50, answer)
    try:
        raise ValueError("bad thing")
    except ValueError:
        reporter(*sys.exc_info())
    assert "bad thing" in seen["text"] and "Your work is still open" in seen["text"]
    assert "ValueError: bad thing" in QApplication.clipboard().text()
