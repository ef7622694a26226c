"""File → Debug my engine…: the file runs in a child process off the GUI thread; the dialog
lists the tests and the first wrong gradient; the failing expression is drawn with the
faulty node highlighted; a hostile file leaves the open document untouched."""

import os

import pytest

import app.foreign.engine_dialog as engine_dialog

ENGINES = os.path.join(os.path.dirname(__file__), "..", "..", "data", "engines")


def engine(name):
    return os.path.abspath(os.path.join(ENGINES, f"{name}.py"))


@pytest.fixture
def pick(monkeypatch, window):
    asked = []

    def choose(name, agree=True):
        monkeypatch.setattr(engine_dialog, "choose_engine_file", lambda parent: engine(name) if name else "")
        monkeypatch.setattr(engine_dialog, "confirm_run", lambda parent, path: asked.append(path) or agree)
        return asked

    yield choose
    for dialog in window.findChildren(engine_dialog.EngineCheckDialog):
        dialog.close()


def run_menu(window, qtbot):
    action = next(a for a in window.menus["File"].actions() if a.text() == "Debug my engine…")
    action.trigger()
    dialog = window.findChild(engine_dialog.EngineCheckDialog)
    if dialog is None:
        return None
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=300_000)
    return dialog


def test_a_bug_is_shown_with_its_node_highlighted(window, qtbot, pick):
    asked = pick("bug_swapped_mul")
    dialog = run_menu(window, qtbot)
    assert asked == [engine("bug_swapped_mul")]
    assert dialog.report["fault"]["diagnosis"] == "swapped-operands"
    assert "A wrong gradient at x·y" in dialog.status.text()
    assert "operands swapped" in dialog.finding.toPlainText()
    assert dialog.tests.count() > 5 and dialog.tests.item(0).text().startswith("✓")
    fault = dialog.report["fault"]
    assert fault["node_id"] in window.session.doc.nodes
    assert window.scene.marks.highlighted_nodes() == {fault["node_id"]}
    labels = sorted(n.label for n in window.session.doc.nodes.values() if n.kind == "input")
    assert labels == ["x", "y"]
    dialog.close()


def test_a_correct_engine_passes_and_leaves_the_graph(window, qtbot, pick):
    pick("micrograd_like")
    before = window.session.doc.to_dict()
    dialog = run_menu(window, qtbot)
    assert dialog.report["status"] == "ok"
    assert dialog.status.text().startswith("Every gradient is right")
    assert window.session.doc.to_dict() == before
    dialog.close()


@pytest.mark.parametrize("name, words", [("hostile_exit", "exit code 3"), ("hostile_no_class", "no Value class")])
def test_hostile_files_leave_the_document_untouched(window, qtbot, pick, name, words):
    pick(name)
    before = window.session.doc.to_dict()
    dialog = run_menu(window, qtbot)
    assert words in dialog.status.text()
    assert window.session.doc.to_dict() == before
    dialog.close()


def test_cancelling_runs_nothing(window, qtbot, pick):
    pick(None)
    assert engine_dialog.debug_my_engine(window.engine_checks) is None
    asked = pick("tutorial", agree=False)
    assert engine_dialog.debug_my_engine(window.engine_checks) is None and asked == [engine("tutorial")]


def test_the_gui_stays_responsive_while_the_file_loops(window, qtbot, pick):
    pick("hostile_loop")
    dialog = engine_dialog.EngineCheckDialog(window.engine_checks, engine("hostile_loop"), timeout=3.0)
    dialog.show()
    dialog.start()
    ticks = []
    from PySide6.QtCore import QTimer

    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(10)
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=300_000)
    timer.stop()
    assert ticks, "the event loop ran while the child looped"
    assert "did not finish within 3 s" in dialog.status.text()
    dialog.close()


def test_a_minitorch_package_folder_is_debugged_at_its_op(window, qtbot, monkeypatch, tmp_path):
    package = tmp_path / "minitorch"
    package.mkdir()
    source = open(os.path.join(ENGINES, "world", "minitorch_bug_mul.py"), encoding="utf-8").read()
    (package / "scalar.py").write_text(source, encoding="utf-8")
    (package / "__init__.py").write_text("from .scalar import Scalar, topological_sort  # noqa\n", encoding="utf-8")
    monkeypatch.setattr(engine_dialog, "choose_engine_folder", lambda parent: str(package))
    monkeypatch.setattr(engine_dialog, "confirm_run", lambda parent, path: True)
    action = next(a for a in window.menus["File"].actions() if a.text() == "Debug my engine package…")
    action.trigger()
    dialog = window.findChild(engine_dialog.EngineCheckDialog)
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=300_000)
    fault = dialog.report["fault"]
    assert fault["diagnosis"] == "swapped-operands" and fault["op"] == "Mul"
    assert "return a * d, b * d" in dialog.finding.toPlainText()  # their line, from their package
    assert window.scene.marks.highlighted_nodes() == {fault["node_id"]}
    dialog.close()
