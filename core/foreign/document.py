"""A learner's traced graph (plain data from the child process) as a read-only document.

The child sends each node as a dict (`TracedNode.as_dict`): its id, name, op
and operand ids. Turning that into a `GraphDocument` lets the canvas draw the
learner's graph with the studio's boxes -- the failing expression, with the
faulty node highlighted. The document's vocabulary is closed, so a graph with
an op the studio does not know cannot be drawn; `to_document` says which.
"""

from __future__ import annotations

import math
from typing import Any

from core.document.graph import GraphDocument, Node


def number(x: float | str) -> float:
    """A float from the child's plain data ('nan', 'inf' and '-inf' come as strings)."""
    return float(x)


def to_document(nodes: list[dict[str, Any]]) -> tuple[GraphDocument, None] | tuple[None, str]:
    """(doc, None) for the traced `nodes`, or (None, reason) if it cannot be drawn."""
    unknown = [n["raw_op"] for n in nodes if n["children"] and n["op"] is None]
    if unknown:
        return None, f"the graph has an op the studio cannot draw: {unknown[0]!r}"
    bad = [n["name"] for n in nodes if not math.isfinite(number(n["data"])) and not n["children"]]
    if bad:
        return None, f"the leaf {bad[0]} is not a finite number"
    doc = GraphDocument()
    used = set()
    for n in nodes:
        if n["children"]:
            doc.add_node(Node(n["id"], "op", n["op"], param=n["param"], label=n["name"]))
        else:
            doc.add_node(Node(n["id"], "input", value=number(n["data"]), label=n["name"]))
    for n in nodes:
        for port, child in enumerate(n["children"]):
            doc.connect(child, n["id"], port)
            used.add(child)
    roots = [n["id"] for n in nodes if n["id"] not in used]
    doc.set_output(roots[-1])
    doc.read_only = True
    return doc, None
