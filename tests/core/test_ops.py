"""The op table (core/ops.py) against everything that computes or names an op.

For every row and at several points (negative, zero where defined, large), the
`Value` method written out in core/engine.py must compute the row's forward and
`refresh` the same; its `_backward` must change each operand's grad by the row's
local derivative times out.grad; and the op must survive the document's round
trip: compile, trace back to the same op, export as code, parse back.
"""

import math

import pytest

from core import ops
from core.debugger.stepper import BackwardStepper, forward_formula, local_derivatives
from core.document.codegen import to_python
from core.document.compile import compile_document, trace
from core.document.expr import FUNCTIONS, parse
from core.document.graph import OPS, GraphDocument, Node, node_expression, op_symbol
from core.engine import Value, refresh

# The one place in the tests that calls each op as a learner writes it. A row
# added to the table without a line here fails test_every_row_has_a_call.
CALLS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "neg": lambda a: -a,
    "pow": lambda a, k: a**k,
    "rpow": lambda a, c: c**a,
    "relu": lambda a: a.relu(),
    "tanh": lambda a: a.tanh(),
    "exp": lambda a: a.exp(),
    "log": lambda a: a.log(),
    "sigmoid": lambda a: a.sigmoid(),
}

BIG, TINY = 1e200, 1e-200
# per op: (operands, param) points; negative, zero where defined, large
POINTS = {
    "add": [
        ((2.0, 3.0), None),
        ((-1.5, 0.25), None),
        ((0.0, -0.0), None),
        ((BIG, -3e199), None),
        ((1e308, 1e308), None),
    ],
    "sub": [((2.0, 3.0), None), ((-1.5, 0.25), None), ((0.0, 0.0), None), ((BIG, -BIG), None)],
    "mul": [((2.0, 3.0), None), ((-1.5, 0.25), None), ((0.0, -7.0), None), ((BIG, BIG), None), ((TINY, TINY), None)],
    "div": [
        ((6.0, 3.0), None),
        ((-1.5, 0.25), None),
        ((0.0, 4.0), None),
        ((1.0, 0.0), None),
        ((TINY, TINY), None),
        ((BIG, 1e-120), None),
        ((-3.0, BIG), None),
    ],
    "neg": [((2.0,), None), ((-1.5,), None), ((0.0,), None), ((BIG,), None)],
    "pow": [
        ((3.0,), 2),
        ((-2.0,), 3),
        ((0.0,), 2),
        ((0.0,), 0),
        ((2.0,), 0),
        ((4.0,), 0.5),
        ((0.0,), 0.5),
        ((-2.0,), -1),
        ((0.0,), -1),
        ((1e100,), 4),
        ((-8.0,), 0.5),
        ((TINY,), -2),
    ],
    "rpow": [
        ((1.5,), 2.0),
        ((-2.0,), 0.5),
        ((0.0,), 10.0),
        ((3.0,), 0.0),
        ((0.0,), 0.0),
        ((-1.0,), 0.0),
        ((400.0,), 10.0),
        ((3.0,), -2.0),
        ((0.5,), -2.0),
    ],
    "relu": [((2.0,), None), ((-1.5,), None), ((0.0,), None), ((BIG,), None)],
    "tanh": [((0.5,), None), ((-3.0,), None), ((0.0,), None), ((20.0,), None), ((-BIG,), None)],
    "exp": [((1.0,), None), ((-2.0,), None), ((0.0,), None), ((700.0,), None), ((1000.0,), None)],
    "log": [((0.5,), None), ((1.0,), None), ((TINY,), None), ((BIG,), None), ((0.0,), None), ((-1.0,), None)],
    "sigmoid": [((2.0,), None), ((-40.0,), None), ((0.0,), None), ((40.0,), None), ((-BIG,), None)],
}
CASES = [(name, operands, param) for name, points in POINTS.items() for operands, param in points]
IDS = [f"{name}{operands}{'' if param is None else f'^{param}'}" for name, operands, param in CASES]


def same(x, y):
    """Equal as floats, nan equal to nan (a row and a method that both say nan agree)."""
    return (x != x and y != y) or x == y


def close(x, y):
    """Equal up to one rounding: `out.grad / b` against `(1/b) * out.grad`."""
    return same(x, y) or math.isclose(x, y, rel_tol=1e-15)


def build(name, operands, param):
    leaves = [Value(x) for x in operands]
    out = CALLS[name](*leaves, *(() if param is None else (param,)))
    return leaves, out


# -- the table is whole -------------------------------------------------------------


def test_every_row_has_a_call_a_point_and_consistent_columns():
    assert set(CALLS) == set(ops.BY_NAME) == set(POINTS) == set(OPS)
    for op in ops.TABLE:
        assert len(op.local) == len(op.math) == len(op.code) == op.arity, op.name
        assert bool(op.infix) == (op.arity == 2), op.name
        assert OPS[op.name] == (op.arity, op.symbol)
    assert set(FUNCTIONS) == {"relu", "tanh", "exp", "log", "sigmoid"}


def test_notation_reads_like_the_math():
    assert ops.notation(ops.MUL) == ["d(a·b)/da = b", "d(a·b)/db = a"]
    assert ops.notation(ops.DIV, ["x", "y"]) == ["d(x/y)/dx = 1/y", "d(x/y)/dy = −x/y²"]
    assert ops.notation(ops.POW, ["y"], 2) == ["d(y^2)/dy = 2·y"]
    assert ops.notation(ops.POW, ["y"], 3) == ["d(y^3)/dy = 3·y^2"]
    assert ops.notation(ops.RPOW, ["x"], 2.0) == ["d(2^x)/dx = 2^x·ln 2"]
    assert ops.notation(ops.TANH) == ["d(tanh(a))/da = 1 − tanh(a)²"]
    assert ops.notation(ops.SIGMOID, ["n"]) == ["d(σ(n))/dn = σ(n)·(1 − σ(n))"]


def test_names_symbols_and_engine_strings():
    assert [ops.lookup(s) for s in ("*", "**2", "**0.5", "2.0**", "neg")] == [
        (ops.MUL, None),
        (ops.POW, 2),
        (ops.POW, 0.5),
        (ops.RPOW, 2.0),
        (ops.NEG, None),
    ]
    with pytest.raises(ValueError, match="unknown op 'foo'"):
        ops.lookup("foo")
    assert [op_symbol("mul"), op_symbol("pow", 2.0), op_symbol("rpow", 0.5), op_symbol("sigmoid")] == [
        "×",
        "**2",
        "0.5**",
        "σ",
    ]
    assert [ops.short_text(s) for s in ("-", "*", "**2", "2.0**", "neg", "tanh")] == [
        "−",
        "·",
        "^2",
        "2.0^x",
        "−x",
        "tanh",
    ]
    assert node_expression(Node("n", "op", "sub"), ["x", "y"]) == "x − y"
    assert node_expression(Node("n", "op", "pow", param=2.0), ["y"]) == "y^2"
    assert node_expression(Node("n", "op", "log"), ["x"]) == "log(x)"


# -- each row against the engine ---------------------------------------------------


@pytest.mark.parametrize("name, operands, param", CASES, ids=IDS)
def test_the_method_computes_the_rows_forward_and_refresh_agrees(name, operands, param):
    op = ops.BY_NAME[name]
    params = ops.params_of(op, param)
    _leaves, out = build(name, operands, param)
    assert ops.lookup(out._op) == (op, param)
    assert same(out.data, op.forward(*operands, *params))
    out.data = 12345.0
    refresh(out)
    assert same(out.data, op.forward(*operands, *params))


@pytest.mark.parametrize("out_grad", [1.0, -0.75, 3e5])
@pytest.mark.parametrize("name, operands, param", CASES, ids=IDS)
def test_backward_adds_the_rows_local_derivative_times_out_grad(name, operands, param, out_grad):
    op = ops.BY_NAME[name]
    leaves, out = build(name, operands, param)
    out.grad = out_grad
    out._backward(out)  # the leaves' grads start at 0: each ends at exactly its change
    args = [*operands, *ops.params_of(op, param)]
    for leaf, local in zip(leaves, op.local):
        expected = local(out.data, *args) * out_grad
        assert close(leaf.grad, expected), (name, operands, leaf.grad, expected)
    # the debugger shows the same numbers
    assert [value for _text, value in local_derivatives(out)] == pytest.approx(
        [local(out.data, *args) for local in op.local], nan_ok=True
    )


@pytest.mark.parametrize("name, operands, param", CASES, ids=IDS)
def test_the_op_compiles_traces_exports_and_parses_back(name, operands, param):
    op = ops.BY_NAME[name]
    doc = GraphDocument()
    for i, x in enumerate(operands):
        doc.add_node(Node(f"n{i + 1}", "input", value=x, label="ab"[i]))
    nid = f"n{len(operands) + 1}"
    doc.add_node(Node(nid, "op", name, param=param, label="f"))
    for i in range(len(operands)):
        doc.connect(f"n{i + 1}", nid, i)
    doc.set_output(nid)

    compiled = compile_document(doc)
    _leaves, by_hand = build(name, operands, param)
    assert compiled.output._op == by_hand._op
    assert same(compiled.output.data, by_hand.data)

    traced, _values = trace(compiled.output)
    traced_op = traced.nodes[traced.output]
    assert (traced_op.op, traced_op.param) == (name, param)

    back = parse(to_python(doc))
    assert [n.to_dict() | {"pos": None} for n in back.nodes.values()] == [
        n.to_dict() | {"pos": None} for n in doc.nodes.values()
    ]
    assert same(compile_document(back).output.data, by_hand.data)

    text = forward_formula(by_hand, lambda v: "f" if v is by_hand else "ab"[_leaves.index(v)])
    assert text.startswith("f = ") and (op.infix in text if op.infix else True)


def test_a_step_explains_itself_with_the_rows_code_text():
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    f = x / y
    f.label = "f"
    stepper = BackwardStepper(f)
    record = stepper.step()
    assert record.lines[1].startswith("y.grad += -x.data/y.data² · f.grad")
    assert [text for text, _value in local_derivatives(f)] == list(ops.DIV.code)


@pytest.mark.parametrize(
    "base, k",
    [
        (-1e300, 2.5),  # was inf: a ** k overflowed before Python noticed the base is negative
        (-1e-300, -2.5),  # was inf, the same through 1/tiny
        (-1e300, 1e10 + 0.5),
        (-8.0, 0.5),
        (-1e300, 2.0),
        (-1e300, 3.0),
        (-1e-300, -3.0),
        (0.0, -2.5),
        (-0.0, -3.0),
        (1e300, 2.5),
    ],
)
def test_ieee_pow_is_numpys_power_when_the_result_overflows(base, k):
    # a negative base to a non-integer power is nan, as numpy (and IEEE pow) say, however large |a ** k| is
    np = pytest.importorskip("numpy")
    with np.errstate(all="ignore"):
        expected = float(np.power(np.float64(base), np.float64(k)))
    got = ops.ieee_pow(base, k)
    assert got == expected or (math.isnan(got) and math.isnan(expected)), (base, k, got, expected)


def test_every_op_of_the_table_says_how_a_value_computes_it():
    """Issue 32 item 3: compile.py dispatches through the table's `call`, so an op
    added to the table without one would not compile: each row has it, and it is the
    engine's own method (the same _op and number as the call written by hand)."""
    from core.engine import Value

    by_hand = {
        "add": lambda a, b: a + b,
        "sub": lambda a, b: a - b,
        "mul": lambda a, b: a * b,
        "div": lambda a, b: a / b,
        "neg": lambda a: -a,
        "pow": lambda a, k: a**k,
        "rpow": lambda a, c: c**a,
        "relu": lambda a: a.relu(),
        "tanh": lambda a: a.tanh(),
        "exp": lambda a: a.exp(),
        "log": lambda a: a.log(),
        "sigmoid": lambda a: a.sigmoid(),
    }
    assert set(by_hand) == {op.name for op in ops.TABLE}
    for op in ops.TABLE:
        assert op.call is not None, op.name
        operands = [Value(1.5), Value(-0.5)][: op.arity]
        extra = [3] if op.param == "k" else [2.0] if op.param == "c" else []
        out, expected = op.call(*operands, *extra), by_hand[op.name](*operands, *extra)
        assert (out._op, out.data) == (expected._op, expected.data), op.name


# -----------------------------------------------------------------------------
# One row per op feeds every backend (issue 41 item 2)


def test_every_row_carries_its_array_forms_and_the_numpy_table_is_made_from_them():
    import numpy as np

    from core.numpy_ops import NUMPY_OPS

    assert list(NUMPY_OPS) == [op.name for op in ops.TABLE]
    for op in ops.TABLE:
        numpy_op = NUMPY_OPS[op.name]
        assert numpy_op.forward.func is op.array_forward and numpy_op.forward.args == (np,)
        assert numpy_op.backward.func is op.array_backward and numpy_op.backward.args == (np,)


def test_the_hint_questions_come_from_the_rows():
    from core.foreign.hints import QUESTION

    assert QUESTION == {op.name: (op.question, op.answer) for op in ops.TABLE if op.question}
    assert set(QUESTION) == {op.name for op in ops.TABLE}  # every op's hint asks about its own derivative
    assert QUESTION["mul"] == ("what is d(a·b)/da, and d(a·b)/db?", "d(a·b)/da = b and d(a·b)/db = a")
