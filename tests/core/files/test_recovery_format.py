"""Recovery files are graph files with a recovery record: written and read back exactly."""

import pytest

from core.document.blocks import neuron_block
from core.document.commands import CommandStack
from core.document.expr import parse
from core.files import graph_file, recovery
from core.files.graph_file import FormatError


def test_round_trip_is_exact():
    doc = parse("x = Value(2.0, label='x')\ny = (x*x).tanh()\n")
    doc.set_output("n3")
    block = neuron_block(doc, (0, 200), nin=1)
    CommandStack(doc).push(block.command)
    meta = {"title": "mine", "description": "d"}
    text = recovery.dumps(doc, meta, [block.group], "/home/a/g.json", "2026-12-03T10:00:00Z", "g.json")
    back = recovery.loads(text)
    assert back.doc.to_dict() == doc.to_dict()
    assert back.meta == meta and back.groups == [block.group]
    assert back.source == "/home/a/g.json" and back.title == "g.json"
    assert back.saved_at == "2026-12-03T10:00:00Z"
    # and it is an ordinary graph file for the strict loader
    plain, plain_meta = graph_file.loads(text)
    assert plain.to_dict() == doc.to_dict() and "recovery" in plain_meta


def test_an_unsaved_document_has_no_source():
    doc = parse("a + b")
    back = recovery.loads(recovery.dumps(doc, {}, [], None, "t"))
    assert back.source is None and back.groups == [] and back.meta == {}


@pytest.mark.parametrize(
    "meta, match",
    [
        ({}, "no 'recovery' object"),
        ({"recovery": {"source": 3, "saved_at": "t"}}, "'source' must be a path"),
        ({"recovery": {"source": None, "saved_at": 3}}, "must be text"),
        ({"recovery": {"source": None}, "groups": [{"id": "g", "nodes": ["n99"]}]}, "not in the graph"),
    ],
)
def test_bad_recovery_files_are_refused(meta, match):
    text = graph_file.dumps(parse("a + b"), meta)
    with pytest.raises(FormatError, match=match):
        recovery.loads(text)


def test_meta_may_not_already_hold_a_recovery_record():
    with pytest.raises(ValueError):
        recovery.dumps(parse("a"), {"recovery": 1}, [], None, "t")


def test_a_snapshot_dumps_to_exactly_the_same_bytes():
    doc = parse("x = Value(2.0, label='x')\ny = (x*x).tanh() + x**3\n")
    block = neuron_block(doc, (0, 200), nin=2, inputs=["n1", "n1"])
    CommandStack(doc).push(block.command)
    doc.set_output(block.outputs[0])
    args = ({"title": "t"}, [block.group], "/a/b.json", "2026-12-03T10:00:00Z", "b.json")
    plain = recovery.snapshot(doc)
    assert recovery.dumps_snapshot(plain, *args) == recovery.dumps(doc, *args)
    doc.set_field("n1", "value", 5.0)  # the snapshot shares nothing with doc
    assert recovery.loads(recovery.dumps_snapshot(plain, *args)).doc.nodes["n1"].value == 2.0
