"""A learner's recorded backward pass, stepped by the studio's DebugSession without a
window: their grads after each of their `_backward` calls, a stop after the first wrong
one, their order when their backward() walks the graph wrongly, and only on its graph."""

import os

import pytest

from core.debugger.foreign_replay import ForeignReplay, ReplayStepper
from core.debugger.quiz import QUIZ_HOLDS_STOP
from core.debugger.session import DebugSession
from core.debugger.stepper import BackwardStepper
from core.document.compile import compile_document
from core.document.expr import parse
from core.foreign.document import to_document
from core.foreign.runner import check_file

ENGINES = os.path.join(os.path.dirname(__file__), "..", "..", "data", "engines")
SLOW_OK = 300.0  # a generous wall limit: the machine may be busy
EXPR = "x = 2; y = -3; h = x*y; f = h*h + y"


def report_of(name, expression=None):
    return check_file(os.path.join(ENGINES, f"{name}.py"), timeout=SLOW_OK, expression=expression)


def session_on(case):
    doc, problem = to_document(case["graph"])
    assert problem is None
    session = DebugSession(doc)
    assert session.load(compile_document(doc), replay=ForeignReplay(case)).ok
    return session


def grads(session):
    return {session.name(v): v.grad for v in session.stepper.topo}


@pytest.fixture(scope="module")
def assign_case():
    report = report_of("bug_assign", EXPR)
    case = report["cases"][0]
    assert case["own"] and case["status"] == "fail"
    return case


@pytest.fixture(scope="module")
def tutorial_case():
    case = report_of("tutorial", EXPR)["cases"][0]
    assert case["status"] == "pass"
    return case


def test_the_record_goes_on_past_the_wrong_step(assign_case):
    oks = [r["ok"] for r in assign_case["records"]]
    assert oks == [True, False, None]  # f, then h·h (wrong), then h, run but not checked
    assert assign_case["records"][2]["after_fault"]


def test_their_grads_are_replayed_and_the_run_stops_after_the_wrong_step(assign_case):
    session = session_on(assign_case)
    assert isinstance(session.stepper, ReplayStepper)
    assert grads(session)["h"] == -6.0  # at rest: their whole pass (ours gives -12)
    move = session.run_to_end()
    assert session.position == 2 and session.name(move.record.node) == "h·h"
    assert session.stop_reason.startswith("wrong gradient at h·h (op *): h.grad should change by -12.0000")
    assert "`=` instead of `+=`" in move.message
    assert grads(session) == {"x": 0.0, "y": 1.0, "h": -6.0, "h·h": 1.0, "f": 1.0}
    assert "but your _backward made it -6.0000 ✗ (was 0.0000, should be -12.0000)" in move.record.lines[1]
    assert session.stepper.wrong_operands(move.record) == {move.record.children[0]}
    session.step()  # on through THEIR remaining step
    assert grads(session)["x"] == 18.0 and session.stepper.done
    session.step_back()
    session.step_back()
    assert grads(session)["h"] == 0.0 and session.position == 1
    session.step()  # a single step onto the wrong one stops there too
    assert session.stop_reason.startswith("wrong gradient at h·h")


def test_a_run_to_a_node_replays_their_grads_too(assign_case):
    # run_to (and a run with breakpoints) stepped with the studio's own _backward: h.grad -12
    session = session_on(assign_case)
    stepper = session.stepper
    stepper.reset()
    h = session.value(next(n for n, node in session.doc.nodes.items() if node.label == "h"))
    stepper.run_to(h)
    assert stepper.position == 2 and stepper.stop_reason.startswith("wrong gradient at h·h")
    assert grads(session)["h"] == -6.0  # theirs, not ours (-12)


def test_the_stepper_contributions_are_their_changes(assign_case):
    session = session_on(assign_case)
    session.run_to_end()
    h = session.value(next(n for n, node in session.doc.nodes.items() if node.label == "h"))
    assert [amount for _record, amount in session.stepper.contributions(h)] == [-6.0]


def test_another_graph_gets_the_studios_stepper(assign_case):
    other = parse("a*b + c")  # the user's own graph, after Undo
    session = DebugSession(other, compile_document(other))
    move = session.load(session.compiled, replay=ForeignReplay(assign_case))
    assert not move.ok and "for another graph" in move.message
    assert type(session.stepper) is BackwardStepper and session.replay is None


def test_a_replay_is_kept_for_its_graph_and_dropped_for_another(assign_case):
    session = session_on(assign_case)
    session.load(compile_document(session.doc))  # the same graph compiled again (a reset)
    assert isinstance(session.stepper, ReplayStepper)
    session.load(compile_document(parse("a*b + c")))  # another graph (Undo): the studio's stepper
    assert type(session.stepper) is BackwardStepper and session.replay is None


def test_an_order_bug_replays_their_own_calls():
    report = report_of("bug_order_recursive")
    fault = report["fault"]
    case = next(c for c in report["cases"] if c["name"] == fault["case"])
    assert case["replay"] == "backward()"
    session = session_on(case)
    names = [session.name(v) for v in session.stepper.order]
    assert names.count("h") == 2  # their recursive backward() runs x·y's _backward twice
    session.run_to_end()
    assert session.name(session.last_record.node) == fault["node"] == "h"
    assert session.position == fault["call"] + 1
    assert "your backward() ran h's _backward before" in session.stop_reason  # which user: set order
    assert session.stepper.status(session.last_record.node) == "partial"


def test_a_right_engine_replays_to_the_end_without_a_stop():
    report = report_of("tutorial", EXPR)
    case = report["cases"][0]
    assert case["status"] == "pass" and case["graph"]
    session = session_on(case)
    session.run_to_end()
    assert session.stepper.done and not session.stop_reason
    ours = DebugSession(parse(EXPR))
    ours.load(compile_document(ours.doc))
    ours.run_to_end()
    assert sorted(grads(session).values()) == sorted(grads(ours).values())


# -- the quiz grades a prediction against the chain rule, not against their engine


def quiz_on_the_wrong_step(case):
    """A session in quiz mode just after their wrong step (h·h), h.grad hidden."""
    session = session_on(case)
    session.set_quiz_mode(True)
    session.start()
    session.step()  # f's step: right
    session.reveal_quiz()
    session.step()  # h·h's step: their `=` keeps one of h's two contributions
    h = session.last_record.children[0]
    assert session.name(h) == "h" and session.quiz_hidden() == {h}
    return session, h


def test_the_quiz_counts_the_chain_rules_grad_right_and_says_their_engine_differs(assign_case):
    session, h = quiz_on_the_wrong_step(assign_case)
    question = session.quiz_question()
    assert question == ("h·h just ran your _backward. By the chain rule, what should h.grad be now? (It was 0.0000.)")
    # the stop after their wrong step names the answer: it waits for the prediction
    assert session.stop_reason.startswith("wrong gradient at h·h") and "-12" in session.stop_reason
    assert session.shown_stop_reason == QUIZ_HOLDS_STOP and "-12" not in QUIZ_HOLDS_STOP
    move = session.answer_quiz("-12")
    assert move.answer == (
        True,
        "Right: h.grad should become -12.0000. Your engine made it -6.0000 — that is the bug the debugger stops at.",
    )
    assert session.quiz_score == [1, 1]
    assert h.grad == -6.0  # the canvas goes on showing THEIR grad, as the feedback says
    assert session.shown_stop_reason == session.stop_reason


def test_predicting_their_bugs_grad_is_not_right(assign_case):
    session, _h = quiz_on_the_wrong_step(assign_case)
    ok, feedback = session.answer_quiz("-6").answer
    assert not ok and session.quiz_score == [0, 1]
    assert feedback.startswith(
        "Not quite: -6 is what your engine made h.grad, and that is the bug the debugger stops at. "
        "By the chain rule it should become -12.0000, because h.grad += h.data · (h·h).grad"
    )
    session, _h = quiz_on_the_wrong_step(assign_case)
    ok, feedback = session.answer_quiz("5").answer
    assert not ok and feedback.startswith("Not quite: you said 5, but by the chain rule h.grad should become -12.0000")
    assert "your _backward made it -6.0000 ✗" in feedback  # both of h's lines: the sum, and their grad


def test_after_the_wrong_step_the_quiz_still_asks_the_chain_rule(assign_case):
    # step 3, h = x·y, from THEIR h.grad (-6, on the canvas): y.grad = 1 + 2·(-6) = -11; their `=` left -12
    session, _h = quiz_on_the_wrong_step(assign_case)
    session.reveal_quiz()
    session.step()
    x, y = session.last_record.children
    assert session.answer_quiz("18").answer == (True, "Right: x.grad = 18.0000.")  # their engine agrees here
    ok, feedback = session.answer_quiz("-11").answer
    assert (
        ok and feedback == "Right: y.grad should become -11.0000. Your engine made it -12.0000 — it is wrong here too."
    )
    assert y.grad == -12.0 and session.quiz_score == [2, 2]


def test_a_right_engines_quiz_reads_as_the_studios(tutorial_case):
    session, h = quiz_on_the_wrong_step(tutorial_case)  # their h·h is right: no stop
    assert not session.stop_reason and session.shown_stop_reason == ""
    assert session.answer_quiz("-12").answer == (True, "Right: h.grad = -12.0000.")
    session, h = quiz_on_the_wrong_step(tutorial_case)
    ok, feedback = session.answer_quiz("-6").answer
    assert not ok and feedback.startswith("Not quite: you said -6, but h.grad = -12.0000, because h.grad += ")
    assert h.grad == -12.0


def relu_case(x, their_grad, ok):
    """A hand-made record (the runner's plain data) of one relu step."""
    return {
        "name": "relu(x)",
        "graph": [
            {"id": "n1", "name": "x", "raw_op": "", "op": None, "param": None, "children": [], "data": x},
            {"id": "n2", "name": "relu(x)", "raw_op": "ReLU", "op": "relu", "param": None, "children": ["n1"]},
        ],
        "records": [{"node_id": "n2", "operands": [{"id": "n1", "before": 0.0, "after": their_grad}], "ok": ok}],
        "fault": None,
    }


@pytest.mark.parametrize(
    "x, theirs, flagged", [(0.0, 1.0, False), (0.0, 0.0, False), (2.0, 1.0, False), (-1.5, 1.0, True)]
)
def test_the_narration_flags_what_the_checker_rejects(x, theirs, flagged):
    case = relu_case(x, theirs, ok=not flagged)
    case["graph"][1]["data"] = max(x, 0.0)
    session = session_on(case)
    record = session.step().record
    assert session.value("n1").grad == theirs  # their number, whatever ours would be
    assert bool(session.stepper.wrong_operands(record)) == flagged  # relu'(0): 0 and 1 both fine
    assert ("✗" in record.lines[0]) == flagged


def test_a_backward_that_raises_is_the_step_it_stops_on(tmp_path):
    source = open(os.path.join(ENGINES, "tutorial.py"), encoding="utf-8").read()
    broken = source.replace("self.grad += (1 - t**2) * out.grad", "self.grad += (1 - t**2) * out.grad * oops")
    assert broken != source
    path = tmp_path / "raises.py"
    path.write_text(broken, encoding="utf-8")
    report = check_file(str(path), timeout=SLOW_OK)
    fault = report["fault"]
    assert fault["diagnosis"] == "raised" and fault["node"] == "tanh(x)"
    case = next(c for c in report["cases"] if c["name"] == fault["case"])
    session = session_on(case)
    session.run_to_end()
    assert session.name(session.last_record.node) == "tanh(x)"
    assert "raised NameError: name 'oops' is not defined" in session.stop_reason
