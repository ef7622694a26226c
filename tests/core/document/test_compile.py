"""compile_document (GraphDocument -> Values) and trace (Values -> GraphDocument)."""

import math
import random

import pytest

from core.document.compile import (
    compile_ahead,
    compile_document,
    op_of,
    replace_graph,
    trace,
    trace_data,
    traced_document,
)
from core.document.expr import parse
from core.document.graph import GraphDocument, GraphError, Node
from core.engine import Value, topological_order


def build(spec, output=None):
    """A document from [(kind, op-or-value, param, label, [source ids])]; ids n1, n2, ..."""
    doc = GraphDocument()
    for kind, what, param, label, sources in spec:
        if kind == "op":
            nid = doc.add_node(Node(None, "op", what, param=param, label=label))
            for port, src in enumerate(sources):
                if src is not None:
                    doc.connect(src, nid, port)
        else:
            doc.add_node(Node(None, kind, value=what, label=label))
    if output:
        doc.set_output(output)
    return doc


def tutorial_doc():
    return build(
        [
            ("input", 2.0, None, "x", []),
            ("input", 3.0, None, "y", []),
            ("op", "mul", None, "", ["n1", "n2"]),
            ("op", "pow", 2, "", ["n2"]),
            ("op", "add", None, "f", ["n3", "n4"]),
        ]
    )


def same_graph(a, b):
    """Walk two Value graphs in topological order and compare them node by node."""
    order_a, order_b = topological_order(a), topological_order(b)
    assert len(order_a) == len(order_b)
    for u, v in zip(order_a, order_b):
        assert (u._op, u.data, u.grad, len(u._prev)) == (v._op, v.data, v.grad, len(v._prev))
        assert [order_a.index(c) for c in u._prev] == [order_b.index(c) for c in v._prev]


# -----------------------------------------------------------------------------
# compile_document


def test_tutorial_document_computes_and_backpropagates():
    compiled = compile_document(tutorial_doc())
    f = compiled.output
    assert f.data == 15.0 and f.label == "f"
    f.backward()
    assert compiled.values["n1"].grad == 3.0  # df/dx = y
    assert compiled.values["n2"].grad == 8.0  # df/dy = x + 2y
    assert compiled.order == ["n1", "n2", "n3", "n4", "n5"]
    assert compiled.missing == {}
    assert [compiled.values[n].label for n in compiled.order] == ["x", "y", "", "", "f"]


def test_value_to_node_is_the_reverse_map():
    compiled = compile_document(tutorial_doc())
    for nid, value in compiled.values.items():
        assert compiled.value_to_node[value] == nid
        assert compiled.node_of(value) == nid
    assert compiled.node_of(Value(1.0)) is None


def test_every_op_compiles_to_the_graph_built_with_the_engine():
    doc = build(
        [
            ("input", 0.7, None, "a", []),
            ("input", -1.3, None, "b", []),
            ("const", 2.0, None, "", []),
            ("op", "add", None, "", ["n1", "n2"]),  # n4 = a + b
            ("op", "sub", None, "", ["n4", "n3"]),  # n5 = n4 - 2
            ("op", "mul", None, "", ["n5", "n5"]),  # n6 = n5 * n5 (both ports)
            ("op", "div", None, "", ["n6", "n1"]),  # n7 = n6 / a
            ("op", "neg", None, "", ["n7"]),  # n8 = -n7
            ("op", "pow", 3, "", ["n8"]),  # n9 = n8 ** 3
            ("op", "pow", 0.5, "", ["n1"]),  # n10 = a ** 0.5
            ("op", "rpow", 2.0, "", ["n2"]),  # n11 = 2.0 ** b
            ("op", "relu", None, "", ["n2"]),  # n12 = relu(b) = 0
            ("op", "tanh", None, "", ["n9"]),
            ("op", "exp", None, "", ["n10"]),
            ("op", "log", None, "", ["n11"]),
            ("op", "sigmoid", None, "", ["n7"]),
            ("op", "add", None, "", ["n12", "n13"]),
            ("op", "add", None, "", ["n17", "n14"]),
            ("op", "mul", None, "", ["n18", "n15"]),
            ("op", "sub", None, "out", ["n19", "n16"]),
        ]
    )
    compiled = compile_document(doc)
    compiled.output.backward()

    a, b, two = Value(0.7, label="a"), Value(-1.3, label="b"), Value(2.0)
    n5 = a + b - two
    n7 = n5 * n5 / a
    n9 = (-n7) ** 3
    expected = ((b.relu() + n9.tanh()) + (a**0.5).exp()) * (2.0**b).log() - n7.sigmoid()
    expected.backward()
    same_graph(compiled.output, expected)
    assert [v._op for v in topological_order(compiled.output)] == [v._op for v in topological_order(expected)]


def test_integral_pow_param_becomes_an_int_exponent():
    doc = build([("input", 3.0, None, "x", []), ("op", "pow", 2.0, "", ["n1"])])
    assert compile_document(doc).output._op == "**2"


def test_missing_input_is_reported_and_downstream_is_absent():
    doc = build(
        [
            ("input", 2.0, None, "x", []),
            ("op", "mul", None, "", ["n1", None]),  # port 1 unwired
            ("op", "tanh", None, "", ["n2"]),  # downstream of the gap
            ("op", "exp", None, "", ["n1"]),  # fine
            ("op", "add", None, "", [None, None]),  # nothing wired at all
        ]
    )
    compiled = compile_document(doc)
    assert compiled.missing == {"n2": [1], "n5": [0, 1]}
    assert set(compiled.values) == {"n1", "n4"}
    assert compiled.order == ["n1", "n4"]
    # three sinks, but only exp(x) is computed: the waiting parts leave it the output (issue 17.5)
    assert compiled.output_id == "n4" and compiled.output is compiled.values["n4"]


def test_output_missing_upstream_gives_none_and_explicit_output_is_used():
    doc = build([("input", 2.0, None, "x", []), ("op", "mul", None, "", ["n1", None])], output="n2")
    assert compile_document(doc).output is None
    doc = build(
        [("input", 2.0, None, "x", []), ("op", "exp", None, "", ["n1"]), ("op", "tanh", None, "", ["n1"])], output="n2"
    )
    assert compile_document(doc).output._op == "exp"


def test_empty_document_compiles_to_nothing():
    compiled = compile_document(GraphDocument())
    assert (compiled.values, compiled.output, compiled.missing, compiled.order) == ({}, None, {}, [])


# -----------------------------------------------------------------------------
# trace


def mlp_like_graph():
    """One sample through a 2-3-1 tanh MLP with a squared-error loss, by hand."""
    rng = random.Random(7)
    x = [Value(0.5, label="x0"), Value(-1.5, label="x1")]
    hidden_w = [[Value(rng.uniform(-1, 1)) for _ in x] for _ in range(3)]
    hidden_b = [Value(0.0) for _ in range(3)]
    out_w = [Value(rng.uniform(-1, 1)) for _ in range(3)]
    out_b = Value(0.1)
    h = []
    for ws, b in zip(hidden_w, hidden_b):
        act = b
        for w, xi in zip(ws, x):
            act = act + w * xi
        h.append(act.tanh())
    score = out_b
    for w, hi in zip(out_w, h):
        score = score + w * hi
    diff = score - 1.0
    loss = diff * diff + 2 ** (-score) / 4 + diff**2 + (score.relu() + score.sigmoid().log()).exp()
    params = [w for ws in hidden_w for w in ws] + hidden_b + out_w + [out_b]
    return loss, params


def test_trace_makes_one_node_per_value_in_topological_order():
    loss, params = mlp_like_graph()
    doc, by_id = trace(loss, parameters=params)
    order = topological_order(loss)
    assert list(doc.nodes) == [f"n{i}" for i in range(1, len(order) + 1)]
    assert [by_id[nid] for nid in doc.nodes] == order
    assert doc.output == f"n{len(order)}" and by_id[doc.output] is loss
    assert doc.read_only
    for nid, node in doc.nodes.items():
        value = by_id[nid]
        assert node.label == value.label
        if not value._prev:
            assert node.value == value.data
            want = "input" if (value.label or any(value is p for p in params)) else "const"
            assert node.kind == want
        else:
            assert doc.inputs_of(nid) == [f"n{order.index(c) + 1}" for c in value._prev]
    kinds = [n.kind for n in doc.nodes.values()]
    assert kinds.count("input") == 2 + len(params)
    assert kinds.count("const") > 0  # 1.0, 2, 4 wrapped by the engine


def test_trace_keeps_both_edges_of_a_square():
    a = Value(3.0, label="a")
    doc, _ = trace(a * a)
    assert doc.to_dict()["edges"] == [{"src": "n1", "dst": "n2", "port": 0}, {"src": "n1", "dst": "n2", "port": 1}]


def test_trace_parses_pow_and_rpow_params():
    x = Value(2.0, label="x")
    doc, _ = trace(((x**2) ** 0.5 + x**-1) * 3.0**x)
    ops = [(n.op, n.param) for n in doc.nodes.values() if n.kind == "op"]
    assert ("pow", 2) in ops and ("pow", 0.5) in ops and ("pow", -1) in ops and ("rpow", 3.0) in ops
    assert all(type(p) is int for op, p in ops if op == "pow" and p in (2, -1))


@pytest.mark.parametrize(
    "engine_op, expected",
    [
        ("+", ("add", None)),
        ("-", ("sub", None)),
        ("*", ("mul", None)),
        ("/", ("div", None)),
        ("neg", ("neg", None)),
        ("**2", ("pow", 2)),
        ("**0.5", ("pow", 0.5)),
        ("**-1", ("pow", -1)),
        ("2.0**", ("rpow", 2.0)),
        ("relu", ("relu", None)),
        ("sigmoid", ("sigmoid", None)),
    ],
)
def test_op_of(engine_op, expected):
    assert op_of(engine_op) == expected


def test_trace_then_compile_reproduces_data_and_grads():
    loss, params = mlp_like_graph()
    doc, by_id = trace(loss, parameters=params)
    compiled = compile_document(doc)
    assert compiled.order == list(doc.nodes)
    for nid, value in by_id.items():
        assert compiled.values[nid].data == value.data
    loss.backward()
    compiled.output.backward()
    same_graph(compiled.output, loss)


def test_trace_of_a_real_mlp_round_trips():
    from core.nn import MLP

    model = MLP(2, [8, 8, 1], rng=random.Random(1))
    score = model([0.3, -0.2])
    doc, by_id = trace(score, parameters=model.parameters())
    assert all(doc.nodes[nid].kind == "input" for nid, v in by_id.items() if any(v is p for p in model.parameters()))
    compiled = compile_document(doc)
    assert compiled.output.data == score.data
    score.backward()
    compiled.output.backward()
    same_graph(compiled.output, score)


def test_traced_documents_are_read_only_and_non_finite_leaves_are_refused():
    doc, _ = trace(Value(1.0, label="x").exp())
    with pytest.raises(GraphError, match="read-only"):
        doc.set_field("n1", "value", 2.0)
    with pytest.raises(GraphError, match="finite"):
        trace(Value(math.inf, label="w") * 2)


def test_trace_of_a_leaf_alone():
    doc, by_id = trace(Value(4.0))
    assert [(n.kind, n.value) for n in doc.nodes.values()] == [("const", 4.0)]
    assert doc.output == "n1"


def test_trace_of_a_deep_chain_is_fast_enough():
    x = Value(0.5, label="x")
    y = x
    for _ in range(5_000):
        y = y * 1.0001 + 0.0
    doc, _ = trace(y)
    assert len(doc.nodes) == 1 + 4 * 5_000
    assert compile_document(doc).output.data == y.data


# -----------------------------------------------------------------------------
# the output while a part waits to be wired (issue 17.5)


@pytest.mark.parametrize(
    "waiting",
    [
        [("op", "mul", None, "", [None, None])],  # a new op, nothing wired
        [("op", "add", None, "", ["n5", None])],  # the output half-wired to a fresh op
        [("input", 1.0, None, "z", [])],  # a lone new input
        [("input", 1.0, None, "z", []), ("op", "mul", None, "", ["n6", None])],  # a paste's tail
    ],
)
def test_an_unwired_part_keeps_the_output_and_its_grads(waiting):
    doc = build(
        [
            *[
                ("input", 2.0, None, "x", []),
                ("input", 3.0, None, "y", []),
                ("op", "mul", None, "", ["n1", "n2"]),
                ("op", "pow", 2, "", ["n2"]),
                ("op", "add", None, "f", ["n3", "n4"]),
            ],
            *waiting,
        ]
    )
    compiled = compile_document(doc)
    assert compiled.output_id == "n5" and compiled.output is compiled.values["n5"]
    compiled.output.backward()
    assert (compiled.values["n1"].grad, compiled.values["n2"].grad) == (3.0, 8.0)


def test_a_second_complete_part_keeps_the_output_before_else_none():
    from core.document.blocks import neuron_block

    doc = tutorial_doc()
    neuron_block(doc, (400.0, 0.0)).command.do(doc)  # a complete Neuron beside the graph
    assert compile_document(doc).output is None  # two finished parts: no single output
    kept = compile_document(doc, keep="n5")
    assert kept.output_id == "n5" and kept.output.data == 15.0
    assert compile_document(doc, keep="n1").output is None  # a leaf feeding f is no output


def test_an_output_set_by_the_user_is_never_replaced():
    doc = tutorial_doc()
    doc.add_node(Node(None, "op", "neg"))
    doc.connect("n5", "n6", 0)
    doc.set_output("n3")
    assert compile_document(doc, keep="n5").output_id == "n3"
    doc.add_node(Node(None, "op", "exp"))  # n7, unwired
    doc.set_output("n7")
    assert compile_document(doc, keep="n5").output is None  # the user's output waits for its input


def test_trace_data_is_plain_data_and_builds_the_same_document():
    # the window reads the Values on its own thread and builds the document from
    # this data on a worker: no Value may be in it
    from core.nn import MLP

    model = MLP(2, [4, 1], rng=random.Random(2))
    score = model([0.3, -0.2])
    data, by_id = trace_data(score, model.parameters())

    def plain(x):
        if isinstance(x, dict):
            return all(isinstance(k, str) and plain(v) for k, v in x.items())
        if isinstance(x, list):
            return all(plain(v) for v in x)
        return x is None or isinstance(x, (str, int, float))

    assert plain(data)
    doc, _ = trace(score, model.parameters())
    assert traced_document(data).to_dict() == doc.to_dict()
    assert traced_document(data).read_only and set(by_id) == set(doc.nodes)


def test_traced_document_refuses_a_non_finite_leaf_naming_it():
    data, _ = trace_data(Value(math.nan, label="w") * 2)
    with pytest.raises(GraphError, match="finite"):
        traced_document(data)


# -----------------------------------------------------------------------------
# a compile made ahead (on the worker that checks a graph being opened)


def test_a_compile_made_ahead_is_taken_once_by_the_next_compile():
    doc = parse("f = (x*y).tanh()")
    made = compile_ahead(doc)
    ahead = compile_document(doc)
    assert ahead is made
    fresh = compile_document(doc)
    assert ahead.output is not fresh.output  # taken once: the next compile makes its own Values
    assert [v.data for v in ahead.values.values()] == [v.data for v in fresh.values.values()]
    assert ahead.order == fresh.order and ahead.missing == fresh.missing and ahead.output_id == fresh.output_id


@pytest.mark.parametrize(
    "edit",
    [
        lambda doc, x: doc.set_field(x, "value", 5.0),
        lambda doc, x: doc.set_field(x, "label", "u"),
        lambda doc, x: doc.remove_node(x),
    ],
)
def test_a_compile_made_ahead_is_dropped_when_the_graph_changes(edit):
    doc = parse("f = (x*y).tanh()")
    x = next(nid for nid, node in doc.nodes.items() if node.label == "x")
    compile_ahead(doc)
    edit(doc, x)
    assert_same_compile(compile_document(doc), compile_document(copy_of(doc)))


def test_a_compile_made_ahead_goes_with_its_graph_when_a_document_swaps_graphs():
    doc, other = parse("g = a + b"), parse("f = (x*y).tanh()")
    made = compile_ahead(other)
    replace_graph(doc, other)
    assert compile_document(doc) is made
    assert compile_document(other).output.data == compile_document(parse("g = a + b")).output.data


def copy_of(doc):
    return GraphDocument.from_dict(doc.to_dict())


def assert_same_compile(a, b):
    assert a.order == b.order and a.missing == b.missing and a.output_id == b.output_id
    assert {nid: (v.data, v.label) for nid, v in a.values.items()} == {
        nid: (v.data, v.label) for nid, v in b.values.items()
    }
