"""Code from graphs: the micrograd snippet reads back into the same document (ids included),
runs under our engine with the same numbers, and the PyTorch script agrees with our
backward pass to 1e-9 where torch is installed."""

import os
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.document.codegen import to_python, to_pytorch, variable_names
from core.document.compile import compile_document
from core.document.expr import parse
from core.document.graph import OPS, GraphDocument, GraphError, Node
from core.files.graph_file import load

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
EXAMPLES = os.path.join(ROOT, "resources", "examples")
EXAMPLE_NAMES = sorted(name for name in os.listdir(EXAMPLES) if name.endswith(".json"))


def example(name):
    return load(os.path.join(EXAMPLES, name))[0]


def without_positions(doc):
    data = doc.to_dict()
    for node in data["nodes"]:
        node.pop("pos")
    return data


def with_explicit_output(doc):
    data = without_positions(doc)
    data["output"] = doc.effective_output()
    return data


# -- what the snippet looks like ----------------------------------------------------


def test_the_tutorial_reads_like_the_lecture():
    assert to_python(example("tutorial.json")).splitlines()[1:] == [
        "x = Value(2.0, label='x')",
        "y = Value(3.0, label='y')",
        "f = x * y + y ** 2",
    ]


def test_micrograd_more_ops_comes_out_as_micrograd_wrote_it():
    lines = to_python(example("micrograd_more_ops.json")).splitlines()[1:]
    assert lines == [
        "a = Value(-4.0, label='a')",
        "b = Value(2.0, label='b')",
        "c = a + b",
        "d = a * b + b ** 3",
        "c = c + (c + 1.0)",
        "c = c + (1.0 + c + -a)",
        "d = d + (d * 2.0 + (b + a).relu())",
        "d = d + (3.0 * d + (b - a).relu())",
        "e = c - d",
        "f = e ** 2",
        "g = f / 2.0",
        "g = g + 10.0 / f",
    ]


def build(*specs, output=None):
    """A document from (id, kind, op-or-value, inputs, label, param) tuples."""
    doc = GraphDocument()
    for nid, kind, what, inputs, label, param in specs:
        if kind == "op":
            doc.add_node(Node(nid, "op", what, param=param, label=label))
        else:
            doc.add_node(Node(nid, kind, value=what, label=label))
        for port, src in enumerate(inputs):
            doc.connect(src, nid, port)
    if output:
        doc.set_output(output)
    return doc


def test_parentheses_follow_python_precedence():
    doc = build(
        ("n1", "input", 1.0, [], "a", None),
        ("n2", "input", 2.0, [], "b", None),
        ("n3", "op", "sub", ["n1", "n2"], "", None),
        ("n4", "op", "sub", ["n1", "n3"], "r1", None),  # a - (a - b)
        ("n5", "op", "neg", ["n2"], "", None),
        ("n6", "op", "pow", ["n5"], "r2", 2),  # (-b) ** 2
        ("n7", "op", "pow", ["n2"], "", 2),
        ("n8", "op", "neg", ["n7"], "r3", None),  # -b ** 2
        ("n9", "op", "add", ["n1", "n2"], "", None),
        ("n10", "op", "tanh", ["n9"], "r4", None),  # (a + b).tanh()
        ("n11", "op", "neg", ["n1"], "", None),
        ("n12", "op", "rpow", ["n11"], "r5", -2.0),  # (-2.0) ** -a
        ("n13", "op", "pow", ["n1"], "r6", -1),  # a ** -1
        ("n14", "op", "relu", ["n1"], "", None),
        ("n15", "op", "mul", ["n14", "n2"], "", None),
        ("n16", "op", "div", ["n1", "n15"], "r7", None),  # a / (a.relu() * b)
        output="n16",
    )
    lines = to_python(doc).splitlines()[1:]
    assert lines[2:] == [
        "r1 = a - (a - b)",
        "r2 = (-b) ** 2",
        "r3 = -b ** 2",
        "r4 = (a + b).tanh()",
        "r5 = (-2.0) ** -a",
        "r6 = a ** -1",
        "r7 = a / (a.relu() * b)",
    ]
    assert without_positions(parse(to_python(doc))) == with_explicit_output(doc)


def test_names_that_python_or_the_snippet_would_refuse_become_ids():
    doc = build(
        ("n1", "input", 1.0, [], "lambda", None),  # a keyword
        ("n2", "input", 2.0, [], "w 1", None),  # not an identifier
        ("n3", "input", 3.0, [], "n1", None),  # another node's id
        ("n4", "input", 4.0, [], "tanh", None),  # a function of the snippet
        ("n5", "op", "add", ["n1", "n2"], "Value", None),
        ("n6", "op", "mul", ["n5", "n3"], "", None),
        ("n7", "op", "mul", ["n6", "n4"], "", None),
        ("n8", "op", "add", ["n7", "n6"], "out", None),
    )
    code = to_python(doc)
    assert "n1 = Value(1.0, label='lambda')" in code
    assert "n2 = Value(2.0, label='w 1')" in code
    assert "n3 = Value(3.0, label='n1')" in code
    assert "n5 = n1 + n2\nn5.label = 'Value'" in code
    assert "n6 = n5 * n3\nn6.label = ''" in code  # used twice, so it needs a name
    assert variable_names(doc)["n8"] == "out"
    assert without_positions(parse(code)) == with_explicit_output(doc)


def test_a_non_negative_constant_used_once_is_written_inline():
    doc = build(
        ("n1", "input", 1.0, [], "x", None),
        ("n2", "const", 2.0, [], "", None),
        ("n3", "op", "mul", ["n2", "n1"], "", None),
        ("n4", "const", -3.0, [], "", None),
        ("n5", "op", "add", ["n3", "n4"], "y", None),
    )
    assert to_python(doc).splitlines()[1:] == [
        "x = Value(1.0, label='x')",
        "n3 = 2.0 * x",
        "n3.label = ''",  # inlined into y, n3 would be made after n4
        "n4 = Value(-3.0, label='')",  # -3.0 inline would read as neg(3.0)
        "y = n3 + n4",
    ]
    assert without_positions(parse(to_python(doc))) == with_explicit_output(doc)


def test_an_output_used_by_later_nodes_is_named_last():
    doc = build(
        ("n1", "input", 1.0, [], "x", None),
        ("n2", "op", "tanh", ["n1"], "t", None),
        ("n3", "op", "exp", ["n2"], "e", None),
        output="n2",
    )
    code = to_python(doc)
    assert code.splitlines()[-1] == "t  # the output"
    assert parse(code).output == "n2"


def test_unwired_inputs_and_missing_outputs_are_refused():
    doc = build(("n1", "input", 1.0, [], "x", None), ("n2", "op", "mul", ["n1"], "", None))
    with pytest.raises(GraphError, match="'n2' has unwired input 1"):
        to_python(doc)
    two_sinks = build(
        ("n1", "input", 1.0, [], "x", None),
        ("n2", "op", "exp", ["n1"], "", None),
        ("n3", "op", "log", ["n1"], "", None),
    )
    with pytest.raises(GraphError, match="no single output"):
        to_pytorch(two_sinks)


# -- reading back: parse(to_python(doc)) == doc ----------------------------------------


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_examples_read_back_identically(name):
    doc = example(name)
    assert without_positions(parse(to_python(doc))) == with_explicit_output(doc)


LABELS = ["", "", "", "a", "b", "c", "h", "w 1", "lambda", "n2", "Value", "é", "x'y"]
VALUES = [2.0, -4.0, 0.5, 3, 0.0, -0.0, 1e-3, 6.8813735870195432, 1e300, -2.5]
POW_PARAMS = [2, 3, 0.5, -1, -2.5, 2.0, 1]
RPOW_PARAMS = [2.0, 0.5, 3, 10.0, -2.0]


def random_doc(rng, size):
    """A complete graph with ids n1..nk in creation order, as parse makes them.

    Inputs are labelled and constants are not: the snippet cannot tell the two
    kinds apart otherwise (see the codegen docstring).
    """
    doc = GraphDocument()

    def add(node):
        node.id = f"n{len(doc.nodes) + 1}"
        return doc.add_node(node)

    for _ in range(rng.randint(1, 3)):
        add(Node(None, "input", value=rng.choice(VALUES), label=rng.choice([label for label in LABELS if label])))
    for _ in range(size):
        ids = list(doc.nodes)
        if rng.random() < 0.15:
            add(Node(None, "const", value=rng.choice(VALUES)))
            continue
        op = rng.choice(list(OPS))
        param = rng.choice(POW_PARAMS if op == "pow" else RPOW_PARAMS) if op in ("pow", "rpow") else None
        recent = ids[-4:] if rng.random() < 0.7 else ids
        sources = [rng.choice(recent) for _ in range(OPS[op][0])]
        nid = add(Node(None, "op", op, param=param, label=rng.choice(LABELS)))
        for port, src in enumerate(sources):
            doc.connect(src, nid, port)
    doc.set_output(rng.choice(list(doc.nodes)[-3:]))
    return doc


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 25))
def test_random_graphs_read_back_identically(seed, size):
    doc = random_doc(random.Random(seed), size)
    code = to_python(doc)
    assert without_positions(parse(code)) == without_positions(doc), code


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 20))
def test_graphs_in_any_order_with_any_ids_read_back_up_to_renaming(seed, size):
    rng = random.Random(seed)
    made = random_doc(rng, size)
    # the same graph with foreign ids, its nodes listed in a shuffled order
    order = list(made.nodes)
    rng.shuffle(order)
    rename = {nid: f"node {i}" if i % 2 else f"k{i}" for i, nid in enumerate(order)}
    doc = GraphDocument()
    for nid in order:
        node = made.nodes[nid].copy()
        node.id = rename[nid]
        doc.add_node(node)
    for src, dst, port in made.edges:
        doc.connect(rename[src], rename[dst], port)
    doc.set_output(rename[made.output])

    back = parse(to_python(doc))
    # parse numbers nodes in the order the snippet makes them: the topological order
    new_id = {nid: f"n{i}" for i, nid in enumerate(doc.topological_ids(), start=1)}
    expected = {nid: dict(doc.nodes[old].to_dict(), id=nid) for old, nid in new_id.items()}
    for node in expected.values():
        node.pop("pos")
    got = without_positions(back)
    assert {n["id"]: n for n in got["nodes"]} == expected
    assert sorted(map(sorted, (e.items() for e in got["edges"]))) == sorted(
        sorted({"src": new_id[s], "dst": new_id[d], "port": p}.items()) for s, d, p in doc.edges
    )
    assert got["output"] == new_id[doc.output]


# -- running the code ------------------------------------------------------------------


def engine_numbers(doc):
    """(output data, {variable: grad}) from our own compile + backward."""
    compiled = compile_document(doc)
    compiled.output.backward()
    names = variable_names(doc)
    grads = {names[nid]: compiled.values[nid].grad for nid, node in doc.nodes.items() if node.kind == "input"}
    return compiled.output.data, grads


def run_scripts(scripts, tmp_path, prelude=""):
    """Run several scripts in one interpreter; their printed lines, one list per script."""
    paths = []
    for i, script in enumerate(scripts):
        path = tmp_path / f"script_{i}.py"
        path.write_text(prelude + script, encoding="utf-8")
        paths.append(str(path))
    runner = (
        "import runpy, sys\n"
        "for path in sys.argv[1:]:\n"
        "    runpy.run_path(path, run_name='__main__')\n"
        "    print('--- end', flush=True)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", runner, *paths],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=ROOT),
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    chunks = result.stdout.split("--- end\n")
    assert chunks[-1] == ""
    return [chunk.splitlines() for chunk in chunks[:-1]]


def printed_numbers(lines):
    output, grads = None, {}
    for line in lines:
        word, name, number = line.split()
        if word == "output":
            output = float(number)
        else:
            assert word == "grad"
            grads[name] = float(number)
    return output, grads


def close(a, b, tol=1e-9):
    if a != a or b != b:
        return a != a and b != b
    if abs(a) == float("inf") or abs(b) == float("inf"):
        return a == b
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def check_agree(doc, lines):
    want_output, want_grads = engine_numbers(doc)
    got_output, got_grads = printed_numbers(lines)
    assert close(got_output, want_output), (got_output, want_output)
    assert sorted(got_grads) == sorted(want_grads)
    for name in want_grads:
        assert close(got_grads[name], want_grads[name]), (name, got_grads[name], want_grads[name])


def documents_to_run():
    docs = [example(name) for name in EXAMPLE_NAMES]
    rng = random.Random(7)
    docs += [random_doc(rng, rng.randint(1, 15)) for _ in range(60)]
    return docs


def engine_epilogue(doc):
    """Lines that print, after the snippet, what the torch script prints."""
    names = variable_names(doc)
    out = names[doc.effective_output()]
    lines = [f"{out}.backward()", f"print('output', {out!r}, repr({out}.data))"]
    lines += [
        f"print('grad', {names[nid]!r}, repr({names[nid]}.grad))"
        for nid in doc.topological_ids()
        if doc.nodes[nid].kind == "input"
    ]
    return "\n".join(lines) + "\n"


def test_the_snippet_runs_under_our_engine_with_the_same_numbers(tmp_path):
    docs = documents_to_run()
    outputs = run_scripts(
        [to_python(doc) + engine_epilogue(doc) for doc in docs], tmp_path, prelude="from core.engine import Value\n"
    )
    for doc, lines in zip(docs, outputs):
        check_agree(doc, lines)


def test_pytorch_agrees_with_our_backward(tmp_path):
    pytest.importorskip("torch")
    docs = documents_to_run()
    outputs = run_scripts([to_pytorch(doc) for doc in docs], tmp_path)
    for doc, lines in zip(docs, outputs):
        check_agree(doc, lines)


def test_the_pytorch_script_for_the_tutorial():
    script = to_pytorch(example("tutorial.json"))
    assert "x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)" in script
    assert "f = x * y + y ** 2" in script
    assert "f.backward()" in script
    assert "print('grad', 'x', repr(grad(x)))" in script


# -- faithful exports: labels Python would read as another name (issue 20) ------------

# Each group holds labels that Python would turn into one identifier (NFKC) or that
# would shadow what the exported code uses; a faithful export keeps them apart.
HOSTILE_GROUPS = [
    ["x", "ｘ", "𝐱", "𝑥"],  # fullwidth, bold, italic x
    ["fi", "ﬁ"],  # the ligature
    ["print", "ｐｒｉｎｔ", "repr", "ｒｅｐｒ"],
    ["torch", "ｔｏｒｃｈ", "grad", "ｇｒａｄ"],
    ["Value", "Ｖａｌｕｅ", "f", "ｆ"],
    ["def", "ｄｅｆ", "True", "Ｔｒｕｅ", "None", "Ｎｏｎｅ"],  # keywords in disguise
    ["len", "sum", "float", "__import__", "__builtins__", "__name__", "t"],
    ["K", "\u212a", "Å", "\u212b", "é", "e\u0301"],  # Kelvin sign, Angstrom sign, combining accent
    ["relu", "tanh", "exp", "log", "sigmoid", "ｒｅｌｕ"],
    ["n1", "n2", "v1", "_n1", "_n2", "n7"],  # ids and the names made from them
    ["", " ", "x y", "1x", "it's", 'a"b', "\\", "\n", "ı", "ℌ", "ª", "x²"],
]  # (a lone surrogate never gets this far: the document refuses it as a label)


def hostile_doc(labels):
    """Inputs labelled with `labels` (distinct values), ops labelled the same, every
    input weighing on the output differently: merging two variables changes the numbers."""
    doc = GraphDocument()

    def add(node):
        node.id = f"n{len(doc.nodes) + 1}"
        return doc.add_node(node)

    inputs = [add(Node(None, "input", value=0.3 + 0.17 * i, label=label)) for i, label in enumerate(labels)]
    acc = inputs[0]
    for i, src in enumerate(inputs[1:] + inputs[:1]):
        square = add(Node(None, "op", "mul", label=labels[-1 - i]))
        doc.connect(src, square, 0)
        doc.connect(src, square, 1)
        scaled = add(Node(None, "op", "pow", param=1 + i % 3, label=labels[i]))
        doc.connect(acc, scaled, 0)
        acc = add(Node(None, "op", "add", label=labels[(i + 1) % len(labels)]))
        doc.connect(scaled, acc, 0)
        doc.connect(square, acc, 1)
    out = add(Node(None, "op", "tanh", label=labels[0]))
    doc.connect(acc, out, 0)
    doc.set_output(out)
    return doc


def test_variable_names_are_nfkc_normal_distinct_and_shadow_nothing():
    import builtins
    import keyword
    import unicodedata

    for labels in HOSTILE_GROUPS:
        names = variable_names(hostile_doc(labels))
        for name in names.values():
            assert name.isidentifier() and unicodedata.normalize("NFKC", name) == name, name
            assert not keyword.iskeyword(name) and not hasattr(builtins, name), name
            assert name not in ("Value", "torch", "grad", "print", "repr"), name


def test_hostile_labels_come_back_as_they_were():
    for labels in HOSTILE_GROUPS:
        doc = hostile_doc(labels)
        back = parse(to_python(doc))
        assert [n.label for n in back.nodes.values()] == [n.label for n in doc.nodes.values()]


def test_the_exports_of_hostile_labels_compute_what_the_graph_computes(tmp_path):
    docs = [hostile_doc(labels) for labels in HOSTILE_GROUPS]
    outputs = run_scripts(
        [to_python(doc) + engine_epilogue(doc) for doc in docs], tmp_path, prelude="from core.engine import Value\n"
    )
    for doc, lines in zip(docs, outputs):
        check_agree(doc, lines)


def test_the_pytorch_exports_of_hostile_labels_compute_what_the_graph_computes(tmp_path):
    pytest.importorskip("torch")
    docs = [hostile_doc(labels) for labels in HOSTILE_GROUPS]
    outputs = run_scripts([to_pytorch(doc) for doc in docs], tmp_path)
    for doc, lines in zip(docs, outputs):
        check_agree(doc, lines)


def test_fullwidth_x_and_x_stay_two_variables():
    """The issue's case: with ｘ and x one variable, the script printed another f."""
    doc = hostile_doc(["x", "ｘ"])
    names = variable_names(doc)
    assert names["n1"] == "x" and names["n2"] not in ("x", "ｘ")
    assert "label='ｘ'" in to_python(doc)
