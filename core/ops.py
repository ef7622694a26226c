"""The op table: everything the studio knows about each operation, written once.

An operation such as multiplication shows up in many places: the engine computes
it (`Value.__mul__`), the forward pass is re-run in place (`engine.refresh`),
the debugger explains its chain-rule step, the inspector writes its derivative in
math, the canvas draws its symbol, documents and files name it, code export
writes it. Each of those reads this table, so they cannot disagree:

    name     'mul'               what documents, files and the editor call it
    engine   '*'                 the `_op` string the engine's Value carries
    arity    2                   how many operands (wires into the op)
    symbol   '×'                 drawn in the op's circle on the canvas
    forward  a * b               the output from its operands' data
    local    b, a                d out / d a and d out / d b, one function each
    math     'b', 'a'            the same derivatives in math notation
    array_forward, array_backward   the op on numpy arrays, for replaying a recorded graph
                                    (core/recorded.py hands them numpy)
    question, answer   the hint ladder's question on its derivative (core/foreign/hints.py)
    python   '{a} * {b}'         how a learner writes it: the checker's tests (core/foreign/battery.py)
    dunders  '__mul__', '__rmul__'   the special methods of a learner's class that make it
    method   'tanh'              the method a learner calls (x.tanh()): parser, checker, scopes
    points, definition, forward_slips, slips, fix   what the checker needs to test it and to
                                 name a learner's classic slips (core/foreign/judge.py, diagnosis.py)
    tip, words   'max(0, a)'     the palette's line on it and the words its search knows

Every other place that knows about ops -- the checker's tests, hints and diagnoses,
the scopes of a learner's graph, the numpy replay (core/recorded.py) -- reads
these rows, so adding an op is one row here, its `Value` method in
core/engine.py, and their tests. `d(a·b)/da = b` is `notation(MUL)[0]`. The `Value` methods in
`core/engine.py` stay written out one by one -- that is where a learner looks for
`__mul__` and its `_backward` -- and `tests/core/test_ops.py` proves, op by op,
that each method computes exactly what its row here says. (The forward functions
of +, -, * and neg are Python's own `operator.add` ...: the same arithmetic,
called without a Python frame, which keeps replaying a recorded graph fast.)

Two ops carry a number that is not an operand: `pow` (x ** k, the exponent k)
and `rpow` (c ** x, the base c). Their engine `_op` spells the number out,
'**2' or '2.0**', and their functions take it as a last argument.

How the functions are called
----------------------------
`forward(*operands, *param)` and each `local[i](out, *operands, *param)`, with
floats: `MUL.forward(2.0, 3.0)`, `POW.local[0](9.0, 3.0, 2)` (= 2 * 3.0). A local
derivative gets the output as well, because some are cheapest in terms of it:
d tanh(x)/dx = 1 - tanh(x)^2 = 1 - out^2.

Numbers follow IEEE float64 like numpy (the helpers below): overflow gives +-inf,
log(0) -inf, 0/0 nan; nothing raises. At the edges the derivatives take the limit
a float64 reference (PyTorch) takes: d(x^0)/dx = 0 even at x = 0, x**0.5 is
sqrt(x) with d/dx = 0.5/sqrt(x) (-inf at -0.0, nan at -inf), d(0^x)/dx = 0
for x >= 0, and d(a/b)/db is -(a/b)/b, never -a/(b*b), whose b*b underflows to
0 for b = 1e-200 and turns a true -1e200 into -inf.
"""

import math
import operator
from collections.abc import Callable
from typing import Any, NamedTuple

INF = math.inf
NAN = math.nan


# -----------------------------------------------------------------------------
# IEEE-style float helpers (Python raises where numpy returns inf or nan)


def ieee_div(a: float, b: float) -> float:
    """a / b with x/0 -> +-inf and 0/0 -> nan, as in numpy float64."""
    try:
        return a / b
    except ZeroDivisionError:
        if a == 0.0 or a != a:
            return NAN
        return math.copysign(INF, a) * math.copysign(1.0, b)


def ieee_pow(a: float, k: float) -> float:
    """a ** k for a float base and a number exponent, never complex, never raising.
    x ** 0.5 is sqrt(x), as PyTorch takes it: sqrt(-0.0) = -0.0, sqrt(-inf) = nan."""
    if k == 0.5:
        return math.sqrt(a) if a >= 0.0 or a != a else NAN
    try:
        result = a**k
    except ZeroDivisionError:  # 0.0 ** negative
        odd = float(k).is_integer() and int(k) % 2 == 1
        return math.copysign(INF, a) if odd else INF
    except OverflowError:  # |a ** k| beyond the largest float
        if a < 0 and not float(k).is_integer():  # negative base, fractional exponent: nan, however large
            return NAN
        odd = float(k).is_integer() and int(k) % 2 == 1
        return -INF if (a < 0 and odd) else INF
    if isinstance(result, complex):  # negative base, fractional exponent
        return NAN
    return float(result)


def ieee_exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return INF


def ieee_log(x: float) -> float:
    if x > 0.0:
        return math.log(x)
    if x == 0.0:
        return -INF
    return NAN  # negative or nan


def sigmoid_float(x: float) -> float:
    """1 / (1 + e^-x), computed without overflow for large |x|."""
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    if x != x:
        return NAN
    e = ieee_exp(x)
    return e / (1.0 + e)


# -----------------------------------------------------------------------------
# The derivatives that need a word of care at the edges


def pow_local(out: float, a: float, k: float) -> float:
    """d(a^k)/da = k * a^(k-1); for k = 0, a^0 is the constant 1, so 0 (also at a = 0,
    where k * a^(k-1) would be 0 * inf = nan)."""
    if k == 0:
        return 0.0
    if k == 0.5:  # d sqrt(x)/dx = 0.5 / sqrt(x), as PyTorch: -inf at -0.0, nan at -inf
        root = ieee_pow(a, 0.5)
        return 0.5 / root if root != 0.0 else math.copysign(INF, root)
    return k * ieee_pow(a, k - 1)


def rpow_local(out: float, a: float, c: float) -> float:
    """d(c^a)/da = c^a * ln(c); for c = 0 and a >= 0, 0^a is the constant 0 (or 1 at
    a = 0), so 0 -- not 0 * ln(0) = 0 * -inf = nan."""
    if c == 0.0 and a >= 0.0:
        return 0.0
    return out * ieee_log(c)


# -----------------------------------------------------------------------------
# The table


class Op(NamedTuple):
    """One row of the table (see the module docstring). Templates use {a} and {b}
    for the operands, {k} for pow's exponent and {c} for rpow's base."""

    name: str  # in documents and files: 'mul'
    engine: str  # Value._op: '*' ('**{k}' and '{c}**' carry their number)
    arity: int  # operands: wires into the op
    symbol: str  # in the op's circle on the canvas (pow/rpow: see op_symbol)
    forward: Callable  # forward(*operands, *param) -> out
    local: tuple  # per operand: local[i](out, *operands, *param) -> d out/d operand i
    text: str  # out as a formula of its operands' names: '{a}·{b}', 'tanh({a})'
    math_text: str  # the same in math notation: 'ln({a})', 'σ({a})'
    math: tuple  # per operand, the local derivative in math: '{b}'
    code: tuple  # per operand, the same in the engine's words: 'b.data'
    short: str  # the op in one short word, for lists: '·', '^{k}', 'tanh'
    call: Callable  # the op on Values, as a learner writes it: call(*operands, *param)
    infix: str = ""  # binary ops: the operator between the operands: '·'
    param: str = ""  # 'k' (pow) or 'c' (rpow): the number the op carries
    # the same op on arrays, for replaying a recorded graph (core/recorded.py hands them numpy as `xp`):
    array_forward: Callable | None = None  # array_forward(xp, a, b, param, out): writes the output into out
    array_backward: Callable | None = None  # array_backward(xp, out, a, b, g, param) -> (da, db), added to the grads
    question: str = ""  # the hint ladder's question on this op's derivative (core/foreign/hints.py)
    answer: str = ""  # and its answer
    # how a learner's own Value class spells it (the engine checker, core/foreign; their graphs, core/scopes):
    python: str = ""  # as Python source: '{a} * {b}', '-{a}', '{a}**{k}', '{a}.tanh()'
    dunders: tuple = ()  # their special methods that make it, operands in order: ('__mul__', '__rmul__')
    method: str = ""  # the method they call for it: 'tanh' (x.tanh())
    points: tuple = ()  # where the checker tests a unary op, away from kinks and off its domain's edge
    definition: str = ""  # its forward in words, for a wrong forward's hint: 'max(0, x)'
    forward_slips: tuple = ()  # ((what a learner wrote, f(x)), ...): a wrong forward that fits is named
    slips: tuple = ()  # ((what a learner wrote, f(x, out) -> their local derivative), ...): named likewise
    fix: str = ""  # with slips: the fix for a wrong derivative, its code (the `{name}-derivative` diagnosis)
    # the palette (core/document/blocks.py): what it computes in one line, and more words search knows it by
    tip: str = ""
    words: str = ""
    spellings: tuple = ()  # how else a learner's `_op` may name it: ('×', '·'), ('ln',) -- read lowercased
    micrograd: bool = False  # micrograd's own Value (0.1.0) computes it: code export may target micrograd


def add_array(xp: Any, a: Any, b: Any, param: Any, out: Any) -> None:
    xp.add(a, b, out=out)


def add_array_backward(xp: Any, out: Any, a: Any, b: Any, g: Any, param: Any) -> tuple[Any, Any]:
    return g, g  # d(a+b)/da = 1, d(a+b)/db = 1


ADD = Op(
    "add",
    "+",
    2,
    "+",
    forward=operator.add,  # a + b
    local=(lambda out, a, b: 1.0, lambda out, a, b: 1.0),
    text="{a} + {b}",
    math_text="{a} + {b}",
    math=("1", "1"),
    code=("1", "1"),
    short="+",
    infix="+",
    call=operator.add,  # a + b
    array_forward=add_array,
    array_backward=add_array_backward,
    question="what is d(a + b)/da, and d(a + b)/db?",
    answer="both are 1",
    python="{a} + {b}",
    spellings=("+",),
    dunders=("__add__", "__radd__"),
    tip="a + b",
    words="plus sum",
    micrograd=True,
)


def sub_array(xp: Any, a: Any, b: Any, param: Any, out: Any) -> None:
    xp.subtract(a, b, out=out)


def sub_array_backward(xp: Any, out: Any, a: Any, b: Any, g: Any, param: Any) -> tuple[Any, Any]:
    return g, -g  # d(a-b)/da = 1, d(a-b)/db = -1


SUB = Op(
    "sub",
    "-",
    2,
    "−",
    forward=operator.sub,  # a - b
    local=(lambda out, a, b: 1.0, lambda out, a, b: -1.0),
    text="{a} − {b}",
    math_text="{a} − {b}",
    math=("1", "−1"),
    code=("1", "-1"),
    short="−",
    infix="−",
    call=operator.sub,  # a - b
    array_forward=sub_array,
    array_backward=sub_array_backward,
    question="what is d(a − b)/da, and d(a − b)/db?",
    answer="1 and −1",
    python="{a} - {b}",
    dunders=("__sub__",),
    tip="a − b",
    words="minus subtract difference",
    micrograd=True,
)


def mul_array(xp: Any, a: Any, b: Any, param: Any, out: Any) -> None:
    xp.multiply(a, b, out=out)


def mul_array_backward(xp: Any, out: Any, a: Any, b: Any, g: Any, param: Any) -> tuple[Any, Any]:
    return b * g, a * g  # d(a*b)/da = b, d(a*b)/db = a


MUL = Op(
    "mul",
    "*",
    2,
    "×",
    forward=operator.mul,  # a * b
    local=(lambda out, a, b: b, lambda out, a, b: a),
    text="{a}·{b}",
    math_text="{a}·{b}",
    math=("{b}", "{a}"),
    code=("b.data", "a.data"),
    short="·",
    infix="·",
    call=operator.mul,  # a * b
    array_forward=mul_array,
    array_backward=mul_array_backward,
    question="what is d(a·b)/da, and d(a·b)/db?",
    answer="d(a·b)/da = b and d(a·b)/db = a",
    python="{a} * {b}",
    spellings=("*", "×", "·"),
    dunders=("__mul__", "__rmul__"),
    tip="a · b",
    words="times multiply product",
    micrograd=True,
)


def div_array(xp: Any, a: Any, b: Any, param: Any, out: Any) -> None:
    xp.divide(a, b, out=out)


def div_array_backward(xp: Any, out: Any, a: Any, b: Any, g: Any, param: Any) -> tuple[Any, Any]:
    return g / b, -((out / b) * g)  # 1/b and -(a/b)/b: divided, as the engine does (no b*b to underflow)


DIV = Op(
    "div",
    "/",
    2,
    "÷",
    forward=ieee_div,
    # d(a/b)/db = -a/b^2, computed as -(a/b)/b = -out/b: b*b would underflow
    local=(lambda out, a, b: ieee_div(1.0, b), lambda out, a, b: -ieee_div(out, b)),
    text="{a}/{b}",
    math_text="{a}/{b}",
    math=("1/{b}", "−{a}/{b}²"),
    code=("1/b.data", "-a.data/b.data²"),
    short="/",
    infix="/",
    call=operator.truediv,  # a / b
    array_forward=div_array,
    array_backward=div_array_backward,
    question="what is d(a/b)/da, and d(a/b)/db?",
    answer="1/b and −a/b²",
    python="{a} / {b}",
    spellings=("/", "truediv"),
    dunders=("__truediv__",),
    tip="a / b",
    words="divide quotient over",
    micrograd=True,
)


def neg_array(xp: Any, a: Any, b: Any, param: Any, out: Any) -> None:
    xp.negative(a, out=out)


def neg_array_backward(xp: Any, out: Any, a: Any, b: Any, g: Any, param: Any) -> tuple[Any, Any]:
    return -g, None  # d(-x)/dx = -1


NEG = Op(
    "neg",
    "neg",
    1,
    "−x",
    forward=operator.neg,  # -a
    local=(lambda out, a: -1.0,),
    text="−{a}",
    math_text="−{a}",
    math=("−1",),
    code=("-1",),
    short="−x",
    call=operator.neg,  # -a
    array_forward=neg_array,
    array_backward=neg_array_backward,
    question="what is d(−a)/da?",
    answer="−1",
    python="-{a}",
    dunders=("__neg__",),
    tip="−a",
    words="negate minus",
    micrograd=True,
)


def pow_array(xp: Any, a: Any, b: Any, k: Any, out: Any) -> None:
    if k == 0.5:  # x ** 0.5 is sqrt(x), as the engine and PyTorch take it: -0.0 at -0.0, nan at -inf
        xp.sqrt(a, out=out)
    else:
        xp.power(a, k, out=out)


def pow_array_backward(xp: Any, out: Any, a: Any, b: Any, g: Any, k: Any) -> tuple[Any, Any]:
    # k * x^(k-1); for k = 0 the output is constant: 0 (the engine adds nothing)
    if k == 0:
        return xp.zeros_like(g), None
    if k == 0.5:  # 0.5 / sqrt(x): -inf at -0.0, nan at -inf (pow_local)
        return (0.5 / xp.sqrt(a)) * g, None
    return (k * xp.power(a, k - 1)) * g, None


POW = Op(
    "pow",
    "**{k}",
    1,
    "xᵏ",
    forward=ieee_pow,
    local=(pow_local,),
    text="{a}^{k}",
    math_text="{a}^{k}",
    math=("{k}·{a}{km1}",),
    code=("{k}·a.data{km1}",),
    short="^{k}",
    param="k",
    call=operator.pow,  # a ** k
    array_forward=pow_array,
    array_backward=pow_array_backward,
    question="what is d(x^k)/dx?",
    answer="k·x^(k−1)",
    python="{a}**{k}",
    dunders=("__pow__",),
    tip="a to the power k (k is a fixed number)",
    words="power square exponent",
    micrograd=True,
)


def rpow_array(xp: Any, a: Any, b: Any, c: Any, out: Any) -> None:
    xp.power(c, a, out=out)


def rpow_array_backward(xp: Any, out: Any, a: Any, b: Any, g: Any, c: Any) -> tuple[Any, Any]:
    # c^x * ln(c); for c = 0 and x >= 0 the output is constant: 0 (rpow_local)
    contribution = (out * ieee_log(c)) * g
    if c == 0.0:
        contribution = xp.where(a >= 0.0, 0.0, contribution)
    return contribution, None


RPOW = Op(
    "rpow",
    "{c}**",
    1,
    "cˣ",
    forward=lambda a, c: ieee_pow(c, a),
    local=(rpow_local,),
    text="{c}^{a}",
    math_text="{c}^{a}",
    math=("{c}^{a}·ln {c}",),
    code=("out.data·ln({c})",),
    short="{c}^x",
    param="c",
    call=lambda a, c: c**a,  # c ** a
    array_forward=rpow_array,
    array_backward=rpow_array_backward,
    question="what is d(c^x)/dx, written with out = c^x?",
    answer="c^x·ln c (out.data times ln c)",
    python="{c}**{a}",
    tip="c to the power a (c is a fixed number)",
    words="power base exponential",
)


def relu_array(xp: Any, a: Any, b: Any, param: Any, out: Any) -> None:
    xp.copyto(out, xp.where(a <= 0.0, 0.0, a))  # `0 if x <= 0 else x`: nan stays nan


def relu_array_backward(xp: Any, out: Any, a: Any, b: Any, g: Any, param: Any) -> tuple[Any, Any]:
    return xp.where(a <= 0.0, 0.0, g), None  # 1 if x > 0 else 0 (the engine adds nothing for x <= 0)


RELU = Op(
    "relu",
    "relu",
    1,
    "relu",
    # `0 if x <= 0 else x` keeps nan as nan: a diverged model must not look healthy
    forward=lambda a: 0.0 if a <= 0.0 else a,
    local=(lambda out, a: 0.0 if a <= 0.0 else 1.0,),
    text="relu({a})",
    math_text="relu({a})",
    math=("1 if {a} > 0 else 0",),
    code=("(a.data > 0)",),
    short="relu",
    call=operator.methodcaller("relu"),  # a.relu()
    array_forward=relu_array,
    array_backward=relu_array_backward,
    question="what is d relu(x)/dx, for x > 0 and for x < 0?",
    answer="1 for x > 0, 0 for x < 0",
    python="{a}.relu()",
    method="relu",
    points=(-1.5, 0.5, 2.0),  # never at the kink, 0
    definition="max(0, x)",
    forward_slips=(("max(0, −x)", lambda x: max(0.0, -x)), ("x whatever its sign", lambda x: x)),
    slips=(
        ("x (the input) instead of the step (x > 0)", lambda x, out: x),
        ("relu(x) instead of (x > 0)", lambda x, out: out),
        ("1 whatever the sign of x", lambda x, out: 1.0),
    ),
    fix="`self.grad += (out.data > 0) * out.grad`: the step is 1 where the output is positive, else 0",
    tip="max(0, a)",
    words="rectifier activation",
    micrograd=True,
)


def tanh_array(xp: Any, a: Any, b: Any, param: Any, out: Any) -> None:
    xp.tanh(a, out=out)


def tanh_array_backward(xp: Any, out: Any, a: Any, b: Any, g: Any, param: Any) -> tuple[Any, Any]:
    return (1.0 - out * out) * g, None  # 1 - tanh(x)^2


TANH = Op(
    "tanh",
    "tanh",
    1,
    "tanh",
    forward=math.tanh,
    local=(lambda out, a: 1.0 - out * out,),
    text="tanh({a})",
    math_text="tanh({a})",
    math=("1 − tanh({a})²",),
    code=("1 - out.data²",),
    short="tanh",
    call=operator.methodcaller("tanh"),  # a.tanh()
    array_forward=tanh_array,
    array_backward=tanh_array_backward,
    question="what is d tanh(x)/dx, written with t = tanh(x)?",
    answer="1 − t²",
    python="{a}.tanh()",
    method="tanh",
    definition="(e^(2x) − 1)/(e^(2x) + 1)",
    forward_slips=(("(e²ˣ + 1)/(e²ˣ − 1) (upside down)", lambda x: (math.exp(2 * x) + 1) / (math.exp(2 * x) - 1)),),
    slips=(
        ("1 − x² (the input, not tanh(x))", lambda x, out: 1 - x * x),
        ("1 − tanh(x) (not squared)", lambda x, out: 1 - out),
        ("tanh(x)²", lambda x, out: out * out),
        ("1 + tanh(x)²", lambda x, out: 1 + out * out),
    ),
    fix="`self.grad += (1 - t**2) * out.grad` with t = out.data (the tanh, not its input)",
    tip="tanh(a), squashes to (−1, 1)",
    words="hyperbolic tangent activation",
)


def exp_array(xp: Any, a: Any, b: Any, param: Any, out: Any) -> None:
    xp.exp(a, out=out)


def exp_array_backward(xp: Any, out: Any, a: Any, b: Any, g: Any, param: Any) -> tuple[Any, Any]:
    return out * g, None  # e^x


EXP = Op(
    "exp",
    "exp",
    1,
    "exp",
    forward=ieee_exp,
    local=(lambda out, a: out,),
    text="exp({a})",
    math_text="exp({a})",
    math=("exp({a})",),
    code=("out.data",),
    short="exp",
    call=operator.methodcaller("exp"),  # a.exp()
    array_forward=exp_array,
    array_backward=exp_array_backward,
    question="what is d exp(x)/dx?",
    answer="exp(x) itself (out.data)",
    python="{a}.exp()",
    method="exp",
    definition="e^x",
    forward_slips=(("x (no exp)", lambda x: x),),
    slips=(
        ("x (the input) instead of exp(x)", lambda x, out: x),
        ("1 (the exp(x) factor missing)", lambda x, out: 1.0),
    ),
    fix="`self.grad += out.data * out.grad`: exp is its own derivative",
    tip="e to the power a",
    words="exponential",
)


def log_array(xp: Any, a: Any, b: Any, param: Any, out: Any) -> None:
    xp.log(a, out=out)


def log_array_backward(xp: Any, out: Any, a: Any, b: Any, g: Any, param: Any) -> tuple[Any, Any]:
    return g / a, None  # 1/x, as out.grad / x


LOG = Op(
    "log",
    "log",
    1,
    "log",
    forward=ieee_log,
    local=(lambda out, a: ieee_div(1.0, a),),
    text="log({a})",
    math_text="ln({a})",
    math=("1/{a}",),
    code=("1/a.data",),
    short="log",
    call=operator.methodcaller("log"),  # a.log()
    array_forward=log_array,
    array_backward=log_array_backward,
    question="what is d log(x)/dx?",
    answer="1/x",
    python="{a}.log()",
    spellings=("ln",),
    method="log",
    points=(0.5, 2.0),  # positive numbers only
    tip="natural logarithm of a",
    words="ln logarithm",
)


def sigmoid_array(xp: Any, a: Any, b: Any, param: Any, out: Any) -> None:
    # the two stable forms sigmoid_float picks between, so exp never overflows
    e = xp.exp(-xp.abs(a))
    xp.copyto(out, xp.where(a >= 0.0, 1.0 / (1.0 + e), e / (1.0 + e)))


def sigmoid_array_backward(xp: Any, out: Any, a: Any, b: Any, g: Any, param: Any) -> tuple[Any, Any]:
    return (out * (1.0 - out)) * g, None  # s * (1 - s)


SIGMOID = Op(
    "sigmoid",
    "sigmoid",
    1,
    "σ",
    forward=sigmoid_float,
    local=(lambda out, a: out * (1.0 - out),),
    text="sigmoid({a})",
    math_text="σ({a})",
    math=("σ({a})·(1 − σ({a}))",),
    code=("out.data·(1 - out.data)",),
    short="sigmoid",
    call=operator.methodcaller("sigmoid"),  # a.sigmoid()
    array_forward=sigmoid_array,
    array_backward=sigmoid_array_backward,
    question="what is d σ(x)/dx, written with s = σ(x)?",
    answer="s·(1 − s)",
    python="{a}.sigmoid()",
    spellings=("σ",),
    method="sigmoid",
    definition="1/(1 + e^(−x))",
    forward_slips=(
        ("1/(1 + eˣ) (the sign of x lost)", lambda x: 1 / (1 + math.exp(x))),
        ("eˣ/(1 + eˣ)… with e⁻ˣ", lambda x: math.exp(-x) / (1 + math.exp(-x))),
    ),
    tip="1 / (1 + e^−a), squashes to (0, 1)",
    words="logistic activation sigma",
)

TABLE = (ADD, SUB, MUL, DIV, NEG, POW, RPOW, RELU, TANH, EXP, LOG, SIGMOID)

BY_NAME = {op.name: op for op in TABLE}
# the engine `_op` strings that carry no number; '**2' and '2.0**' go through `lookup`
BY_ENGINE = {op.engine: op for op in TABLE if not op.param}
# engine `_op` -> forward function, for `engine.refresh`: replaying a recorded graph
# calls it once per node, so it is one dict lookup away
FORWARD = {op.engine: op.forward for op in TABLE if not op.param}
# the ops written as a method call in micrograd code: x.tanh()
METHODS = tuple(op.method for op in TABLE if op.method)
# the special methods of a learner's class that make an op, its operands in order: '__rmul__' -> 'mul'
DUNDERS = {dunder: op.name for op in TABLE for dunder in op.dunders}


# -----------------------------------------------------------------------------
# From an engine `_op` string to its row, and back


def pow_exponent(engine_op: str) -> int | float:
    """The exponent k of a '**k' op, as the int or float it was written with."""
    text = engine_op[2:]
    try:
        return int(text)
    except ValueError:
        return float(text)


def lookup(engine_op: str) -> tuple[Op, int | float | None]:
    """(Op, param) for an engine `_op`: '*' -> (MUL, None), '**2' -> (POW, 2),
    '**0.5' -> (POW, 0.5), '2.0**' -> (RPOW, 2.0). ValueError for an unknown op."""
    op = BY_ENGINE.get(engine_op)
    if op is not None:
        return op, None
    if engine_op.startswith("**"):
        return POW, pow_exponent(engine_op)
    if engine_op.endswith("**"):
        return RPOW, float(engine_op[:-2])
    raise ValueError(f"unknown op {engine_op!r}")


def params_of(op: Op, param: int | float | None) -> tuple:
    """The extra arguments op's functions take after the operands: () or (param,)."""
    return (param,) if op.param else ()


# -----------------------------------------------------------------------------
# Writing ops as text


def short_number(number: float) -> str:
    """A number as written in a formula: '2' for 2.0, '0.5', '1e+20'."""
    x = float(number)
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


def op_symbol(name: str, param: float | None = None) -> str:
    """The text drawn in an op's circle: '+', '×', '**2', '2**' ..."""
    op = BY_NAME[name]
    if op.param and param is not None:
        return op.engine.format(k=short_number(param), c=short_number(param))
    return op.symbol


def short_text(engine_op: str) -> str:
    """How a list names the op of a Value, its number as the engine spells it:
    '+', '·', '^2', '2.0^x', 'tanh'."""
    op, _param = lookup(engine_op)
    number = engine_op.strip("*") if op.param else ""
    return op.short.format(k=number, c=number)


def formula(name: str, args: list[str], param: float | None = None) -> str:
    """How an op reads as a formula of its operands' names: 'x·y', 'y^2', 'tanh(n)'."""
    op = BY_NAME[name]
    number = short_number(param) if op.param else ""  # type: ignore[arg-type]  # pow and rpow come with their number
    return op.text.format(a=args[0], b=args[-1], k=number, c=number)


def notation(op: Op, names: list[str] | None = None, param: float | None = None) -> list[str]:
    """The local derivatives of `op` in math, one string per operand:
    notation(MUL) == ['d(a·b)/da = b', 'd(a·b)/db = a'], or with the operands'
    names: notation(MUL, ['x', 'y']) == ['d(x·y)/dx = y', 'd(x·y)/dy = x']."""
    names = list(names) if names else ["a", "b"][: op.arity]
    fill = math_names(op, names, param)
    out = op.math_text.format(**fill)
    wrt = [fill["a"], fill["b"]]
    return [f"d({out})/d{wrt[i]} = {d.format(**fill)}" for i, d in enumerate(op.math)]


def math_names(op: Op, names: list[str], param: float | None = None) -> dict[str, str | float]:
    """The values of a row's math templates: {a}, {b}, {k}, {km1}, {c}."""
    k = param if param is not None else "k"
    fill = {"a": names[0], "b": names[-1], "k": k, "c": k, "km1": ""}
    if op.param and param is not None:
        fill["k"] = fill["c"] = short_number(param)
        if param - 1 != 1:  # d(y^2)/dy = 2·y, not 2·y^1
            fill["km1"] = "^" + short_number(param - 1)
    elif op.param:
        fill["km1"] = "^(k−1)"
    return fill
