"""core.document.expr: formulas and micrograd-style snippets -> GraphDocument, via an ast whitelist."""

import ast
import math
import pathlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.document import expr
from core.document.compile import compile_document
from core.document.expr import ExprError, parse
from core.document.graph import GraphDocument
from core.engine import Value, topological_order

ROOT = pathlib.Path(__file__).resolve().parents[3]

TUTORIAL = """\
from micrograd.engine import Value
x = Value(2.0, label='x')
y = Value(3.0)
f = x*y + y**2
"""

# micrograd's test_more_ops, as a snippet
MORE_OPS = """\
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
"""


def more_ops_with_the_engine():
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
    return a, b, g


def run(text, values=None):
    """parse + compile + backward; returns (doc, compiled)."""
    doc = parse(text, values)
    compiled = compile_document(doc)
    compiled.output.backward()
    return doc, compiled


def by_label(doc, compiled, label):
    [nid] = [nid for nid, n in doc.nodes.items() if n.label == label and n.kind == "input"]
    return compiled.values[nid]


def shape(doc):
    """Nodes and edges as plain tuples, for exact comparisons."""
    nodes = [(nid, n.kind, n.op, n.param, n.value, n.label) for nid, n in doc.nodes.items()]
    return nodes, [tuple(e) for e in doc.edges], doc.output


# -----------------------------------------------------------------------------
# Accepted text


def test_tutorial_snippet():
    doc, compiled = run(TUTORIAL)
    assert compiled.output.data == 15.0
    assert by_label(doc, compiled, "x").grad == 3.0
    assert by_label(doc, compiled, "y").grad == 8.0
    assert shape(doc) == (
        [
            ("n1", "input", None, None, 2.0, "x"),
            ("n2", "input", None, None, 3.0, "y"),  # the variable name labels it
            ("n3", "op", "mul", None, None, ""),
            ("n4", "op", "pow", 2, None, ""),
            ("n5", "op", "add", None, None, "f"),
        ],
        [("n1", "n3", 0), ("n2", "n3", 1), ("n2", "n4", 0), ("n3", "n5", 0), ("n4", "n5", 1)],
        "n5",
    )


def test_micrograd_more_ops():
    doc, compiled = run(MORE_OPS)
    a, b = by_label(doc, compiled, "a"), by_label(doc, compiled, "b")
    g = compiled.output
    assert g.data == pytest.approx(24.70408163265306, rel=1e-12)
    assert a.grad == pytest.approx(138.83381924198252, rel=1e-12)
    assert b.grad == pytest.approx(645.5772594752186, rel=1e-12)
    # and it is the very graph Python builds from the same lines
    a2, b2, g2 = more_ops_with_the_engine()
    g2.backward()
    for u, v in zip(topological_order(g), topological_order(g2), strict=True):
        assert (u._op, u.data, u.grad, len(u._prev)) == (v._op, v.data, v.grad, len(v._prev))


def test_micrograd_more_ops_with_plain_numbers_gives_the_same_result():
    text = MORE_OPS.replace("Value(-4.0)", "-4").replace("Value(2.0)", "2")
    doc, compiled = run(text)
    assert compiled.output.data == pytest.approx(24.70408163265306, rel=1e-12)
    assert by_label(doc, compiled, "a").grad == pytest.approx(138.83381924198252, rel=1e-12)


def test_formula_with_free_names_uses_values_then_the_default():
    doc = parse("x*y + y**2", values={"x": 2.0})
    inputs = [(n.label, n.value) for n in doc.nodes.values() if n.kind == "input"]
    assert inputs == [("x", 2.0), ("y", expr.DEFAULT_VALUE)]
    assert doc.output == "n5"


def test_formula_takes_values_from_earlier_lines_and_values_win():
    text = "x = 2\ny = 3\nx*y + y**2"
    assert compile_document(parse(text)).output.data == 15.0
    assert compile_document(parse(text, values={"y": 1.0})).output.data == 3.0


def test_a_free_name_is_one_input_however_often_it_is_used():
    doc = parse("x * x + x")
    assert [n.label for n in doc.nodes.values() if n.kind == "input"] == ["x"]
    assert doc.inputs_of("n2") == ["n1", "n1"]


def test_numbers_are_one_const_per_occurrence_and_fold_like_python():
    doc = parse("f = x * 2 + 2 * x + x * 2**3 - (1 + 1)")
    consts = [n.value for n in doc.nodes.values() if n.kind == "const"]
    assert consts == [2.0, 2.0, 8.0, 2.0]
    assert compile_document(doc).output.data == 10.0


def test_number_first_operands_keep_their_port():
    doc = parse("f = 2 - x")
    assert [n.kind for n in doc.nodes.values()] == ["input", "const", "op"]
    assert doc.inputs_of("n3") == ["n2", "n1"]  # const on port 0: 2 - x


@pytest.mark.parametrize(
    "text, op, param",
    [
        ("x**2", "pow", 2),
        ("x**-1", "pow", -1),
        ("x**0.5", "pow", 0.5),
        ("x ** -0.5", "pow", -0.5),
        ("x**(1/2)", "pow", 0.5),
        ("x**2**3", "pow", 8),
        ("2**x", "rpow", 2.0),
        ("0.5**x", "rpow", 0.5),
        ("(-2)**x", "rpow", -2.0),
        ("-x", "neg", None),
        ("x.relu()", "relu", None),
        ("x.tanh()", "tanh", None),
        ("x.exp()", "exp", None),
        ("x.log()", "log", None),
        ("x.sigmoid()", "sigmoid", None),
        ("relu(x)", "relu", None),
        ("tanh(x)", "tanh", None),
        ("exp(x)", "exp", None),
        ("log(x)", "log", None),
        ("sigmoid(x)", "sigmoid", None),
        ("x / 4", "div", None),
    ],
)
def test_each_op(text, op, param):
    doc = parse(text)
    out = doc.nodes[doc.output]
    assert (out.op, out.param) == (op, param)


def test_unary_plus_and_parentheses_add_nothing():
    assert shape(parse("+(((x)))")) == ([("n1", "input", None, None, 1.0, "x")], [], "n1")
    assert parse("-1 * x").nodes["n2"].value == -1.0  # -1 is a number, not neg(1)


@pytest.mark.parametrize(
    "text, value, label",
    [
        ("Value(2.0)", 2.0, ""),
        ("q = Value(2)", 2.0, "q"),
        ("q = Value(2.0, label='x')", 2.0, "x"),
        ("q = Value(data=-1e-3, label='x')", -0.001, "x"),
        ("q = Value(label='x', data=2**3)", 8.0, "x"),
        ("q = Value(3.0, label='')", 3.0, ""),
    ],
)
def test_value_calls(text, value, label):
    node = parse(text).nodes["n1"]
    assert (node.value, node.label) == (value, label)
    assert node.kind == ("input" if label else "const")


def test_statements_comments_semicolons_and_augmented_assignment():
    text = """
    # a comment
    a = 2; b = 3   # two statements
    a += b
    a -= 1
    a *= b
    a /= 2
    a **= 2
    """.replace("\n    ", "\n")
    doc, compiled = run(text)
    assert compiled.output.data == ((2 + 3 - 1) * 3 / 2) ** 2
    labels = [n.label for n in doc.nodes.values() if n.kind == "op"]
    assert labels == ["a"] * 5


def test_labels_follow_assignments_and_aliases_create_nothing():
    doc = parse("x = Value(1.0, label='x')\nh = x.tanh()\nk = h\nh = h * 2\nh.label = 'out'")
    assert [(n.kind, n.label) for n in doc.nodes.values()] == [
        ("input", "x"),
        ("op", "h"),
        ("const", ""),
        ("op", "out"),
    ]
    assert doc.output == "n4"


def test_the_lecture_style_label_statement():
    doc = parse("a = Value(2.0, label='a')\nb = Value(-3.0, label='b')\ne = a*b; e.label = 'e'")
    assert doc.nodes["n3"].label == "e" and doc.output == "n3"


def test_reassignment_refers_to_the_newest_node():
    doc = parse("x = 1\nx = x + 1\ny = x * x")
    assert doc.inputs_of("n4") == ["n3", "n3"]


def test_last_bare_expression_or_assignment_is_the_output():
    assert parse("a = 1\nb = 2\na").output == "n1"
    assert parse("a = 1\nb = a.exp()\nc = 5").output == "n3"
    empty = parse("# nothing\nfrom micrograd.engine import Value\n")
    assert empty.nodes == {} and empty.output is None


def test_codegen_style_snippet_parses_to_the_document_it_describes():
    text = """\
x = Value(2.0, label='x')
y = Value(-1.0, label='y')
c = Value(3.0, label='')
n4 = x * y
n5 = n4 ** 2
n6 = 2.0 ** n4
n7 = n5 + n6
n8 = n7.tanh() * c
"""
    nodes, edges, output = shape(parse(text))
    assert nodes == [
        ("n1", "input", None, None, 2.0, "x"),
        ("n2", "input", None, None, -1.0, "y"),
        ("n3", "const", None, None, 3.0, ""),
        ("n4", "op", "mul", None, None, "n4"),
        ("n5", "op", "pow", 2, None, "n5"),
        ("n6", "op", "rpow", 2.0, None, "n6"),
        ("n7", "op", "add", None, None, "n7"),
        ("n8", "op", "tanh", None, None, ""),
        ("n9", "op", "mul", None, None, "n8"),
    ]
    assert output == "n9"


def test_ids_follow_left_to_right_evaluation():
    doc = parse("f = a.tanh() * (b + 1)")
    assert [(n.kind, n.op or n.label) for n in doc.nodes.values()] == [
        ("input", "a"),
        ("op", "tanh"),
        ("input", "b"),
        ("const", ""),
        ("op", "add"),
        ("op", "mul"),
    ]


def test_non_ascii_names_and_columns_in_characters():
    doc = parse("σ = 2\nτ = σ.tanh()")
    assert doc.nodes["n2"].label == "τ"
    text = "σσ = Value(1.0, label='é') ; y = σσ.foo()"
    with pytest.raises(ExprError) as info:
        parse(text)
    assert (info.value.line, info.value.col) == (1, text.index("foo") + 1)


def test_parse_twice_gives_the_same_document():
    assert parse(MORE_OPS).to_dict() == parse(MORE_OPS).to_dict()


# -----------------------------------------------------------------------------
# Refused text: what, and exactly where

HOSTILE = [
    ("9**9**9", 1, 4, "exponent"),
    ("(" * 10_000 + "x" + ")" * 10_000, 1, expr.MAX_NESTING + 1, "nested too deeply"),
    ("tanh(" * 150 + "x" + ")" * 150, 1, 5 * expr.MAX_NESTING + 5, "nested too deeply"),
    ("__import__('os').system('ls')", 1, 1, "unknown function '__import__'"),
    ("x.__class__", 1, 3, "'.__class__' is not supported"),
    ("x.data", 1, 3, "'.data' is not supported"),
    ("lambda: 1", 1, 1, "lambda"),
    ("[x for x in y]", 1, 1, "comprehension"),
    ('f"{x}"', 1, 1, "f-string"),
    ("(y := 2)", 1, 2, ":="),
    ("x[0]", 1, 1, "indexing"),
    ("Value(1, **{'label': 'x'})", 1, 10, "'**' arguments"),
    ("Value(*[1])", 1, 7, "'*' arguments"),
    ("open('f')", 1, 1, "unknown function 'open'"),
    ("a = 1\nb = foo(a)", 2, 5, "unknown function 'foo'"),
    ("x ** y", 1, 6, "exponent of ** must be a number"),
    ("y = Value(2.0)\nf = x ** y", 2, 10, "exponent of ** must be a number"),
    ("x ** 1001", 1, 6, "exponent 1001 is too large"),
    ("1e400", 1, 1, "too large"),
    ("x * 1" + "0" * 400, 1, 5, "too large"),
    ("10.0 ** 400", 1, 1, "too large"),
    ("0.1 ** -400", 1, 1, "too large"),
    ("x" * 200_001, 1, expr.MAX_TEXT + 1, "too long"),
    ("x = ", 1, 5, "invalid syntax"),
    ("a = 1\nb = (a +\n", 2, 5, "never closed"),
    ("x = 1\n  y = 2", 2, 2, "indent"),
    ("x = " + "1" * 5000, 1, 1, "digits"),
    ("x\0", 1, 2, "NUL"),
    ("-" * 300 + "x", 1, expr.MAX_DEPTH + 1, "nested too deeply"),
    ("x" + "+x" * 2000, 1, expr.MAX_TOKENS + 1, "too long"),
    ("x=1;" * (expr.MAX_NODES + 1), 1, 4 * expr.MAX_NODES + 3, "too many nodes"),
    ("import os", 1, 1, "imports are not allowed"),
    ("from micrograd.engine import Value as V", 1, 1, "imports are not allowed"),
    ("from os import system", 1, 1, "imports are not allowed"),
    ("x.backward()", 1, 3, "not needed"),
    ("x.foo()", 1, 3, "unknown method '.foo()'"),
    ("x.tanh", 1, 3, "call it"),
    ("x.tanh(1)", 1, 1, "no arguments"),
    ("relu(x, y)", 1, 1, "one argument"),
    ("relu(x=1)", 1, 1, "one argument"),
    ("Value(1, 2)", 1, 10, "one number"),
    ("Value(1, lbl='x')", 1, 10, "not lbl="),
    ("Value(1, label=x)", 1, 16, "text in quotes"),
    ("Value(1, label=f'{x}')", 1, 16, "text in quotes"),
    ("Value(2, label='a', label='b')", 1, 21, "twice"),
    ("Value(2, data=3)", 1, 10, "twice"),
    ("Value(label='x')", 1, 1, "needs a number"),
    ("Value(x)", 1, 7, "needs a number"),
    ("Value('2')", 1, 7, "text is only allowed as a label"),
    ("Value", 1, 1, "must be called"),
    ("tanh", 1, 1, "is a function"),
    ("tanh = 1", 1, 1, "built-in name"),
    ("'hello'", 1, 1, "text is only allowed as a label"),
    ("True", 1, 1, "not a number"),
    ("None", 1, 1, "not a number"),
    ("...", 1, 1, "not a number"),
    ("1j", 1, 1, "complex"),
    ("a // b", 1, 3, "operator '//'"),
    ("(a) % b", 1, 5, "operator '%'"),
    ("a @ b", 1, 3, "operator '@'"),
    ("not x", 1, 1, "'not'"),
    ("~x", 1, 1, "'~'"),
    ("x < y", 1, 1, "comparison"),
    ("x and y", 1, 1, "'and' / 'or'"),
    ("x if y else z", 1, 1, "if ... else"),
    ("a = b = c", 1, 5, "one name at a time"),
    ("a, b = 1, 2", 1, 1, "plain name"),
    ("x.grad = 2", 1, 1, "only a label"),
    ("y.label = 'q'", 1, 1, "not defined"),
    ("x = (1, 2)", 1, 5, "tuple"),
    ("for i in x: pass", 1, 1, "'for' loop"),
    ("def f(): pass", 1, 1, "function definition"),
    ("class A: pass", 1, 1, "class definition"),
    ("x: float = 2", 1, 1, "annotated assignment"),
    ("1 / 0", 1, 5, "division by zero"),
    ("(-8) ** 0.5", 1, 1, "not a real number"),
    ("0 ** -1", 1, 1, "negative power"),
]


@pytest.mark.parametrize("text, line, col, words", HOSTILE, ids=lambda v: repr(v)[:30])
def test_refused_with_position(text, line, col, words):
    with pytest.raises(ExprError) as info:
        parse(text)
    error = info.value
    assert words in error.message
    assert (error.line, error.col) == (line, col)
    assert str(error) == f"line {line}, col {col}: {error.message}"
    assert isinstance(error, ValueError)


def test_error_spans_underline_the_faulty_text():
    with pytest.raises(ExprError) as info:
        parse("a = 1\nb = foo(a)")
    assert (info.value.col, info.value.end_col) == (5, 8)
    with pytest.raises(ExprError) as info:
        parse("x = (1,\n 2)")
    assert info.value.end_col is None  # the node spans two lines


def test_bad_values_argument_is_reported_at_the_use():
    with pytest.raises(ExprError, match="finite number") as info:
        parse("y = 2 * x", values={"x": math.nan})
    assert (info.value.line, info.value.col) == (1, 9)


def test_limits_let_the_largest_allowed_text_through():
    assert len(parse("(" * expr.MAX_NESTING + "x" + ")" * expr.MAX_NESTING).nodes) == 1
    assert parse("x ** 1000").nodes["n2"].param == 1000
    assert len(parse("-" * 199 + "x").nodes) == 200
    long_text = "x = 1\n" + "x = x * 1.0001\n" * 6_600  # ~99,000 characters, 13,201 nodes
    assert len(long_text) <= expr.MAX_TEXT
    assert len(parse(long_text).nodes) == 1 + 2 * 6_600


# -----------------------------------------------------------------------------
# Safety: the text is only ever parsed, never run


def test_no_eval_exec_or_compile_in_the_parser_modules():
    for name in ("expr.py", "compile.py"):
        tree = ast.parse((ROOT / "core" / "document" / name).read_text(encoding="utf-8"))
        called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        assert not called & {"eval", "exec", "compile", "__import__", "getattr", "setattr"}, name


def test_hostile_text_runs_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for text in [
        "__import__('os').system('touch pwned')",
        "open('pwned', 'w')",
        "x = Value(2.0).__class__.__init__.__globals__['os']",
    ]:
        with pytest.raises(ExprError):
            parse(text)
    assert list(tmp_path.iterdir()) == []


TOKENS = [
    "x",
    "y",
    "Value(",
    "label='q'",
    "2",
    "-1",
    "0.5",
    "1e400",
    "**",
    "*",
    "+",
    "-",
    "/",
    "(",
    ")",
    "[",
    "]",
    ".tanh()",
    ".foo",
    "=",
    "+=",
    ",",
    "\n",
    " ",
    ";",
    "'",
    '"""',
    "#",
    "lambda",
    ":",
    "relu(",
    "\\",
    "é",
    "\t",
    "{",
    "}",
    "import",
    "9**9**9",
    "0",
    "1/0",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=40))
def test_any_text_gives_a_document_or_an_expr_error(parts):
    text = "".join(parts)
    try:
        doc = parse(text)
    except ExprError as error:
        assert error.line >= 1 and error.col >= 1 and error.message
    else:
        assert isinstance(doc, GraphDocument)
        compile_document(doc)  # and whatever parsed also compiles


@pytest.mark.parametrize(
    "text, line, col",
    [
        ("a\ud800 + 1", 1, 2),  # typed (or pasted) directly
        ("a = 1\nb = a * \udfff", 2, 9),
        ("x = Value(1.0, label='\\ud800')", 1, 22),  # an escape inside quotes
        ("x = Value(1.0, label='\\ud83d\\ude00')", 1, 22),  # Python keeps the halves apart
    ],
)
def test_text_that_cannot_be_encoded_is_an_expr_error_naming_where(text, line, col):
    # issue 20: a lone surrogate raised UnicodeEncodeError from parse
    with pytest.raises(ExprError, match="surrogate") as caught:
        parse(text)
    assert (caught.value.line, caught.value.col) == (line, col)


# -- a name without a value is an error, never an input made in silence (issue 29) ----


def test_a_typo_in_micrograd_code_is_an_error_naming_it_and_its_line():
    text = "x = Value(2.0, label='x')\ny = Value(3.0, label='y')\nf = x*y + z**2\n"
    with pytest.raises(expr.ExprError) as caught:
        parse(text)
    assert (caught.value.line, caught.value.col) == (3, 11)
    assert "'z' has no value" in caught.value.message
    with pytest.raises(expr.ExprError, match="'z' has no value"):
        parse(text, values={"z": 4.0})  # not even from the Inputs table


def test_a_name_used_before_its_line_is_an_error_saying_where_it_is_given():
    with pytest.raises(expr.ExprError) as caught:
        parse("f = x * 2\nx = 3\n")
    assert caught.value.line == 1
    assert "'x' is used before it is given a value (on line 2)" in caught.value.message


def test_a_formulas_names_become_inputs_and_a_note_says_so():
    doc, notes = expr.read("f = x*y + z**2", values={"x": 2.0})
    assert [n.label for n in doc.nodes.values() if n.kind == "input"] == ["x", "y", "z"]
    assert notes == [
        "Inputs made from the formula's names: x = 2.0 (from the Inputs table), y = 1.0, z = 1.0. "
        "Change them in the Inputs table."
    ]
    assert expr.read("x = Value(2.0, label='x')\nf = x * x\n")[1] == []


def test_backward_in_pasted_code_chooses_the_output():
    doc = parse("a = Value(2.0, label='a')\nb = a * a\nc = b + a\nb.backward()\n")
    assert doc.nodes[doc.effective_output()].label == "b"


@pytest.mark.parametrize(
    "text",
    [
        "import random",
        "class Neuron:\n    pass",
        "for k in range(3):\n    x = k",
        "x = Value(1.0)\ny = sum([x, x])",
        "xs = [Value(1.0), Value(2.0)]",
        "y = x.data",
        "out = [a * b for a, b in zip(xs, ws)]",
    ],
)
def test_python_it_does_not_take_says_it_can_run_as_python(text):
    with pytest.raises(expr.ExprError) as caught:
        parse(text)
    assert caught.value.python


def test_what_it_refuses_for_other_reasons_is_not_python_to_run():
    for text in ("x ** y", "x = 1e400", "Value(2.0, colour='red')", "x = Value(2.0)\nf = x + q"):
        with pytest.raises(expr.ExprError) as caught:
            parse(text)
        assert not caught.value.python, text


def test_a_long_flat_statement_is_one_level_deep():
    # repro: a 1,000-node expression as one statement was refused ("more than 1000 tokens",
    # then "nested too deeply"), though split over 11 lines it ran
    text = "f = " + " + ".join(f"x{i}*w{i}" for i in range(999))
    doc = expr.parse(text)
    assert len(doc.nodes) == 3 * 999 - 1 + 999  # 1,998 inputs, 999 products, 998 sums
    f = doc.nodes[doc.effective_output()]
    assert f.label == "f" and f.op == "add"
    chain = expr.parse("f = " + " + ".join(f"x{i}" for i in range(1999)))  # 3,998 tokens
    assert len(chain.nodes) == 1999 + 1998


def test_the_token_limit_stays_below_what_pythons_parser_reads():
    # ast.parse gives up near 3,000 chained operators; a statement at the limit must still
    # be read, and one beyond it refused by name before ast.parse is asked
    at_limit = "f = " + "+".join(["a"] * (expr.MAX_TOKENS // 2 - 1))
    assert len(expr.parse(at_limit).nodes) == expr.MAX_TOKENS // 2 - 1  # one input, the rest adds
    with pytest.raises(expr.ExprError, match="split it into several assignments"):
        expr.parse("f = " + "+".join(["a"] * (expr.MAX_TOKENS // 2 + 1)))
