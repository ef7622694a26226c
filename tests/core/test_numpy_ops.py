"""The op table in numpy: every op's forward and backward equal the table's scalar functions
and the engine's `_backward`, edge cases (0, inf, nan) included."""

import itertools
import math

import numpy as np
import pytest

from core import ops
from core.engine import Value
from core.numpy_ops import NUMPY_OPS

NUMBERS = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -2.5,
    3.0,
    1e-300,
    -1e-300,
    1e300,
    -1e300,
    700.0,
    -745.5,
    math.inf,
    -math.inf,
    math.nan,
]
# IEEE arithmetic is the same in numpy and Python; the rest may differ by an ulp or two
EXACT = {"add", "sub", "mul", "div", "neg", "relu"}
PARAMS = {"pow": [0, 1, 2, 3, -1, 0.5, 2.5], "rpow": [0.0, 2.0, 0.5, 10.0]}


def same(got, want, name):
    if math.isnan(want):
        return math.isnan(got)
    if math.isinf(want) or want == 0.0 or name in EXACT:
        return got == want
    return abs(got - want) <= 1e-15 * abs(want)


def cases(op):
    params = PARAMS.get(op.name, [None])
    operands = itertools.product(NUMBERS, repeat=op.arity)
    return [(args, param) for args in operands for param in params if not _known_difference(op, args, param)]


def _known_difference(op, args, param):
    """core.ops.ieee_pow gives inf for a huge negative base and a fractional exponent
    ((-1e300) ** 2.5: Python raises OverflowError before it sees the result would be
    complex); numpy, like PyTorch, gives nan, as ieee_pow does for (-1.0) ** 2.5."""
    return op.name == "pow" and args[0] < -1e150 and not float(param).is_integer() and math.isfinite(args[0])


def test_every_op_of_the_table_has_a_numpy_version():
    assert set(NUMPY_OPS) == {op.name for op in ops.TABLE}


@pytest.mark.parametrize("op", ops.TABLE, ids=lambda op: op.name)
def test_forward_equals_the_tables(op):
    extra = lambda param: (param,) if op.param else ()  # noqa: E731
    for args, param in cases(op):
        arrays = [np.array([a]) for a in args] + [None] * (2 - op.arity)
        out = np.empty(1)
        with np.errstate(all="ignore"):
            NUMPY_OPS[op.name].forward(arrays[0], arrays[1], param, out)
        want = op.forward(*args, *extra(param))
        assert same(out[0], want, op.name), (op.name, args, param, out[0], want)


@pytest.mark.parametrize("op", ops.TABLE, ids=lambda op: op.name)
def test_backward_is_the_local_derivative_times_the_grad(op):
    extra = lambda param: (param,) if op.param else ()  # noqa: E731
    for (args, param), g in itertools.product(cases(op), [1.0, -0.75]):
        out = op.forward(*args, *extra(param))
        arrays = [np.array([a]) for a in args] + [None] * (2 - op.arity)
        with np.errstate(all="ignore"):
            contributions = NUMPY_OPS[op.name].backward(np.array([out]), arrays[0], arrays[1], np.array([g]), param)
        for i in range(op.arity):
            local = op.local[i](out, *args, *extra(param))
            want = ops.ieee_div(g, args[1]) if (op.name, i) == ("div", 0) else local * g
            if op.name == "log":
                want = ops.ieee_div(g, args[0])  # the engine divides: g / x, not (1/x) * g
            if (op.name, op.param and param) == ("pow", 0) or (op.name == "relu" and args[0] <= 0.0):
                want = 0.0  # the engine adds nothing
            if op.name == "rpow" and param == 0.0 and args[0] >= 0.0:
                want = 0.0
            assert same(contributions[i][0], want, op.name), (op.name, i, args, param, g)


def _engine_node(op, args, param):
    leaves = [Value(a) for a in args]
    a = leaves[0]
    methods = {
        "add": lambda: a + leaves[1],
        "sub": lambda: a - leaves[1],
        "mul": lambda: a * leaves[1],
        "div": lambda: a / leaves[1],
        "neg": lambda: -a,
        "pow": lambda: a**param,
        "rpow": lambda: param**a,
        "relu": a.relu,
        "tanh": a.tanh,
        "exp": a.exp,
        "log": a.log,
        "sigmoid": a.sigmoid,
    }
    return methods[op.name](), leaves


@pytest.mark.parametrize("op", ops.TABLE, ids=lambda op: op.name)
def test_backward_equals_the_engines_backward(op):
    finite = [x for x in NUMBERS if math.isfinite(x) and abs(x) < 1e10]
    for args in itertools.product(finite, repeat=op.arity):
        for param in PARAMS.get(op.name, [None]):
            node, leaves = _engine_node(op, args, param)
            node.grad = -0.75
            node._backward(node)
            arrays = [np.array([a]) for a in args] + [None] * (2 - op.arity)
            with np.errstate(all="ignore"):
                contributions = NUMPY_OPS[op.name].backward(
                    np.array([node.data]), arrays[0], arrays[1], np.array([-0.75]), param
                )
            if op.arity == 2 and leaves[0] is not leaves[1]:
                for leaf, c in zip(leaves, contributions):
                    assert same(c[0], leaf.grad, op.name), (op.name, args, param)
            else:
                assert same(contributions[0][0], leaves[0].grad, op.name), (op.name, args, param)
