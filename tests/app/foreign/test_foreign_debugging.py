"""Stepping the learner's OWN backward pass in the studio's debugger (issue 18 item 2):
after a check, the debugger replays the grads their `_backward` calls left, stops after
the first wrong step with node, op, expected vs got and the cause, and shows their
(wrong) grad on the canvas. Their own expression is checked and stepped the same way."""

import os

import pytest

import app.foreign.engine_dialog as engine_dialog
from app.startup import main
from core.debugger.foreign_replay import ReplayStepper

ENGINES = os.path.join(os.path.dirname(__file__), "..", "..", "data", "engines")


def engine(name):
    return os.path.abspath(os.path.join(ENGINES, f"{name}.py"))


@pytest.fixture
def check(monkeypatch, window, qtbot):
    """check(name, expression=None): File → Debug my engine… on a corpus engine; the dialog."""

    def run(name, expression=None):
        monkeypatch.setattr(engine_dialog, "choose_engine_file", lambda parent: engine(name))
        monkeypatch.setattr(engine_dialog, "confirm_run", lambda parent, path: True)
        dialog = engine_dialog.debug_my_engine(window.engine_checks, expression)
        qtbot.waitUntil(lambda: dialog.report is not None, timeout=300_000)
        return dialog

    yield run
    for dialog in window.findChildren(engine_dialog.EngineCheckDialog):
        dialog.close()


def node_named(window, name):
    return next(nid for nid, node in window.session.doc.nodes.items() if node.label == name)


def test_an_assign_bug_stops_at_the_node_used_twice_with_their_grad(window, check):
    # h = x*y is used twice by h*h: with `=` instead of `+=` their * keeps one contribution
    dialog = check("bug_assign", "x = 2; y = -3; h = x*y; f = h*h + y")
    fault = dialog.report["fault"]
    assert fault["case"].startswith("your expression") and fault["diagnosis"] == "assign"
    dbg = window.debugger
    assert isinstance(dbg.controller.stepper, ReplayStepper)
    assert dbg.controller.phase == "backward" and dbg.controller.position == 2  # f's step, then h·h's: the wrong one
    record = dbg.controller.last_record
    assert dbg.controller.name(record.node) == "h·h" and record.node._op == "*"
    assert "Stopped: wrong gradient at h·h (op *)" in dbg.explanation_text()
    assert "`=` instead of `+=`" in dbg.explanation_text()
    assert "your _backward made it -6.0000 ✗" in dbg.explanation_text()  # THEIR grad, not the studio's -12
    h = node_named(window, "h")
    assert window.session.values[h].grad == -6.0
    assert window.scene.node_items()[h].grad == -6.0  # the canvas shows their grad
    assert window.scene.marks.highlighted_nodes() == {fault["node_id"]}
    # stepping on goes through THEIR remaining steps; back and forth is exact
    dbg.controller.step()
    assert window.session.values[node_named(window, "x")].grad == -6.0 * -3.0
    dbg.controller.step_back()
    dbg.controller.step_back()
    assert window.session.values[h].grad == 0.0 and dbg.controller.position == 1
    dbg.controller.step()  # F10 onto the wrong step stops there too
    assert dbg.controller.stop_reason.startswith("wrong gradient at h·h")


def test_the_quiz_on_their_wrong_step_grades_the_chain_rule_and_names_their_grad(window, check, qtbot):
    # predicting the right -12 is right; the canvas shows their -6 and the feedback says why
    check("bug_assign", "x = 2; y = -3; h = x*y; f = h*h + y")
    dbg = window.debugger
    dbg.set_quiz_mode(True)
    dbg.controller.step_back()
    dbg.controller.step()  # F10 onto their wrong step, in quiz mode
    text = dbg.explanation_text()
    assert "By the chain rule, what should h.grad be now?" in text
    assert "-12" not in text  # neither the stop banner nor a line gives the answer away
    assert text.index("Quiz: ") < text.index("Stopped: ")
    # repro: the status bar kept the run's "Stopped: ... h.grad should change by -12.0000" for 8 s
    status = window.statusBar().currentMessage()
    assert "-12" not in status and status.startswith("Quiz: predict the new grad")
    assert not dbg.quiz_box.isHidden()
    with qtbot.waitSignal(dbg.controller.quizAnswered, timeout=10_000) as answered:
        dbg.quiz_edit.setText("-12")
        dbg.quiz_edit.returnPressed.emit()
    assert answered.args[0] is True
    text = dbg.explanation_text()
    assert "✔ Right: h.grad should become -12.0000. Your engine made it -6.0000 — that is the bug" in text
    assert "Stopped: wrong gradient at h·h (op *)" in text  # the reason, now that it was answered
    assert text.index("✔ Right") < text.index("Stopped:")  # the answer's feedback first: a short dock shows it
    assert window.scene.node_items()[node_named(window, "h")].grad == -6.0  # as the feedback says
    assert dbg.controller.quiz_score == [1, 1]


def test_a_battery_bug_is_stepped_without_an_expression(window, check):
    dialog = check("bug_swapped_mul")
    fault = dialog.report["fault"]
    dbg = window.debugger.controller
    assert isinstance(dbg.stepper, ReplayStepper)
    assert dbg.name(dbg.last_record.node) == fault["node"] == "x·y"
    assert "operands swapped" in dbg.stop_reason
    x = node_named(window, "x")
    assert window.session.values[x].grad == fault["after"]  # their grad: x.data · out.grad


def test_a_right_engine_steps_their_expression_from_step_0(window, check):
    dialog = check("tutorial", "x = 2; y = -3; h = x*y; f = h*h + y")
    assert dialog.report["status"] == "ok"
    dbg = window.debugger.controller
    assert isinstance(dbg.stepper, ReplayStepper) and dbg.phase == "backward" and dbg.position == 0
    dbg.run_to_end()
    assert dbg.stepper.done and not dbg.stop_reason
    assert window.session.values[node_named(window, "x")].grad == 2 * -6.0 * -3.0
    window.undo_stack.undo()  # the user's graph is back, with the studio's own stepper
    assert not isinstance(dbg.stepper, ReplayStepper)


def test_a_bad_expression_runs_nothing(window, check, qtbot):
    dialog = check("tutorial")
    # the first check's thread ends just after its report shows: under load it was still running at the
    # assertion below (two full runs), which is about the bad expression starting nothing
    dialog.worker.wait()
    before = window.session.doc.to_dict()
    dialog.expression.setText("x*y + foo(x)")
    assert not dialog.check_expression()
    assert "unknown function 'foo'" in dialog.status.text() and "Nothing was run" in dialog.status.text()
    assert not dialog.worker.isRunning() and window.session.doc.to_dict() == before


def test_an_expression_sent_as_the_report_shows_is_checked_not_ignored(window, check, monkeypatch, qtbot):
    # repro (failed once in CI under load): the report had come but the check's thread had not
    # quite ended, and the dialog ignored Return in silence -- even for an unreadable expression
    dialog = check("tutorial")
    dialog.worker.wait()
    monkeypatch.setattr(dialog.worker, "isRunning", lambda: True)  # the thread as it ends
    dialog.expression.setText("x*y + foo(x)")
    assert not dialog.check_expression()
    assert "unknown function 'foo'" in dialog.status.text() and "Nothing was run" in dialog.status.text()
    dialog.expression.setText("x = 2; y = -3; h = x*y; f = h*h + y")
    assert dialog.check_expression()  # waits the moment out, then checks
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=300_000)
    assert dialog.report["status"] == "ok"
    dialog.report = None  # a check under way: its report comes first, and the dialog says so
    assert not dialog.check_expression()
    assert "still running" in dialog.status.text()
    dialog.worker.wait()  # the real thread (only isRunning is patched)


def test_typing_an_expression_in_the_dialog_checks_it(window, check, qtbot):
    dialog = check("bug_assign")
    dialog.expression.setText("x = 2; y = -3; h = x*y; f = h*h + y")
    assert dialog.check_expression()
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=300_000)
    assert dialog.report["cases"][0]["name"].startswith("your expression")
    assert window.debugger.controller.stop_reason.startswith("wrong gradient at h·h")


def test_cli_expression(capsys):
    code = main(["--check-engine", engine("bug_assign"), "--expr", "x = 2; y = -3; h = x*y; f = h*h + y"])
    out = capsys.readouterr().out
    assert code == 1
    assert "First wrong gradient, in test: your expression: x = 2; y = -3; h = x*y; f = h*h + y" in out
    assert "node:      h·h" in out
    code = main(["--check-engine", engine("tutorial"), "--expr", "x*y + foo(x)"])
    assert code == 2
    assert "unknown function 'foo'" in capsys.readouterr().out


def test_the_lessons_bundled_engine_stops_on_screen_at_the_power_rule(window, check, monkeypatch, qtbot):
    bundled = os.path.join(os.path.dirname(__file__), "..", "..", "..", "resources", "engines", "tutorial_value.py")
    monkeypatch.setattr(engine_dialog, "choose_engine_file", lambda parent: os.path.abspath(bundled))
    monkeypatch.setattr(engine_dialog, "confirm_run", lambda parent, path: True)
    dialog = engine_dialog.debug_my_engine(window.engine_checks)
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=300_000)
    dbg = window.debugger.controller
    assert isinstance(dbg.stepper, ReplayStepper)
    assert dbg.name(dbg.last_record.node) == "x^2"
    assert "power rule off" in dbg.stop_reason
    x = node_named(window, "x")
    assert window.session.values[x].grad == 4.5  # their k·x^k at x = -1.5, not the right -3


def test_an_order_bug_steps_their_backward_calls(window, check):
    dialog = check("bug_order_recursive")
    fault = dialog.report["fault"]
    dbg = window.debugger.controller
    assert [dbg.name(v) for v in dbg.stepper.order].count("h") == 2  # h = x*y: the test's own name
    assert dbg.position == fault["call"] + 1 and dbg.name(dbg.last_record.node) == "h"
    text = window.debugger.explanation_text()
    # their _prev is a set, so which user of h their recursion reaches first varies
    later = "h·z" if "before h·z's" in fault["cause"] else "h + z"
    assert f"your backward() ran h's _backward before {later}'s" in fault["cause"]
    assert f"is only partial: {later} has not passed its gradient back yet" in text
    assert fault["cause"] in text


def test_debug_engine_on_the_command_line_opens_the_stopped_debugger(window, qtbot, tmp_path):
    dialog = engine_dialog.open_engine_check(window.engine_checks, engine("bug_swapped_mul"), wait=True)
    assert dialog.report["status"] == "wrong"
    assert "operands swapped" in window.debugger.controller.stop_reason
    dialog.close()
    out = tmp_path / "stopped.png"
    assert main(["--no-welcome", "--debug-engine", engine("bug_assign"), "--screenshot", str(out)]) == 0
    assert out.stat().st_size > 10_000


def test_debug_engine_with_a_bad_expression_runs_nothing(window):
    dialog = engine_dialog.open_engine_check(window.engine_checks, engine("tutorial"), "x*(y", wait=True)
    assert dialog.report["status"] == "unusable" and "your expression 'x*(y'" in dialog.status.text()
    assert not isinstance(window.debugger.controller.stepper, ReplayStepper)
    dialog.close()


STEPPED_BUGS = [
    "bug_assign",
    "bug_missing_out_grad",
    "bug_swapped_mul",
    "bug_sub_sign",
    "bug_power",
    "bug_relu",
    "bug_tanh",
    "bug_exp",
    "bug_order_forward",
    "bug_order_recursive",
    "bug_no_backward",
]  # bug_not_zeroed is a fault between two passes: no one pass to step


@pytest.mark.parametrize("name", STEPPED_BUGS)
def test_each_classic_bug_stops_the_debugger_at_its_node_with_their_grad(window, check, name):
    dialog = check(name)
    fault = dialog.report["fault"]
    dbg = window.debugger.controller
    assert isinstance(dbg.stepper, ReplayStepper)
    assert dbg.name(dbg.last_record.node) == fault["node"]
    assert fault["cause"] in dbg.stop_reason
    assert fault["cause"] in window.debugger.explanation_text()
    if fault.get("operand_id"):
        item = window.scene.node_items()[fault["operand_id"]]
        assert item.grad == window.session.values[fault["operand_id"]].grad == fault["after"]


def test_a_learners_big_graph_opens_collapsed_from_the_command_line_and_the_menu(window, qtbot, tmp_path, monkeypatch):
    # issue 40: --debug-engine (and Debug my engine) with a file that builds a ~50k-node MLP graph showed the
    # studio's own f: the graph was never looked at. It opens collapsed, grouped as show(loss) groups it.
    from tests.core.foreign.learner_values import big_mlp_file

    path = str(big_mlp_file(tmp_path, 70))
    dialog = engine_dialog.open_engine_check(window.engine_checks, path, wait=True)
    assert dialog.report["status"] == "ok"
    qtbot.waitUntil(lambda: bool(window.scope_page.current and window.scope_page.current.items), timeout=120_000)
    page = window.scope_page.current
    assert window.training.stack.currentWidget() is page
    assert page.graph.inferred and page.graph.n > 50_000 and page.graph.name(page.graph.root) == "loss"
    assert page.title.text().startswith("<b>loss (my_engine.py), collapsed</b> — ")
    assert len(page.items) <= 2_000  # a first view of blocks, not 50k boxes
    assert "opened collapsed" in dialog.finding.toPlainText()
    qtbot.waitUntil(lambda: page._values_job.isFinished(), timeout=120_000)
    assert page.step().text  # its backward pass, block by block
    dialog.close()
    monkeypatch.setattr(engine_dialog, "choose_engine_file", lambda parent: path)
    monkeypatch.setattr(engine_dialog, "confirm_run", lambda parent, p: True)
    page.back()
    dialog = engine_dialog.debug_my_engine(window.engine_checks)  # the menu's way
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=300_000)
    qtbot.waitUntil(lambda: window.training.stack.currentWidget() is window.scope_page.current, timeout=120_000)
    window.wait_for_layout()
    qtbot.waitUntil(lambda: window.scope_page.current._values_job.isFinished(), timeout=120_000)
    dialog.close()
