"""Opening a big graph: a shipped script traced, another run only when the user agrees, one that cannot run says why."""

import os

import pytest
from PySide6.QtCore import Qt

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
EXAMPLE = os.path.join(ROOT, "resources", "examples", "microgpt_step.py")


def test_a_script_that_cannot_be_traced_says_why(window, qtbot, tmp_path, monkeypatch):
    from app.graph import scope_open

    monkeypatch.setattr(scope_open, "confirm_script", lambda *args: True)
    bad = tmp_path / "bad.py"
    bad.write_text("raise SystemExit(3)\n")
    assert window.open_file(str(bad))  # run as Python, as a pasted cell would be (issue 42 item 3)
    qtbot.waitUntil(lambda: not window.code_runner.running, timeout=60_000)
    assert "your code called exit()" in window.editor.error_text()
    assert window.scope_page.current is None


def test_a_script_not_shipped_is_run_only_when_the_user_agrees(window, qtbot, tmp_path, monkeypatch):
    # issue 37: opening or dropping a .py ran it with no warning (File -> Open, drop, command line)
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    from app.files import dialogs
    from app.graph import scope_open

    script = tmp_path / "theirs.py"
    script.write_text("open('ran', 'w')\n")
    asked = []
    monkeypatch.setattr(scope_open, "confirm_script", lambda services, path: asked.append(path) or False)
    messages = []
    window.statusBar().messageChanged.connect(messages.append)  # what the status bar says, from any part
    assert window.open_file(str(script)) is False  # the command line opens files this way
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(script))])
    window.dropEvent(QDropEvent(QPointF(20, 20), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier))
    monkeypatch.setattr(dialogs, "ask_open_path", lambda *args: str(script))
    assert window.files.open_dialog() is False
    assert len(asked) == 3 and all(os.path.samefile(p, script) for p in asked)
    assert "theirs.py was not run." in messages[-1] and window.scope_page.current is None
    assert not scope_open.shipped_script(str(script)) and scope_open.shipped_script(EXAMPLE)


from app.graph.scope_open import confirm_script as _asking  # noqa: E402 -- before the app tests' autouse "yes"


def test_an_offscreen_run_never_waits_for_an_answer_nobody_can_give(window, capsys):
    # `main.py their.py --screenshot OUT.png` once hung on the question "Run their.py?" (issue 37's ask)
    assert _asking(window.services(), "/tmp/their_script.py") is False
    assert "--run-python" in capsys.readouterr().err


def test_the_opener_says_a_script_was_not_run_and_fits_the_first_picture_to_the_window(window, tmp_path, monkeypatch):
    from app.graph import scope_open

    script = tmp_path / "theirs.py"
    script.write_text("open('ran', 'w')\n")
    monkeypatch.setattr(scope_open, "confirm_script", lambda services, path: False)
    assert window.scopes.open_script(str(script)) is False
    assert window.statusBar().currentMessage() == "theirs.py was not run." and not (tmp_path / "ran").exists()
    assert window.scope_page.current is None  # nothing made for a script not run
    theme = window.scene.theme
    window.resize(1000, 700)
    small, _ = scope_open.first_budget(window, theme)
    narrow = scope_open.legible_columns(window, theme, False, None)
    window.resize(1800, 1100)
    large, _ = scope_open.first_budget(window, theme)
    assert large > small >= 8 and scope_open.legible_columns(window, theme, False, None) > narrow >= 1
    presenting = scope_open.legible_columns(window, theme, True, None)
    assert presenting <= scope_open.legible_columns(window, theme, False, None)


def test_a_shipped_script_is_traced_to_its_first_backward_without_asking(window, qtbot, monkeypatch):
    # what bench/bench_scopes.py measures: the script traced in a box (core/scopes/script.py), not run whole
    from app.graph import scope_open

    monkeypatch.setattr(scope_open, "confirm_script", lambda *args: pytest.fail("a shipped script is not asked about"))
    assert window.scopes.open_script(EXAMPLE)
    qtbot.waitUntil(lambda: bool(window.scope_page.current and window.scope_page.current.items), timeout=120_000)
    page = window.scope_page.current
    assert window.training.stack.currentWidget() is page and "microgpt_step.py" in page.title.text()
    assert window.statusBar().currentMessage().startswith("microgpt_step.py: ")  # the trace's own message
    qtbot.waitUntil(lambda: page._values_job.isFinished(), timeout=120_000)
