"""The op table in numpy: every op's forward and `_backward`, on a whole batch at once.

`core/ops.py` says what each op computes for ONE number (its forward) and how
much its output moves per nudge of each operand (its local derivative), and
`core/engine.py` writes each op's `_backward` as

    a.grad += local * out.grad

Batched replay (batched.py) runs one sample's graph over many samples at once,
so each node's `data` and `grad` are numpy arrays with one entry per sample.
This file is the same table for arrays: per op, a `forward(a, b, param, out)`
that writes the output into `out`, and a `backward(out, a, b, g, param)` that
returns what the op adds to each operand's grad, `(da, db)` -- written line by
line as the engine's `_backward` writes it (`b.data * out.grad`, not
`out.grad * b.data`; `-(out / b) * g` for a division, which the engine
subtracts). A subtraction in the engine (`b.grad -= out.grad`) is an addition
of the negated amount here: IEEE defines x - y as x + (-y), so the numbers are
the same.

The numbers: +, -, *, /, neg and relu are IEEE arithmetic, equal to the
engine bit for bit. tanh, exp, log, sigmoid and ** come from numpy's vectorised
routines, which differ from the C library the engine calls by at most an ulp or
two (about 2e-16 relative). tests/core/training/test_numpy_ops.py checks every
op against the table, edge cases (0, inf, nan) included.

Numpy warns where the engine silently returns inf or nan (log(0), overflow);
batched.py runs every op inside `np.errstate(all="ignore")`.
"""

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from core.ops import ieee_log


class NumpyOp(NamedTuple):
    name: str  # the op table's name: 'mul'
    forward: Callable  # forward(a, b, param, out): writes the output into out
    backward: Callable  # backward(out, a, b, g, param) -> (da, db): added to the operands' grads


# -----------------------------------------------------------------------------
# binary ops


def _add_forward(a, b, param, out):
    np.add(a, b, out=out)


def _add_backward(out, a, b, g, param):
    # d(a+b)/da = 1, d(a+b)/db = 1
    return g, g


def _sub_forward(a, b, param, out):
    np.subtract(a, b, out=out)


def _sub_backward(out, a, b, g, param):
    # d(a-b)/da = 1, d(a-b)/db = -1
    return g, -g


def _mul_forward(a, b, param, out):
    np.multiply(a, b, out=out)


def _mul_backward(out, a, b, g, param):
    # d(a*b)/da = b, d(a*b)/db = a
    return b * g, a * g


def _div_forward(a, b, param, out):
    np.divide(a, b, out=out)


def _div_backward(out, a, b, g, param):
    # d(a/b)/da = 1/b, d(a/b)/db = -(a/b)/b: divided, as the engine does (no b*b to underflow)
    return g / b, -((out / b) * g)


# -----------------------------------------------------------------------------
# one-operand ops


def _neg_forward(a, b, param, out):
    np.negative(a, out=out)


def _neg_backward(out, a, b, g, param):
    # d(-x)/dx = -1
    return -g, None


def _pow_forward(a, b, k, out):
    if k == 0.5:  # x ** 0.5 is sqrt(x), as the engine and PyTorch take it: -0.0 at -0.0, nan at -inf
        np.sqrt(a, out=out)
    else:
        np.power(a, k, out=out)


def _pow_backward(out, a, b, g, k):
    # d(x^k)/dx = k * x^(k-1); for k = 0 the output is constant: 0 (the engine adds nothing)
    if k == 0:
        return np.zeros_like(g), None
    if k == 0.5:  # 0.5 / sqrt(x): -inf at -0.0, nan at -inf (ops.pow_local)
        return (0.5 / np.sqrt(a)) * g, None
    return (k * np.power(a, k - 1)) * g, None


def _rpow_forward(a, b, c, out):
    np.power(c, a, out=out)


def _rpow_backward(out, a, b, g, c):
    # d(c^x)/dx = c^x * ln(c); for c = 0 and x >= 0 the output is constant: 0
    contribution = (out * ieee_log(c)) * g
    if c == 0.0:
        contribution = np.where(a >= 0.0, 0.0, contribution)
    return contribution, None


def _relu_forward(a, b, param, out):
    # `0 if x <= 0 else x`: nan stays nan, as in the engine
    np.copyto(out, np.where(a <= 0.0, 0.0, a))


def _relu_backward(out, a, b, g, param):
    # d relu(x)/dx = 1 if x > 0 else 0 (the engine adds nothing for x <= 0)
    return np.where(a <= 0.0, 0.0, g), None


def _tanh_forward(a, b, param, out):
    np.tanh(a, out=out)


def _tanh_backward(out, a, b, g, param):
    # d tanh(x)/dx = 1 - tanh(x)^2
    return (1.0 - out * out) * g, None


def _exp_forward(a, b, param, out):
    np.exp(a, out=out)


def _exp_backward(out, a, b, g, param):
    # d e^x/dx = e^x
    return out * g, None


def _log_forward(a, b, param, out):
    np.log(a, out=out)


def _log_backward(out, a, b, g, param):
    # d ln(x)/dx = 1/x, as out.grad / x
    return g / a, None


def _sigmoid_forward(a, b, param, out):
    # the two stable forms the engine's sigmoid_float picks between, so exp never overflows
    e = np.exp(-np.abs(a))
    np.copyto(out, np.where(a >= 0.0, 1.0 / (1.0 + e), e / (1.0 + e)))


def _sigmoid_backward(out, a, b, g, param):
    # d sigmoid(x)/dx = sigmoid(x) * (1 - sigmoid(x))
    return (out * (1.0 - out)) * g, None


# -----------------------------------------------------------------------------
# the table, by the op table's names

NUMPY_OPS = {
    op.name: op
    for op in (
        NumpyOp("add", _add_forward, _add_backward),
        NumpyOp("sub", _sub_forward, _sub_backward),
        NumpyOp("mul", _mul_forward, _mul_backward),
        NumpyOp("div", _div_forward, _div_backward),
        NumpyOp("neg", _neg_forward, _neg_backward),
        NumpyOp("pow", _pow_forward, _pow_backward),
        NumpyOp("rpow", _rpow_forward, _rpow_backward),
        NumpyOp("relu", _relu_forward, _relu_backward),
        NumpyOp("tanh", _tanh_forward, _tanh_backward),
        NumpyOp("exp", _exp_forward, _exp_backward),
        NumpyOp("log", _log_forward, _log_backward),
        NumpyOp("sigmoid", _sigmoid_forward, _sigmoid_backward),
    )
}
