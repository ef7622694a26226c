"""Find by label or formula, and the arrow keys' walk along the wires (core.document.navigate)."""

import pytest

from core.document.expr import parse
from core.document.names import node_names
from core.document.navigate import find_nodes, neighbour, plain, start_node

NEURON = """
x1 = Value(2.0, label='x1'); w1 = Value(-3.0, label='w1')
x2 = Value(0.0, label='x2'); w2 = Value(1.0, label='w2')
b = Value(6.8813735870195432, label='b')
n = x1*w1 + x2*w2 + b
o = n.tanh()
"""


@pytest.fixture
def neuron():
    doc = parse(NEURON)
    # a left-to-right placement, as the layout draws it: x1 w1 x2 w2 b in column 0, ...
    by_name = {name: nid for nid, name in node_names(doc).items()}
    columns = [["x1", "w1", "x2", "w2", "b"], ["x1·w1", "x2·w2"], ["x1·w1 + x2·w2"], ["n"], ["o"]]
    for col, names in enumerate(columns):
        for row, name in enumerate(names):
            doc.nodes[by_name[name]].pos = (200.0 * col, 100.0 * row)
    return doc, by_name


def test_plain_reads_a_formula_as_typed():
    assert plain(" X1 * W1 ") == plain("x1·w1") == "x1*w1"
    assert plain("y**2") == plain("y^2")


def test_find_a_node_by_the_formula_the_canvas_writes_on_it(neuron):
    # repro: Ctrl+F could not find 'x1·w1' (an unlabelled product): find read labels only
    doc, by = neuron
    assert find_nodes(doc, "x1*w1") == [by["x1·w1"], by["x1·w1 + x2·w2"]]  # whole match first
    assert find_nodes(doc, "x1·w1 + x2·w2") == [by["x1·w1 + x2·w2"]]
    assert find_nodes(doc, "tanh") == [] and find_nodes(doc, "O") == [by["o"]]
    assert find_nodes(doc, "w") == [by["w1"], by["w2"], by["x1·w1"], by["x2·w2"], by["x1·w1 + x2·w2"]]
    assert find_nodes(doc, "   ") == []


def test_left_and_right_follow_the_wires(neuron):
    doc, by = neuron
    assert neighbour(doc, by["o"], "left") == by["n"]
    assert neighbour(doc, by["n"], "left") == by["x1·w1 + x2·w2"]  # drawn at its height (row 0), not b's
    assert neighbour(doc, by["x1·w1 + x2·w2"], "left") == by["x1·w1"]
    assert neighbour(doc, by["x2"], "right") == by["x2·w2"]
    assert neighbour(doc, by["x1"], "left") is None  # a leaf has no inputs
    assert neighbour(doc, by["o"], "right") is None  # the output feeds nothing


def test_up_and_down_stay_in_the_column(neuron):
    doc, by = neuron
    assert neighbour(doc, by["x1"], "down") == by["w1"]
    assert neighbour(doc, by["w2"], "up") == by["x2"]
    assert neighbour(doc, by["x2·w2"], "up") == by["x1·w1"]
    assert neighbour(doc, by["x1"], "up") is None


def test_a_square_has_one_input_to_go_to_and_bad_arguments_are_said():
    doc = parse("a = Value(3.0, label='a')\nf = a*a")
    f = doc.effective_output()
    assert neighbour(doc, f, "left") == next(n for n, node in doc.nodes.items() if node.label == "a")
    assert neighbour(doc, "n99", "left") is None and start_node(doc) == f
    with pytest.raises(ValueError, match="direction"):
        neighbour(doc, f, "north")
