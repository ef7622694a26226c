"""Issue 32 item 10: x ** 0.5 (and its neighbours) at -0.0 and -inf: the value and the
grad are the reference's the op table names (PyTorch float64), in the engine and in the
numpy training path alike."""

import math

import numpy as np
import pytest

from core.engine import Value
from core.training import numpy_ops

INF, NAN = math.inf, math.nan
# (k, x, x ** k, d(x ** k)/dx) as PyTorch float64 gives them
EDGES = [
    (0.5, -0.0, -0.0, -INF),  # repro: the grad was +inf
    (0.5, -INF, NAN, NAN),  # repro: value +inf, grad 0
    (0.5, 0.0, 0.0, INF),
    (0.5, INF, INF, 0.0),
    (-0.5, -0.0, -INF, -INF),  # repro: value +inf
    (-0.5, -INF, NAN, -0.0),  # repro: value 0
    (1.5, -0.0, 0.0, -0.0),
    (1.5, -INF, INF, NAN),  # repro: grad +inf
    (2.5, -INF, INF, INF),
    (2, -0.0, 0.0, -0.0),
]


def same(a, b):
    """Equal, nan to nan; a zero's sign counts where it decides an infinity (1/x)."""
    return (math.isnan(a) and math.isnan(b)) or a == b


@pytest.mark.parametrize("k, x, value, grad", EDGES)
def test_the_engine_takes_the_references_value_and_grad(k, x, value, grad):
    v = Value(x)
    out = v**k
    out.backward()
    assert same(out.data, value) and same(v.grad, grad)
    if value == 0.0 and math.copysign(1.0, value) < 0:
        assert math.copysign(1.0, out.data) < 0  # sqrt(-0.0) is -0.0, so 1/out is -inf


@pytest.mark.parametrize("k, x, value, grad", EDGES)
def test_the_numpy_path_agrees(k, x, value, grad):
    a = np.array([x])
    out = np.empty(1)
    with np.errstate(all="ignore"):
        numpy_ops._pow_forward(a, None, k, out)
        g, _ = numpy_ops._pow_backward(out, a, None, np.ones(1), k)
    assert same(float(out[0]), value) and same(float(g[0]), grad)


@pytest.mark.parametrize("k, x, value, grad", EDGES)
def test_the_table_is_pytorchs(k, x, value, grad):
    torch = pytest.importorskip("torch")
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    y = t**k
    y.backward()
    assert same(y.item(), value) and same(t.grad.item(), grad)
