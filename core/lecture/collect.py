"""After a pasted cell has run: which graphs it made, and what the learner calls each node.

A cell leaves Values behind in its variables: `o` after the neuron cell, `g`
after micrograd's README example, `loss` and `ypred` after a training loop.
The graph(s) to show are found the way a reader of the cell would find them:

1. **What the cell shows** -- its last line when that is an expression (`L`,
   `n(x)`), or what it passes to `draw_dot(...)` -- is the graph, as in the
   notebook (a list of Values, like a layer's outputs, is several).
2. Otherwise, every Value held by a variable (or by a list or dict held by one)
   is a candidate, and the graphs are those of the candidates that no other
   candidate uses: `g` uses `a`...`f`, so `g` alone is drawn; `loss` uses every
   `ypred[k]`. A Value that no operation ever used (a stray `h = Value(0.001)`)
   is left out when there is a graph, and the notes say so.

The output (the node whose grad is 1) is the last Value shown, else the root
assigned last.

Names come, in this order, from a `.label` the code set (`e.label = 'e'`), from
the first variable that held the Value (`c = a + b`: recorded by the bind calls
of core/lecture/instrument.py), and from where it sits in the cell's objects
once it has run (`n.layers[0].neurons[1].w[2]`, `x[0]`). A leaf with a name is
an input; one without (the 2 micrograd wraps in `2 * n`) is a constant.

Any Value class is read: the studio's exactly (its `_op` is the op table's), a
learner's own (the lecture's `class Value` cell) through core/foreign/trace.py,
which knows the shapes learners write. The result is plain data for the parent.
"""

from __future__ import annotations

import math
import types
from typing import Any

from core import ops
from core.engine import Value
from core.foreign.shapes import is_value_like

MAX_NODES = 200_000  # a graph larger than this is refused (microgpt's step is 130,000)
MAX_POOL = 3_000_000  # nodes walked to find the outermost graphs, at most
MAX_WALK = 100_000  # objects looked at while naming, at most
MAX_DEPTH = 6  # attribute / index steps from a variable while naming
MAX_ITEMS = 10_000  # items of one list looked at


class CollectError(ValueError):
    """The cell ran, but left nothing the studio can draw; the message says why."""


def is_value(obj: Any) -> bool:
    """A studio Value, or a learner's object the checker reads as one (core/foreign/shapes.is_value_like)."""
    return isinstance(obj, Value) or is_value_like(obj)


def values_in(obj: Any) -> list[Any]:
    """obj itself if it is a Value, or the Values in a list/tuple of them (one level)."""
    if is_value(obj):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [item for item in obj[:MAX_ITEMS] if is_value(item)]
    return []


# -----------------------------------------------------------------------------
# Names


def walk_names(namespace: dict[str, Any], skip: set[str]) -> dict[int, str]:
    """{id(value): the shortest path that reaches it from a variable} for the Values
    held by the cell's variables, lists, dicts and objects (breadth first)."""
    names: dict[int, str] = {}
    seen: set[int] = set()
    level = [(name, obj) for name, obj in namespace.items() if not name.startswith("__") and name not in skip]
    looked = 0
    for _depth in range(MAX_DEPTH + 1):
        following = []
        for path, obj in level:
            looked += 1
            if looked > MAX_WALK or id(obj) in seen:
                continue
            seen.add(id(obj))
            if is_value(obj):
                names.setdefault(id(obj), path)
                continue
            following.extend(_parts(path, obj))
        level = following
        if not level:
            break
    return names


def _parts(path, obj):
    """(path, item) for what obj holds: list items, dict values, object attributes."""
    if isinstance(obj, (list, tuple)):
        return [(f"{path}[{i}]", item) for i, item in enumerate(obj[:MAX_ITEMS])]
    if isinstance(obj, dict):
        keys = [k for k in list(obj)[:MAX_ITEMS] if isinstance(k, (str, int)) and not isinstance(k, bool)]
        return [(f"{path}[{k!r}]", obj[k]) for k in keys]
    if isinstance(obj, (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, str, bytes)):
        return []
    attrs = getattr(obj, "__dict__", None)
    if not isinstance(attrs, dict):
        return []
    return [(f"{path}.{k}", v) for k, v in list(attrs.items())[:MAX_ITEMS] if isinstance(k, str) and k[:1] != "_"]


def name_of(value: Any, bound: dict[int, str], walked: dict[int, str]) -> str:
    label = _attribute(value, "label")
    if isinstance(label, str) and label.strip():
        return label.strip()
    return bound.get(id(value)) or walked.get(id(value)) or ""


def _attribute(obj, name):
    try:
        return getattr(obj, name, None)
    except Exception:  # noqa: BLE001 -- their property may raise
        return None


# -----------------------------------------------------------------------------
# Which graphs


def candidates(namespace: dict[str, Any], skip: set[str]) -> list[Any]:
    """The Values the cell's variables hold, directly or in a list, tuple or dict."""
    found = []
    for name, obj in namespace.items():
        if name.startswith("__") or name in skip:
            continue
        if isinstance(obj, dict):
            for item in list(obj.values())[:MAX_ITEMS]:
                found.extend(values_in(item))
        elif isinstance(obj, (list, tuple)):
            for item in obj[:MAX_ITEMS]:
                found.extend(values_in(item))
        else:
            found.extend(values_in(obj))
    return list({id(v): v for v in found}.values())


def outermost(focus: list[Any], everything: list[Any]) -> list[Any]:
    """The graphs to draw: for the Values a cell is about (`focus`), the outermost Values
    among `everything` the notebook holds whose graphs contain them (after `n._backward()`
    that is `o`, not n), in the order of `everything` then `focus`; each once."""
    pool = list({id(v): v for v in [*everything, *focus]}.values())
    roots = roots_of(pool, MAX_POOL)
    wanted = {id(v) for v in focus}
    found, covered = [], set()
    for root in roots:
        hit, seen, stack = False, set(), [root]
        while stack:
            value = stack.pop()
            if id(value) in seen:
                continue
            seen.add(id(value))
            if id(value) in wanted:
                hit = True
                covered.add(id(value))
            stack.extend(children_of(value))
        if hit:
            found.append(root)
    order = {id(v): k for k, v in enumerate(focus)}
    found.sort(key=lambda r: order.get(id(r), -1))  # the cell's own results keep their order, last
    return found


def size_at_least(roots: list[Any], limit: int) -> int:
    """The number of nodes under roots, counted up to `limit` (a cheap "is it big?")."""
    seen: set[int] = set()
    stack = list(roots)
    while stack and len(seen) < limit:
        value = stack.pop()
        if id(value) not in seen:
            seen.add(id(value))
            stack.extend(children_of(value))
    return len(seen)


def children_of(value: Any) -> list[Any]:
    """The operands of a studio Value, or of a learner's (read through core/foreign/shapes.py)."""
    if isinstance(value, Value):
        return list(value._prev)
    from core.foreign.shapes import children

    return list(children(value)[0])


def roots_of(found: list[Any], limit: int = 0) -> list[Any]:
    """The candidates no other candidate's graph uses, in their order."""
    used: set[int] = set()
    seen: set[int] = set()
    stack = list(found)
    while stack:
        value = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if len(seen) > (limit or MAX_NODES):
            raise CollectError(f"the graphs have more than {limit or MAX_NODES:,} nodes: too many to draw")
        for child in children_of(value):
            used.add(id(child))
            stack.append(child)
    return [v for v in found if id(v) not in used]


# -----------------------------------------------------------------------------
# The graph as plain data


def graph_data(roots: list[Any], output: Any, bound: dict[int, str], walked: dict[int, str]) -> dict[str, Any]:
    """{nodes, output}: each node {id, kind, op, param, value, label, children, data, grad},
    ids "n1", "n2" ... in topological order (operands first), over every root's graph."""
    if all(isinstance(r, Value) for r in roots):
        order = _topological(roots)
        read = _read_studio
    else:
        order, read = _foreign(roots)
    ids = {id(v): f"n{i}" for i, v in enumerate(order, start=1)}
    nodes = []
    for value in order:
        op, param, operands = read(value)
        name = name_of(value, bound, walked)
        data, grad = _number(value, "data"), _number(value, "grad")
        node = {"id": ids[id(value)], "label": name, "data": data, "grad": grad}
        if operands:
            node.update(kind="op", op=op, param=param, children=[ids[id(c)] for c in operands])
        else:
            if not math.isfinite(data):
                raise CollectError(f"the leaf {name or _short(data)} is {data}: a leaf must be a finite number")
            node.update(kind="input" if name else "const", value=data, children=[])
        nodes.append(node)
    return {"nodes": nodes, "output": ids[id(output)], "objects": order}


def _topological(roots):
    """Every Value under the roots, operands first, each once (iterative: deep graphs work)."""
    order, seen = [], set()
    for root in roots:
        if id(root) in seen:
            continue
        seen.add(id(root))
        stack = [(root, iter(root._prev))]
        while stack:
            value, pending = stack[-1]
            for child in pending:
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append((child, iter(child._prev)))
                    break
            else:
                stack.pop()
                order.append(value)
        if len(order) > MAX_NODES:
            raise CollectError(f"the graph has {len(order):,} nodes or more: at most {MAX_NODES:,} can be drawn")
    return order


def _read_studio(value):
    operands = value._prev
    if not operands:
        return None, None, ()
    op, param = ops.lookup(value._op)
    return op.name, param, operands


def _foreign(roots):
    """(order, read) for a learner's own Value class, through core/foreign/trace.py
    (which recovers the operand order and duplicates a set of children loses)."""
    from core.foreign.trace import TraceError, trace

    order: list[Any] = []
    known: dict[int, tuple[str | None, float | None, list[Any], str]] = {}
    for root in roots:
        if id(root) in known:
            continue
        try:
            traced = trace(root)
        except TraceError as e:
            raise CollectError(f"your Value class could not be read: {e}") from None
        for node in traced.nodes:
            value = traced.objects[node.id]
            if id(value) in known:
                continue
            operands = [traced.objects[c] for c in node.children]
            if operands and node.op is None:
                raise CollectError(
                    f"your Value class has an op the studio does not know: {node.raw_op!r} (at {node.name}); "
                    "the studio draws + - * / ** neg relu tanh exp log sigmoid"
                )
            known[id(value)] = (node.op, node.param, operands, node.raw_op)
            order.append(value)
        if len(order) > MAX_NODES:
            raise CollectError(f"the graph has {len(order):,} nodes or more: at most {MAX_NODES:,} can be drawn")

    def read(value):
        op, param, operands, _raw = known[id(value)]
        return op, param, operands

    return order, read


def _number(value, field):
    raw = _attribute(value, field)
    if raw is None and field == "grad":
        return 0.0
    try:
        from core.foreign.shapes import number

        return number(raw)
    except (TypeError, ValueError, OverflowError):
        if field == "grad":
            return math.nan
        raise CollectError(f"a Value's data is {raw!r}, not a number") from None


def _short(x):
    return ops.short_number(x) if math.isfinite(x) else str(x)
