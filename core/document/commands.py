"""Undoable edits: every change to a GraphDocument as a small command object.

An editor that can undo never changes its document directly. Each gesture
becomes a *command*: an object that knows how to make its change (`do`) and
how to take it back (`undo`). A stack of commands done so far is the undo
history; undo pops one and calls its `undo`, redo calls `do` again. This is the
command pattern of glue's `command.py` and of Qt's Undo Framework, in plain
Python, so every rule below is tested without a window.

The rules every command here keeps:

1. `do(doc)` records what it needs to undo (the old value, the removed wires,
   the node order) at the moment it runs, from the document itself. A command
   is built from what the user did, not from a snapshot the caller took.
2. `undo(doc)` puts back `doc.to_dict()` *exactly*: the same ids, the same
   node order, the same wires on the same ports, the same output. Deleting
   node n2 of n1..n5 and undoing gives n2 back in second place, not at the end.
3. A command that cannot apply raises `GraphError` before it changes anything,
   so a refused edit leaves the document (and the history) as it was.
4. `text` names the edit for the history ("Add tanh", "Connect x → ×",
   "Move 3 nodes"). It may be refined by the first `do`, once the command can
   read the nodes' names from the document.
5. Two commands with the same non-None `merge_id` may fuse: `a.merge_with(b)`
   is asked after `b` has been done and returns True if `a` now stands for
   both. Scrubbing a spin box is a hundred SetValue commands that the stack
   merges into one, so a single undo returns to where the scrub began. A drag
   is not merged: the view pushes one MoveNodes when the mouse is released.

`CommandStack` is a tiny undo stack for tests and non-Qt callers: `push`
applies the command (never pre-apply), and a *clean index* remembers which
point of the history matches the file on disk, for the window's `*` flag.
The app wraps these same commands in one QUndoCommand adapter instead.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from core.document.compile import compile_ahead, replace_graph
from core.document.graph import Edge, GraphDocument, GraphError, Node, op_symbol
from core.document.names import node_names, sentence_names

# -----------------------------------------------------------------------------
# Helpers: names for the history, nodes from plain data, node order


def describe(node: Node) -> str:
    """A short name for a node in the undo history: its label, else what it is."""
    if node.label:
        return node.label
    if node.kind == "op":
        return op_symbol(node.op, node.param)  # type: ignore[arg-type]  # an op node names its op
    if node.kind == "const":
        return _fmt(node.value)
    return str(node.id)


def _fmt(number: float) -> str:
    return f"{number:g}"


def _plural(count: int, one: str) -> str:
    return one if count == 1 else f"{count} nodes"


def node_from(data: Node | Mapping[str, Any]) -> Node:
    """A fresh Node from a Node or from its `to_dict()` form (id may be None)."""
    if isinstance(data, Node):
        return data.copy()
    return Node(
        data.get("id"),
        data["kind"],
        data.get("op"),
        data.get("param"),
        data.get("value"),
        data.get("label", ""),
        tuple(data.get("pos", (0.0, 0.0))),
    )


def _restore_order(doc: GraphDocument, order: list[str]) -> None:
    """Put doc.nodes back into `order` (a list of ids).

    A dict only appends, so a node re-added by undo lands last. The order is
    part of the document (it breaks ties in the topological order and in the
    saved file), so we rebuild the same dict object in the remembered order.
    """
    nodes = dict(doc.nodes)
    doc.nodes.clear()
    for nid in order:
        if nid in nodes:
            doc.nodes[nid] = nodes.pop(nid)
    doc.nodes.update(nodes)


def _check_positions(doc: GraphDocument, positions: Mapping[str, Sequence[float]]) -> None:
    """Refuse unknown ids and non-finite positions before the first node moves."""
    for nid, pos in positions.items():
        doc.node(nid)
        if len(pos) != 2 or not all(isinstance(c, (int, float)) and math.isfinite(c) for c in pos):
            raise GraphError(f"node {nid!r}: a position must be two finite numbers, got {pos!r}")


# -----------------------------------------------------------------------------
# The command interface


class Command:
    """Base of every command: override do and undo; merge only if you mean it."""

    text: str = ""
    merge_id: str | None = None

    def do(self, doc: GraphDocument) -> object:
        raise NotImplementedError

    def undo(self, doc: GraphDocument) -> None:
        raise NotImplementedError

    def merge_with(self, other: Command) -> bool:
        return False

    def changes_nothing(self, doc: GraphDocument) -> bool:
        """True when doing it would leave doc exactly as it is: such an edit is not pushed,
        so the history never holds a step that changed nothing ("Set b = 6.88137" on an
        Enter that edited nothing)."""
        return False

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.text!r}>"


def same(a: Any, b: Any) -> bool:
    """a and b are the very same value: equal floats with the same sign (-0.0 is not 0.0),
    nan is nan; other values by ==."""
    if isinstance(a, float) and isinstance(b, float):
        return (a == b and math.copysign(1.0, a) == math.copysign(1.0, b)) or (a != a and b != b)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


# -----------------------------------------------------------------------------
# Nodes


class AddNode(Command):
    """Add one node (a Node or its dict form). An id of None gets the next free id."""

    def __init__(self, node: Node | Mapping[str, Any]) -> None:
        self.node = node_from(node)
        self.text = f"Add {self._what(self.node)}"

    @staticmethod
    def _what(node: Node) -> str:
        if node.kind == "op":
            return node.op  # type: ignore[return-value]  # an op node names its op
        if node.kind == "const":
            return f"constant {_fmt(node.value)}"
        return f"input {node.label}".rstrip()

    @property
    def node_id(self) -> str | None:
        return self.node.id

    def do(self, doc: GraphDocument) -> str:
        # the id chosen by the first do is kept, so redo brings back the same node
        nid = self.node.id = doc.add_node(self.node.copy())
        return nid

    def undo(self, doc: GraphDocument) -> None:
        doc.remove_node(self.node.id)  # type: ignore[arg-type]  # done, so it has its id


class RemoveNodes(Command):
    """Delete several nodes and every wire touching them."""

    def __init__(self, ids: Iterable[str]) -> None:
        self.ids = list(dict.fromkeys(ids))
        self.text = f"Delete {_plural(len(self.ids), 'node')}"

    def do(self, doc: GraphDocument) -> None:
        for nid in self.ids:
            doc.node(nid)  # GraphError for an unknown id, before anything changes
        gone = set(self.ids)
        self._order = list(doc.nodes)
        self._output = doc.output
        self._nodes = [doc.nodes[nid].copy() for nid in self._order if nid in gone]
        self._edges = [e for e in doc.edges if e.src in gone or e.dst in gone]
        if len(self._nodes) == 1:
            self.text = f"Delete {describe(self._nodes[0])}"
        for node in reversed(self._nodes):
            doc.remove_node(node.id)  # type: ignore[arg-type]  # a node of doc has its id

    def undo(self, doc: GraphDocument) -> None:
        for node in self._nodes:
            doc.add_node(node.copy())
        _restore_order(doc, self._order)
        for edge in self._edges:
            doc.connect(*edge)
        if doc.output != self._output:
            doc.set_output(self._output)


# -----------------------------------------------------------------------------
# Wires


class Connect(Command):
    """Wire src into input `port` of dst; an occupied port is rewired in one step."""

    def __init__(self, src: str, dst: str, port: int) -> None:
        self.src, self.dst, self.port = src, dst, port
        self.text = f"Connect {src} → {dst}"

    def do(self, doc: GraphDocument) -> None:
        self.replaced = doc.connect(self.src, self.dst, self.port)
        self.text = f"Connect {describe(doc.node(self.src))} → {describe(doc.node(self.dst))}"

    def undo(self, doc: GraphDocument) -> None:
        doc.disconnect(self.dst, self.port)
        if self.replaced is not None:
            doc.connect(*self.replaced)


class Disconnect(Command):
    """Remove the wire into input `port` of dst."""

    def __init__(self, dst: str, port: int) -> None:
        self.dst, self.port = dst, port
        self.text = f"Disconnect {dst}"

    def do(self, doc: GraphDocument) -> None:
        self.edge = doc.disconnect(self.dst, self.port)
        self.text = f"Disconnect {describe(doc.node(self.edge.src))} → {describe(doc.node(self.dst))}"

    def undo(self, doc: GraphDocument) -> None:
        doc.connect(*self.edge)


class InsertOnEdge(Command):
    """Drop a node onto the wire src → dst:port, making src → node:0 and node → dst:port.

    `node` is a new node (a Node or dict, added by this command) or the id of a
    node already in the document whose input 0 is free.
    """

    def __init__(self, node: str | Node | Mapping[str, Any], edge: Sequence[Any]) -> None:
        self.edge = Edge(*edge)
        self.new_node: Node | None = None
        self.node_id: str | None  # None until the first do adds a new node that has no id
        if isinstance(node, str):
            self.node_id = node
        else:
            self.new_node = node_from(node)
            self.node_id = self.new_node.id
        self.text = "Insert on wire"

    def do(self, doc: GraphDocument) -> None:
        src, dst, port = self.edge
        if self.edge not in doc.edges:
            raise GraphError(f"there is no wire {src} → {dst}:{port} to insert on")
        steps: list[Command] = []
        if self.new_node is not None:
            if self.new_node.kind != "op":
                raise GraphError(f"only an op can sit on a wire, not a {self.new_node.kind}")
            add = AddNode(self.new_node)
            add.do(doc)
            self.new_node.id = self.node_id = add.node_id
            steps.append(add)
        nid = self.node_id
        assert nid is not None  # given, or set by the AddNode just above
        node = doc.node(nid)
        try:
            if node.arity() < 1:
                raise GraphError(f"{describe(node)} has no input to take the wire")
            if doc.inputs_of(nid)[0] is not None:
                raise GraphError(f"input 0 of {describe(node)} is occupied")
            for step in (Connect(src, nid, 0), Connect(nid, dst, port)):
                step.do(doc)
                steps.append(step)
        except GraphError:
            for done in reversed(steps):
                done.undo(doc)
            raise
        self._steps = steps
        self.text = f"Insert {describe(node)} on {describe(doc.node(src))} → {describe(doc.node(dst))}"

    def undo(self, doc: GraphDocument) -> None:
        for step in reversed(self._steps):
            step.undo(doc)


# -----------------------------------------------------------------------------
# Fields of nodes


class MoveNodes(Command):
    """Move nodes: {id: (old_pos, new_pos)}, pushed once when a drag ends."""

    def __init__(self, moves: Mapping[str, tuple[Sequence[float], Sequence[float]]]) -> None:
        self.moves = {nid: (tuple(old), tuple(new)) for nid, (old, new) in moves.items()}
        self.text = f"Move {_plural(len(self.moves), 'node')}"

    def do(self, doc: GraphDocument) -> None:
        _check_positions(doc, {nid: new for nid, (_old, new) in self.moves.items()})
        for nid, (_old, new) in self.moves.items():
            doc.set_field(nid, "pos", new)
        if len(self.moves) == 1:
            self.text = f"Move {describe(doc.node(next(iter(self.moves))))}"

    def undo(self, doc: GraphDocument) -> None:
        for nid, (old, _new) in self.moves.items():
            doc.set_field(nid, "pos", old)

    def changes_nothing(self, doc: GraphDocument) -> bool:
        return all(
            nid in doc.nodes and same(tuple(map(float, doc.nodes[nid].pos)), tuple(map(float, new)))
            for nid, (_old, new) in self.moves.items()
        )


class _SetField(Command):
    """Change one field of one node; repeated changes of the same node merge."""

    field: str  # "value", "label" or "param": each subclass names its own

    def __init__(self, nid: str, new: Any) -> None:
        self.nid, self.new = nid, new
        self.merge_id = f"set_{self.field}"

    def do(self, doc: GraphDocument) -> None:
        self.old = doc.set_field(self.nid, self.field, self.new)
        self.text = self._text(doc.node(self.nid))

    def undo(self, doc: GraphDocument) -> None:
        doc.set_field(self.nid, self.field, self.old)

    def changes_nothing(self, doc: GraphDocument) -> bool:
        node = doc.nodes.get(self.nid)
        if node is None:
            return False  # do() says what is wrong
        old, new = getattr(node, self.field), self.new
        if self.field in ("value", "param") and isinstance(old, (int, float)) and isinstance(new, (int, float)):
            old, new = float(old), float(new)
        return same(old, new)

    def _text(self, node: Node) -> str:
        raise NotImplementedError

    def merge_with(self, other: Command) -> bool:
        if not isinstance(other, _SetField) or type(other) is not type(self) or other.nid != self.nid:
            return False
        self.new = other.new
        self.text = other.text
        return True


class SetValue(_SetField):
    """The number held by an input or a constant (spin-box scrubs merge)."""

    field = "value"

    def _text(self, node: Node) -> str:
        return f"Set {describe(node) if node.kind == 'input' else 'constant'} = {_fmt(self.new)}"


class SetLabel(_SetField):
    """The name shown on a node (typing merges)."""

    field = "label"

    def do(self, doc: GraphDocument) -> None:
        self._was = node_names(doc).get(self.nid, self.nid)  # as the canvas named it (never its id)
        super().do(doc)

    def _text(self, node: Node) -> str:
        return f"Rename {self._was} to '{self.new}'" if self.new else f"Clear label of {self._was}"

    def merge_with(self, other: Command) -> bool:
        merged = super().merge_with(other)
        if merged:  # typing 'l', 'lo', 'los' is one rename, from the name before the first
            self.text = f"Rename {self._was} to '{self.new}'" if self.new else f"Clear label of {self._was}"
        return merged


class SetParam(_SetField):
    """The exponent of pow or the base of rpow."""

    field = "param"

    def _text(self, node: Node) -> str:
        what = "exponent" if node.op == "pow" else "base"
        return f"Set {what} {_fmt(self.new)}"


class SetOutput(Command):
    """Choose which node's gradient is 1 (None: the single sink)."""

    def __init__(self, nid: str | None) -> None:
        self.nid = nid
        self.text = "Clear output" if nid is None else f"Set output {nid}"

    def do(self, doc: GraphDocument) -> None:
        self.old = doc.set_output(self.nid)
        if self.nid is not None:
            self.text = f"Set output {describe(doc.node(self.nid))}"

    def undo(self, doc: GraphDocument) -> None:
        doc.set_output(self.old)


class ApplyLayout(Command):
    """Give many nodes new positions at once ({id: new pos}); old ones remembered."""

    def __init__(self, positions: Mapping[str, Sequence[float]], text: str = "Arrange graph") -> None:
        self.positions = {nid: tuple(pos) for nid, pos in positions.items()}
        self.text = text

    def do(self, doc: GraphDocument) -> None:
        _check_positions(doc, self.positions)
        self.old = {nid: doc.node(nid).pos for nid in self.positions}
        for nid, pos in self.positions.items():
            doc.set_field(nid, "pos", pos)

    def undo(self, doc: GraphDocument) -> None:
        for nid, pos in self.old.items():
            doc.set_field(nid, "pos", pos)


# -----------------------------------------------------------------------------
# Fragments: copy, paste, import


def copy_fragment(doc: GraphDocument, ids: Iterable[str]) -> dict[str, Any]:
    """The nodes `ids` and the wires among them, as JSON-able plain data.

    Wires from outside the selection are left out: a pasted copy starts with
    those inputs free. Nodes come in document order, whatever order ids had.
    """
    chosen = set(ids)
    for nid in chosen:
        doc.node(nid)
    return {
        "nodes": [n.to_dict() for nid, n in doc.nodes.items() if nid in chosen],
        "edges": [e.to_dict() for e in doc.edges if e.src in chosen and e.dst in chosen],
    }


class Paste(Command):
    """Add a fragment (from copy_fragment) with new ids, shifted by `offset`.

    After `do`, `created` lists the new ids in fragment order (also returned).
    """

    def __init__(self, fragment: Mapping[str, Any], offset: Sequence[float] = (40.0, 40.0)) -> None:
        # the fragment is checked as a graph of its own: an edge to a node
        # outside it is refused here, not dropped
        self.fragment = GraphDocument.from_dict(
            {"nodes": fragment["nodes"], "edges": fragment.get("edges", []), "output": None}
        )
        self.offset = (float(offset[0]), float(offset[1]))
        self.created: list[str] = []  # the new ids, once done
        self.text = f"Paste {_plural(len(self.fragment.nodes), 'node')}"

    def do(self, doc: GraphDocument) -> list[str]:
        fresh = self.created
        ids = {}
        for i, node in enumerate(self.fragment.nodes.values()):
            copy = node.copy()
            copy.id = fresh[i] if fresh else doc.new_id()
            copy.pos = (node.pos[0] + self.offset[0], node.pos[1] + self.offset[1])
            ids[node.id] = doc.add_node(copy)
        for src, dst, port in self.fragment.edges:
            doc.connect(ids[src], ids[dst], port)
        self.created = list(ids.values())
        return self.created

    def undo(self, doc: GraphDocument) -> None:
        for nid in reversed(self.created):
            doc.remove_node(nid)


class ReplaceDocument(Command):
    """Swap the whole graph for another (a GraphDocument or to_dict() form).

    The graphs trade places: `do` hands the document's graph to a spare
    GraphDocument the command keeps, taking the new graph from it; `undo` swaps
    them back. Nothing is copied, so undoing the open of a 5,000-node file is
    as quick as the open. (The other commands done after this one are undone
    first, so what undo gets back is exactly the graph do put in, ready for a
    redo.) A `do` that does not follow an undo -- a history replayed on another
    document -- builds the new graph afresh from its data.
    """

    def __init__(self, graph: GraphDocument | dict[str, Any], text: str = "Replace graph") -> None:
        data = graph.to_dict() if isinstance(graph, GraphDocument) else graph
        # refuse a broken graph now, not halfway through do; the checked copy is
        # what the first do swaps in, so a large graph is checked once, and where
        # the command is made (the app makes it on a worker thread)
        self._spare = GraphDocument.from_dict(data)
        self._spare.topological_ids()  # sorted here too: the order travels with the graph
        sentence_names(self._spare)  # and named (core/document/names.py): the names travel with it too
        compile_ahead(self._spare)  # and compiled, for the recompile that shows it (core/document/compile.py)
        self._spare_is_new = True
        self.new = data
        self.text = text

    def do(self, doc: GraphDocument) -> None:
        fresh = self._spare if self._spare_is_new else GraphDocument.from_dict(self.new)
        replace_graph(doc, fresh)  # doc.replace_with(fresh): fresh now holds the old graph
        self._spare, self._spare_is_new = fresh, False

    def undo(self, doc: GraphDocument) -> None:
        replace_graph(doc, self._spare)
        self._spare_is_new = True


class Macro(Command):
    """Several commands as one step of the history, undone in reverse order."""

    def __init__(self, text: str, commands: Iterable[Command]) -> None:
        self.text = text
        self.commands = list(commands)

    def do(self, doc: GraphDocument) -> None:
        done = []
        try:
            for command in self.commands:
                command.do(doc)
                done.append(command)
        except GraphError:
            for command in reversed(done):
                command.undo(doc)
            raise

    def undo(self, doc: GraphDocument) -> None:
        for command in reversed(self.commands):
            command.undo(doc)

    def changes_nothing(self, doc: GraphDocument) -> bool:
        return all(command.changes_nothing(doc) for command in self.commands)


# -----------------------------------------------------------------------------
# A pure-Python undo stack


class CommandStack:
    """The history of one document: commands[:index] are applied.

    `clean_index` is the index that matches the saved file (None once that
    state was cut off by pushing after undos); `is_clean` drives the `*` flag.
    """

    def __init__(self, doc: GraphDocument) -> None:
        self.doc = doc
        self.commands: list[Command] = []
        self.index = 0
        self.clean_index: int | None = 0

    def push(self, command: Command) -> Command | None:
        """Apply command, then record it (merged into the top one if they agree). A command
        that would change nothing is neither done nor recorded: None."""
        if command.changes_nothing(self.doc):
            return None
        command.do(self.doc)
        del self.commands[self.index :]
        if self.clean_index is not None and self.clean_index > self.index:
            self.clean_index = None
        top = self.commands[-1] if self.commands else None
        # never merge into the saved state, or undo could not get back to it
        if (
            top is not None
            and self.index != self.clean_index
            and top.merge_id is not None
            and top.merge_id == command.merge_id
            and top.merge_with(command)
        ):
            return top
        self.commands.append(command)
        self.index += 1
        return command

    def undo(self) -> Command | None:
        if not self.can_undo:
            return None
        self.index -= 1
        command = self.commands[self.index]
        command.undo(self.doc)
        return command

    def redo(self) -> Command | None:
        if not self.can_redo:
            return None
        command = self.commands[self.index]
        command.do(self.doc)
        self.index += 1
        return command

    @property
    def can_undo(self) -> bool:
        return self.index > 0

    @property
    def can_redo(self) -> bool:
        return self.index < len(self.commands)

    @property
    def undo_text(self) -> str:
        return self.commands[self.index - 1].text if self.can_undo else ""

    def set_clean(self) -> None:
        self.clean_index = self.index

    @property
    def is_clean(self) -> bool:
        return self.index == self.clean_index

    def clear(self) -> None:
        self.commands.clear()
        self.index = 0
        self.clean_index = 0
