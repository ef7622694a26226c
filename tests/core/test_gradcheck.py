import math

from core.engine import Value
from core.gradcheck import gradcheck, relative_error


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


def test_relative_error_handles_infinities():
    assert relative_error(math.inf, math.inf) == 0.0
    assert relative_error(1.0, math.nan) == math.inf
    assert relative_error(1e-12, 0.0) < 1e-11
