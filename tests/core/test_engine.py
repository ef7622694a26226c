"""The Value engine: the micrograd tutorial's numbers, every op's derivative, IEEE numerics,
deep graphs and reference-cycle-free memory."""

import gc
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine import Value, recompute, topological_order, zero_grad

# -- the tutorial and micrograd's own tests -----------------------------------


def test_tutorial_example():
    x = Value(2.0, label="x")
    y = Value(3.0, label="y")
    f = x * y + y**2
    f.backward()
    assert f.data == 15.0
    assert x.grad == 3.0
    assert y.grad == 8.0


def test_micrograd_sanity_check():
    x = Value(-4.0)
    z = 2 * x + 2 + x
    q = z.relu() + z * x
    h = (z * z).relu()
    y = h + q + q * x
    y.backward()
    assert y.data == -20.0
    assert x.grad == 46.0


def test_micrograd_more_ops():
    a = Value(-4.0)
    b = Value(2.0)
    c = a + b
    d = a * b + b**3
    c += c + 1
    c += 1 + c + (-a)
    d += d * 2 + (b + a).relu()
    d += 3 * d + (b - a).relu()
    e = c - d
    f = e**2
    g = f / 2.0
    g += 10.0 / f
    g.backward()
    assert abs(g.data - 24.70408163265306) < 1e-6
    assert abs(a.grad - 138.83381924198252) < 1e-6
    assert abs(b.grad - 645.5772594752186) < 1e-6


def test_node_used_twice_accumulates():
    a = Value(3.0)
    b = a + a
    c = b + b
    c.backward()
    assert b.grad == 2.0
    assert a.grad == 4.0


def test_square_keeps_both_operands():
    a = Value(3.0)
    b = a * a
    assert b._prev == (a, a)
    b.backward()
    assert a.grad == 6.0


def test_backward_twice_doubles_grads_and_zero_grad_fixes_it():
    x = Value(2.0)
    y = x * x
    y.backward()
    y.backward()
    assert x.grad == 8.0  # lesson material: grads accumulate across calls
    zero_grad(y)
    assert x.grad == 0.0 and y.grad == 0.0
    y.backward()
    assert x.grad == 4.0


def test_repr_like_micrograd():
    assert repr(Value(2.0)) == "Value(data=2.0, grad=0.0)"
    assert repr(Value(2.0, label="x")) == "Value(data=2.0, grad=0.0, label='x')"


def test_ints_are_wrapped_and_bad_operands_refused():
    x = Value(2)
    assert isinstance(x.data, float)
    assert (x + 1).data == 3.0 and (1 - x).data == -1.0 and (3 / x).data == 1.5
    assert (2**x).data == 4.0
    for bad in ("3", None, [1], True):
        with pytest.raises(TypeError):
            x + bad
        with pytest.raises(TypeError):
            bad * x
    with pytest.raises(TypeError, match="exponent"):
        x ** Value(2.0)
    with pytest.raises(TypeError):
        Value("2.0")


# -- every op against finite differences ---------------------------------------

UNARY = {
    "neg": lambda v: -v,
    "relu": lambda v: v.relu(),
    "tanh": lambda v: v.tanh(),
    "exp": lambda v: v.exp(),
    "log": lambda v: v.log(),
    "sigmoid": lambda v: v.sigmoid(),
    "pow3": lambda v: v**3,
    "pow-0.5": lambda v: v**-0.5,
    "rpow": lambda v: 2.0**v,
}
BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "radd": lambda a, b: 2.5 + b * a,
    "rsub": lambda a, b: 2.5 - a * b,
    "rmul": lambda a, b: 2.5 * a + b,
    "rtruediv": lambda a, b: 2.5 / (a * a + b * b + 1.0),
}


def numeric_grad(build, xs, h=1e-6):
    grads = []
    for i in range(len(xs)):
        plus = [x + h * (j == i) for j, x in enumerate(xs)]
        minus = [x - h * (j == i) for j, x in enumerate(xs)]
        grads.append((build(*map(Value, plus)).data - build(*map(Value, minus)).data) / (2 * h))
    return grads


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("x", [0.3, 1.7, 2.9])
def test_unary_op_derivative(name, x):
    v = Value(x)
    out = UNARY[name](v)
    out.backward()
    (expected,) = numeric_grad(UNARY[name], [x])
    assert v.grad == pytest.approx(expected, rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("name", BINARY)
def test_binary_op_derivative(name):
    a, b = Value(1.3), Value(-0.7)
    out = BINARY[name](a, b)
    out.backward()
    expected = numeric_grad(BINARY[name], [1.3, -0.7])
    assert [a.grad, b.grad] == pytest.approx(expected, rel=1e-5, abs=1e-6)


def _random_expression(rng, leaves, size):
    nodes = list(leaves)
    for _ in range(size):
        if rng.random() < 0.5:
            op = rng.choice(["add", "sub", "mul", "div"])
            a, b = rng.choice(nodes), rng.choice(nodes)
            if op == "div":
                b = b * b + 1.0  # keep away from 0
            nodes.append(BINARY[op](a, b))
        else:
            op = rng.choice(["neg", "tanh", "sigmoid", "pow3"])
            nodes.append(UNARY[op](rng.choice(nodes)))
    return nodes[-1]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), size=st.integers(1, 25), xs=st.lists(st.floats(-1.5, 1.5), min_size=3, max_size=3))
def test_random_expressions_match_finite_differences(seed, size, xs):
    from core.gradcheck import gradcheck

    leaves = [Value(x, label=f"x{i}") for i, x in enumerate(xs)]
    out = _random_expression(random.Random(seed), leaves, size)
    if not math.isfinite(out.data) or abs(out.data) > 1e6:
        return
    for check in gradcheck(out, h=1e-6, tolerance=1e-4, leaves=leaves):
        assert check.ok, check


# -- IEEE numerics ----------------------------------------------------------------

INF, NAN = math.inf, math.nan


@pytest.mark.parametrize(
    "build, expected",
    [
        (lambda: Value(1e308) * 10, INF),
        (lambda: Value(-1e308) * 10, -INF),
        (lambda: Value(0.0).log(), -INF),
        (lambda: Value(-1.0).log(), NAN),
        (lambda: Value(1.0) / 0, INF),
        (lambda: Value(-1.0) / 0, -INF),
        (lambda: Value(0.0) / 0, NAN),
        (lambda: Value(1.0) / -0.0, -INF),
        (lambda: Value(-8.0) ** 0.5, NAN),
        (lambda: Value(10.0) ** 400, INF),
        (lambda: Value(-10.0) ** 401, -INF),
        (lambda: Value(0.0) ** -1, INF),
        (lambda: Value(1000.0).exp(), INF),
        (lambda: Value(-1000.0).exp(), 0.0),
        (lambda: Value(-1000.0).sigmoid(), 0.0),
        (lambda: Value(1000.0).sigmoid(), 1.0),
        (lambda: 10.0 ** Value(400.0), INF),
        (lambda: (-8.0) ** Value(0.5), NAN),
        (lambda: Value(INF) - INF, NAN),
        (lambda: Value(NAN).relu(), NAN),  # a nan must not hide behind a ReLU
    ],
)
def test_ieee_numerics(build, expected):
    out = build()
    assert isinstance(out.data, float)
    if math.isnan(expected):
        assert math.isnan(out.data)
    else:
        assert out.data == expected
    out.backward()  # never raises either
    assert out.is_finite() == math.isfinite(expected)


def test_backward_through_zero_division_gives_inf_not_exception():
    x = Value(0.0)
    y = x.log()
    y.backward()
    assert x.grad == INF


# -- graph walks ------------------------------------------------------------------


def test_topological_order_is_deterministic_and_complete():
    x, y = Value(1.0), Value(2.0)
    m = x * y
    p = y**2
    f = m + p
    assert topological_order(f) == [x, y, m, p, f]
    order = topological_order(f)
    assert len(order) == len(set(order))


def micrograd_build_topo(root):
    """micrograd's recursive order, which topological_order must reproduce exactly."""
    topo, visited = [], set()

    def build_topo(v):
        if v not in visited:
            visited.add(v)
            for child in v._prev:
                build_topo(child)
            topo.append(v)

    build_topo(root)
    return topo


@pytest.mark.parametrize("seed", range(20))
def test_topological_order_is_micrograds_order(seed):
    rng = random.Random(seed)
    nodes = [Value(rng.uniform(-1, 1)) for _ in range(4)]
    for _ in range(60):  # shared operands, a*a, unary and binary ops, leaves made on the way
        a, b = rng.choice(nodes), rng.choice(nodes)
        nodes.append(rng.choice([a + b, a * b, a - 1.5, a.tanh(), -a, a * a, 2.0 * a, a**2]))
    root = sum(nodes[-8:], nodes[0])
    assert topological_order(root) == micrograd_build_topo(root)


def build_chain(depth):
    x = Value(0.5)
    node = x
    for i in range(depth):
        node = node * 1.0000001 if i % 2 else node + 0.000001
    return x, node


def test_million_deep_chain_goes_forward_and_backward():
    x, out = build_chain(1_000_000)
    out.backward()
    assert x.grad == pytest.approx(1.0000001**500_000, rel=1e-9)
    del out  # freeing a million-deep chain must not overflow the C stack either


def test_recompute_refreshes_data_and_closures():
    x = Value(0.5)
    t = (x * 2.0).tanh()
    x.data = 1.0
    recompute(t)
    assert t.data == pytest.approx(math.tanh(2.0))
    t.backward()
    assert x.grad == pytest.approx(2 * (1 - math.tanh(2.0) ** 2))


# -- memory: a dropped graph is freed by reference counting alone -------------


def test_no_cyclic_garbage_after_dropping_a_big_graph():
    gc.collect()
    gc.disable()
    try:
        rng = random.Random(0)
        leaves = [Value(rng.uniform(-1, 1)) for _ in range(100)]
        total = leaves[0]
        for i in range(50_000):
            total = total + leaves[i % 100] * leaves[(i * 7) % 100]
        total = total.tanh()
        total.backward()
        assert len(topological_order(total)) > 100_000
        del total, leaves
        assert gc.collect() == 0
    finally:
        gc.enable()


# -- gradients at the edges (issue 20): the limits a float64 reference takes -------------


def test_zero_to_a_positive_power_has_zero_grad_not_nan():
    x = Value(2.0)
    out = 0.0**x
    out.backward()
    assert out.data == 0.0 and x.grad == 0.0


def test_x_to_the_zero_at_zero_has_zero_grad_not_nan():
    x = Value(0.0)
    out = x**0
    out.backward()
    assert out.data == 1.0 and x.grad == 0.0


def test_division_by_a_tiny_denominator_does_not_underflow():
    a, b = Value(1e-200), Value(1e-200)
    (a / b).backward()
    assert b.grad == pytest.approx(-1e200, rel=1e-15)  # -a/(b*b) gave -inf: b*b underflows to 0
    assert a.grad == pytest.approx(1e200, rel=1e-15)
    a, b = Value(1e-160), Value(1e-160)
    (a / b).backward()
    assert b.grad == pytest.approx(-1e160, rel=1e-15)  # b*b subnormal: was 1e-5 off


def test_division_and_log_divide_out_grad_instead_of_multiplying_by_an_overflowing_reciprocal():
    # 1/1e-310 overflows to inf; out.grad / 1e-310 with out.grad = 1e-20 is 1e290
    a, b = Value(1.0), Value(1e-310)
    (a / b * 1e-20 * 1e-300).backward()
    assert math.isfinite(a.grad) and a.grad == pytest.approx(1e-20 * 1e-300 / 1e-310, rel=1e-12)
    x = Value(1e-310)
    (x.log() * 1e-20).backward()
    assert x.grad == pytest.approx(1e-20 / 1e-310, rel=1e-12)


# -- what a node costs (issue 21): one `_backward` per op kind, operands in slots ---------


def every_op(x, y):
    """One node of every op the engine has, on Values x and y."""
    return [x + y, x - y, x * y, x / y, x**3, 2.0**x, -x, x.relu(), x.tanh(), x.exp(), x.log(), x.sigmoid()]


def test_each_op_kind_shares_one_backward_function_without_closure():
    first = every_op(Value(1.5), Value(2.5))
    second = every_op(Value(0.5), Value(3.0))
    for a, b in zip(first, second):
        assert a._op[:2] == b._op[:2]
        assert a._backward is b._backward, a._op  # one function per op kind, not one per node
        assert a._backward.__closure__ is None  # nothing captured: it reads the node it is given
    assert len({node._backward for node in first}) == len(first)


def test_each_op_node_runs_the_backward_written_below_its_method():
    # the ops pass their _backward through a module global (engine._mul_backward): it must be
    # the very function a learner finds below the op's method
    written = [
        Value._add_backward,
        Value._sub_backward,
        Value._mul_backward,
        Value._div_backward,
        Value._pow_backward,
        Value._rpow_backward,
        Value._neg_backward,
        Value._relu_backward,
        Value._tanh_backward,
        Value._exp_backward,
        Value._log_backward,
        Value._sigmoid_backward,
    ]
    assert [node._backward for node in every_op(Value(1.5), Value(2.5))] == written


def test_building_a_node_adds_one_object_for_the_cyclic_collector():
    leaves = [Value(float(i)) for i in range(10)]
    gc.collect()
    gc.disable()
    try:
        before = len(gc.get_objects())
        total = leaves[0]
        for i in range(3000):
            total = (total + leaves[i % 10] * leaves[(i * 3) % 10]).tanh()
        added = len(gc.get_objects()) - before
    finally:
        gc.enable()
    assert 9000 <= added <= 9000 + 50  # 9,000 nodes: the Values alone (micrograd's closures: ~6 each)
    assert len(topological_order(total)) == 9000 + 10


def test_prev_reads_the_operand_slots_in_order():
    a, b = Value(2.0), Value(3.0)
    assert (a - b)._prev == (a, b) and (b - a)._prev == (b, a)
    assert (a * a)._prev == (a, a)
    assert a.tanh()._prev == (a,) and (a**2)._prev == (a,) and (2.0**a)._prev == (a,)
    assert a._prev == () and Value(1.0, (a, b), "*")._prev == (a, b) and Value(1.0, (a,), "neg")._prev == (a,)


def test_every_op_node_has_every_slot_set():
    for node in every_op(Value(1.5), Value(2.5)) + [Value(1.0), Value(1.0, (Value(2.0),), "tanh")]:
        for slot in Value.__slots__:
            getattr(node, slot)  # an unset slot would raise AttributeError
        assert node.data.__class__ is float and node.grad == 0.0 and node.label == ""


def test_pow_and_rpow_keep_their_number_on_the_node():
    x = Value(3.0)
    p, r = x**2, 0.5**x
    assert (p._op, p._param, r._op, r._param) == ("**2", 2, "0.5**", 0.5)
    x.data = 4.0
    recompute(p)
    recompute(r)
    assert (p.data, r.data) == (16.0, 0.0625)
    p.backward()
    r.backward()
    assert x.grad == 8.0 + 0.0625 * math.log(0.5)


def test_more_than_two_children_is_refused_clearly():
    a = Value(1.0)
    with pytest.raises(ValueError, match="at most two operands"):
        Value(3.0, (a, a, a), "+")


def test_backward_called_as_the_stepper_calls_it_matches_backward():
    x, y = Value(1.5), Value(-0.5)
    nodes = every_op(x, y)
    for node in nodes:
        zero_grad(node)
        node.backward()
        reference = (x.grad, y.grad)
        zero_grad(node)
        node.grad = 1.0
        for n in reversed(topological_order(node)):
            n._backward(n)
        assert (x.grad, y.grad) == reference, node._op


def test_x_to_the_half_at_negative_zero_and_minus_inf_follows_pytorch():
    """Repro (issue 32 item 10): x**0.5 at -0.0 and -inf gave grads +inf and 0; PyTorch (the op
    table's reference) takes x**0.5 as sqrt: data -0.0 / nan, grads -inf / nan."""
    import math

    from core import ops

    for x, data, grad in [
        (-0.0, -0.0, -math.inf),
        (-math.inf, math.nan, math.nan),
        (4.0, 2.0, 0.25),
        (0.0, 0.0, math.inf),
    ]:
        v = Value(x)
        y = v**0.5
        y.backward()

        def same(a, b):
            return (a != a and b != b) or (a == b and math.copysign(1, a) == math.copysign(1, b))

        assert same(y.data, data) and same(v.grad, grad), (x, y.data, v.grad)
        assert same(ops.pow_local(y.data, x, 0.5), grad)
