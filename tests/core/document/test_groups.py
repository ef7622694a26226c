"""Groups beside the graph: checked like the file, changed only by commands, undone exactly."""

import pytest

from core.document.blocks import neuron_block
from core.document.commands import CommandStack, Macro, RemoveNodes, copy_fragment
from core.document.graph import GraphDocument, Node
from core.document.groups import (
    AddGroup,
    ForgetNodes,
    GroupError,
    GroupTable,
    PasteWithGroups,
    SetCollapsed,
    SetGroups,
    Ungroup,
    check_groups,
    join_meta,
    split_meta,
)


def neuron_doc():
    doc, table = GraphDocument(), GroupTable()
    stack = CommandStack(doc)
    block = neuron_block(doc, nin=2)
    stack.push(Macro(block.command.text, [block.command, AddGroup(table, block.group)]))
    return doc, table, stack, block


def test_adding_a_block_adds_its_group_in_the_same_step():
    doc, table, stack, block = neuron_doc()
    assert [g["id"] for g in table] == ["N1"]
    assert all(table.group_of(nid) == "N1" for nid in block.group["nodes"])
    assert table.group_of(block.inputs[0]) is None
    stack.undo()
    assert len(table) == 0 and not doc.nodes
    stack.redo()
    assert table.get("N1")["nodes"] == block.group["nodes"]


def test_collapse_expand_and_ungroup_are_undoable():
    doc, table, stack, _block = neuron_doc()
    events = []
    table.changed.connect(lambda: events.append(1))
    stack.push(SetCollapsed(table, "N1", True))
    assert table.get("N1")["collapsed"] and stack.undo_text.startswith("Collapse Neuron N1")
    stack.undo()
    assert not table.get("N1")["collapsed"]
    stack.push(Ungroup(table, "N1"))
    assert len(table) == 0
    stack.undo()
    assert table.get("N1") is not None
    assert events


def test_deleting_nodes_forgets_them_and_undo_brings_the_group_back():
    doc, table, stack, block = neuron_doc()
    before = table.to_list()
    members = block.group["nodes"]
    stack.push(Macro("Delete", [RemoveNodes(members[:3]), ForgetNodes(table, members[:3])]))
    assert table.get("N1")["nodes"] == members[3:]
    stack.push(Macro("Delete", [RemoveNodes(members[3:]), ForgetNodes(table, members[3:])]))
    assert len(table) == 0
    stack.undo()
    stack.undo()
    assert table.to_list() == before


def test_refused_group_commands_change_nothing():
    doc, table, stack, block = neuron_doc()
    before = table.to_list()
    with pytest.raises(GroupError, match="there is a group"):
        stack.push(AddGroup(table, dict(block.group)))
    with pytest.raises(GroupError, match="in two groups"):
        stack.push(AddGroup(table, dict(block.group, id="other")))
    with pytest.raises(GroupError, match="not in the graph"):
        stack.push(AddGroup(table, {"id": "g", "kind": "group", "title": "g", "nodes": ["n99"], "collapsed": False}))
    assert table.to_list() == before


@pytest.mark.parametrize(
    "data, match",
    [
        ({}, "must be a list"),
        ([3], "must be an object"),
        ([{"id": ""}], "non-empty string"),
        ([{"id": "g", "nodes": ["n1"], "colour": "red"}], "unknown field 'colour'"),
        ([{"id": "g", "nodes": ["n1"]}, {"id": "g", "nodes": ["n2"]}], "duplicate group id"),
        ([{"id": "g", "kind": "blob", "nodes": ["n1"]}], "unknown kind"),
        ([{"id": "g", "title": 3, "nodes": ["n1"]}], "'title' must be text"),
        ([{"id": "g", "collapsed": "yes", "nodes": ["n1"]}], "true or false"),
        ([{"id": "g", "nodes": []}], "non-empty list"),
        ([{"id": "g", "nodes": ["n7"]}], "node 'n7', which is not in the graph"),
        ([{"id": "g", "nodes": ["n1"]}, {"id": "h", "nodes": ["n1"]}], "in two groups"),
    ],
)
def test_check_groups_names_the_fault(data, match):
    with pytest.raises(GroupError, match=match):
        check_groups(data, {"n1", "n2"})


def test_meta_round_trip_keeps_groups_and_the_rest():
    doc, table, _stack, _block = neuron_doc()
    meta = join_meta({"title": "t"}, table.to_list())
    assert meta["title"] == "t" and meta["groups"][0]["id"] == "N1"
    rest, groups = split_meta(meta, doc)
    assert rest == {"title": "t"} and groups == table.to_list()
    assert join_meta({"title": "t"}, []) == {"title": "t"}


def test_paste_copies_whole_groups_with_new_ids():
    doc, table, stack, block = neuron_doc()
    ids = block.group["nodes"] + block.inputs
    fragment = copy_fragment(doc, ids)
    fragment["groups"] = table.to_list()
    command = PasteWithGroups(table, fragment, (0, 300))
    stack.push(command)
    assert [g["id"] for g in table] == ["N1", "N1-2"]
    pasted = table.get("N1-2")["nodes"]
    assert set(pasted) <= set(command.created) and len(pasted) == len(block.group["nodes"])
    stack.undo()
    assert [g["id"] for g in table] == ["N1"] and len(doc.nodes) == 10
    # a fragment holding part of a group pastes no group
    part = copy_fragment(doc, block.group["nodes"][:2])
    part["groups"] = table.to_list()
    stack.push(PasteWithGroups(table, part))
    assert len(table) == 1


def test_set_groups_replaces_all_and_undoes():
    doc, table, stack, block = neuron_doc()
    stack.push(SetGroups(table, []))
    assert len(table) == 0
    stack.undo()
    assert table.get("N1") is not None
    doc2 = GraphDocument()
    doc2.add_node(Node("n1", "input", value=1.0))
    with pytest.raises(GroupError):
        SetGroups(table, block.group and [block.group]).do(doc2)
