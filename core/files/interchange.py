"""The graph in formats other tools open: GraphML (yEd, Gephi, Cytoscape,
networkx) and Graphviz DOT (dot, xdot, most graph viewers).

Both describe the same thing as our own file, a directed graph with data on
its nodes and edges, minus what only Backprop Studio understands (groups, the
file's meta). They are exports, one way: a graph is opened again from its
.json file, never from these.

* a node keeps its id (`n7`) as the id other tools use, and carries `label`,
  the name the canvas shows (its label, else the formula computing it), plus
  `kind` (input, const, op), `op`, `value` or `param` where they apply, and
  its position `x`, `y`.
* an edge is one wire, with `input`, the port of the op it feeds (0 = left
  operand of `-` and `/`). `a*a` is two edges from a to the same op, so the
  GraphML graph is a multigraph, as networkx's `read_graphml` reads it back.

GraphML is written by networkx; a label's characters that XML cannot hold
(NUL, C0 controls, U+FFFE/FFFF) are written as `\\uXXXX`, and a CR as `&#13;`,
so every tool can read the file and networkx reads back what was written. DOT is written here: it is a short grammar,
and networkx writes it only through pydot or pygraphviz, which the project
does not depend on. Every DOT id and attribute is a quoted string, with `"`
and `\\` escaped, so no label can break out of it.
"""

from __future__ import annotations

import re
import secrets
from pathlib import Path
from typing import Any

import networkx as nx

from core.document.graph import GraphDocument
from core.document.names import node_names
from core.files.atomic import write_atomically


def to_networkx(doc: GraphDocument) -> nx.MultiDiGraph:
    """A networkx.MultiDiGraph of the document: one edge per wire, keyed by its
    port, with the node and edge attributes of the module docstring."""
    names = node_names(doc)
    graph = nx.MultiDiGraph()
    for nid, node in doc.nodes.items():
        attrs: dict[str, Any] = {"label": names[nid], "kind": node.kind, "x": node.pos[0], "y": node.pos[1]}
        if node.kind == "op":
            attrs["op"] = node.op
            if node.param is not None:
                attrs["param"] = float(node.param)
        else:
            attrs["value"] = float(node.value)
        graph.add_node(nid, **attrs)
    for edge in doc.edges:
        graph.add_edge(edge.src, edge.dst, key=edge.port, input=edge.port)
    if doc.effective_output() is not None:
        graph.graph["output"] = doc.effective_output()
    return graph


# XML 1.0 cannot carry these at all, not even as &#...; references
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def xml_safe(text: str) -> str:
    """`text` with every character XML cannot hold (NUL, C0 controls but tab, LF and
    CR, U+FFFE, U+FFFF) written as a visible `\\uXXXX`: the file stays readable by
    every tool, and reads back as exactly what was written."""
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def graphml(doc: GraphDocument) -> str:
    """The document as GraphML text. A CR is written as `&#13;`, which XML readers
    keep (a raw CR they would turn into LF)."""
    graph = to_networkx(doc)
    cr = f"@@CR{secrets.token_hex(8)}@@"  # generate_graphml splits lines at a CR: carry it past as a token
    for _, attrs in graph.nodes(data=True):
        attrs["label"] = xml_safe(attrs["label"]).replace("\r", cr)
    text = "\n".join(nx.generate_graphml(graph)) + "\n"
    return text.replace(cr, "&#13;")


def dot(doc: GraphDocument) -> str:
    """The document as Graphviz DOT text: left to right, inputs and constants as
    boxes, ops as ellipses, the output drawn with a double border."""
    graph = to_networkx(doc)
    output = graph.graph.get("output")
    lines = ["digraph computation {", "  rankdir=LR;"]
    for nid, attrs in graph.nodes(data=True):
        shown = dict(attrs)
        shown["shape"] = "ellipse" if attrs["kind"] == "op" else "box"
        if nid == output:
            shown["peripheries"] = 2
        shown["pos"] = f"{attrs['x']},{-attrs['y']}"  # Graphviz's y axis points up
        del shown["x"], shown["y"]
        lines.append(f"  {_quote(nid)} [{_attributes(shown)}];")
    for src, dst, attrs in graph.edges(data=True):
        lines.append(f"  {_quote(src)} -> {_quote(dst)} [{_attributes(attrs)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def save_graphml(doc: GraphDocument, path: str | Path) -> None:
    write_atomically(path, graphml(doc))


def save_dot(doc: GraphDocument, path: str | Path) -> None:
    write_atomically(path, dot(doc))


def _attributes(attrs):
    return ", ".join(f"{key}={_quote(value)}" for key, value in attrs.items())


def _quote(value):
    text = repr(value) if isinstance(value, float) else str(value)
    text = text.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "\\r").replace("\n", "\\n")
    return f'"{text}"'
