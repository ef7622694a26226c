"""core.document.names: one name per node, never an internal id."""

import json
import pathlib
import re

import pytest

from core.document.commands import ReplaceDocument
from core.document.expr import parse
from core.document.names import NAME_MAX, known_names, naming_steps, node_names, replace_named, sentence_names
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


# -----------------------------------------------------------------------------
# named once per version of a document


def test_names_are_made_once_and_kept_while_only_positions_change():
    doc, names = names_by_label("f = x*y + y**2")
    nid = next(iter(doc.nodes))
    doc.set_field(nid, "pos", (120.0, 40.0))
    assert node_names(doc) is names  # a move renames nothing: the same dict, not made again


@pytest.mark.parametrize(
    ("text", "edit", "before", "after"),
    [
        ("f = x*y + 1", lambda doc, ids: doc.set_field(ids["x"], "label", "u"), "x·y", "u·y"),
        ("f = (x + 2) * y", lambda doc, ids: doc.set_field(ids["2"], "value", 3.0), "x + 2", "x + 3"),
        ("f = x**2 + y", lambda doc, ids: doc.set_field(ids["x^2"], "param", 3.0), "x^2", "x^3"),
    ],
)
def test_an_edit_that_renames_a_node_is_seen_by_the_next_ask(text, edit, before, after):
    doc, names = names_by_label(text)
    assert before in names.values()
    edit(doc, {name: nid for nid, name in names.items()})
    fresh = node_names(doc)
    assert after in fresh.values() and before not in fresh.values()


def test_a_new_wire_renames_the_node_it_feeds():
    doc, names = names_by_label("f = x*y + 1")
    mul = next(nid for nid, name in names.items() if name == "x·y")
    x = next(nid for nid, name in names.items() if name == "x")
    doc.disconnect(mul, 1)
    doc.connect(x, mul, 1)
    assert "x·x" in node_names(doc).values()


def test_a_naming_in_slices_is_not_remembered_when_the_document_changed_meanwhile():
    doc = parse("f = x*y + y**2")
    names = {}
    steps = naming_steps(doc, names, every=1)
    next(steps)
    x = next(nid for nid, node in doc.nodes.items() if node.label == "x")
    doc.set_field(x, "label", "u")  # between two slices
    for _ in steps:
        pass
    assert known_names(doc) is None
    assert "u·y" in node_names(doc).values()


def test_a_replaced_graph_brings_its_names_and_undo_takes_them_back():
    doc, _names = names_by_label("f = x*y")
    other = parse("g = a + b")
    command = ReplaceDocument(other)  # names the graph it will swap in
    command.do(doc)
    assert known_names(doc) is not None  # not named again after the swap
    assert known_names(doc) == node_names(parse("g = a + b"))
    command.undo(doc)
    assert known_names(doc) == node_names(parse("f = x*y"))
    command.do(doc)
    assert known_names(doc) == node_names(parse("g = a + b"))


def test_a_listener_that_asks_during_the_edit_gets_the_new_names():
    doc = parse("f = x*y + 1")
    heard = []
    doc.changed.connect(lambda *event: heard.append(node_names(doc)))  # before any naming
    node_names(doc)
    x = next(nid for nid, node in doc.nodes.items() if node.label == "x")
    doc.set_field(x, "label", "u")
    assert "u·y" in heard[-1].values()


def test_names_of_a_graph_edited_after_naming_do_not_travel_with_it():
    doc = parse("f = x*y + 1")
    other = parse("g = a*b + 1")
    node_names(other)
    a = next(nid for nid, node in other.nodes.items() if node.label == "a")
    other.nodes[a].label = "c"  # changed in place, behind the document's back
    replace_named(doc, other)
    assert "c·b" in node_names(doc).values()


def test_sentence_names_bracket_formulas_only_and_follow_a_rename():
    doc, names = names_by_label("f = x*y + 2")
    shown = sentence_names(doc)
    assert {names[nid]: text for nid, text in shown.items()} == {
        "x": "x",
        "y": "y",
        "x·y": "(x·y)",
        "2": "2",
        "f": "f",
    }
    assert sentence_names(doc) is shown  # made once
    x = next(nid for nid, node in doc.nodes.items() if node.label == "x")
    doc.set_field(x, "label", "u")
    assert "(u·y)" in sentence_names(doc).values()
