import random

import networkx as nx
import pytest

from core.document.graph import GraphDocument, GraphError, Node
from tests.core.document.graph_corpus import corpus


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


@pytest.mark.parametrize(
    "src, dst, port, reason",
    [
        ("n5", "n3", 0, "occupied"),
        ("n3", "n3", 0, "itself"),
        ("n1", "n2", 0, "no inputs"),
        ("n1", "n3", 2, "no input port"),
        ("n9", "n3", 0, "no node"),
    ],
)
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
    assert other.to_dict() == mine and their_events == []  # the spare is nobody's view
    ok, reason = doc.can_connect(doc.effective_output(), "n3", 0, replace=True)
    assert not ok and "cycle" in reason  # the consumer index moved along
    doc.replace_with(other)
    assert doc.to_dict() == mine and other.to_dict() == theirs


def test_replace_with_refuses_a_read_only_document():
    doc = tutorial_doc().copy(read_only=True)
    with pytest.raises(GraphError, match="read-only"):
        doc.replace_with(tutorial_doc())


@pytest.mark.parametrize(
    "node, words",
    [
        (Node("a", "blob", value=1.0), "unknown kind"),
        (Node("a", "op", "frobnicate"), "unknown op"),
        (Node("a", "input", value=float("nan")), "finite"),
        (Node("a", "op", "pow"), "param"),
        (Node("a", "input", value="3"), "number"),
    ],
)
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
        GraphDocument().add_node(Node("a", "input", value=10**400))


# -- the networkx graph behind the wires ---------------------------------------
# The oracles below are the hand-written walks the document used before networkx
# (commit cf73ed4): the networkx answers must agree with them on every example,
# every lesson's graph and a random corpus.


def kahn_order(doc):
    """Topological order, ties by document position: a heap of ready positions."""
    import heapq

    order = {nid: i for i, nid in enumerate(doc.nodes)}
    ids, pending, consumers = list(doc.nodes), dict.fromkeys(doc.nodes, 0), {}
    for edge in doc.edges:
        pending[edge.dst] += 1
        consumers.setdefault(edge.src, []).append(edge.dst)
    ready = [order[nid] for nid, k in pending.items() if k == 0]
    heapq.heapify(ready)
    result = []
    while ready:
        nid = ids[heapq.heappop(ready)]
        result.append(nid)
        for dst in consumers.get(nid, ()):
            pending[dst] -= 1
            if pending[dst] == 0:
                heapq.heappush(ready, order[dst])
    return result


def walk_downstream(doc, start):
    """Every node downstream of start, start included."""
    consumers = {}
    for edge in doc.edges:
        consumers.setdefault(edge.src, set()).add(edge.dst)
    seen, todo = {start}, [start]
    while todo:
        for nxt in consumers.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


CORPUS = corpus()


@pytest.mark.parametrize("name", [name for name, _doc in CORPUS])
def test_topological_order_agrees_with_kahn(name):
    doc = dict(CORPUS)[name]
    assert doc.topological_ids() == kahn_order(doc)


@pytest.mark.parametrize("name", [name for name, _doc in CORPUS])
def test_reachability_and_cycle_rule_agree_with_the_walk(name):
    doc = dict(CORPUS)[name]
    rng = random.Random(name)
    ids = list(doc.nodes)
    for _ in range(15):
        a = rng.choice(ids)
        downstream = walk_downstream(doc, a)
        for b in rng.sample(ids, min(len(ids), 20)):
            assert doc.reaches(a, b) == (b in downstream), (a, b)
        for src in rng.sample(ids, min(len(ids), 20)) if doc.nodes[a].kind == "op" else ():
            if src != a:
                ok, reason = doc.can_connect(src, a, 0, replace=True)
                assert ok == (src not in downstream), (src, a, reason)
                assert ok or "cycle" in reason


@pytest.mark.parametrize("name", [name for name, _doc in CORPUS])
def test_a_file_with_a_cycle_is_refused_naming_an_edge_on_it(name):
    doc = dict(CORPUS)[name]
    # rewire an op's input to come from a node downstream of it: a loop
    rng = random.Random(name)
    edges = doc.edges
    rng.shuffle(edges)
    edge = next((e for e in edges if len(walk_downstream(doc, e.dst)) > 1), None)
    if edge is None:
        pytest.skip("no op has anything downstream")
    late = rng.choice(sorted(walk_downstream(doc, edge.dst) - {edge.dst}))
    data = doc.to_dict()
    for raw in data["edges"]:
        if (raw["dst"], raw["port"]) == (edge.dst, edge.port):
            raw["src"] = late
    with pytest.raises(GraphError, match="cycle") as err:
        GraphDocument.from_dict(data)
    src, dst = str(err.value).split(":", 1)[0].removeprefix("edge ").split("→")
    step = {}
    for raw in data["edges"]:
        step.setdefault(raw["src"], set()).add(raw["dst"])
    seen, todo = set(), [dst]
    while todo:
        for nxt in step.get(todo.pop(), set()) - seen:
            seen.add(nxt)
            todo.append(nxt)
    assert src in seen and dst in step[src]  # the named wire is real and lies on a loop
    assert GraphDocument.from_dict(doc.to_dict()).to_dict() == doc.to_dict()  # the valid one loads


def chain_data(n, output_first):
    nodes = [{"id": "n1", "kind": "input", "value": 0.5, "label": "x", "pos": [0, 0]}]
    nodes += [{"id": f"n{i}", "kind": "op", "op": "tanh", "label": "", "pos": [0, 0]} for i in range(2, n + 1)]
    edges = [{"src": f"n{i - 1}", "dst": f"n{i}", "port": 0} for i in range(2, n + 1)]
    if output_first:
        nodes, edges = nodes[::-1], edges[::-1]
    return {"nodes": nodes, "edges": edges, "output": None}


def test_loading_checks_cycles_once_whatever_the_edge_order(monkeypatch):
    # Loading asked "would this wire close a loop?" per wire, a walk down the rest
    # of the chain each time: 8,000 nodes saved output-first took 20 s, 200x the
    # other order. Count the work instead of timing it: no reachability question
    # per wire, one whole-graph acyclicity check.
    calls = {"reaches": 0, "dag": 0}
    real_reaches, real_dag = GraphDocument.reaches, nx.is_directed_acyclic_graph

    def counting_reaches(self, start, goal):
        calls["reaches"] += 1
        return real_reaches(self, start, goal)

    def counting_dag(graph):
        calls["dag"] += 1
        return real_dag(graph)

    monkeypatch.setattr(GraphDocument, "reaches", counting_reaches)
    monkeypatch.setattr(nx, "is_directed_acyclic_graph", counting_dag)
    backward = GraphDocument.from_dict(chain_data(8000, output_first=True))
    assert calls == {"reaches": 0, "dag": 1}
    forward = GraphDocument.from_dict(chain_data(8000, output_first=False))
    assert calls == {"reaches": 0, "dag": 2}
    assert sorted(backward.edges) == sorted(forward.edges)
    assert backward.topological_ids() == forward.topological_ids() == [f"n{i}" for i in range(1, 8001)]


def test_the_digraph_is_a_live_read_only_view_counting_wires():
    doc = GraphDocument()
    a = doc.add_node(Node(None, "input", value=3.0, label="a"))
    sq = doc.add_node(Node(None, "op", "mul"))
    graph = doc.digraph()
    doc.connect(a, sq, 0)
    doc.connect(a, sq, 1)
    assert list(graph.edges(data="wires")) == [(a, sq, 2)]  # a*a: one edge, two wires
    doc.disconnect(sq, 1)
    assert list(graph.edges(data="wires")) == [(a, sq, 1)]
    with pytest.raises(nx.NetworkXError):
        graph.add_edge(sq, a)
    doc.remove_node(a)
    assert list(graph.nodes) == [sq] and not graph.edges


def test_revision_grows_with_every_structural_change_only():
    doc = tutorial_doc()
    seen = [doc.revision]
    for edit in (
        lambda: doc.disconnect("n3", 0),
        lambda: doc.connect("n1", "n3", 0),
        lambda: doc.set_output("n5"),
        lambda: doc.add_node(Node(None, "const", value=1.0)),
        lambda: doc.remove_node("n6"),
        lambda: doc.replace_with(tutorial_doc()),
        doc.clear,
    ):
        edit()
        assert doc.revision > seen[-1]
        seen.append(doc.revision)
    doc.add_node(Node("k", "const", value=1.0))
    before = doc.revision
    doc.set_field("k", "pos", (5, 5))  # moving a box changes no structure
    assert doc.revision == before


def test_a_label_no_file_can_store_is_refused_naming_the_node():
    # issue 20: a label "\ud800" was accepted, and Save then failed without naming the node
    doc = GraphDocument()
    doc.add_node(Node("n1", "input", value=1.0, label="x"))
    with pytest.raises(GraphError, match=r"node 'n1': the label holds U\+D800 \(character 2\)"):
        doc.set_field("n1", "label", "a\ud800")
    assert doc.nodes["n1"].label == "x"
    with pytest.raises(GraphError, match="node 'n2'"):
        doc.add_node(Node("n2", "input", value=1.0, label="\udfff"))
    doc.set_field("n1", "label", "é 😀 ｘ")  # anything encodable is fine
