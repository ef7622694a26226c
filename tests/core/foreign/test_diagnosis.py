"""Each classic bug is recognised from its evidence alone: the numbers of one wrong step
(before, after, expected, out.grad), the order of their backward()'s calls, their final
grads, the grads their zero_grad() left. No child process: small traced graphs and the
numbers a buggy _backward would leave. (tests/core/foreign/test_runner.py runs the same
bugs end to end, from the files in tests/data/engines/.)"""

import math

import pytest

from core.foreign.diagnosis import backward_fault, close, diagnose, order_fault, ref, zeroing_fault
from core.foreign.trace import trace
from tests.core.foreign.learner_values import Slotted
from tests.core.foreign.learner_values import TupleValue as V


def traced(out, **leaves):
    return trace(out, {id(v): name for name, v in leaves.items()})


def nid(tr, value):
    return next(i for i, obj in tr.objects.items() if obj is value)


def why(tr, node, operand, *, before=0.0, after, expected, out_grad=1.0, local=None):
    """diagnose() for `operand` (a Value) under `node` (a Value): their code moved its
    grad from `before` to `after`, the chain rule wanted `expected` added."""
    n = tr.by_id[nid(tr, node)]
    child = nid(tr, operand)
    ports = [p for p, c in enumerate(n.children) if c == child]
    local = local if local is not None else [expected / out_grad] * len(n.children)
    return diagnose(tr, n, child, ports, local, out_grad, before, after, after - before, expected)


def product(a=2.0, b=-3.0):
    x, y = V(a), V(b)
    out = V(a * b, (x, y), "*")
    return traced(out, x=x, y=y), x, y, out


# -----------------------------------------------------------------------------
# One wrong step


def test_assign_an_earlier_contribution_replaced():
    tr, x, _, out = product()
    # x.grad held 5 from another use; `self.grad = other.data * out.grad` left -3
    code, cause = why(tr, out, x, before=5.0, after=-3.0, expected=-3.0)
    assert code == "assign"
    assert cause.startswith("`=` instead of `+=`") and "was already 5" in cause and "replaced it with -3" in cause


def test_assign_one_value_in_both_ports_kept_one_contribution():
    x = V(3.0)
    out = V(9.0, (x, x), "*")
    tr = traced(out, x=x)
    code, cause = why(tr, out, x, after=3.0, expected=6.0, local=[3.0, 3.0])
    assert code == "assign" and "x is both operands of x·x" in cause and "(3 instead of 6)" in cause


def test_missing_out_grad_is_the_bare_local_derivative():
    tr, x, _, out = product()
    code, cause = why(tr, out, x, after=-3.0, expected=6.0, out_grad=-2.0)  # d/dx = y = -3, times -2
    assert code == "missing-out-grad" and "out.grad = -2" in cause and "* out.grad" in cause


def test_swapped_operands_give_the_operands_own_data():
    tr, x, _, out = product()
    code, cause = why(tr, out, x, after=2.0, expected=-3.0)  # x.data where y.data belongs
    assert code == "swapped-operands" and "y.data" in cause and "d(a·b)/da = b" in cause


def test_swapped_operands_is_not_claimed_when_the_operands_are_equal():
    tr, x, _, out = product(2.0, 2.0)
    code, _ = why(tr, out, x, after=2.0, expected=5.0)
    assert code == "wrong-derivative"


def test_a_sign_flip_in_subtraction():
    x, y = V(-1.5), V(2.0)
    out = V(-3.5, (x, y), "-")
    tr = traced(out, x=x, y=y)
    code, cause = why(tr, out, y, after=1.0, expected=-1.0)
    assert code == "sign" and "wrong sign in `-`" in cause


@pytest.mark.parametrize("op", ["neg", "-"])  # a learner's unary minus, spelled as its class spells it
def test_a_sign_flip_in_negation(op):
    # d(−x)/dx = −1: `self.grad += out.grad` in __neg__ adds +g where −g is due (issue 41's surviving plant)
    x = V(1.5)
    out = V(-1.5, (x,), op)
    tr = traced(out, x=x)
    assert tr.by_id[nid(tr, out)].op == "neg"
    code, cause = why(tr, out, x, after=2.0, expected=-2.0, out_grad=2.0, local=[-1.0])
    assert code == "sign" and "wrong sign in" in cause and "should be -2" in cause


@pytest.mark.parametrize(
    "got, words",
    [  # x**3 at x = 2: the right local derivative is 3·2² = 12; k = 3 keeps the four slips apart
        (24.0, "k·x^k (the exponent not lowered by one)"),
        (8.0, "(k−1)·x^(k−1)"),
        (6.0, "k·x^(k−2) (lowered by two)"),
        (4.0, "x^(k−1) (the factor k missing)"),
    ],
)
def test_the_power_rule_slips(got, words):
    x = V(2.0)
    out = V(8.0, (x,), "**3")
    tr = traced(out, x=x)
    code, cause = why(tr, out, x, after=got, expected=12.0)
    assert code == "power-rule" and words in cause and "**3 op" in cause and "k·x^(k−1) = 12" in cause


@pytest.mark.parametrize(
    "raw, x, out_data, got, expected, words",
    [
        ("ReLU", -1.5, 0.0, -1.5, 0.0, "it uses x (the input) instead of the step"),
        ("ReLU", -1.5, 0.0, 1.0, 0.0, "1 whatever the sign of x"),
        ("tanh", 0.5, math.tanh(0.5), 0.75, 1 - math.tanh(0.5) ** 2, "1 − x² (the input, not tanh(x))"),
        ("tanh", 0.5, math.tanh(0.5), 1 - math.tanh(0.5), 1 - math.tanh(0.5) ** 2, "1 − tanh(x) (not squared)"),
        ("exp", 0.5, math.exp(0.5), 1.0, math.exp(0.5), "the exp(x) factor missing"),
    ],
)
def test_unary_derivative_slips_are_named(raw, x, out_data, got, expected, words):
    leaf = V(x)
    out = V(out_data, (leaf,), raw)
    tr = traced(out, x=leaf)
    code, cause = why(tr, out, leaf, after=got, expected=expected)
    op = raw.lower()
    assert code == f"{op}-derivative" and words in cause and cause.startswith(f"{raw} derivative wrong")


def test_a_unary_slip_with_no_known_guess_still_says_the_right_derivative():
    leaf = V(0.5)
    out = V(math.tanh(0.5), (leaf,), "tanh")
    tr = traced(out, x=leaf)
    code, cause = why(tr, out, leaf, after=42.0, expected=0.786)
    assert code == "tanh-derivative" and "it uses" not in cause and "1 − tanh(x)²" in cause


def test_nothing_added_means_no_backward_attached():
    x, y = V(-1.5), V(2.0)
    out = V(0.5, (x, y), "+")
    tr = traced(out, x=x, y=y)
    code, cause = why(tr, out, x, after=0.0, expected=1.0)
    assert code == "no-backward" and "(x + y)'s _backward added nothing" in cause


def test_nothing_added_is_not_no_backward_when_another_operand_moved():
    x, y = V(-1.5), V(2.0)
    out = V(0.5, (x, y), "+")
    tr = traced(out, x=x, y=y)
    y.grad = 1.0  # their closure did run: it updated y
    code, _ = why(tr, out, x, after=0.0, expected=1.0)
    assert code == "wrong-derivative"


def test_nothing_added_to_a_grad_that_was_already_there_is_not_no_backward():
    tr, x, _, out = product()
    code, _ = why(tr, out, x, before=2.0, after=2.0, expected=-3.0)  # from another use: not a blank slate
    assert code == "wrong-derivative"


def test_an_unrecognised_slip_gives_the_numbers():
    x, y = V(-1.5), V(2.0)
    out = V(0.5, (x, y), "+")
    tr = traced(out, x=x, y=y)
    code, cause = why(tr, out, x, after=5.0, expected=1.0)
    assert code == "wrong-derivative" and "added 5 to x.grad" in cause and "= 1" in cause


def test_assign_is_tried_before_the_others():
    # after == expected with an earlier grad: `=`, even though out.grad != 1
    tr, x, _, out = product()
    code, _ = why(tr, out, x, before=4.0, after=6.0, expected=6.0, out_grad=-2.0)
    assert code == "assign"


# -----------------------------------------------------------------------------
# The order of their backward()'s calls


def reused():
    """h = x*y feeds a = h + z and b = h*z; out = a*b. h must wait for both."""
    x, y, z = V(2.0), V(-3.0), V(0.5)
    h = V(-6.0, (x, y), "*")
    a = V(-5.5, (h, z), "+")
    b = V(-3.0, (h, z), "*")
    out = V(16.5, (a, b), "*")
    tr = traced(out, x=x, y=y, z=z)
    return tr, [nid(tr, v) for v in (out, a, b, h)]


def test_a_right_order_is_no_fault():
    tr, (out, a, b, h) = reused()
    assert order_fault(tr, [out, a, b, h]) is None
    assert order_fault(tr, [out, b, a, h]) is None


def test_a_node_run_before_all_its_users_is_an_order_fault():
    tr, (out, a, b, h) = reused()
    fault = order_fault(tr, [out, a, h, b])
    assert (fault["diagnosis"], fault["node_id"], fault["call"]) == ("order", h, 2)
    assert f"ran x·y's _backward before {tr.by_id[b].name}'s" in fault["cause"]


def test_a_node_run_twice_is_an_order_fault():
    tr, (out, a, b, h) = reused()
    fault = order_fault(tr, [out, a, b, h, h])
    assert (fault["node_id"], fault["call"]) == (h, 4) and "more than once" in fault["cause"]


def test_a_node_never_run_is_an_order_fault():
    tr, (out, a, b, h) = reused()
    fault = order_fault(tr, [out, a, b])
    assert (fault["node_id"], fault["call"]) == (h, None) and "never ran x·y's _backward" in fault["cause"]


# -----------------------------------------------------------------------------
# The grads their backward() left


def test_all_grads_zero_means_no_seed():
    tr, x, y, out = product()
    want = {nid(tr, out): 1.0, nid(tr, x): -3.0, nid(tr, y): 2.0}
    fault = backward_fault(tr, want, dict.fromkeys(want, 0.0))
    assert fault["diagnosis"] == "no-seed" and "self.grad = 1" in fault["cause"]
    assert backward_fault(tr, want, dict(want)) is None


def test_a_forward_walk_in_the_local_grads_style_is_named():
    x, y = Slotted(2.0), Slotted(-3.0)
    h = Slotted(-6.0, (x, y), (-3.0, 2.0))
    out = Slotted(-4.0, (h, x), (1.0, 1.0))
    tr = traced(out, x=x, y=y)
    assert tr.style == "local-grads"
    ids = {name: nid(tr, v) for name, v in (("x", x), ("y", y), ("h", h), ("out", out))}
    want = {ids["out"]: 1.0, ids["h"]: 1.0, ids["x"]: -2.0, ids["y"]: 2.0}
    forwards = {ids["out"]: 1.0, ids["h"]: 1.0, ids["x"]: 1.0, ids["y"]: 0.0}  # h ran before out gave it a grad
    fault = backward_fault(tr, want, forwards)
    assert (fault["op"], fault["diagnosis"], fault["node"]) == ("order", "order", "x")
    assert "walks the nodes forwards" in fault["cause"]


def test_other_wrong_grads_of_backward_name_the_first_wrong_node():
    tr, x, y, out = product()
    want = {nid(tr, out): 1.0, nid(tr, x): -3.0, nid(tr, y): 2.0}
    got = {**want, nid(tr, y): 4.0}
    fault = backward_fault(tr, want, got)
    assert (fault["op"], fault["node"], fault["expected"], fault["got"]) == ("backward()", "y", 2.0, 4.0)
    assert "y.grad = 4 instead of 2" in fault["cause"]


# -----------------------------------------------------------------------------
# zero_grad() between passes


def test_grads_left_by_zero_grad():
    fault = zeroing_fault({"x": -3.0, "y": 2.0}, {"x": -6.0, "y": 4.0}, ["x*y"])
    assert (fault["diagnosis"], fault["node"], fault["expected"], fault["got"]) == ("not-zeroed", "x*y", -3.0, -6.0)
    assert "x*y.grad is not 0" in fault["cause"] and "x.grad = -6 instead of -3" in fault["cause"]


def test_a_second_pass_that_differs_without_a_grad_left_names_x():
    fault = zeroing_fault({"x": -3.0, "y": 2.0}, {"x": -3.0, "y": 4.0}, [])
    assert fault["node"] == "x"


def test_a_zero_grad_that_zeroes_is_no_fault():
    assert zeroing_fault({"x": -3.0, "y": 2.0}, {"x": -3.0, "y": 2.0}, []) is None


# -----------------------------------------------------------------------------
# Numbers and names


def test_close_treats_nan_and_infinities_exactly():
    nan, inf = float("nan"), float("inf")
    assert close(nan, nan) and not close(nan, 1.0) and not close(1.0, nan)
    assert close(inf, inf) and not close(inf, -inf) and not close(1e308, inf)
    assert close(1e-10, 0.0) and close(1.0 + 1e-7, 1.0) and not close(1.001, 1.0)


def test_ref_brackets_a_name_with_spaces():
    assert ref("x + y") == "(x + y)" and ref("x·y") == "x·y"


def test_a_minitorch_learner_reads_their_own_names():
    """Repro (held-out batch 4, MiniTorch packages): "missing `* out.grad` in the Exp op ... to
    x.grad" -- a MiniTorch learner has `d_output` and `x.derivative`, not out.grad and x.grad."""
    from core.foreign.diagnosis import their_words

    sentence = "missing `* out.grad` in the Exp op: it added 1.5 to x.grad; the _backward of (x + y).grad"
    assert their_words(sentence, "minitorch") == (
        "missing `* d_output` in the Exp op: it added 1.5 to x.derivative; the backward of (x + y).derivative"
    )
    assert their_words(sentence, "closures") == sentence  # micrograd's words for micrograd's style
    assert their_words("x.gradient and out.grads", "minitorch") == "x.gradient and out.grads"  # whole names only


def test_a_minitorch_report_notes_speak_of_derivatives():
    """Repro (held-out batch 5): every MiniTorch package got "backward() adds to the grads
    already there (as micrograd's does): zero every grad before each pass"."""
    from core.foreign.diagnosis import ACCUMULATES, their_words

    said = their_words(ACCUMULATES, "minitorch")
    assert "grad " not in said and "grads" not in said and "derivatives already there" in said
    assert their_words("call zero_grad()", "minitorch") == "call zero_grad()"  # a name of theirs stays
