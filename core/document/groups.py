"""Groups: a name for a set of nodes, so a neuron can be shown as one box.

A Neuron or a Layer dropped from the palette is many scalar nodes -- that is
the point: every box is one chain-rule step. Once the learner has seen them,
the block can be *collapsed*: drawn as one box with the block's inputs on its
left and its outputs on its right, and expanded again. Collapsing changes no
number and no wire; the computation is the same graph either way.

Where a group lives. The graph in a file is the computation, and everything
that reads it (the loader's strict checks, compile, codegen, other programs)
should not need to know about boxes on a screen. So a group is not a node and
not a field of nodes; it is a record beside the graph, saved in the file's
`meta` as `"groups": [{"id", "kind", "title", "nodes", "collapsed"}, ...]`:

* `nodes` are ids of the document (stable strings, never list positions);
  a node belongs to at most one group;
* `collapsed` is saved too, because a teacher who collapses the layers of a
  network to explain it wants the student to open the same picture.

A `GroupTable` holds the groups of one document. It changes only through the
commands below, pushed with the document edits they belong to (adding a
neuron adds its nodes and its group in one `Macro`; deleting nodes forgets
them in the same step), so undo, redo, the window's `*` and the saved file
always agree. Each command remembers the whole table before it ran, and its
undo puts that back: exact, and simple enough to trust.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from core.document.commands import Command, Paste
from core.document.events import Signal
from core.document.graph import GraphDocument, GraphError

Group = dict[str, Any]  # {"id", "kind", "title", "nodes", "collapsed"}, as in the file

GROUP_KINDS = ("neuron", "layer", "group")
GROUP_KEYS = ("id", "kind", "title", "nodes", "collapsed")


class GroupError(GraphError):
    """Groups that cannot belong to a document; the message names the group."""


# -----------------------------------------------------------------------------
# Checking plain data


def check_groups(data: object, node_ids: Iterable[str]) -> list[Group]:
    """A clean list of group dicts from plain data (a file's meta), or GroupError.

    `node_ids` is the document's set of ids: a group may only name its nodes.
    """
    if not isinstance(data, list):
        raise GroupError(f"meta 'groups' must be a list, got {type(data).__name__}")
    known = set(node_ids)
    seen_ids: set[str] = set()
    owner: dict[str, str] = {}
    clean: list[Group] = []
    for i, raw in enumerate(data):
        if not isinstance(raw, dict):
            raise GroupError(f"group {i} must be an object, got {type(raw).__name__}")
        gid = raw.get("id")
        if not isinstance(gid, str) or not gid:
            raise GroupError(f"group {i}: 'id' must be a non-empty string, got {gid!r}")
        where = f"group {gid!r}"
        for key in raw:
            if key not in GROUP_KEYS:
                raise GroupError(f"{where}: unknown field {key!r} (known: {', '.join(GROUP_KEYS)})")
        if gid in seen_ids:
            raise GroupError(f"duplicate group id {gid!r}")
        seen_ids.add(gid)
        kind = raw.get("kind", "group")
        if kind not in GROUP_KINDS:
            raise GroupError(f"{where}: unknown kind {kind!r} (expected one of {', '.join(GROUP_KINDS)})")
        title = raw.get("title", gid)
        if not isinstance(title, str):
            raise GroupError(f"{where}: 'title' must be text")
        collapsed = raw.get("collapsed", False)
        if not isinstance(collapsed, bool):
            raise GroupError(f"{where}: 'collapsed' must be true or false, got {collapsed!r}")
        nodes = raw.get("nodes")
        if not isinstance(nodes, list) or not nodes:
            raise GroupError(f"{where}: 'nodes' must be a non-empty list of node ids")
        for nid in nodes:
            if not isinstance(nid, str) or nid not in known:
                raise GroupError(f"{where} names node {nid!r}, which is not in the graph")
            if nid in owner:
                raise GroupError(f"node {nid!r} is in two groups, {owner[nid]!r} and {gid!r}")
            owner[nid] = gid
        clean.append({"id": gid, "kind": kind, "title": title, "nodes": list(nodes), "collapsed": collapsed})
    return clean


# -----------------------------------------------------------------------------
# The table


class GroupTable:
    """The groups of one document, in order; `changed()` fires after every change."""

    def __init__(self) -> None:
        self._groups: dict[str, Group] = {}  # gid -> group dict
        self._owner: dict[str, str] = {}  # node id -> gid
        self.changed = Signal()

    def __len__(self) -> int:
        return len(self._groups)

    def __iter__(self) -> Iterator[Group]:
        return iter(list(self._groups.values()))

    def get(self, gid: str) -> Group | None:
        return self._groups.get(gid)

    def group_of(self, nid: str) -> str | None:
        """The id of the group holding node nid, or None."""
        return self._owner.get(nid)

    def to_list(self) -> list[Group]:
        """Plain data (copies), in order: what goes into the file's meta."""
        return [dict(g, nodes=list(g["nodes"])) for g in self._groups.values()]

    def new_id(self, stem: str) -> str:
        if stem not in self._groups:
            return stem
        k = 2
        while f"{stem}-{k}" in self._groups:
            k += 1
        return f"{stem}-{k}"

    def replace(self, groups: Iterable[Group]) -> None:
        """Hold exactly `groups` (a list of group dicts, already checked)."""
        self._groups = {g["id"]: dict(g, nodes=list(g["nodes"])) for g in groups}
        self._owner = {nid: g["id"] for g in self._groups.values() for nid in g["nodes"]}
        self.changed.emit()


# -----------------------------------------------------------------------------
# Commands


class _GroupCommand(Command):
    """Remembers the table before `do`; `undo` restores it exactly."""

    def __init__(self, table: GroupTable) -> None:
        self.table = table

    def do(self, doc: GraphDocument) -> None:
        self._before = self.table.to_list()
        after = self.change(doc, self.table.to_list())
        self.table.replace(after)

    def undo(self, doc: GraphDocument) -> None:
        self.table.replace(self._before)

    def change(self, doc: GraphDocument, groups: list[Group]) -> list[Group]:
        raise NotImplementedError


class AddGroup(_GroupCommand):
    """Name a set of nodes (none may be in a group already)."""

    def __init__(self, table: GroupTable, group: Mapping[str, Any]) -> None:
        super().__init__(table)
        self.group = dict(group, nodes=list(group["nodes"]))
        self.text = f"Group {self.group['title']}"

    def change(self, doc: GraphDocument, groups: list[Group]) -> list[Group]:
        if any(g["id"] == self.group["id"] for g in groups):
            raise GroupError(f"there is a group {self.group['id']!r} already")
        groups.append(self.group)
        return check_groups(groups, doc.nodes)


class Ungroup(_GroupCommand):
    """Forget a group; its nodes stay."""

    def __init__(self, table: GroupTable, gid: str) -> None:
        super().__init__(table)
        self.gid = gid
        self.text = f"Ungroup {gid}"

    def change(self, doc: GraphDocument, groups: list[Group]) -> list[Group]:
        if not any(g["id"] == self.gid for g in groups):
            raise GroupError(f"there is no group {self.gid!r}")
        return [g for g in groups if g["id"] != self.gid]


class SetCollapsed(_GroupCommand):
    """Show a group as one box (True) or as its nodes (False)."""

    def __init__(self, table: GroupTable, gid: str, collapsed: bool) -> None:
        super().__init__(table)
        self.gid, self.collapsed = gid, bool(collapsed)
        self.text = f"{'Collapse' if collapsed else 'Expand'} {gid}"

    def change(self, doc: GraphDocument, groups: list[Group]) -> list[Group]:
        for g in groups:
            if g["id"] == self.gid:
                g["collapsed"] = self.collapsed
                self.text = f"{'Collapse' if self.collapsed else 'Expand'} {g['title']}"
                return groups
        raise GroupError(f"there is no group {self.gid!r}")


class ForgetNodes(_GroupCommand):
    """Take deleted nodes out of their groups (a group left empty goes too).

    Pushed in the same Macro as the RemoveNodes, *after* it: undo runs in
    reverse, so the groups come back once their nodes are back."""

    def __init__(self, table: GroupTable, ids: Iterable[str]) -> None:
        super().__init__(table)
        self.ids = set(ids)
        self.text = "Forget deleted nodes"

    def change(self, doc: GraphDocument, groups: list[Group]) -> list[Group]:
        kept = []
        for g in groups:
            g["nodes"] = [nid for nid in g["nodes"] if nid not in self.ids]
            if g["nodes"]:
                kept.append(g)
        return kept


class SetGroups(_GroupCommand):
    """Replace every group (a newly opened or replaced document brings its own)."""

    def __init__(self, table: GroupTable, groups: Iterable[Mapping[str, Any]]) -> None:
        super().__init__(table)
        self.groups = [dict(g, nodes=list(g["nodes"])) for g in groups]
        self.text = "Set groups"

    def change(self, doc: GraphDocument, groups: list[Group]) -> list[Group]:
        return check_groups(self.groups, doc.nodes)


class PasteWithGroups(Command):
    """Paste a fragment; groups wholly inside it are pasted too, as new groups.

    `fragment` is copy_fragment's dict plus an optional "groups" list whose
    node ids are the fragment's own."""

    def __init__(self, table: GroupTable, fragment: Mapping[str, Any], offset: Sequence[float] = (40.0, 40.0)) -> None:
        self.table = table
        self.paste = Paste(fragment, offset)
        ids = {node["id"] for node in fragment["nodes"]}
        self.groups = [g for g in fragment.get("groups", []) if set(g["nodes"]) <= ids]
        self.text = self.paste.text

    @property
    def created(self) -> list[str]:
        return self.paste.created

    def do(self, doc: GraphDocument) -> list[str]:
        created = self.paste.do(doc)
        self._before = self.table.to_list()
        mapping = dict(zip(self.paste.fragment.nodes, created))
        groups = self.table.to_list()
        taken = {g["id"] for g in groups}
        for g in self.groups:
            gid, k = g["id"], 2
            while gid in taken:
                gid, k = f"{g['id']}-{k}", k + 1
            taken.add(gid)
            groups.append(dict(g, id=gid, nodes=[mapping[nid] for nid in g["nodes"]]))
        try:
            self.table.replace(check_groups(groups, doc.nodes))
        except GroupError:
            self.paste.undo(doc)
            raise
        return created

    def undo(self, doc: GraphDocument) -> None:
        self.table.replace(self._before)
        self.paste.undo(doc)


# -----------------------------------------------------------------------------
# Groups in a file's meta


def split_meta(meta: Mapping[str, Any], doc: GraphDocument) -> tuple[dict[str, Any], list[Group]]:
    """(meta without 'groups', checked groups) for a loaded file; GroupError names a bad group."""
    meta = dict(meta)
    groups = check_groups(meta.pop("groups"), doc.nodes) if "groups" in meta else []
    return meta, groups


def join_meta(meta: Mapping[str, Any], groups: Sequence[Group]) -> dict[str, Any]:
    """The meta to save: meta plus 'groups' when there are any."""
    meta = dict(meta)
    meta.pop("groups", None)
    if groups:
        meta["groups"] = [dict(g, nodes=list(g["nodes"])) for g in groups]
    return meta
