"""The graph the user edits: nodes, wires, an output -- the document behind the canvas.

The engine's `Value` graph is built fresh by every computation and has no
identity a user could point at. What the user edits, saves and undoes is a
`GraphDocument`:

* a **node** has a stable string id (`"n1"`, `"n2"`, ...), a `kind` -- `input`
  (a named leaf with a value), `const` (a fixed number) or `op` -- and, for an
  op, one name from a closed vocabulary (`OPS`). `pow` carries its exponent and
  `rpow` its base in `param`. Every op is a primitive of the engine with its own
  `_backward`, so one box on screen is one chain-rule step.
* an **edge** `(src, dst, port)` feeds node `src`'s value into input `port` of op
  `dst`. Ports are numbered from 0 in operand order (`sub`: 0 - 1). Each input
  port takes at most one edge; one output can feed many ports -- even both
  ports of the same op (`a*a`).
* the **output** is the node whose gradient is 1 in the backward pass; by
  default the single sink.

The rules for a valid wire (no self loop, no cycle, a free port that exists)
live here, in `can_connect`, so the editor and the file loader agree.

Behind the wires sits a `networkx.DiGraph` (`digraph()`): one vertex per
node, one edge per (src, dst) pair carrying the number of wires between them
(`a*a` is one edge with `wires=2`). It is kept up to date by every edit, so
the questions a graph library answers well are asked of it: is there a path
(`has_path`, the cycle rule), in what order may nodes compute
(`lexicographical_topological_sort`), what feeds or depends on a node
(`analysis.py`). Loading a whole graph checks for cycles once, at the end, in
linear time, rather than asking "would this wire close a loop?" per wire --
a walk per wire made an 8,000-node chain saved output-first take 20 s.

Every change emits `changed(event, *details)`; views subscribe and redraw.
The events: `node_added`, `node_removed` (id), `node_changed` (id, field),
`edge_added`, `edge_removed` (Edge), `output_changed` (id or None), and
`reset`: the whole graph was replaced at once (`clear`, `replace_with`), so a
view reads it anew rather than patching. The document never pushes undo
commands itself (see `commands.py`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import networkx as nx

from core.document.events import Signal
from core.ops import TABLE, formula, op_symbol, short_number  # noqa: F401 (op_symbol, short_number: re-exported)

# name: (arity, symbol shown in the op circle), from the op table
OPS = {op.name: (op.arity, op.symbol) for op in TABLE}
KINDS = ("input", "const", "op")
NODE_FIELDS = ("kind", "op", "param", "value", "label", "pos")


class GraphError(ValueError):
    """An edit that would make the document invalid; the message names the node."""


def node_expression(node: Node, args: list[str]) -> str:
    """How an op node reads as a formula of its operands' names: 'x·y', 'y^2', 'tanh(n)'."""
    return formula(node.op, args, node.param)  # type: ignore[arg-type]  # an op node names its op


# -----------------------------------------------------------------------------
# Nodes and edges


class Node:
    __slots__ = ("id", "kind", "op", "param", "value", "label", "pos")

    id: str | None  # None until `GraphDocument.add_node` gives it a fresh one
    kind: str
    op: str | None
    param: Any  # the number of a pow or rpow, else None (Any: which one depends on `op`)
    value: Any  # the number of an input or const, None on an op (Any: which one depends on `kind`)
    label: str
    pos: tuple[float, float]

    def __init__(
        self,
        id: str | None,
        kind: str,
        op: str | None = None,
        param: float | None = None,
        value: float | None = None,
        label: str = "",
        pos: Sequence[float] = (0.0, 0.0),
    ) -> None:
        self.id = id
        self.kind = kind
        self.op = op
        self.param = param
        self.value = value
        self.label = label
        self.pos = (float(pos[0]), float(pos[1]))

    def arity(self) -> int:
        return OPS[self.op][0] if self.kind == "op" else 0  # type: ignore[index]  # an op node names its op

    def copy(self) -> Node:
        return Node(self.id, self.kind, self.op, self.param, self.value, self.label, self.pos)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "kind": self.kind, "label": self.label, "pos": [self.pos[0], self.pos[1]]}
        if self.kind == "op":
            d["op"] = self.op
            if self.param is not None:
                d["param"] = self.param
        else:
            d["value"] = self.value
        return d

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Node) and all(getattr(self, f) == getattr(other, f) for f in self.__slots__)

    def __repr__(self) -> str:
        what = self.op if self.kind == "op" else f"{self.kind}={self.value}"
        return f"Node({self.id!r}, {what}, label={self.label!r})"


class Edge(tuple[str, str, int]):
    """(src, dst, port): src's value feeds input `port` of op dst."""

    __slots__ = ()

    def __new__(cls, src: str, dst: str, port: int) -> Edge:
        return super().__new__(cls, (src, dst, int(port)))

    @property
    def src(self) -> str:
        return self[0]

    @property
    def dst(self) -> str:
        return self[1]

    @property
    def port(self) -> int:
        return self[2]

    def to_dict(self) -> dict[str, Any]:
        return {"src": self.src, "dst": self.dst, "port": self.port}


def validate_node(node: Node) -> None:
    """Raise GraphError if a node's own fields are malformed."""
    where = f"node {node.id!r}"
    if not isinstance(node.id, str) or not node.id:
        raise GraphError(f"node id must be a non-empty string, got {node.id!r}")
    if node.kind not in KINDS:
        raise GraphError(f"{where}: unknown kind {node.kind!r} (expected one of {', '.join(KINDS)})")
    if not isinstance(node.label, str):
        raise GraphError(f"{where}: label must be text")
    if not node.label.isascii():
        try:
            node.label.encode("utf-8")
        except UnicodeEncodeError as e:  # a lone surrogate: it would load, and never save
            raise GraphError(
                f"{where}: the label holds U+{ord(node.label[e.start]):04X} (character "
                f"{e.start + 1}), half of a UTF-16 surrogate pair; no file can store it, "
                "so the label must not hold it"
            ) from None
    if not all(math.isfinite(c) for c in node.pos):
        raise GraphError(f"{where}: position must be finite")
    if node.kind == "op":
        if node.op not in OPS:
            raise GraphError(f"{where}: unknown op {node.op!r} (known: {', '.join(OPS)})")
        if node.op in ("pow", "rpow"):
            if not _is_finite_number(node.param):
                raise GraphError(f"{where}: {node.op} needs a finite number in 'param'")
        elif node.param is not None:
            raise GraphError(f"{where}: op {node.op} takes no param")
        if node.value is not None:  # else set_field(op, "value") would store an invisible number
            raise GraphError(f"{where}: an op computes its value; it has none to set")
    else:
        if node.op is not None or node.param is not None:
            raise GraphError(f"{where}: an {node.kind} has no op or param")
        if not _is_finite_number(node.value):
            raise GraphError(f"{where}: value must be a finite number, got {node.value!r}")


def _is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _is_finite_number(x):
    # float() first: math.isfinite(10**400) raises OverflowError instead of answering
    try:
        return _is_number(x) and math.isfinite(float(x))
    except OverflowError:
        return False


# -----------------------------------------------------------------------------
# The document


class GraphDocument:
    def __init__(self, read_only: bool = False) -> None:
        self.nodes: dict[str, Node] = {}  # id -> Node, in insertion order
        self._inputs: dict[tuple[str, int], str] = {}  # (dst, port) -> src
        self._graph = nx.DiGraph()  # the wiring: src -> dst edges with a `wires` count
        self.revision = 0  # grows with every change to nodes, wires or output
        self._topological: tuple[int, tuple[str, ...]] | None = None  # (revision, ids) of the last topological_ids
        self.output: str | None = None  # an explicit output id, or None for "the single sink"
        self.read_only = read_only
        self.changed = Signal()  # changed(event, *details)

    # -- queries ---------------------------------------------------------------

    @property
    def edges(self) -> list[Edge]:
        """All edges, ordered by destination node then port (deterministic)."""
        order = {nid: i for i, nid in enumerate(self.nodes)}
        keys = sorted(self._inputs, key=lambda k: (order[k[0]], k[1]))
        return [Edge(self._inputs[k], k[0], k[1]) for k in keys]

    def node(self, nid: str) -> Node:
        try:
            return self.nodes[nid]
        except KeyError:
            raise GraphError(f"no node {nid!r}") from None

    def inputs_of(self, nid: str) -> list[Any]:
        """The source id (str) on each input port of nid (None where nothing is wired)."""
        wired = self._inputs
        return [wired.get((nid, port)) for port in range(self.node(nid).arity())]

    def consumers_of(self, nid: str) -> list[Edge]:
        """Edges leaving nid, in document order."""
        return [e for e in self.edges if e.src == nid]

    def missing_inputs(self) -> dict[str, list[int]]:
        """{op id: [unwired ports]} -- what keeps the graph from computing."""
        wired = self._inputs
        missing: dict[str, list[int]] = {}
        for nid, node in self.nodes.items():
            if node.kind == "op":  # inputs and constants have no ports
                ports = [p for p in range(node.arity()) if (nid, p) not in wired]
                if ports:
                    missing[nid] = ports
        return missing

    def sinks(self) -> list[str]:
        used = {src for src in self._inputs.values()}
        return [nid for nid in self.nodes if nid not in used]

    def effective_output(self) -> str | None:
        """The explicit output, or the single sink, or None when that is ambiguous."""
        if self.output is not None:
            return self.output
        sinks = self.sinks()
        return sinks[0] if len(sinks) == 1 else None

    def digraph(self) -> nx.DiGraph:
        """The wiring as a read-only `networkx.DiGraph`, live (no copy): vertices are
        node ids in document order, an edge src -> dst has `wires`, the number of
        ports of dst that src feeds. Ask networkx anything; change it through the document."""
        return self._graph.copy(as_view=True)

    def reaches(self, start: str, goal: str) -> bool:
        """True if goal is downstream of start (following edges forward)."""
        return nx.has_path(self._graph, start, goal)

    def can_connect(self, src: str, dst: str, port: int, replace: bool = False) -> tuple[bool, str]:
        """(ok, reason): may a wire run from src's output to input `port` of dst?"""
        reason = self._port_problem(src, dst, port, replace)
        if reason:
            return False, reason
        # a node that feeds nothing yet cannot reach src: the common case of a graph
        # built operands first (a trace, a parse), answered without a path search.
        # (succ, not out_degree: networkx caches that view on the graph, a reference
        # cycle that left every replaced document for the cyclic collector)
        if self._graph.succ[dst] and self.reaches(dst, src):
            return False, f"that wire would make a cycle through {_name(self.nodes[dst])}"
        return True, ""

    def _port_problem(self, src: str, dst: str, port: int, replace: bool) -> str:
        """Why the wire is wrong on its own (nodes, port, self loop), or ""; the
        cycle rule needs the whole graph and is checked apart."""
        if src not in self.nodes:
            return f"no node {src!r}"
        if dst not in self.nodes:
            return f"no node {dst!r}"
        target = self.nodes[dst]
        if target.kind != "op":
            return f"{_name(target)} is a {target.kind}: it has no inputs"
        if not isinstance(port, int) or not 0 <= port < target.arity():
            return f"{_name(target)} has no input port {port!r} ({target.op} takes {target.arity()})"
        if src == dst:
            return "a node cannot feed itself"
        if not replace and (dst, port) in self._inputs:
            return f"input {port} of {_name(target)} is occupied"
        return ""

    def topological_ids(self) -> list[str]:
        """Node ids with every node after its inputs (ties in document order); kept
        until the next change (~40 ms at 5,000 nodes: each recompile asks)."""
        known = self._topological
        if known is None or known[0] != self.revision:
            order = {nid: i for i, nid in enumerate(self.nodes)}
            known = self._topological = (
                self.revision,
                tuple(nx.lexicographical_topological_sort(self._graph, key=order.__getitem__)),
            )
        return list(known[1])

    def new_id(self) -> str:
        k = 1 + max((int(nid[1:]) for nid in self.nodes if nid[:1] == "n" and nid[1:].isdigit()), default=0)
        return f"n{k}"

    # -- edits (each emits `changed`) ------------------------------------------

    def add_node(self, node: Node) -> str:
        """Add a Node (its id must be new) and return its id."""
        self._check_writable()
        if node.id is None:
            node.id = self.new_id()
        if node.id in self.nodes:
            raise GraphError(f"duplicate node id {node.id!r}")
        validate_node(node)
        self.nodes[node.id] = node
        self._graph.add_node(node.id)
        self.revision += 1
        self.changed.emit("node_added", node.id)
        return node.id

    def remove_node(self, nid: str) -> tuple[Node, list[Edge]]:
        """Remove a node and every wire touching it; returns (node, removed edges)."""
        self._check_writable()
        node = self.node(nid)
        touching = [e for e in self.edges if e.src == nid or e.dst == nid]
        for edge in touching:
            self.disconnect(edge.dst, edge.port)
        del self.nodes[nid]
        self._graph.remove_node(nid)
        self.revision += 1
        if self.output == nid:
            self.output = None
            self.changed.emit("output_changed", None)
        self.changed.emit("node_removed", nid)
        return node, touching

    def connect(self, src: str, dst: str, port: int) -> Edge | None:
        """Wire src into input `port` of dst; returns the edge it replaced, or None."""
        self._check_writable()
        ok, reason = self.can_connect(src, dst, port, replace=True)
        if not ok:
            raise GraphError(reason)
        replaced = None
        if (dst, port) in self._inputs:
            replaced = self.disconnect(dst, port)
        self._wire(src, dst, port)
        return replaced

    def _wire(self, src: str, dst: str, port: int) -> None:
        # unchecked: callers have made sure the port is free and no cycle forms
        self._inputs[(dst, port)] = src
        edge = self._graph.get_edge_data(src, dst)
        if edge is None:
            self._graph.add_edge(src, dst, wires=1)
        else:
            edge["wires"] += 1
        self.revision += 1
        self.changed.emit("edge_added", Edge(src, dst, port))

    def disconnect(self, dst: str, port: int) -> Edge:
        """Remove the wire into input `port` of dst and return it."""
        self._check_writable()
        try:
            src = self._inputs.pop((dst, port))
        except KeyError:
            raise GraphError(f"input {port} of node {dst!r} is not connected") from None
        data = self._graph[src][dst]
        data["wires"] -= 1
        if not data["wires"]:
            self._graph.remove_edge(src, dst)
        self.revision += 1
        edge = Edge(src, dst, port)
        self.changed.emit("edge_removed", edge)
        return edge

    def set_field(self, nid: str, field: str, value: Any) -> Any:
        """Change one field of a node (value, label, pos, param); returns the old value."""
        self._check_writable()
        if field not in ("value", "label", "pos", "param"):
            raise GraphError(f"field {field!r} cannot be edited")
        node = self.node(nid)
        old = getattr(node, field)
        trial = node.copy()
        setattr(trial, field, (float(value[0]), float(value[1])) if field == "pos" else value)
        validate_node(trial)
        setattr(node, field, getattr(trial, field))
        self.changed.emit("node_changed", nid, field)
        return old

    def set_output(self, nid: str | None) -> str | None:
        self._check_writable()
        if nid is not None:
            self.node(nid)
        old, self.output = self.output, nid
        self.revision += 1
        self.changed.emit("output_changed", nid)
        return old

    def clear(self) -> None:
        self._check_writable()
        self.nodes.clear()
        self._inputs.clear()
        self._graph.clear()
        self.output = None
        self.revision += 1
        self.changed.emit("reset")

    def replace_with(self, other: GraphDocument) -> None:
        """Hold exactly other's graph, in place, with one "reset" event; other gets
        this document's graph in exchange (no event: it is nobody's view).

        Opening a file swaps a graph of thousands of nodes. Adding them one by
        one would tell every view about each node and each wire in turn (12k
        events for a 5k-node graph); a view that redraws on "reset" anyway only
        needs to hear once that everything is new. And handing the old graph
        over, rather than copying it out, lets an undo swap it straight back.
        """
        self._check_writable()
        _swap_contents(self.nodes, other.nodes)  # in place: whoever holds doc.nodes sees the new graph
        _swap_contents(self._inputs, other._inputs)
        self._graph, other._graph = other._graph, self._graph
        self.output, other.output = other.output, self.output
        known = (self._topological, other._topological, self.revision, other.revision)
        self.revision += 1
        other.revision += 1
        # the order travels with its graph (a worker may have sorted the new one already)
        self._topological = (self.revision, known[1][1]) if known[1] and known[1][0] == known[3] else None
        other._topological = (other.revision, known[0][1]) if known[0] and known[0][0] == known[2] else None
        self.changed.emit("reset")

    def _check_writable(self) -> None:
        if self.read_only:
            raise GraphError("this graph is read-only (traced from a computation); copy it to edit")

    # -- plain data --------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodes": [n.to_dict() for n in self.nodes.values()],
            "edges": [e.to_dict() for e in self.edges],
            "output": self.output,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], read_only: bool = False) -> GraphDocument:
        """Rebuild a document from `to_dict()` output; raises GraphError naming the fault.

        Linear in the size of the graph, whatever the order of the edges: each
        wire is checked on its own as it comes, and the cycle rule once for
        all of them at the end (asking it per wire walked the graph per wire)."""
        doc = cls()
        for raw in data["nodes"]:
            doc.add_node(
                Node(
                    raw["id"],
                    raw["kind"],
                    raw.get("op"),
                    raw.get("param"),
                    raw.get("value"),
                    raw.get("label", ""),
                    tuple(raw.get("pos", (0, 0))),
                )
            )
        # (src, dst) -> index of its last wire in the file, to name a cycle's edge
        position: dict[tuple[str, str], int] = {}
        for i, raw in enumerate(data["edges"]):
            src, dst, port = raw["src"], raw["dst"], raw["port"]
            reason = doc._port_problem(src, dst, port, replace=False)
            if reason:
                raise GraphError(f"edge {src}→{dst}:{port}: {reason}")
            doc._wire(src, dst, port)
            position[(src, dst)] = i
        if not nx.is_directed_acyclic_graph(doc._graph):
            loop = nx.find_cycle(doc._graph)
            # name the loop's wire that comes last in the file: the one that closed this loop
            src, dst = max(loop, key=position.__getitem__)
            port = data["edges"][position[(src, dst)]]["port"]
            around = " → ".join([a for a, _b in loop] + [loop[0][0]])
            raise GraphError(
                f"edge {src}→{dst}:{port}: that wire would make a cycle through {_name(doc.nodes[dst])} ({around})"
            )
        if data.get("output") is not None:
            doc.set_output(data["output"])
        doc.read_only = read_only
        return doc

    def copy(self, read_only: bool = False) -> GraphDocument:
        return GraphDocument.from_dict(self.to_dict(), read_only=read_only)


def _swap_contents(mine: dict[Any, Any], theirs: dict[Any, Any]) -> None:
    kept = dict(mine)
    mine.clear()
    mine.update(theirs)
    theirs.clear()
    theirs.update(kept)


def _name(node: Node) -> str:
    return f"{node.label or node.op or node.kind} ({node.id})"
