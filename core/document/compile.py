"""From the edited graph to live Values, and back: `compile_document` and `trace`.

The editor's `GraphDocument` is only a drawing -- boxes with ids and wires with
ports. To compute anything we *compile* it: visit the nodes in topological order
(every node after its inputs) and make each one into an engine `Value`:

    input / const   ->  a leaf  Value(node.value, label=node.label)
    add  sub  mul  div       ->  a + b   a - b   a * b   a / b   (port 0 is a)
    neg                      ->  -a
    pow   (param k)          ->  a ** k
    rpow  (param c)          ->  c ** a
    relu tanh exp log sigmoid -> a.relu()  a.tanh()  ...

These are exactly the calls you would type to build the graph by hand, so the
compiled graph *is* the hand-built one: same data, same `_op`s in the same
order, and after `backward()` the same grads. One box on screen is one `Value`,
and one chain-rule step.

A half-built graph is normal while the user edits. An op with an unwired input
cannot be computed, and neither can anything downstream of it; those nodes are
simply left out of `values` (the view greys them), and `missing` says which
ports to wire. Compiling never raises for that.

Nor does a half-built part take the grads of the rest away. The output is the
document's own (`effective_output`: the one set, or the single sink) when it
can be computed; else the single *computed* sink: a computed op that feeds no
computed node. A fresh op waiting for its inputs, a lone new input, the
unwired tail of a paste are no candidates, so the graph they were dropped
beside keeps its output. When several complete parts remain
(a Neuron block dropped beside a graph), `keep` -- the output of the compile
before -- stays the output if it is still one of them.

`trace` goes the other way: any `Value` graph -- one sample pushed through an
MLP, say -- becomes a read-only document with one node per Value, so a model
built in code can be looked at, stepped through and explained like a drawn one.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence

from core.document.graph import GraphDocument, Node
from core.document.names import replace_named
from core.engine import Value, topological_order
from core.ops import BY_NAME, lookup

# -----------------------------------------------------------------------------
# GraphDocument -> Values


class Compiled:
    """The result of compiling a document.

    values         {node id: Value} for every node that could be computed
    value_to_node  {Value: node id}, the reverse map (the debugger's step
                   records hold Values; the canvas needs node ids)
    output         the Value of the output (see the module docstring), or None
                   when there is no single output or it could not be computed
    output_id      the id of that node, or None
    missing        {op id: [unwired ports]}, what keeps the graph from computing
    order          the compiled node ids, each after its inputs
    """

    def __init__(
        self, values: dict[str, Value], output: Value | None, missing: dict[str, list[int]], order: list[str]
    ) -> None:
        self.values = values
        self.value_to_node = {value: nid for nid, value in values.items()}
        self.output = output
        self.output_id = self.value_to_node.get(output) if output is not None else None
        self.missing = missing
        self.order = order

    def node_of(self, value: Value) -> str | None:
        """The id of the node that produced `value` (None if it is not from this document)."""
        return self.value_to_node.get(value)

    def __repr__(self) -> str:
        return f"Compiled({len(self.values)} values, output={self.output!r}, missing={self.missing})"


def compile_document(doc: GraphDocument, keep: str | None = None) -> Compiled:
    """Build one Value per node of `doc`, in topological order (see the module
    docstring); `keep` is the previous compile's output id, kept when ambiguous.
    A compile made ahead for doc as it is now (`compile_ahead`) is taken instead."""
    ahead = _take_ahead(doc)
    if ahead is not None:
        output_id = output_of(doc, ahead.values, keep)
        if output_id == ahead.output_id:
            return ahead
        output = ahead.values.get(output_id) if output_id is not None else None
        return Compiled(ahead.values, output, ahead.missing, ahead.order)
    values: dict[str, Value] = {}
    order = []
    for nid in doc.topological_ids():
        node = doc.nodes[nid]
        if node.kind == "op":
            sources = doc.inputs_of(nid)
            if any(src not in values for src in sources):  # unwired, or fed by an uncomputed node
                continue
            value = _apply(node, [values[src] for src in sources])
            value.label = node.label
        else:
            value = Value(node.value, label=node.label)
        values[nid] = value
        order.append(nid)
    output_id = output_of(doc, values, keep)
    output = values.get(output_id) if output_id is not None else None
    return Compiled(values, output, doc.missing_inputs(), order)


def output_of(doc: GraphDocument, values: dict[str, Value], keep: str | None = None) -> str | None:
    """The id of the node to backpropagate from, given the computed `values`."""
    chosen = doc.effective_output()
    if chosen in values or doc.output is not None:  # an output the user set stays theirs
        return chosen if chosen in values else None
    feeds_computed = {src for src, dst, _port in doc.edges if dst in values}
    sinks = [nid for nid in values if doc.nodes[nid].kind == "op" and nid not in feeds_computed]
    if len(sinks) == 1:
        return sinks[0]
    return keep if keep in sinks else None


def _apply(node, args):
    """The one engine call that op `node` stands for, on its operand Values: the op
    table's `call` (core/ops.py), the call a learner types (`a * b`, `a ** k`, `a.tanh()`)."""
    op = BY_NAME.get(node.op)
    if op is None:
        raise ValueError(f"node {node.id!r}: unknown op {node.op!r}")
    if op.param == "k":
        return op.call(args[0], _exponent(node.param))
    if op.param == "c":
        return op.call(args[0], float(node.param))
    return op.call(*args)


def _exponent(param):
    """A pow exponent as the engine should see it: 2.0 becomes 2, so the op reads '**2'."""
    if float(param).is_integer() and abs(param) < 2**53:
        return int(param)
    return float(param)


# -----------------------------------------------------------------------------
# A compile made ahead
#
# Opening a 5,000-node graph compiles it on the window's thread: ~15 ms of a
# turn that may take at most 50. The worker thread that checks the graph first
# (core/document/commands.py ReplaceDocument, made off the GUI thread) compiles
# it there too, and the first compile_document of that graph takes the result,
# once. The Values are handed over, not shared: the worker makes them and never
# touches them again, and nobody sees them before they are taken. The compile
# travels with its graph when a document swaps graphs (`replace_graph`), and is
# dropped as soon as the graph changes (its revision, or any label, value or
# parameter: what a compile reads besides the wiring).


class _Ahead:
    def __init__(self, revision: int, fields: list, compiled: Compiled) -> None:
        self.revision, self.fields, self.compiled = revision, fields, compiled


_ahead: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # GraphDocument -> _Ahead
_ahead_lock = threading.Lock()


def _fields(doc):
    return [(n.label, n.param, n.value) for n in doc.nodes.values()]


def compile_ahead(doc: GraphDocument) -> Compiled:
    """Compile doc now, for the next compile_document(doc) to take (see above)."""
    compiled = compile_document(doc)
    with _ahead_lock:
        _ahead[doc] = _Ahead(doc.revision, _fields(doc), compiled)
    return compiled


def _take_ahead(doc):
    with _ahead_lock:
        ahead = _ahead.pop(doc, None)
    if ahead is None or ahead.revision != doc.revision or ahead.fields != _fields(doc):
        return None
    return ahead.compiled


def replace_graph(doc: GraphDocument, other: GraphDocument) -> None:
    """`doc.replace_with(other)`: the two documents trade graphs, and what was made
    ahead for each graph -- its names (core/document/names.py), its compile -- goes with it."""
    with _ahead_lock:
        carried = [_ahead.pop(d, None) for d in (doc, other)]
    current = [
        a if a is not None and a.revision == d.revision and a.fields == _fields(d) else None
        for a, d in zip(carried, (doc, other))
    ]
    replace_named(doc, other)
    with _ahead_lock:
        for ahead, holder in zip(reversed(current), (doc, other)):
            if ahead is not None:
                _ahead[holder] = _Ahead(holder.revision, ahead.fields, ahead.compiled)


# -----------------------------------------------------------------------------
# Value graph -> GraphDocument


def trace(root: Value, parameters: Sequence[Value] = ()) -> tuple[GraphDocument, dict[str, Value]]:
    """Turn the graph that produced `root` into a read-only document.

    Returns (doc, {node id: Value}). Ids are "n1", "n2", ... in topological
    order; `root` is the output. A leaf becomes an `input` if it has a label or
    is one of `parameters` (e.g. `model.parameters()`), else a `const` -- the
    engine wraps a plain number such as the 2 in `2 * x` as an unlabelled leaf.
    Edges follow `_prev` order, duplicates kept: `a * a` gives two wires into
    ports 0 and 1 of one mul.

    A leaf whose data is inf or nan cannot be stored in a document: GraphError.
    """
    data, values = trace_data(root, parameters)
    return traced_document(data), values


def trace_data(root: Value, parameters: Sequence[Value] = ()) -> tuple[dict, dict[str, Value]]:
    """What `trace` reads from the Values, as plain data: the document in its
    `to_dict()` form, and {node id: Value}.

    Reading is the quick part (~12 ms for 5,000 nodes); checking every node and
    wire while the document is built (`traced_document`, ~50 ms) needs no
    Value, so the window does it on a worker thread while it keeps answering.
    """
    params = set(parameters)
    order = topological_order(root)
    ids = {value: f"n{i}" for i, value in enumerate(order, start=1)}
    nodes: list[dict] = []
    edges: list[dict] = []
    for value in order:
        nid = ids[value]
        prev = value._prev
        if prev:
            op, param = op_of(value._op)
            nodes.append({"id": nid, "kind": "op", "op": op, "param": param, "label": value.label})
            for port, child in enumerate(prev):
                edges.append({"src": ids[child], "dst": nid, "port": port})
        else:
            kind = "input" if value.label or value in params else "const"
            nodes.append({"id": nid, "kind": kind, "value": value.data, "label": value.label})
    return {"nodes": nodes, "edges": edges, "output": ids[root]}, {nid: value for value, nid in ids.items()}


def traced_document(data: dict) -> GraphDocument:
    """The read-only document of `trace_data`'s plain data, each node and wire
    checked as it is added. (The wires come operands first, so no wire can close
    a cycle: none is searched for, GraphDocument.can_connect.)"""
    doc = GraphDocument()
    for raw in data["nodes"]:
        doc.add_node(Node(raw["id"], raw["kind"], raw.get("op"), raw.get("param"), raw.get("value"), raw["label"]))
    for raw in data["edges"]:
        doc.connect(raw["src"], raw["dst"], raw["port"])
    doc.set_output(data["output"])
    doc.read_only = True
    return doc


def op_of(engine_op: str) -> tuple[str, float | None]:
    """(document op, param) for an engine `_op` string: '*' -> ('mul', None),
    '**2' -> ('pow', 2), '**0.5' -> ('pow', 0.5), '2.0**' -> ('rpow', 2.0)."""
    try:
        op, param = lookup(engine_op)
    except ValueError:
        raise ValueError(f"cannot trace an unknown engine op {engine_op!r}") from None
    return op.name, param
