"""A learner's Values as a `ScopedGraph`: their graph, in the order it was made, with its scopes.

The learner's class is read the way the checker reads it (core/foreign/trace.py):
duck-typed and read-only, whatever its shape (`_prev` + `_op`, or the local-grads
style with `_children` and `_local_grads` and no op name at all -- then the op is
recovered from the data, and said so in `notes`). The recorder (record.py) saw
their `__init__` make each node, so its scope and line are known, and its
position in the order of making: the order the studio's own graphs keep
(graph.py), inputs first.

An op the studio does not know (their `_op` is 'softplus', or no op fits the
data) cannot be stepped with the studio's engine: the node is kept, with its
numbers, as an input of the graph, and a note says which.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from core import ops
from core.foreign.trace import Trace, TracedNode, fits, read_children, read_float, read_local_grads, trace
from core.scopes.graph import ARRAYS, CONST, DTYPES, INPUT, OP_CODE, ScopedGraph, label_stem
from core.scopes.record import ROOT, ROOT_SCOPE, Recorder, Scope

# the op a method of the learner's class makes, when the node's operands are its children in order:
# its special methods ('__rmul__' -> 'mul') and its method ('tanh'), from the op table
MAKERS = {**ops.DUNDERS, **{op.method: op.name for op in ops.TABLE if op.method}}


def fast_trace(root: Any, recorder: Recorder) -> Trace | None:
    """The trace, read quickly where the recorder saw which method made each node (its op,
    checked against the data) and the children are in order (a tuple or list); None when
    any node needs the careful reading of core/foreign/trace.py (a set of children, an op
    the data does not confirm)."""
    made = recorder.index()
    maker, makers = recorder.node_maker, recorder.makers
    order: list[Any] = []
    seen = {id(root)}
    stack = [(root, False)]
    kids: dict[int, list[Any]] = {}
    while stack:  # every node after its children, without recursion
        value, expanded = stack.pop()
        if expanded:
            order.append(value)
            continue
        children = getattr(value, "_children", None)
        if children is None:
            children = getattr(value, "_prev", None)
        if type(children) not in (tuple, list):
            children, ordered = read_children(value)
            if not ordered:
                return None
        kids[id(value)] = children
        stack.append((value, True))
        for child in reversed(children):
            if id(child) not in seen:
                seen.add(id(child))
                stack.append((child, False))
    ids = {id(v): f"n{i}" for i, v in enumerate(order, start=1)}
    nodes, objects = [], {}
    for value in order:
        nid = ids[id(value)]
        children = kids[id(value)]
        data = value.data
        data = data if type(data) is float else read_float(value, "data")
        op, param = None, None
        if children:
            position = made.get(id(value))
            op = MAKERS.get(makers[maker[position]]) if position is not None else None
            child_data = [c.data if type(c.data) is float else read_float(c, "data") for c in children]
            if op == "pow":
                local = read_local_grads(value)
                if not local or data == 0 or len(children) != 1:
                    return None
                k = local[0] * child_data[0] / data  # d(a**k)/da = k * a**k / a
                param = round(k * 2) / 2 if abs(k * 2 - round(k * 2)) < 1e-9 else k
            if op is None or not fits(op, param, child_data, data):
                return None
        nodes.append(TracedNode(nid, "", "", op, param, [ids[id(c)] for c in children], data, None, False))
        objects[nid] = value
    return Trace(nodes, objects, ids[id(root)], "local-grads", [])


def from_foreign(root: Any, recorder: Recorder, engine: str = "") -> ScopedGraph:
    """The graph that made `root` (an object of the learner's class) with its scopes."""
    found = fast_trace(root, recorder) or trace(root)
    made = recorder.index()
    nodes = found.nodes
    # made before recording (parameters, constants) first, by label stem; then as made
    before = [k for k, node in enumerate(nodes) if id(found.objects[node.id]) not in made]
    after = sorted((k for k, node in enumerate(nodes) if id(found.objects[node.id]) in made),
                   key=lambda k: made[id(found.objects[nodes[k].id])])  # fmt: skip
    groups: dict[str, list[int]] = {}
    for k in before:
        node = nodes[k]
        label = getattr(found.objects[node.id], "label", "")
        if isinstance(label, str) and label:
            stem = label_stem(label)
        else:
            stem = "parameters" if not node.children else "made before"
        groups.setdefault(stem, []).append(k)
    if "made before" in groups:  # computed nodes after every leaf they may read
        groups["made before"] = groups.pop("made before")
    scopes = [ROOT_SCOPE] + [Scope(ROOT, "inputs", name, name, "", 0) for name in groups]
    order = [k for members in groups.values() for k in members] + after
    position = {nodes[k].id: i for i, k in enumerate(order)}
    n = len(order)
    arrays = {key: np.zeros(n, dtype=DTYPES[key]) for key in ARRAYS}
    arrays["a"][:] = -1
    arrays["b"][:] = -1
    arrays["param"][:] = math.nan
    notes = list(found.notes[:20])
    unknown: dict[str, int] = {}
    labels: dict[int, str] = {}
    first_scope = {}
    for g, members in enumerate(groups.values(), start=1):
        for k in members:
            first_scope[k] = g
    old_scope, lines = recorder.node_scope, recorder.node_line
    kept: dict[int, int] = {ROOT: ROOT}

    def scope_index(old: int) -> int:
        if old < 0:
            return ROOT
        new = kept.get(old)
        if new is None:
            s = recorder.scopes[old]
            parent = scope_index(s.parent)
            scopes.append(s._replace(parent=parent))
            new = kept[old] = len(scopes) - 1
        return new

    for i, k in enumerate(order):
        node = nodes[k]
        obj = found.objects[node.id]
        label = getattr(obj, "label", "")
        if isinstance(label, str) and label:
            labels[i] = label
        grad = getattr(obj, "grad", 0.0)
        arrays["data"][i] = node.data
        arrays["grad"][i] = float(grad) if isinstance(grad, (int, float)) else math.nan
        if k in first_scope:
            arrays["scope"][i] = first_scope[k]
        else:
            p = made[id(obj)]
            arrays["scope"][i] = scope_index(old_scope[p])
            arrays["line"][i] = lines[p]
        if not node.children:
            arrays["op"][i] = INPUT if (i in labels or k in first_scope) else CONST
            continue
        if node.op is None or node.op not in OP_CODE or len(node.children) > 2:
            unknown[node.raw_op or "?"] = unknown.get(node.raw_op or "?", 0) + 1
            arrays["op"][i] = INPUT
            continue
        arrays["op"][i] = OP_CODE[node.op]
        if node.param is not None:
            arrays["param"][i] = float(node.param)
        arrays["a"][i] = position[node.children[0]]
        if len(node.children) == 2:
            arrays["b"][i] = position[node.children[1]]
    for raw, count in unknown.items():
        notes.append(f"{count} node(s) of op {raw!r}, which the studio does not know, are shown as inputs")
    # the scopes must come after their parents: scope_index appends a parent first, so they do
    return ScopedGraph(arrays, labels, position[found.root], scopes, notes, engine or type(root).__name__)


def from_trace(found: Trace, engine: str = "") -> ScopedGraph:
    """A learner's graph read without a recorder (their `show(loss)`): inputs first, grouped by
    label stem, then every op in the trace's topological order, all in the root scope -- to be
    grouped by its structure (core/scopes/infer.py). Their grads are kept (None -> nan)."""
    from core.foreign.document import their_grads

    nodes = found.nodes
    leaves = [k for k, node in enumerate(nodes) if not node.children]
    groups: dict[str, list[int]] = {}
    for k in leaves:
        label = getattr(found.objects[nodes[k].id], "label", "")
        groups.setdefault(label_stem(label) if isinstance(label, str) and label else "constants", []).append(k)
    if "constants" in groups:
        groups["constants"] = groups.pop("constants")
    scopes = [ROOT_SCOPE] + [Scope(ROOT, "inputs", name, name, "", 0) for name in groups]
    order = [k for members in groups.values() for k in members]
    order += [k for k, node in enumerate(nodes) if node.children]
    position = {nodes[k].id: i for i, k in enumerate(order)}
    n = len(order)
    arrays = {key: np.zeros(n, dtype=DTYPES[key]) for key in ARRAYS}
    arrays["a"][:] = -1
    arrays["b"][:] = -1
    arrays["param"][:] = math.nan
    grads = their_grads(found.objects)
    labels: dict[int, str] = {}
    unknown: dict[str, int] = {}
    group_of = {k: g for g, members in enumerate(groups.values(), start=1) for k in members}
    for i, k in enumerate(order):
        node = nodes[k]
        label = getattr(found.objects[node.id], "label", "")
        if isinstance(label, str) and label:
            labels[i] = label
        grad = grads.get(node.id)
        arrays["data"][i] = node.data
        arrays["grad"][i] = math.nan if grad is None else grad
        arrays["scope"][i] = group_of.get(k, ROOT)
        if not node.children:
            arrays["op"][i] = INPUT if i in labels else CONST
            continue
        if node.op is None or node.op not in OP_CODE or len(node.children) > 2:
            unknown[node.raw_op or "?"] = unknown.get(node.raw_op or "?", 0) + 1
            arrays["op"][i] = INPUT
            continue
        arrays["op"][i] = OP_CODE[node.op]
        if node.param is not None:
            arrays["param"][i] = float(node.param)
        arrays["a"][i] = position[node.children[0]]
        if len(node.children) == 2:
            arrays["b"][i] = position[node.children[1]]
    notes = list(found.notes[:20])
    for raw, count in unknown.items():
        notes.append(f"{count} node(s) of op {raw!r}, which the studio does not know, are shown as inputs")
    root_obj = found.objects[found.root]
    return ScopedGraph(arrays, labels, position[found.root], scopes, notes, engine or type(root_obj).__name__)
