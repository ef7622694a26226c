"""Ancestors, descendants, inputs the output ignores and the summary, against plain walks."""

import random

import pytest

from core.document.analysis import ancestors, descendants, generations, summary, unused_inputs
from core.document.graph import GraphDocument, GraphError, Node
from tests.core.document.graph_corpus import random_doc


def tutorial_doc():
    # f = x*y + y^2, and an input z that nothing uses
    doc = GraphDocument()
    for node in (
        Node("x", "input", value=2.0, label="x"),
        Node("y", "input", value=3.0, label="y"),
        Node("m", "op", "mul"),
        Node("p", "op", "pow", param=2),
        Node("f", "op", "add", label="f"),
    ):
        doc.add_node(node)
    for src, dst, port in [("x", "m", 0), ("y", "m", 1), ("y", "p", 0), ("m", "f", 0), ("p", "f", 1)]:
        doc.connect(src, dst, port)
    return doc


def walk(doc, start, forward):
    step = {}
    for e in doc.edges:
        a, b = (e.src, e.dst) if forward else (e.dst, e.src)
        step.setdefault(a, set()).add(b)
    seen, todo = set(), [start]
    while todo:
        for nxt in step.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return [v for v in doc.nodes if v in seen]


def test_what_feeds_and_what_is_affected():
    doc = tutorial_doc()
    assert ancestors(doc, "f") == ["x", "y", "m", "p"]
    assert ancestors(doc, "p") == ["y"]
    assert descendants(doc, "y") == ["m", "p", "f"]
    assert descendants(doc, "f") == [] and ancestors(doc, "x") == []
    with pytest.raises(GraphError, match="'ghost'"):
        ancestors(doc, "ghost")


@pytest.mark.parametrize("seed", range(12))
def test_ancestors_and_descendants_agree_with_a_walk(seed):
    doc = random_doc(seed)
    for nid in random.Random(seed).sample(list(doc.nodes), min(10, len(doc.nodes))):
        assert ancestors(doc, nid) == walk(doc, nid, forward=False)
        assert descendants(doc, nid) == walk(doc, nid, forward=True)


def test_unused_inputs_are_those_the_output_does_not_read():
    doc = tutorial_doc()
    assert unused_inputs(doc) == []
    doc.add_node(Node("z", "input", value=1.0, label="z"))
    with pytest.raises(GraphError, match="output"):  # two ends now: which one?
        unused_inputs(doc)
    doc.set_output("f")
    assert unused_inputs(doc) == ["z"]
    doc.disconnect("m", 0)  # x no longer reaches f
    assert unused_inputs(doc) == ["x", "z"]
    doc.set_output("z")  # an input as the output depends on itself
    assert unused_inputs(doc) == ["x", "y"]


def test_summary_counts_depth_width_and_fan_out():
    doc = tutorial_doc()
    s = summary(doc)
    assert (s.nodes, s.wires, s.depth, s.widest, s.fan_out, s.fan_out_id) == (5, 5, 2, 2, 2, "y")
    assert s.text({"y": "y"}) == "5 nodes · 5 wires · depth 2 · widest layer 2 · fan-out 2 (y)"
    assert generations(doc) == [["x", "y"], ["m", "p"], ["f"]]
    doc.connect("y", "m", 0)  # y*y: y now feeds three ports
    assert summary(doc).fan_out == 3 and summary(doc).wires == 5
    assert summary(GraphDocument()).text() == "0 nodes · 0 wires · depth 0 · widest layer 0"


def test_summary_is_remembered_until_the_structure_changes():
    doc = tutorial_doc()
    first = summary(doc)
    doc.set_field("x", "pos", (50, 50))
    assert summary(doc) is first  # a move changes nothing counted
    doc.remove_node("p")
    assert summary(doc) is not first and summary(doc).nodes == 4
