"""App tests: pytest-qt, offscreen. Each test must leave nothing running behind it:
no QThread still running, no top-level widget still open, no active QTimer owned by a widget,
and the application's font and palette as it found them."""

import gc

import pytest


def _application_look(app):
    font = app.font()
    return font.family(), font.pointSizeF(), font.pixelSize(), app.palette().window().color().name()


@pytest.fixture(autouse=True)
def qt_hygiene(request):
    if "qapp" not in request.fixturenames and "qtbot" not in request.fixturenames:
        yield
        return
    from PySide6.QtCore import QCoreApplication, QEvent, QThread, QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    before = set(map(id, app.topLevelWidgets())) if app else set()
    look = _application_look(app) if app else None
    yield
    if app is None:
        return
    app.processEvents()
    leaked = [w for w in app.topLevelWidgets() if id(w) not in before and w.isVisible() and w.objectName() != "qt_keep"]
    running = [t for w in app.topLevelWidgets() for t in w.findChildren(QThread) if t.isRunning()]
    timers = [t for w in leaked for t in w.findChildren(QTimer) if t.isActive()]
    for widget in leaked:
        widget.close()
    for thread in running:
        thread.quit()
        thread.wait(2000)
    # The test's cyclic garbage (a closed window and its panels keep each other alive) is
    # freed here, on the GUI thread with no job running -- not at whatever allocation of a
    # later test, or of a later test's worker thread, crosses the collector's threshold.
    # Qt deletes what it was asked to (deleteLater) first, so the collector frees only
    # Python shells (a wrapper freed with its widget still alive deletes the widget).
    # What survives is frozen, as app/collector.py freezes an opened graph: the next
    # test's collection walks only what that test made.
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
    gc.freeze()
    problems = []
    if running:
        problems.append(f"{len(running)} QThread(s) still running")
    if leaked:
        problems.append("top-level widget(s) left open: " + ", ".join(type(w).__name__ for w in leaked))
    if timers:
        problems.append(f"{len(timers)} active QTimer(s) in leaked widgets")
    if look is not None and _application_look(app) != look:
        # a presenter scale left on the application made the next test's nodes twice as large
        from app.look.theme import DEFAULT
        from app.look.ui_scale import apply_to_application

        apply_to_application(DEFAULT)
        problems.append("the application's font or palette was changed and not put back")
    if problems:
        pytest.fail("test left Qt objects behind: " + "; ".join(problems))


@pytest.fixture(autouse=True)
def isolated_files(tmp_path, monkeypatch):
    """Each test gets its own settings and autosave folder, and no file dialog can block:
    errors are recorded (the fixture's value), unsaved changes are discarded on close,
    recovery is postponed. A test that wants another answer monkeypatches it again."""
    monkeypatch.setenv("BACKPROP_STUDIO_DATA_DIR", str(tmp_path / "appdata"))
    import app.files.dialogs as file_dialogs

    shown = []
    monkeypatch.setattr(file_dialogs, "show_error", lambda parent, title, text: shown.append((title, text)))
    monkeypatch.setattr(file_dialogs, "ask_save_changes", lambda parent, name: "discard")
    monkeypatch.setattr(file_dialogs, "ask_recover", lambda parent, recovered, saved_at: "later")
    monkeypatch.setattr(file_dialogs, "ask_confirm", lambda parent, title, text: True)
    monkeypatch.setattr(file_dialogs, "ask_open_path", lambda *args, **kwargs: "")
    monkeypatch.setattr(file_dialogs, "ask_save_path", lambda *args, **kwargs: "")
    yield shown


@pytest.fixture
def window(qtbot):
    """The main window, shown and exposed, with the seed example open; closed after."""
    from app.main_window import MainWindow

    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.close()
    from app.look.theme import DEFAULT
    from app.look.ui_scale import apply_to_application

    apply_to_application(DEFAULT)  # a theme or presenter scale the test chose is application-wide


@pytest.fixture(autouse=True)
def scripts_run_when_opened(monkeypatch):
    """Opening a .py asks first (issue 37): tests that open one answer yes, unless a test
    answers for itself (its own monkeypatch comes later and wins); never a modal dialog."""
    from app.graph import scope_open

    monkeypatch.setattr(scope_open, "confirm_script", lambda services, path: True)
