"""core/foreign/judge.py in this process: what the chain rule wants of one step, the
studio's table where no difference quotient stands (relu at its kink, either operand
order), the 1 % band in which their function's derivative stands beside the exact one,
and whole verdicts from numbers a hand-made class produced (core/foreign/local.py)."""

import pytest

from core.foreign import battery, judge, stepping
from core.foreign.agree import FLOAT64, Derivative
from core.foreign.child.probe import Probe
from core.foreign.local import _round_trip, check_case
from core.foreign.trace import trace
from tests.core.foreign import rule_values as rv
from tests.core.foreign.learner_values import TupleValue as V


def table_wants(out, operand, out_grad, **leaves):
    """expected_changes for `operand` under `out` with no test step: the studio's table."""
    tr = trace(out, {id(v): name for name, v in leaves.items()})
    root = tr.by_id[tr.root]
    child = next(i for i, obj in tr.objects.items() if obj is operand)
    wants = stepping.expected_changes(root, None, {}, {}, {}, out_grad, tr)
    return wants[child]


def test_relu_at_exactly_zero_wants_zero_or_out_grad():
    # issue 41's surviving plant: relu'(0) is 0 or 1, so either change is right at the kink
    x = V(0.0)
    want, how, ports, local = table_wants(V(0.0, (x,), "ReLU"), x, -2.0, x=x)
    assert sorted(want) == [-2.0, 0.0] and how == "the studio's derivative of relu" and ports == [0]


@pytest.mark.parametrize("x, change", [(-0.001, 0.0), (0.001, -2.0)])
def test_relu_just_off_zero_wants_one_number(x, change):
    v = V(x)
    want, _how, _ports, local = table_wants(V(max(0.0, x), (v,), "ReLU"), v, -2.0, x=v)
    assert want == change and local == [change / -2.0]


def test_an_operand_used_twice_wants_both_ports():
    x = V(3.0)
    want, _how, ports, local = table_wants(V(9.0, (x, x), "*"), x, 1.0, x=x)
    assert want == 6.0 and ports == [0, 1] and local == [3.0, 3.0]


def test_a_node_whose_op_the_studio_does_not_know_has_no_table():
    x = V(0.5)
    tr = trace(V(0.48, (x,), "sin"), {id(x): "x"})
    assert stepping.expected_changes(tr.by_id[tr.root], None, {}, {}, {}, 1.0, tr) is None


def test_their_derivative_stands_beside_the_exact_one_only_within_one_percent():
    assert stepping.near(Derivative(2.0 * (1 + 5e-3), 1e-9, 2.0 * (1 + 5e-3), 2.0 * (1 + 5e-3)), 2.0, FLOAT64)
    assert not stepping.near(Derivative(2.0 * 1.05, 1e-9, 2.1, 2.1), 2.0, FLOAT64)


def judged(V_, name, text):
    case = battery.case(name, text)
    probe = Probe(V_, ())
    return judge.judge(case, _round_trip(probe.run({"name": case.name, "program": case.program})), probe.eps)


def test_a_right_class_passes_and_a_wrong_power_rule_is_named():
    assert judged(rv.Base, "x**3", "x = 1.5; x**3")["status"] == "pass"
    result = judged(rv.PowerBug, "x**2", "x = 1.5; x**2")
    assert result["status"] == "fail" and result["fault"]["diagnosis"] == "power-rule"
    assert result["steps"] >= 1 and result["text"] == "x = 1.5; x ** 2"  # the program as source


def test_their_code_raising_is_a_raised_result_with_its_error():
    class Raises(rv.Base):
        def tanh(self):
            raise ZeroDivisionError("no tanh today")

    result = check_case(Raises, "x = 0.5; x.tanh()")
    assert result["status"] == "error" and "no tanh today" in str(result)


def test_the_reference_grads_are_the_studio_engines():
    prog = battery.program("x = 2.0; y = -3.0; x*y + y**2")
    grads = judge.reference_grads(prog)
    assert grads["x"] == -3.0 and grads["y"] == 2.0 + 2 * -3.0


def test_a_result_with_no_children_is_named_as_cutting_the_graph():
    """Repro (held-out batch 4, AryannSharmaa): "x.grad is 0, should be 0.25 -- in a test of
    truediv alone, so your truediv computes the wrong gradient", of a / that returns a Value
    with no children: no gradient code of theirs is wrong; the graph is cut there."""
    result = check_case(rv.CutDivide, "x = 1.5; y = 4.0; x / y")
    fault = result["fault"]
    assert result["status"] == "fail" and fault["diagnosis"] == "cut-graph", fault
    assert fault["op"] == "truediv" and "keeps no children" in fault["cause"]
    assert "never reaches x and y" in fault["cause"] and "x.grad is 0, should be 0.25" in fault["cause"]


def test_a_step_that_drops_one_operand_is_named_with_that_operand():
    fault = check_case(rv.CutHalf, "x = 1.5; y = 4.0; (x / y) * x")["fault"]
    assert fault["diagnosis"] == "cut-graph" and fault["node"] == "x / y", fault
    assert "does not lead back to y" in fault["cause"] and "never reaches y" in fault["cause"]


def test_a_connected_graph_with_a_wrong_derivative_is_not_called_cut():
    fault = check_case(rv.PowerBug, "x = 1.5; x**3")["fault"]
    assert fault is not None and fault["diagnosis"] != "cut-graph"


def test_grads_that_differ_run_to_run_blame_the_set_order_only_when_some_order_is_right():
    """Repro (held-out batch 5, six engines with `=` for `+=`): "different grads from run to run
    (8 of 8 runs wrong): it depends on the order of a set -- build the topological order ..."
    -- with every order wrong, the order is not the cause, and micrograd's sort was theirs."""
    truth = {"x": Derivative(5.0, 0.0, 5.0, 5.0)}
    all_wrong = judge.results_verdict(truth, [{"x": 3.0}, {"x": 2.0}, {"x": 3.0}], FLOAT64)
    assert all_wrong["status"] == "fail" and "order of a set" not in all_wrong.get("why", "")
    some_right = judge.results_verdict(truth, [{"x": 5.0}, {"x": 2.0}, {"x": 5.0}], FLOAT64)
    assert some_right["status"] == "unstable" and "order of a set" in some_right["why"]
