"""The test expressions the studio builds with a learner's own Value class.

The learner gives us nothing but their class. We build expressions with it --
only with the operations it offers -- and check every gradient of each:

    each op alone       x·y, x − y, x/y, x**2, tanh(x) ... at several points,
                        negative and zero included, and once more scaled by a
                        constant so that out.grad is not 1 at the op
    the same value twice   x·x and x + x (one child standing for two operands)
    the tutorial        f = x·y + y**2, and the lecture's b = a + a
    a neuron            tanh(x1·w1 + x2·w2 + b)
    a reused intermediate  h = x·y feeds two nodes: h gets two contributions
    a deep chain        40 steps of v·c + d (and tanh): out.grad far from 1
    micrograd's sanity and more-ops cases, where the class mixes in numbers

Each `Case` says which operations it needs (`needs`); `offered(V)` finds
which ones the class has, so a case the class cannot build is skipped, not
failed. A case's `build(leaf)` makes its leaves with `leaf(number, name)` and
returns the output Value; `leaf` remembers the names for the report.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any, NamedTuple

from core import ops
from core.foreign.shapes import Shape


class Case(NamedTuple):
    """One test. Their Values are of a class known only at run time, so `Any` here."""

    name: str  # what the report calls the test
    needs: tuple[str, ...]  # operations it uses (see `offered`)
    build: Callable[..., Any]  # build(leaf) -> output Value, leaf(number, name) -> a leaf Value
    text: str = ""  # the same expression in the studio's syntax, for `--debug-engine FILE --expr TEXT`


# -----------------------------------------------------------------------------
# What the class offers

METHODS = (
    ("add", "__add__"),
    ("mul", "__mul__"),
    ("sub", "__sub__"),
    ("neg", "__neg__"),
    ("div", "__truediv__"),
    ("pow", "__pow__"),
    ("radd", "__radd__"),
    ("rmul", "__rmul__"),
    ("rsub", "__rsub__"),
    ("rdiv", "__rtruediv__"),
    ("rpow", "__rpow__"),
    ("relu", "relu"),
    ("tanh", "tanh"),
    ("exp", "exp"),
    ("log", "log"),
    ("sigmoid", "sigmoid"),
)


def offered(V: type) -> set[str]:
    """The operations class `V` defines, plus 'numbers' when `Value + 2.0` and
    `Value * 2.0` work (micrograd wraps plain numbers; early lecture code does not)."""
    found = {name for name, method in METHODS if callable(getattr(V, method, None))}
    try:
        shape = Shape.of(V)
        if shape.read_data(V(1.0) + 2.0) == 3.0 and shape.read_data(V(1.0) * 2.0) == 2.0:
            found.add("numbers")
    except Exception:  # noqa: BLE001 -- their code, any failure means "no"
        pass
    return found


# -----------------------------------------------------------------------------
# The cases


def apply_binary(op: str, a: Any, b: Any) -> Any:
    """`a + b`, `a * b` ... on the learner's Values: the op table's `call` for op."""
    return ops.BY_NAME[op].call(a, b)


def apply_unary(op: str, a: Any) -> Any:
    """`-a`, `a.relu()`, `a.tanh()` ... on the learner's Values (the op table's `call`)."""
    return ops.BY_NAME[op].call(a)


ZERO_GRAD_CASE = "zero_grad between two passes"  # run after the battery, by their_pass.check_zeroing
TOPO_CASE = "your topological sort"  # run after the battery when the file has one (core/foreign/topo.py)
SYMBOL = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
BINARY_POINTS = ((-1.5, 2.0), (0.0, 3.0), (2.0, -0.5))
UNARY_POINTS = (-1.5, 0.0, 0.5, 2.0)


def op_cases() -> list[Case]:
    """Each op alone at several points; then each scaled by s = -2 (out.grad = -2 at the op)."""
    alone: list[Case] = []
    scaled: list[Case] = []
    for op in ("add", "mul", "sub", "div"):
        for x, y in BINARY_POINTS:
            alone.append(
                Case(
                    f"x {SYMBOL[op]} y at x={x}, y={y}",
                    (op,),
                    lambda leaf, op=op, x=x, y=y: apply_binary(op, leaf(x, "x"), leaf(y, "y")),
                    f"x = {x}; y = {y}; x {SYMBOL[op]} y",
                )
            )
        scaled.append(
            Case(
                f"(x {SYMBOL[op]} y)*s at x=2, y=-0.5, s=-2",
                (op, "mul"),
                lambda leaf, op=op: apply_binary(op, leaf(2.0, "x"), leaf(-0.5, "y")) * leaf(-2.0, "s"),
            )
        )
    for k in (2, 3, -1):
        for x in (-1.5, 0.5, 2.0):
            alone.append(
                Case(f"x**{k} at x={x}", ("pow",), lambda leaf, k=k, x=x: leaf(x, "x") ** k, f"x = {x}; x**{k}")
            )
    scaled.append(Case("x**2*s at x=1.5, s=-2", ("pow", "mul"), lambda leaf: leaf(1.5, "x") ** 2 * leaf(-2.0, "s")))
    for op in ("neg", "relu", "tanh", "exp", "log", "sigmoid"):
        points = (0.5, 2.0) if op == "log" else UNARY_POINTS
        for x in points:
            text = f"x = {x}; -x" if op == "neg" else f"x = {x}; x.{op}()"
            alone.append(Case(f"{op}(x) at x={x}", (op,), lambda leaf, op=op, x=x: apply_unary(op, leaf(x, "x")), text))
        scaled.append(
            Case(
                f"{op}(x)*s at x=0.5, s=-2",
                (op, "mul"),
                lambda leaf, op=op: apply_unary(op, leaf(0.5, "x")) * leaf(-2.0, "s"),
            )
        )
    return alone + scaled


def _tutorial(leaf, x=-2.0, y=3.0):
    x, y = leaf(x, "x"), leaf(y, "y")
    return x * y + y**2


def _two_powers(leaf, x=1.5):
    """One x under two powers: `=` instead of `+=` in __pow__ loses one of them
    whichever pow the backward pass visits first."""
    x = leaf(x, "x")
    return x**2 + x**3


def _a_plus_a(leaf):
    a = leaf(3.0, "a")
    return a + a


def _x_times_x(leaf):
    x = leaf(3.0, "x")
    return x * x


def _neuron(leaf):
    x1, x2 = leaf(2.0, "x1"), leaf(0.0, "x2")
    w1, w2 = leaf(-3.0, "w1"), leaf(1.0, "w2")
    b = leaf(6.8813735870195432, "b")
    return (x1 * w1 + x2 * w2 + b).tanh()


def _reused(leaf):
    x, y, z = leaf(2.0, "x"), leaf(-3.0, "y"), leaf(0.5, "z")
    h = x * y
    return (h + z) * (h * z)


def _two_depths(leaf):
    """h is used by the output itself and by a node under it: a walk in the wrong
    order (breadth first, or following a set's order) runs h's _backward early."""
    x, y, z = leaf(2.0, "x"), leaf(-3.0, "y"), leaf(0.5, "z")
    h = x * y
    return h * z + h


def _two_depths_first(leaf):
    """The same, h first: a walk that lists a node where it first meets it (depth first,
    before its users) puts h before h*z."""
    x, y, z = leaf(2.0, "x"), leaf(-3.0, "y"), leaf(0.5, "z")
    h = x * y
    return h + h * z


def _deep(leaf):
    x, c, d = leaf(0.8, "x"), leaf(0.9, "c"), leaf(0.1, "d")
    v = x
    for _ in range(40):
        v = v * c + d
    return v


def _deep_tanh(leaf):
    x, c, d = leaf(0.8, "x"), leaf(1.3, "c"), leaf(-0.2, "d")
    v = x
    for _ in range(20):
        v = (v * c + d).tanh()
    return v


def _sanity(leaf):
    x = leaf(-4.0, "x")
    z = 2 * x + 2 + x
    q = z.relu() + z * x
    h = (z * z).relu()
    return h + q + q * x


def _more_ops(leaf):
    a, b = leaf(-4.0, "a"), leaf(2.0, "b")
    c = a + b
    d = a * b + b**3
    c = c + c + 1
    c = c + 1 + c + (-a)
    d = d + d * 2 + (b + a).relu()
    d = d + 3 * d + (b - a).relu()
    e = c - d
    f = e**2
    g = f / 2.0
    return g + 10.0 / f


EXPRESSIONS = (
    Case("x*x (one value, both operands)", ("mul",), _x_times_x, "x = 3; x*x"),
    Case("b = a + a (the lecture's bug)", ("add",), _a_plus_a, "a = 3; a + a"),
    Case("tutorial: f = x*y + y**2", ("add", "mul", "pow"), _tutorial, "x = -2; y = 3; x*y + y**2"),
    Case("tutorial: f = x*y + y**2 at x=0.5, y=-1.5", ("add", "mul", "pow"), lambda leaf: _tutorial(leaf, 0.5, -1.5)),
    Case("tutorial: f = x*y + y**2 at x=3, y=0", ("add", "mul", "pow"), lambda leaf: _tutorial(leaf, 3.0, 0.0)),
    Case("x**2 + x**3 at x=1.5 (one x, two powers)", ("add", "pow"), _two_powers),
    Case("x**2 + x**3 at x=-0.5", ("add", "pow"), lambda leaf: _two_powers(leaf, -0.5)),
    Case(
        "a neuron: tanh(x1*w1 + x2*w2 + b)",
        ("add", "mul", "tanh"),
        _neuron,
        "x1 = 2; x2 = 0; w1 = -3; w2 = 1; b = 6.8813735870195432; (x1*w1 + x2*w2 + b).tanh()",
    ),
    Case(
        "reused intermediate: h = x*y; (h + z)*(h*z)",
        ("add", "mul"),
        _reused,
        "x = 2; y = -3; z = 0.5; h = x*y; (h + z)*(h*z)",
    ),
    Case("h at two depths: h = x*y; h*z + h", ("add", "mul"), _two_depths, "x = 2; y = -3; z = 0.5; h = x*y; h*z + h"),
    Case(
        "h at two depths: h = x*y; h + h*z",
        ("add", "mul"),
        _two_depths_first,
        "x = 2; y = -3; z = 0.5; h = x*y; h + h*z",
    ),
    Case("deep chain: 40 x (v*c + d)", ("add", "mul"), _deep),
    Case("deep chain: 20 x tanh(v*c + d)", ("add", "mul", "tanh"), _deep_tanh),
    Case("micrograd sanity check", ("add", "mul", "relu", "rmul", "numbers"), _sanity),
    Case(
        "micrograd more ops",
        ("add", "mul", "sub", "neg", "div", "pow", "relu", "radd", "rmul", "rdiv", "numbers"),
        _more_ops,
    ),
)


def cases_for(ops_offered: Collection[str]) -> tuple[list[Case], list[tuple[str, list[str]]]]:
    """(cases to run, [(case name, missing ops)] skipped) for a class offering `ops_offered`."""
    run: list[Case] = []
    skipped: list[tuple[str, list[str]]] = []
    for case in op_cases() + list(EXPRESSIONS):
        missing = [op for op in case.needs if op not in ops_offered]
        if missing:
            skipped.append((case.name, missing))
        else:
            run.append(case)
    return run, skipped
