"""core.document.names: one name per node, never an internal id."""

import json
import pathlib
import re

import pytest

from core.document.expr import parse
from core.document.names import NAME_MAX, node_names
from core.files import graph_file

ROOT = pathlib.Path(__file__).resolve().parents[3]
ID = re.compile(r"\bn\d+\b|#\d+")


def names_by_label(text):
    doc = parse(text)
    return doc, node_names(doc)


def test_the_tutorial_graph_is_named_by_its_formulas():
    doc, names = names_by_label("f = x*y + y**2")
    assert sorted(names.values()) == sorted(["x", "y", "x·y", "y^2", "f"])


def test_brackets_only_where_the_order_of_operations_needs_them():
    _doc, names = names_by_label("z = (x + y) * x - y / (x - y) + a*b + c")
    values = set(names.values())
    assert "(x + y)·x" in values and "y/(x − y)" in values and "a·b" in values
    _doc, names = names_by_label("z = (x - (y - w)).exp()")
    assert "x − (y − w)" in names.values()


def test_a_function_call_brackets_its_argument_once():
    _doc, names = names_by_label("o = (a*b + c).tanh() * 2")
    assert "tanh(a·b + c)" in names.values()


def test_a_long_formula_is_shortened_never_to_an_id():
    text = "o = ((a*b + c*d).tanh() * (e*f + g*h).tanh() + (p*q).exp()).log()"
    _doc, names = names_by_label(text)
    assert all(len(name) <= NAME_MAX for name in names.values())
    assert not any(ID.search(name) for name in names.values())
    assert any("…" in name for name in names.values())


def test_two_unlabelled_nodes_that_read_alike_get_distinct_names():
    doc, names = names_by_label("c = a*a + a*a")
    unlabelled = [names[nid] for nid, node in doc.nodes.items() if not node.label]
    assert len(set(unlabelled)) == len(unlabelled)
    assert "(a·a)₂" in unlabelled


def test_labels_are_kept_exactly_and_missing_operands_read_as_a_question_mark():
    from core.document.graph import GraphDocument, Node

    doc = GraphDocument()
    doc.add_node(Node("n1", "input", value=1.0, label="w₁ (weight)"))
    doc.add_node(Node("n2", "op", op="mul"))
    doc.connect("n1", "n2", 0)
    names = node_names(doc)
    assert names == {"n1": "w₁ (weight)", "n2": "w₁ (weight)·?"}


@pytest.mark.parametrize("path", sorted((ROOT / "resources" / "examples").glob("*.json")), ids=lambda p: p.stem)
def test_no_shipped_example_names_a_node_by_its_id(path):
    doc, _meta = graph_file.loads(path.read_text(encoding="utf-8"))
    names = node_names(doc)
    assert set(names) == set(doc.nodes)
    assert not [name for name in names.values() if ID.search(name)], json.dumps(names)
