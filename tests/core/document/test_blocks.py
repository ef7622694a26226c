"""The palette's catalogue and its blocks: a Neuron/Layer is the scalar graph core.nn builds,
added in one undoable step, with a group naming its nodes."""

import math
import random

import pytest

from core.document.blocks import CATALOGUE, ENTRIES, layer_block, neuron_block, next_label, node_for, search
from core.document.commands import AddNode, CommandStack, Connect
from core.document.compile import compile_document
from core.document.graph import OPS, GraphDocument, GraphError
from core.nn import Layer, Neuron


def test_catalogue_offers_leaves_every_op_and_two_blocks():
    keys = [e.key for e in CATALOGUE]
    assert keys[:2] == ["input", "const"]
    assert set(OPS) <= set(keys)
    assert keys[-2:] == ["neuron", "layer"]
    assert len(set(keys)) == len(keys)


@pytest.mark.parametrize(
    "text, first",
    [
        ("tan", "tanh"),
        ("tanh", "tanh"),
        ("+", "add"),
        ("sig", "sigmoid"),
        ("mul", "mul"),
        ("neu", "neuron"),
        ("inp", "input"),
        ("const", "const"),
        ("ln", "log"),
        ("×", "mul"),
        ("lay", "layer"),
    ],
)
def test_search_ranks_the_obvious_entry_first(text, first):
    assert search(text)[0].key == first


def test_search_with_nothing_matching_is_empty_and_blank_is_everything():
    assert search("zzzz") == []
    assert len(search("   ")) == len(CATALOGUE)
    assert len(search("", limit=3)) == 3


def test_node_for_each_entry_makes_a_valid_node():
    doc = GraphDocument()
    for key in ENTRIES:
        if key in ("neuron", "layer"):
            continue
        doc.add_node(node_for(key, doc, (10, 20)))
    labels = [n.label for n in doc.nodes.values() if n.kind == "input"]
    assert labels == ["x1"]
    assert doc.nodes["n1"].pos == (10.0, 20.0)
    pow_node = next(n for n in doc.nodes.values() if n.op == "pow")
    assert pow_node.param == 2.0
    with pytest.raises(GraphError, match="unknown palette entry"):
        node_for("matmul", doc)


def test_next_label_skips_used_labels():
    doc = GraphDocument()
    doc.add_node(node_for("input", doc))
    doc.add_node(node_for("input", doc))
    assert [n.label for n in doc.nodes.values()] == ["x1", "x2"]
    assert next_label(doc, "x") == "x3"


def _values_by_label(doc):
    compiled = compile_document(doc)
    return {doc.nodes[nid].label: v for nid, v in compiled.values.items() if doc.nodes[nid].label}


def test_a_neuron_block_equals_core_nn_neuron_and_is_one_step():
    doc = GraphDocument()
    stack = CommandStack(doc)
    block = neuron_block(doc, (0, 0), nin=2, activation="tanh")
    stack.push(block.command)
    assert len(stack.commands) == 1 and stack.undo_text.startswith("Add Neuron N1")
    # 2 new inputs + 2 weights + bias + 2 mul + 2 add + tanh
    assert len(doc.nodes) == 10 and len(doc.edges) == 9
    assert not doc.missing_inputs()
    assert doc.effective_output() == block.outputs[0]
    assert doc.nodes[block.outputs[0]].label == "N1"
    assert set(block.group["nodes"]).isdisjoint(block.inputs)
    assert len(block.group["nodes"]) == 8

    # the same weights, the same chain and the same numbers as core.nn
    model = Neuron(2, "tanh", random.Random("N1"), "N1")
    labels = _values_by_label(doc)
    for w in model.w:
        assert labels[w.label].data == w.data
    out = model([1.0, 1.0])
    compiled = compile_document(doc)
    assert compiled.output.data == out.data
    compiled.output.backward()
    out.backward()
    for w in model.w:
        assert compiled.values[_id(doc, w.label)].grad == w.grad

    stack.undo()
    assert doc.to_dict() == GraphDocument().to_dict()
    stack.redo()
    assert len(doc.nodes) == 10


def _id(doc, label):
    return next(nid for nid, n in doc.nodes.items() if n.label == label)


def test_a_neuron_fed_by_existing_nodes_wires_them():
    doc = GraphDocument()
    for _ in range(3):
        doc.add_node(node_for("input", doc))
    block = neuron_block(doc, (300, 0), nin=3, activation="relu", inputs=["n1", "n2", "n3"])
    CommandStack(doc).push(block.command)
    assert block.inputs == ["n1", "n2", "n3"]
    assert len(doc.nodes) == 3 + 3 + 1 + 6 + 1
    fed = sorted(e.src for e in doc.edges if e.src in ("n1", "n2", "n3"))
    assert fed == ["n1", "n2", "n3"]
    assert all(doc.nodes[nid].pos[0] >= 300 - 1e-9 for nid in block.group["nodes"])


def test_a_layer_block_is_m_neurons_on_shared_inputs():
    doc = GraphDocument()
    block = layer_block(doc, (0, 0), nin=2, nout=3, activation="sigmoid")
    CommandStack(doc).push(block.command)
    assert len(block.outputs) == 3 and len(block.inputs) == 2
    assert [doc.nodes[o].label for o in block.outputs] == ["L1.n0", "L1.n1", "L1.n2"]
    model = Layer(2, 3, "sigmoid", random.Random("L1"), "L1")
    compiled = compile_document(doc)
    for neuron, nid in zip(model.neurons, block.outputs):
        assert compiled.values[nid].data == neuron([1.0, 1.0]).data
    for xid in block.inputs:
        assert len(doc.consumers_of(xid)) == 3


def test_a_linear_neuron_has_no_activation_node():
    doc = GraphDocument()
    block = neuron_block(doc, nin=1, activation="linear")
    CommandStack(doc).push(block.command)
    assert doc.nodes[block.outputs[0]].op == "add"


def test_block_names_and_input_labels_do_not_collide():
    doc = GraphDocument()
    stack = CommandStack(doc)
    stack.push(neuron_block(doc, nin=2).command)
    second = neuron_block(doc, (0, 400), nin=2)
    stack.push(second.command)
    assert second.group["id"] == "N2"
    labels = [n.label for n in doc.nodes.values() if n.label]
    assert len(labels) == len(set(labels))
    assert {"x1", "x2", "x3", "x4"} <= set(labels)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"nin": 0}, "1 to"),
        ({"nin": 2.5}, "1 to"),
        ({"activation": "gelu"}, "unknown activation"),
        ({"inputs": ["n1"]}, "2 inputs but 1"),
    ],
)
def test_bad_block_requests_are_refused_with_a_reason(kwargs, match):
    doc = GraphDocument()
    doc.add_node(node_for("input", doc))
    with pytest.raises(GraphError, match=match):
        neuron_block(doc, **kwargs)


def test_a_block_fed_by_an_unknown_node_is_refused():
    with pytest.raises(GraphError, match="no node"):
        neuron_block(GraphDocument(), nin=1, inputs=["n9"])


def test_block_layout_respects_sizes_and_flows_left_to_right():
    doc = GraphDocument()
    block = neuron_block(doc, (100, 50), nin=2, sizes=lambda node: (200.0, 40.0))
    pos = {n.id: n.pos for n in block.nodes}
    for edge in block.command.commands:
        if isinstance(edge, Connect):
            assert pos[edge.src][0] < pos[edge.dst][0]
    assert min(p[0] for p in pos.values()) == pytest.approx(200.0)  # left edge at 100
    assert all(math.isfinite(c) for p in pos.values() for c in p)
    assert all(isinstance(c, AddNode) or isinstance(c, Connect) for c in block.command.commands)
