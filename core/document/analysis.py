"""Questions about a graph's shape: what feeds a node, what it affects, what the
output ignores, how big and deep the graph is.

A computation graph is a DAG, and a DAG answers a few questions cheaply that
are worth asking while building one:

* **Ancestors** of a node: everything that feeds it, directly or through other
  nodes. Its value (and, in the backward pass, what receives a gradient from
  it) depends on exactly these. Walking the wires backwards finds them.
* **Descendants**: everything the node affects. Change its value and exactly
  these change with it; its gradient is the sum over the paths to the output
  through them.
* **Inputs the output does not depend on**: the inputs that are not ancestors
  of the output. Their gradient is 0 whatever the numbers -- often a wire that
  was forgotten.
* A **summary**: node and wire counts; the depth (the most wires on one path,
  so a chain of k ops after an input has depth k); the widest layer (the most
  nodes that could compute at the same time: networkx's topological
  generations, where generation k holds the nodes whose inputs all sit in
  generations before k); and the largest fan-out (the most wires leaving one
  node -- a weight shared by many samples).

networkx answers them all in time linear in the graph, on the document's own
`digraph()`. The summary is remembered per document revision, so a status bar
may ask after every edit and pay only when the structure has changed.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass

import networkx as nx

from core.document.graph import GraphDocument, GraphError


def ancestors(doc: GraphDocument, nid: str) -> list[str]:
    """Ids of every node that feeds `nid` (not nid itself), in document order."""
    doc.node(nid)
    found = nx.ancestors(doc.digraph(), nid)
    return [v for v in doc.nodes if v in found]


def descendants(doc: GraphDocument, nid: str) -> list[str]:
    """Ids of every node `nid` feeds (not nid itself), in document order."""
    doc.node(nid)
    found = nx.descendants(doc.digraph(), nid)
    return [v for v in doc.nodes if v in found]


def unused_inputs(doc: GraphDocument) -> list[str]:
    """Ids of the inputs the output does not depend on, in document order.
    Raises GraphError when the graph has no single output to ask about."""
    output = doc.effective_output()
    if output is None:
        raise GraphError("the graph has several ends and no output is set: mark one node as the output first")
    feeding = nx.ancestors(doc.digraph(), output)
    return [nid for nid, node in doc.nodes.items() if node.kind == "input" and nid != output and nid not in feeding]


def generations(doc: GraphDocument) -> list[list[str]]:
    """Node ids by topological generation: sources first, then each node one
    generation after its latest input (document order inside a generation)."""
    order = {nid: i for i, nid in enumerate(doc.nodes)}
    return [sorted(g, key=order.__getitem__) for g in nx.topological_generations(doc.digraph())]


@dataclass(frozen=True)
class Summary:
    nodes: int
    wires: int
    depth: int  # the most wires on one path
    widest: int  # the most nodes in one topological generation
    fan_out: int  # the most wires leaving one node
    fan_out_id: str | None  # the first node (document order) with that many, or None

    def text(self, names: Mapping[str, str] | None = None) -> str:
        """'12 nodes · 14 wires · depth 4 · widest layer 5 · fan-out 3 (x)'; `names`
        maps an id to what the user calls the node (core.document.names)."""
        return " · ".join([_count(self.nodes, "node"), _count(self.wires, "wire"), self.shape_text(names)])

    def shape_text(self, names: Mapping[str, str] | None = None) -> str:
        """The shape alone: 'depth 4 · widest layer 5 · fan-out 3 (x)' (fan-out
        only when some node feeds more than one port)."""
        parts = [f"depth {self.depth}", f"widest layer {self.widest}"]
        if self.fan_out > 1:
            who = names.get(self.fan_out_id) if names and self.fan_out_id is not None else None
            parts.append(f"fan-out {self.fan_out}" + (f" ({who})" if who else ""))
        return " · ".join(parts)


# doc -> (revision, its Summary)
_remembered: weakref.WeakKeyDictionary[GraphDocument, tuple[int, Summary]] = weakref.WeakKeyDictionary()


def summary(doc: GraphDocument) -> Summary:
    """The Summary of `doc`, computed once per revision."""
    seen = _remembered.get(doc)
    if seen is not None and seen[0] == doc.revision:
        return seen[1]
    graph = doc.digraph()
    layers = list(nx.topological_generations(graph))
    wires_out = {nid: sum(edge["wires"] for edge in consumers.values()) for nid, consumers in graph.adjacency()}
    fan_out = max(wires_out.values(), default=0)
    fan_out_id = next((nid for nid in doc.nodes if wires_out[nid] == fan_out), None)
    result = Summary(
        nodes=len(doc.nodes),
        wires=sum(wires_out.values()),
        depth=max(len(layers) - 1, 0),  # generation k: the longest path to it has k wires
        widest=max(map(len, layers), default=0),
        fan_out=fan_out,
        fan_out_id=fan_out_id if fan_out else None,
    )
    _remembered[doc] = (doc.revision, result)
    return result


def _count(k: int, word: str) -> str:
    return f"{k:,} {word}" + ("" if k == 1 else "s")
