"""The graph in formats other tools open: GraphML (yEd, Gephi, Cytoscape,
networkx) and Graphviz DOT (dot, xdot, most graph viewers).

Both describe the same thing as our own file, a directed graph with data on
its nodes and edges, minus what only Backprop Studio understands (groups, the
file's meta) -- plus the numbers the canvas shows. They are exports, one way: a
graph is opened again from its .json file, never from these.

* a node keeps its id (`n7`) as the id other tools use, and carries `label`,
  the name the canvas shows (its label, else the formula computing it), plus
  `kind` (input, const, op), `op`, `value` or `param` where they apply, its
  position `x`, `y`, and its `data` and `grad`: the numbers on the canvas
  (given by the caller), else those of one backward pass from the output.
* an edge is one wire, with `input`, the port of the op it feeds (0 = left
  operand of `-` and `/`). `a*a` is two edges from a to the same op, so the
  GraphML graph is a multigraph, as networkx's `read_graphml` reads it back.

GraphML is written by networkx; a label's characters that XML cannot hold
(NUL, C0 controls, U+FFFE/FFFF) are written as `\\uXXXX`, and a CR as `&#13;`,
so every tool can read the file and networkx reads back what was written.

DOT is written here: it is a short grammar, and networkx writes it only through
pydot or pygraphviz, which the project does not depend on. It draws the graph as
micrograd's `draw_dot` does: every value a record `{ name | data 2.0000 | grad
3.0000 }`, and every op a small node of its own (`n7.op`, drawn `×`) wired into
the value it makes; the wires of the document run from a value to the op it
feeds. Every DOT id and attribute is a quoted string, with `"` and `\\` escaped
(and in a record `{ } | < >` too), so no label can break out of it.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import networkx as nx

from core.document.compile import compile_document
from core.document.graph import GraphDocument
from core.document.names import node_names
from core.files.atomic import write_atomically
from core.format import format_number
from core.ops import op_symbol

OP = ".op"  # a DOT op node's id: its value's id and this


Numbers = Mapping[str, tuple[float, float]]  # node id -> (data, grad)


def canvas_numbers(doc: GraphDocument) -> dict[str, tuple[float, float]]:
    """{node id: (data, grad)} after one backward pass from the output, as the canvas
    shows it; nodes that cannot be computed (an unwired input) are left out."""
    try:
        compiled = compile_document(doc)
    except Exception:  # noqa: BLE001 -- a graph that does not compute still exports its shape
        return {}
    if compiled.output is not None:
        compiled.output.backward()
    return {nid: (value.data, value.grad) for nid, value in compiled.values.items()}


def to_networkx(doc: GraphDocument, numbers: Numbers | None = None) -> nx.MultiDiGraph:
    """A networkx.MultiDiGraph of the document: one edge per wire, keyed by its
    port, with the node and edge attributes of the module docstring."""
    names = node_names(doc)
    numbers = canvas_numbers(doc) if numbers is None else numbers
    graph = nx.MultiDiGraph()
    for nid, node in doc.nodes.items():
        attrs: dict[str, Any] = {"label": names[nid], "kind": node.kind, "x": node.pos[0], "y": node.pos[1]}
        if node.kind == "op":
            attrs["op"] = node.op
            if node.param is not None:
                attrs["param"] = float(node.param)
        else:
            attrs["value"] = float(node.value)
        if nid in numbers:
            attrs["data"], attrs["grad"] = (float(x) for x in numbers[nid])
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


def graphml(doc: GraphDocument, numbers: Numbers | None = None) -> str:
    """The document as GraphML text. A CR is written as `&#13;`, which XML readers
    keep (a raw CR they would turn into LF)."""
    graph = to_networkx(doc, numbers)
    cr = f"@@CR{secrets.token_hex(8)}@@"  # generate_graphml splits lines at a CR: carry it past as a token
    for _, attrs in graph.nodes(data=True):
        attrs["label"] = xml_safe(attrs["label"]).replace("\r", cr)
    text = "\n".join(nx.generate_graphml(graph)) + "\n"
    return text.replace(cr, "&#13;")


def dot(doc: GraphDocument, numbers: Numbers | None = None) -> str:
    """The document as Graphviz DOT text, drawn as micrograd's draw_dot draws it: left
    to right, each value a record of its name, data and grad (the output with a double
    border), each op a node of its own feeding the value it makes."""
    graph = to_networkx(doc, numbers)
    output = graph.graph.get("output")
    lines = ["digraph computation {", "  rankdir=LR;"]
    for nid, attrs in graph.nodes(data=True):
        shown = {k: v for k, v in attrs.items() if k not in ("label", "x", "y")}
        shown["canvas_name"] = attrs["label"]  # the record shows it too; "name" would upset pydot
        shown["shape"] = "record"
        if nid == output:
            shown["peripheries"] = 2
        shown["pos"] = f"{attrs['x']},{-attrs['y']}"  # Graphviz's y axis points up
        rows = [_record(attrs["label"])] + [
            f"{word} {format_number(attrs[word])}" for word in ("data", "grad") if word in attrs
        ]
        lines.append(f'  {_quote(nid)} [label="{{ {" | ".join(rows)} }}", {_attributes(shown)}];')
        if attrs["kind"] == "op":
            symbol = op_symbol(attrs["op"], attrs.get("param"))
            lines.append(f"  {_quote(nid + OP)} [label={_quote(symbol)}, shape=\"ellipse\"];")
            lines.append(f"  {_quote(nid + OP)} -> {_quote(nid)};")
    for src, dst, attrs in graph.edges(data=True):
        lines.append(f"  {_quote(src)} -> {_quote(dst + OP)} [{_attributes(attrs)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def save_graphml(doc: GraphDocument, path: str | Path, numbers: Numbers | None = None) -> None:
    write_atomically(path, graphml(doc, numbers))


def save_dot(doc: GraphDocument, path: str | Path, numbers: Numbers | None = None) -> None:
    write_atomically(path, dot(doc, numbers))


def _record(text):
    """A record field's text: what DOT and a record's own grammar would read as syntax, escaped."""
    text = _quote(text)[1:-1]
    return "".join("\\" + ch if ch in "{}|<>" else ch for ch in text) or " "


def _attributes(attrs):
    return ", ".join(f"{key}={_quote(value)}" for key, value in attrs.items())


def _quote(value):
    text = repr(value) if isinstance(value, float) else str(value)
    text = text.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "\\r").replace("\n", "\\n")
    return f'"{text}"'
