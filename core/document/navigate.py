"""Finding a node and walking the graph from the keyboard.

A graph is read left to right: a node's inputs are to its left, what it feeds
to its right. So the arrow keys walk the wires:

    ←  to an input of the node (the one drawn nearest its height)
    →  to a node it feeds (likewise)
    ↑ ↓  to the nearest node drawn above or below it in its own column

Find (Ctrl+F) reads a node by what the canvas writes on it: its label, or for
an unlabelled node the formula that names it (core/document/names.py). The
learner types a formula as they would write it, `x1*w1`, and finds the node the
canvas calls `x1·w1`: the signs for times and power and spacing are not
compared, nor is case.

Positions are the document's (the centre of each box); nothing here knows Qt.
"""

from __future__ import annotations

from collections.abc import Mapping

from core.document.graph import GraphDocument
from core.document.names import node_names

DIRECTIONS = ("left", "right", "up", "down")


def plain(text: str) -> str:
    """A name as find compares it: 'X1 * W1' and 'x1·w1' both read 'x1*w1', 'y**2' and 'y^2' 'y^2'."""
    text = text.strip().lower().replace("**", "^")
    for times in ("·", "×", "⋅"):
        text = text.replace(times, "*")
    return "".join(text.split())


def find_nodes(doc: GraphDocument, text: str, names: Mapping[str, str] | None = None) -> list[str]:
    """Ids of the nodes whose label or canvas name matches `text`: whole matches
    first (a label, a formula name, an id), then names that contain it; each in
    document order."""
    needle = plain(text)
    if not needle:
        return []
    names = node_names(doc) if names is None else names
    whole, part = [], []
    for nid, node in doc.nodes.items():
        said = {plain(node.label), plain(names.get(nid, ""))} - {""}
        if needle in said or needle == nid:
            whole.append(nid)
        elif any(needle in s for s in said):
            part.append(nid)
    return whole + part


def neighbour(
    doc: GraphDocument, nid: str, direction: str, positions: Mapping[str, tuple[float, float]] | None = None
) -> str | None:
    """The node an arrow key moves to from node nid (see the module docstring), or None
    where there is none that way (a leaf has nothing to its left)."""
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, not {direction!r}")
    if nid not in doc.nodes:
        return None
    pos = positions if positions is not None else {n: tuple(node.pos) for n, node in doc.nodes.items()}
    x, y = pos[nid]
    if direction in ("left", "right"):
        if direction == "left":
            near = [src for src in doc.inputs_of(nid) if src is not None]
        else:
            near = [edge.dst for edge in doc.consumers_of(nid)]
        near = list(dict.fromkeys(near))  # a*a: one input, not two
        return min(near, key=lambda n: (abs(pos[n][1] - y), abs(pos[n][0] - x)), default=None)
    sign = -1 if direction == "up" else 1
    ahead = [n for n in doc.nodes if n != nid and (pos[n][1] - y) * sign > 0]
    # the nearest one down the column: sideways distance counts three times the vertical
    return min(ahead, key=lambda n: (3 * abs(pos[n][0] - x) + abs(pos[n][1] - y), n), default=None)


def start_node(doc: GraphDocument) -> str | None:
    """Where the arrow keys start when nothing is selected: the output (else the first node)."""
    return doc.effective_output() or next(iter(doc.nodes), None)
