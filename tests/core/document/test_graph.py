import pytest

from core.document.graph import GraphDocument, GraphError, Node


def tutorial_doc():
    doc = GraphDocument()
    x = doc.add_node(Node(None, "input", value=2.0, label="x"))
    y = doc.add_node(Node(None, "input", value=3.0, label="y"))
    m = doc.add_node(Node(None, "op", "mul"))
    p = doc.add_node(Node(None, "op", "pow", param=2))
    f = doc.add_node(Node(None, "op", "add", label="f"))
    for src, dst, port in [(x, m, 0), (y, m, 1), (y, p, 0), (m, f, 0), (p, f, 1)]:
        doc.connect(src, dst, port)
    return doc


def test_ids_are_stable_strings_and_output_defaults_to_single_sink():
    doc = tutorial_doc()
    assert list(doc.nodes) == ["n1", "n2", "n3", "n4", "n5"]
    assert doc.effective_output() == "n5"
    doc.add_node(Node(None, "input", value=1.0, label="z"))
    assert doc.effective_output() is None  # two sinks: ambiguous
    doc.set_output("n5")
    assert doc.effective_output() == "n5"


@pytest.mark.parametrize("src, dst, port, reason", [
    ("n5", "n3", 0, "occupied"),
    ("n3", "n3", 0, "itself"),
    ("n1", "n2", 0, "no inputs"),
    ("n1", "n3", 2, "no input port"),
    ("n9", "n3", 0, "no node"),
])
def test_can_connect_gives_reasons(src, dst, port, reason):
    ok, why = tutorial_doc().can_connect(src, dst, port)
    assert not ok and reason in why


def test_cycle_refused():
    doc = tutorial_doc()
    doc.disconnect("n3", 0)
    ok, why = doc.can_connect("n5", "n3", 0)
    assert not ok and "cycle" in why
    with pytest.raises(GraphError, match="cycle"):
        doc.connect("n5", "n3", 0)


def test_square_uses_both_ports_of_one_op():
    doc = GraphDocument()
    a = doc.add_node(Node(None, "input", value=3.0, label="a"))
    sq = doc.add_node(Node(None, "op", "mul"))
    doc.connect(a, sq, 0)
    doc.connect(a, sq, 1)
    assert doc.inputs_of(sq) == [a, a]
    assert len(doc.consumers_of(a)) == 2


def test_remove_node_removes_its_wires_and_missing_inputs_are_reported():
    doc = tutorial_doc()
    node, edges = doc.remove_node("n1")
    assert node.label == "x" and len(edges) == 1
    assert doc.missing_inputs() == {"n3": [0]}


def test_events_and_round_trip():
    doc = tutorial_doc()
    events = []
    doc.changed.connect(lambda *e: events.append(e))
    doc.set_field("n1", "value", 5.0)
    doc.set_field("n1", "pos", (10, 20))
    assert events == [("node_changed", "n1", "value"), ("node_changed", "n1", "pos")]
    copy = GraphDocument.from_dict(doc.to_dict())
    assert copy.to_dict() == doc.to_dict()


def test_replace_with_trades_graphs_with_the_other_document():
    doc, other = GraphDocument(), tutorial_doc()
    doc.add_node(Node(None, "const", value=7.0))
    mine, theirs = doc.to_dict(), other.to_dict()
    events, their_events = [], []
    doc.changed.connect(lambda *e: events.append(e))
    other.changed.connect(lambda *e: their_events.append(e))
    doc.replace_with(other)
    assert doc.to_dict() == theirs and events == [("reset",)]
    assert other.to_dict() == mine and their_events == []   # the spare is nobody's view
    ok, reason = doc.can_connect(doc.effective_output(), "n3", 0, replace=True)
    assert not ok and "cycle" in reason                     # the consumer index moved along
    doc.replace_with(other)
    assert doc.to_dict() == mine and other.to_dict() == theirs


def test_replace_with_refuses_a_read_only_document():
    doc = tutorial_doc().copy(read_only=True)
    with pytest.raises(GraphError, match="read-only"):
        doc.replace_with(tutorial_doc())


@pytest.mark.parametrize("node, words", [
    (Node("a", "blob", value=1.0), "unknown kind"),
    (Node("a", "op", "frobnicate"), "unknown op"),
    (Node("a", "input", value=float("nan")), "finite"),
    (Node("a", "op", "pow"), "param"),
    (Node("a", "input", value="3"), "number"),
])
def test_bad_nodes_refused(node, words):
    with pytest.raises(GraphError, match=words):
        GraphDocument().add_node(node)


def test_read_only_documents_refuse_edits():
    doc = tutorial_doc().copy(read_only=True)
    with pytest.raises(GraphError, match="read-only"):
        doc.set_field("n1", "value", 1.0)


def test_topological_ids_respect_inputs_with_document_order_ties():
    doc = GraphDocument()
    f = doc.add_node(Node(None, "op", "add"))
    x = doc.add_node(Node(None, "input", value=1.0, label="x"))
    y = doc.add_node(Node(None, "input", value=1.0, label="y"))
    doc.connect(x, f, 0)
    doc.connect(y, f, 1)
    assert doc.topological_ids() == [x, y, f]


def test_huge_int_value_is_refused_not_overflowing():
    with pytest.raises(GraphError, match="finite"):
        GraphDocument().add_node(Node("a", "input", value=10 ** 400))
