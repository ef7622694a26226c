"""A graph to draw, not to run: any learner's op, drawn with its own name.

A picture of a Value graph needs only what every node holds -- data, grad and
its children. The studio's GraphDocument knows a closed set of ops (it must
compute them), so a learner's class with `sin`, `abs` or `softplus` could not
be turned into one. A `Sketch` is the same shape as far as the picture goes
(`nodes`, `edges`, `effective_output()`, a node's `arity()`), built from the
trace's plain nodes, with each op written as its class writes it:

    sketch = sketch_of([node.as_dict() for node in traced.nodes])
    graph_svg(sketch, numbers, names=names_of(sketch))   # drawn, never computed

Nothing steps a sketch: the studio cannot run an op it does not know.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from core.document.graph import op_symbol

MAX_SYMBOL = 10  # characters of an unknown op's name in its circle: "softplus" fits, a sentence does not


class SketchNode:
    """A node as the picture reads it: kind ('input' or 'op'), the op's text, its label."""

    __slots__ = ("id", "kind", "op", "param", "label", "symbol", "inputs")

    def __init__(self, id: str, kind: str, symbol: str | None, label: str, inputs: int) -> None:
        self.id = id
        self.kind = kind
        self.op = symbol  # the picture only asks whether it has one
        self.param = None
        self.label = label
        self.symbol = symbol
        self.inputs = inputs

    def arity(self) -> int:
        return self.inputs


class SketchEdge(NamedTuple):
    src: str
    dst: str
    port: int


class Sketch:
    """Nodes and wires of a traced graph, for the picture only (see the module docstring)."""

    def __init__(self) -> None:
        self.nodes: dict[str, SketchNode] = {}
        self.edges: list[SketchEdge] = []
        self.output: str | None = None
        self.unknown: list[str] = []  # the ops the studio does not know, in the order met

    def effective_output(self) -> str | None:
        return self.output


def symbol_of(raw_op: str, op: str | None, param: Any) -> str:
    """The text in an op's circle: the studio's symbol for an op it knows, else the learner's own name."""
    if op is not None:
        try:
            return op_symbol(op, param)
        except (KeyError, ValueError, TypeError):
            pass
    text = str(raw_op).strip() or "?"
    return text if len(text) <= MAX_SYMBOL else text[: MAX_SYMBOL - 1] + "…"


def sketch_of(nodes: list[dict[str, Any]]) -> Sketch:
    """The Sketch of a trace's nodes (`TracedNode.as_dict()`, in topological order)."""
    sketch = Sketch()
    used = set()
    for n in nodes:
        children = list(n["children"])
        if children:
            if n["op"] is None and n["raw_op"] not in sketch.unknown:
                sketch.unknown.append(str(n["raw_op"]))
            symbol = symbol_of(n["raw_op"], n["op"], n.get("param"))
            sketch.nodes[n["id"]] = SketchNode(n["id"], "op", symbol, n["name"], len(children))
        else:
            sketch.nodes[n["id"]] = SketchNode(n["id"], "input", None, n["name"], 0)
        for port, child in enumerate(children):
            sketch.edges.append(SketchEdge(child, n["id"], port))
            used.add(child)
    roots = [n["id"] for n in nodes if n["id"] not in used]
    sketch.output = roots[-1] if roots else None
    return sketch


def names_of(sketch: Sketch) -> dict[str, str]:
    """{node id: name}: the trace's names (the learner's labels, or a short formula)."""
    return {nid: node.label for nid, node in sketch.nodes.items()}
