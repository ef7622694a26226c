"""File → Open microgpt Step opens the example as the command line does: run as Python, its big graph by scope."""

import os

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
EXAMPLE = os.path.join(ROOT, "resources", "examples", "microgpt_step.py")


def test_the_menu_opens_the_microgpt_step_as_the_command_line_does(window, qtbot, monkeypatch):
    # repro: File > Open microgpt Step traced the script to its first backward() (core/scopes/script.py),
    # `python main.py resources/examples/microgpt_step.py` ran it as Python: two pictures of one example
    from core.scopes import script

    monkeypatch.setattr(script, "trace_script", lambda *args, **kwargs: pytest.fail("the old tracing path"))
    window.actions["open microgpt"].trigger()
    assert window.code_runner.running  # run as Python, as the command line and File > Open do
    with open(EXAMPLE, encoding="utf-8") as f:
        assert window.editor.text() == f.read()
    qtbot.waitUntil(lambda: not window.code_runner.running, timeout=120_000)
    window.wait_for_layout()
    page = window.scope_page.current
    assert "microgpt_step.py, by scope" in page.title.text() and page.items
    qtbot.waitUntil(lambda: page._values_job.isFinished(), timeout=120_000)
