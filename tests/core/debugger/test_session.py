"""A whole debug session, headless: phases, breakpoints, break conditions, edits (the quiz: test_quiz.py).

The reference for every number is core itself: a BackwardStepper on fresh
Values of the same graph, or backward().
"""

import math

import pytest

from core.debugger.session import (
    ALL_STEPS_RUN,
    BACKWARD,
    FORWARD,
    GRADS_CHANGED,
    GRAPH_CHANGED,
    IDLE,
    NO_LEAF_BREAKPOINTS,
    NOTHING_TO_STEP,
    PASS_DONE,
    SELECT_A_NODE,
    DebugSession,
)
from core.debugger.stepper import BackwardStepper
from core.document.commands import RemoveNodes, SetLabel, SetValue
from core.document.compile import compile_document
from core.document.expr import parse
from core.document.graph import GraphDocument
from core.engine import Value, topological_order

TUTORIAL = "x = Value(2.0, label='x')\ny = Value(3.0, label='y')\nf = x*y + y**2\n"
# parse(TUTORIAL): n1 x, n2 y, n3 (x·y), n4 (y^2), n5 f = n3 + n4


class Harness:
    """A document, its compile and a DebugSession told about both, as the app wires them."""

    def __init__(self, text=TUTORIAL):
        self.doc = parse(text)
        self.debug = DebugSession(self.doc, compile_document(self.doc))
        self.doc.changed.connect(self.debug.document_changed)

    def edit(self, command):
        """Edit the document, then compile: what the app's session does on an edit."""
        command.do(self.doc)
        return self.debug.load(compile_document(self.doc))

    def id_of(self, label):
        (nid,) = [nid for nid, node in self.doc.nodes.items() if node.label == label]
        return nid

    def grads(self):
        return [v.grad for v in topological_order(self.debug.stepper.root)]


def tutorial_values():
    x = Value(2.0, label="x")
    y = Value(3.0, label="y")
    return x, y, x * y + y**2


def grads_by_topo(root):
    return [v.grad for v in topological_order(root)]


@pytest.fixture
def h():
    return Harness()


# -----------------------------------------------------------------------------
# phases and stepping


def test_a_new_session_is_idle_with_a_plan_and_touches_no_grad(h):
    d = h.debug
    root = d.stepper.root
    root.grad = 7.0  # whatever was there stays
    assert d.phase == IDLE and d.position == 0 and d.total == 3
    assert [d.name(v) for v in d.stepper.order] == ["f", "(y^2)", "(x·y)"]
    assert root.grad == 7.0 and d.row_of("n3") == 2 and d.row_of("n1") is None


def test_start_zeroes_every_grad_and_measures_the_finished_pass(h):
    d = h.debug
    move = d.start()
    assert move.ok and move.moved and move.started == BACKWARD and move.record is None
    assert d.phase == BACKWARD and d.position == 0
    assert h.grads() == [0.0, 0.0, 0.0, 0.0, 1.0]
    assert d.grad_max == 8.0  # y.grad at the end of the pass


def test_each_step_equals_the_core_stepper_and_names_what_it_touched(h):
    d = h.debug
    d.start()
    _x, _y, f = tutorial_values()
    reference = BackwardStepper(f)
    expected_touched = [{"n3", "n4"}, {"n2"}, {"n1", "n2"}]
    for touched in expected_touched:
        move = d.step()
        ref = reference.step()
        assert move.touched == touched and move.started == ""
        assert move.record.grads_after == ref.grads_after and move.records[0].node is move.record.node
        assert h.grads() == grads_by_topo(f)
    assert d.stepper.done
    _x, _y, fresh = tutorial_values()
    fresh.backward()
    assert h.grads() == grads_by_topo(fresh)
    done = d.step()
    assert done.ok and not done.moved and done.message == ALL_STEPS_RUN


def test_a_step_from_idle_starts_the_pass_first(h):
    d = h.debug
    move = d.step()
    assert move.started == BACKWARD and d.position == 1 and move.record.node is d.stepper.root


def test_f10_from_ready_runs_step_one_and_says_when_the_pass_is_done(h):
    """Issue 17.5: the first F10 from "Debugger ready" ran no step; F10 at the end said nothing."""
    d = h.debug
    first = d.step_or_start()
    assert first.started == BACKWARD and first.record.index == 0 and d.position == 1
    assert d.step_or_start().record.index == 1 and d.position == 2
    last = d.step_or_start()
    assert d.stepper.done and last.message == PASS_DONE
    again = d.step_or_start()
    assert again.ok and not again.moved and again.message == ALL_STEPS_RUN
    assert "done" in ALL_STEPS_RUN and "done" in PASS_DONE


def test_step_back_restores_every_grad(h):
    d = h.debug
    d.start()
    start = h.grads()
    d.step()
    after_one = h.grads()
    d.step()
    move = d.step_back()
    assert move.touched == {"n2"} and h.grads() == after_one and move.record.index == 0
    d.step_back()
    assert d.position == 0 and h.grads() == start
    assert not d.step_back().ok  # nothing left to undo


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_seek_equals_k_single_steps(h, k):
    d = h.debug
    d.run_to_end()
    move = d.seek(k)
    _x, _y, f = tutorial_values()
    reference = BackwardStepper(f)
    for _ in range(k):
        reference.step()
    assert d.position == k and h.grads() == grads_by_topo(f)
    # the operands of the steps undone: f -> n3, n4; (y^2) -> n2; (x·y) -> n1, n2
    assert move.touched == [{"n1", "n2", "n3", "n4"}, {"n1", "n2"}, {"n1", "n2"}, set()][k]
    assert (move.record is None) == (k == 0)


def test_run_to_a_node_stops_before_its_step_and_seeks_back_to_one_passed(h):
    d = h.debug
    d.run_to("n3")
    assert d.stepper.current is d.value("n3") and d.position == 2
    d.run_to("n1")  # a leaf: until its grad is final
    assert d.stepper.done and d.value("n1").grad == 3.0
    move = d.run_to("n4")
    assert d.position == 1 and list(move.records) == []
    assert d.run_to(None).message == SELECT_A_NODE


def test_nothing_to_step_without_an_output():
    d = DebugSession(GraphDocument(), None)
    for move in (d.start(), d.step(), d.run_to_end(), d.seek(2), d.forward_step(), d.play()):
        assert not move.ok and move.message == NOTHING_TO_STEP
    assert d.phase == IDLE and d.stepper is None
    # names and formulas are empty with no graph (formula raised AttributeError on None)
    assert d.name(Value(1.0)) == d.formula(Value(1.0)) == ""


# -----------------------------------------------------------------------------
# breakpoints and break conditions


def test_a_breakpoint_stops_a_run_before_its_node_and_continue_passes_it(h):
    d = h.debug
    assert d.toggle_breakpoint("n3").ok and d.breakpoint_ids == {"n3"}
    move = d.run_to_end()
    assert d.stepper.current is d.value("n3") and d.position == 2
    assert d.stop_reason == "breakpoint at (x·y)" and move.message == "Stopped: breakpoint at (x·y)"
    assert move.touched == {"n2", "n3", "n4"}
    d.run_to_end()  # continue: a run never stops before its first step
    assert d.stepper.done and d.stop_reason == ""
    d.toggle_breakpoint("n3")
    assert d.breakpoint_ids == set() and d.stepper.breakpoints == set()


def test_a_leaf_or_nothing_takes_no_breakpoint(h):
    d = h.debug
    move = d.toggle_breakpoint("n1")
    assert not move.ok and move.message == NO_LEAF_BREAKPOINTS and not d.breakpoint_ids
    assert not d.toggle_breakpoint(None).ok
    assert not d.set_breakpoint("n99").ok


def test_breakpoints_outlive_a_recompile_but_not_their_node_or_a_new_graph(h):
    d = h.debug
    d.set_breakpoint("n3")
    d.set_breakpoint("n4")
    h.edit(SetValue("n1", 5.0))
    assert d.breakpoint_ids == {"n3", "n4"} and d.stepper.breakpoints == {d.value("n3"), d.value("n4")}
    h.edit(RemoveNodes(["n4"]))
    assert d.breakpoint_ids == {"n3"}
    h.doc.replace_with(parse(TUTORIAL))  # a new graph, whose ids n1.. mean other nodes
    d.load(compile_document(h.doc))
    assert "n3" in h.doc.nodes and d.breakpoint_ids == set()


def test_a_grad_threshold_stops_after_the_step_that_exceeds_it(h):
    d = h.debug
    d.set_grad_threshold(5.0)
    d.run_to_end()
    assert d.stop_reason == "|grad| of y is 6.0000 > 5" and d.position == 2
    d.set_grad_threshold(None)
    d.run_to_end()
    assert d.stepper.done


def test_a_dead_relu_stops_a_run_before_it():
    h = Harness("z = Value(-1.0, label='z')\nr = (z * 2.0).relu() + z\n")
    d = h.debug
    d.run_to_end()
    assert d.stepper.done  # off by default
    d.set_break_on_dead_relu(True)
    d.start()
    d.run_to_end()
    assert "dead ReLU" in d.stop_reason and d.stepper.current._op == "relu"


def test_a_nonfinite_grad_stops_a_run_unless_turned_off():
    h = Harness("x = Value(0.0, label='x')\ny = x.log() + 1.0\n")
    d = h.debug
    move = d.run_to_end()
    assert d.stop_reason == "non-finite grad inf in x" and d.position == 2  # after log(x), the last step
    assert move.message.startswith("Stopped: non-finite grad")
    d.set_break_on_nonfinite(False)
    d.start()
    d.run_to_end()
    assert d.stepper.done and d.stop_reason == "" and math.isinf(d.value("n1").grad)


# -----------------------------------------------------------------------------
# playing


def test_play_beats_stop_at_a_breakpoint_and_go_past_it_when_played_again(h):
    d = h.debug
    d.set_breakpoint("n3")
    assert d.play().started == BACKWARD
    beats = []
    while True:
        move = d.play_step()
        beats.append(move)
        if not move.go_on:
            break
    assert d.position == 2 and d.stop_reason == "breakpoint at (x·y)"
    assert beats[-1].message == "Stopped: breakpoint at (x·y)"
    assert d.play().started == ""  # on from here, not from step 0
    move = d.play_step()
    assert d.stepper.done and not move.go_on
    assert d.play().started == BACKWARD  # done: play starts over


def test_play_waits_while_a_quiz_question_is_open(h):
    d = h.debug
    d.set_quiz_mode(True)
    d.play()
    d.play_step()
    assert d.quiz_question()
    waiting = d.play_step()
    assert waiting.go_on and not waiting.moved and d.position == 1
    d.reveal_quiz()
    d.play_step()
    assert d.position == 2


# -----------------------------------------------------------------------------
# the forward pass


def test_forward_steps_touch_one_node_each_and_lead_into_the_backward_pass(h):
    d = h.debug
    assert d.forward_step_or_start().started == FORWARD and d.phase == FORWARD
    fs = d.forward_stepper
    move = d.forward_step()
    assert move.touched == {"n3"} and fs.computed(d.value("n3")) and move.record.index == 0
    back = d.step_back()  # in the forward pass: un-compute
    assert back.touched == {"n3"} and back.records[0].node is d.value("n3") and back.record is None
    assert not fs.computed(d.value("n3"))
    move = d.forward_all()
    assert move.touched == {"n3", "n4", "n5"} and fs.done
    assert d.forward_step().message.startswith("The forward pass is done")
    assert d.step_or_start().started == BACKWARD and d.forward_stepper is fs


# -----------------------------------------------------------------------------
# edits end the session


def test_a_new_leaf_value_ends_the_session_and_says_so(h):
    d = h.debug
    d.start()
    d.step()
    move = h.edit(SetValue("n1", 5.0))
    assert d.phase == IDLE and move.new_plan and move.moved
    assert move.ended == d.notice and d.notice.startswith("x = 5.0000 now, so the forward pass was recomputed")
    assert d.stepper.root.data == 5.0 * 3.0 + 9.0
    d.run_to_end()
    assert d.value("n1").grad == 3.0


def test_a_structural_edit_ends_the_session(h):
    d = h.debug
    d.start()
    move = h.edit(RemoveNodes(["n3"]))
    assert d.phase == IDLE and move.ended == GRAPH_CHANGED
    h.edit(SetValue("n1", 1.0))  # idle: nothing to end
    assert d.notice == ""


def test_a_value_and_a_structure_edit_together_is_a_graph_change(h):
    d = h.debug
    d.start()
    SetValue("n1", 4.0).do(h.doc)
    RemoveNodes(["n3"]).do(h.doc)
    assert d.load(compile_document(h.doc)).ended == GRAPH_CHANGED


def test_a_rename_keeps_the_session_and_renames_every_text(h):
    d = h.debug
    d.run_to("n3")
    record = d.step().record
    SetLabel("n3", "m").do(h.doc)
    assert d.phase == BACKWARD and d.name(record.node) == "m"
    assert "m.grad" in record.text and d.formula(record.node) == "m = x · y"


def test_grads_changed_elsewhere_end_a_session_but_not_idle(h):
    d = h.debug
    assert not d.grads_changed_elsewhere().ok
    d.start()
    move = d.grads_changed_elsewhere()
    assert d.phase == IDLE and move.ended == GRADS_CHANGED and d.notice == GRADS_CHANGED


def test_stop_leaves_the_grads_of_one_backward_to_the_last_bit(h):
    d = h.debug
    d.start()
    d.step()
    move = d.stop()
    assert d.phase == IDLE and move.started == IDLE and not move.new_plan
    _x, _y, f = tutorial_values()
    f.backward()
    assert h.grads() == grads_by_topo(f)
    assert d.stop().new_plan  # stopping when idle: a fresh plan


# -----------------------------------------------------------------------------
# what other views must hide


def test_concealed_says_which_numbers_a_view_must_hide_and_why(h):
    d = h.debug
    assert d.concealed("n3") == {}  # idle: every number may show
    d.forward_start()
    assert d.concealed("n3") == {
        "grad": "the forward pass has not computed it yet",
        "data": "the forward pass has not computed it yet",
    }
    assert d.concealed("n1") == {"grad": "the backward pass comes after the forward pass"}
    d.set_quiz_mode(True)
    d.run_to("n3")
    d.step()
    assert d.concealed("n1") == {"grad": "quiz: predict it in the debugger"} and d.concealed("n3") == {}
    d.answer_quiz("3")
    assert d.concealed("n1") == {} and d.concealed("n99") == {}
