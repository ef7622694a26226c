import math

from core.engine import Value
from core.gradcheck import gradcheck, relative_error, verdict


def test_gradcheck_agrees_and_leaves_graph_as_found():
    x = Value(0.7, label="x")
    w = Value(-1.3, label="w")
    out = (x * w).tanh() + x.exp()
    checks = gradcheck(out)
    assert [c.leaf for c in checks][:2] == [x, w]
    assert all(c.ok for c in checks)
    assert x.data == 0.7 and out.data == math.tanh(0.7 * -1.3) + math.exp(0.7)
    assert x.grad == checks[0].analytic


def test_gradcheck_flags_a_wrong_backward():
    x = Value(0.5, label="x")
    out = x * x

    def wrong(out):
        x.grad += 3.0 * out.grad  # should be 2x = 1.0

    out._backward = wrong
    (check,) = gradcheck(out)
    assert not check.ok and check.rel_error > 0.1
    assert "Either a _backward is wrong" in verdict([check], out)


def test_a_division_by_zero_is_the_inputs_fault_not_a_backward():
    # repro: y / x at x = 0 said "Either a _backward is wrong, or the function is not smooth"
    x, y = Value(0.0, label="x"), Value(1.0, label="y")
    f = y / x
    f.label = "f"
    text = verdict(gradcheck(f), f)
    assert text.startswith("2 of 2 leaves differ") and "f divides by x = 0" in text
    assert "No _backward is to blame" in text and "Either a _backward" not in text


def test_a_log_below_zero_and_a_negative_power_of_zero_are_named():
    z = Value(-1.0, label="z")
    g = z.log()
    assert "needs z > 0, and z = -1.0" in verdict(gradcheck(g), g, lambda v: v.label or "log(z)")
    a = Value(0.0, label="a")
    h = a**-1
    assert "raises a = 0 to the power -1" in verdict(gradcheck(h), h, lambda v: v.label or "a^-1")


def test_a_kink_is_still_a_kink_and_agreement_says_so():
    r = Value(0.0, label="r").relu()
    assert "not smooth there" in verdict(gradcheck(r), r)
    x = Value(0.7, label="x")
    out = x * x
    assert verdict(gradcheck(out), out).startswith("All 1 leaves agree")


def test_relative_error_handles_infinities():
    assert relative_error(math.inf, math.inf) == 0.0
    assert relative_error(1.0, math.nan) == math.inf
    assert relative_error(1e-12, 0.0) < 1e-11
