"""Reading a learner's Value graph, whatever shape their class has.

Learners write their engine in a few recognisable styles:

    the lecture / micrograd     data, grad, _prev = set(children), _op,
                                _backward closures, a recursive build_topo
    tuples or lists             the same with _prev = (self, other)
    "local grads"               _children + _local_grads (one number per child),
                                a generic backward() loop, no closures, __slots__

`trace(root)` walks any of them *read-only* (it only reads attributes) and
returns a `Trace`: one `TracedNode` per Value, in topological order (every
node after its operands), each with the studio's name for its op where it
recognises the spelling ('*', 'ReLU', '^2', '**2', 'neg' ...) and the
learner's spelling kept as it is otherwise -- an unknown op stays on screen
with its own name and its numbers.

A `set` of children loses two things. The order of the operands: `a - b` and
`b - a` look alike. And duplicates: `x*x` keeps one child, not two. Both are
recovered from the data where the data can tell -- the operand order is the
one whose forward gives `out.data`; one child under a binary op whose
forward of (x, x) gives `out.data` was `x` used twice -- and every such
recovery, or failure to recover, is written in `Trace.notes` so the report
says what was guessed instead of guessing silently. A node whose operand
order stays unknown is marked `ambiguous`; the checker then accepts either
order and says so.
"""

from __future__ import annotations

import math
from typing import Any

from core import ops
from core.foreign.child import graph

# -----------------------------------------------------------------------------
# Op names as learners write them

SPELLINGS = {
    **{op.name: op.name for op in ops.TABLE if not op.param},  # each op's own name ('**k' forms: normalize_op)
    **{spelling: op.name for op in ops.TABLE for spelling in op.spellings},  # '×' -> 'mul', 'ln' -> 'log'
}


def normalize_op(raw: object, count: int) -> tuple[str | None, float | None]:
    """(studio op name or None, param) for a learner's `_op` string with `count`
    children: '*' -> ('mul', None), 'ReLU' -> ('relu', None), '^2' and '**2' ->
    ('pow', 2), '-' -> 'sub' with two children and 'neg' with one, '2**' ->
    ('rpow', 2.0); anything else -> (None, None)."""
    text = str(raw).strip()
    low = text.lower()
    if low == "-":
        return ("sub" if count == 2 else "neg"), None
    if low in SPELLINGS:
        return SPELLINGS[low], None
    if low in ("inv", "reciprocal") and count == 1:  # MiniTorch's Inv: 1/x
        return "pow", -1
    for prefix in ("**", "^", "pow"):
        if low.startswith(prefix) and len(low) > len(prefix):
            number = _number(low[len(prefix) :].strip("() "))
            return ("pow", number) if number is not None else (None, None)
    if low.endswith("**") and len(low) > 2:
        number = _number(low[:-2])
        return ("rpow", float(number)) if number is not None else (None, None)
    return None, None


def _number(text):
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def same(a: float, b: float) -> bool:
    """Two floats equal up to rounding (nan equals nan: both computed the same nan)."""
    if a != a or b != b:
        return a != a and b != b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def forward_of(op: str, param: float | None, operands: list[float]) -> float | None:
    """The studio's forward of op on plain floats, or None if it does not apply."""
    row = ops.BY_NAME[op]
    if len(operands) != row.arity:
        return None
    try:
        return float(row.forward(*operands, *ops.params_of(row, param)))
    except (ArithmeticError, ValueError, TypeError):
        return None


def fits(op: str, param: float | None, operands: list[float], out: float) -> bool:
    """Does the studio's forward of op on `operands` give `out`?"""
    value = forward_of(op, param, operands)
    return value is not None and same(value, out)


# -----------------------------------------------------------------------------
# Reading one Value, duck-typed


def read_children(value: Any) -> tuple[list[Any], bool]:
    """(children list, ordered?) of a learner's Value (core/foreign/child/graph.py)."""
    return graph.read_children(value)


def read_local_grads(value: Any) -> list[float] | None:
    """The "local grads" style: one local derivative per child, or None."""
    grads = getattr(value, "_local_grads", None)
    if grads is None:
        return None
    return [float(g) for g in grads]


def read_float(value: Any, field: str) -> float:
    try:
        return graph.read_float(value, field)
    except graph.ReadError as e:
        raise TraceError(str(e)) from None


class TraceError(ValueError):
    """The graph cannot be read as a Value graph; the message says which field."""


# -----------------------------------------------------------------------------
# The trace


class TracedNode:
    """One Value of a learner's graph, as plain data.

    id        'n1', 'n2' ... in topological order (not shown on screen)
    name      what the report calls it: the learner's label, a name the battery
              gave a leaf, else a short formula of its operands ('x·y')
    raw_op    their `_op` exactly as written ('' for a leaf or a class without _op)
    op        the studio's op name ('mul') or None for an unknown or leaf
    param     pow's exponent / rpow's base
    children  operand ids in operand order, duplicates recovered (x*x: two)
    data      out.data
    local_grads  their `_local_grads` (local-grads style), else None
    ambiguous True when the operand order could not be recovered
    """

    __slots__ = ("id", "name", "raw_op", "op", "param", "children", "data", "local_grads", "ambiguous")

    def __init__(
        self,
        id: str,
        name: str,
        raw_op: str,
        op: str | None,
        param: float | None,
        children: list[str],
        data: float,
        local_grads: list[float] | None,
        ambiguous: bool,
    ) -> None:
        self.id = id
        self.name = name
        self.raw_op = raw_op
        self.op = op
        self.param = param
        self.children = children
        self.data = data
        self.local_grads = local_grads
        self.ambiguous = ambiguous

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "raw_op": self.raw_op,
            "op": self.op,
            "param": self.param,
            "children": list(self.children),
            "data": self.data,
            "local_grads": self.local_grads,
            "ambiguous": self.ambiguous,
        }


class Trace:
    """A learner's graph read-only: `nodes` in topological order, `objects`
    {id: their Value} (to step it), `root` (the output's id), `style`
    ('closures' or 'local-grads') and `notes` (what was recovered or guessed)."""

    def __init__(
        self, nodes: list[TracedNode], objects: dict[str, Any], root: str, style: str, notes: list[str]
    ) -> None:
        self.nodes = nodes
        self.by_id = {node.id: node for node in nodes}
        self.objects = objects
        self.root = root
        self.style = style
        self.notes = notes

    def consumers(self) -> dict[str, list[str]]:
        """{id: [ids of the nodes that use it as an operand]}."""
        users: dict[str, list[str]] = {node.id: [] for node in self.nodes}
        for node in self.nodes:
            for child in dict.fromkeys(node.children):
                users[child].append(node.id)
        return users


def trace(root: Any, names: dict[int, str] | None = None) -> Trace:
    """Read the graph that produced `root` (see the module docstring). `names` maps
    id(value) -> name for values the caller named (the battery's leaves). For the
    user's own objects in the user's own process (show(), the notebook)."""
    try:
        raw, objects = graph.read(root, names or {})
    except graph.ReadError as e:
        raise TraceError(str(e)) from None
    tr = interpret(raw)
    tr.objects = {node.id: obj for node, obj in zip(tr.nodes, objects)}
    tr.style = "local-grads" if any(n.local_grads is not None for n in tr.nodes) else "closures"
    return tr


def interpret(raw: list[dict[str, Any]], style: str = "closures") -> Trace:
    """The studio's reading of a graph read as plain data (core/foreign/child/graph.py:
    in the parent, which never sees their objects): each node's op, its operand
    order where a set lost it, and a name."""
    nodes: list[TracedNode] = []
    notes: list[str] = []
    by_id = {n["id"]: n for n in raw}
    names_by_id: dict[str, str] = {}
    for item in raw:
        children = item["children"]
        raw_op = item.get("raw_op") or ""
        data = float(item["data"])
        local = item.get("local_grads")
        child_data = [float(by_id[c]["data"]) for c in children]
        op, param, order_ix, ambiguous, note = _recover(raw_op, children, child_data, item["ordered"], data, local)
        child_ids = [children[i] for i in order_ix]
        if local is not None and order_ix != list(range(len(children))):
            local = [local[i] if i < len(local) else math.nan for i in order_ix]
        name = _raw_name(item, op, param, raw_op, [names_by_id[c] for c in child_ids])
        names_by_id[item["id"]] = name
        nodes.append(TracedNode(item["id"], name, raw_op, op, param, child_ids, data, local, ambiguous))
        if note:
            notes.append(f"{name}: {note}")
    return Trace(nodes, {}, raw[-1]["id"], style, notes)


def _raw_name(item, op, param, raw, args):
    if item.get("label"):
        return item["label"]
    if item.get("given"):
        return item["given"]
    if not args:
        return ops.short_number(float(item["data"]))
    short = [a if len(a) <= 12 else "…" for a in args]
    if len(short) == 2:  # (x + y)·s, not x + y·s
        short = [f"({a})" if " " in a else a for a in short]
    if op is not None:
        return ops.formula(op, short, param)
    return f"{raw or 'unknown'}({', '.join(short)})"


# -----------------------------------------------------------------------------
# Recovering the op and the operand order from the data

# the ops tried, in this order, on a node without an op name: where two fit the same numbers the first
# wins (x·1 = x/1: mul), then any other method of the op table (x.sin()) in the table's order
_FIRST = ("add", "mul", "sub", "div", "tanh", "exp", "relu", "log", "sigmoid")
INFER: tuple[str, ...] = _FIRST + tuple(op.name for op in ops.TABLE if op.method and op.name not in _FIRST)


POW_SYMBOLS = ("^", "**", "pow", "__pow__")  # a power's bare symbol, its exponent then a child of the node


def _recover(raw, children, child_data, ordered, out, local):
    """(op, param, operand order as indices into children, ambiguous, note)."""
    n = len(children)
    if n == 0:
        return None, None, [], False, ""
    identity = list(range(n))
    if n == 2 and raw.strip().lower() in POW_SYMBOLS:  # x ** Value(k): the exponent kept as a child
        for base, k in ((0, 1), (1, 0)):
            if fits("pow", child_data[k], [child_data[base]], out):
                return "pow", child_data[k], [base], False, ""
    if raw.strip():
        op, param = normalize_op(raw, n)
        note = ""
    else:
        op, param, note = _infer(child_data, out, local)
    if op is None:
        if not ordered and n > 1:
            return None, None, identity, True, f"unknown op {raw!r} with a set of operands: their order is unknown"
        return None, None, identity, False, note
    arity = ops.BY_NAME[op].arity
    if not ordered and n == 1 and arity == 2:
        if fits(op, param, child_data * 2, out):
            return (
                op,
                param,
                [0, 0],
                False,
                (
                    "_prev is a set, so one child stands for both operands; recovered from the "
                    "data as the same value used twice"
                ),
            )
        return op, param, identity, True, "one child for a two-operand op, and it does not fit the data"
    if n != arity:
        return None, None, identity, False, f"op {raw!r} has {n} operands, the studio's {op} has {arity}"
    if ordered or n == 1:
        return op, param, identity, False, note
    matching = [order for order in ([0, 1], [1, 0]) if fits(op, param, [child_data[i] for i in order], out)]
    if len(matching) == 1:
        swapped = matching[0] == [1, 0]
        return (
            op,
            param,
            matching[0],
            False,
            ("_prev is a set: operand order recovered from the data" if op in ("sub", "div") or swapped else note),
        )
    if op in ("add", "mul"):  # either order: the same derivatives
        return op, param, identity, False, note
    if not matching:
        return op, param, identity, True, "neither operand order gives out.data: is the forward pass right?"
    return op, param, identity, True, "_prev is a set and both operand orders fit the data: order unknown"


def _infer(child_data, out, local):
    """A class without `_op`: the op whose forward fits the data (and, in the
    local-grads style, whose derivatives match theirs best)."""
    found = []
    for op in INFER:
        if len(child_data) == ops.BY_NAME[op].arity and fits(op, None, child_data, out):
            found.append((op, None))
    if len(child_data) == 1 and child_data[0] > 0 and child_data[0] != 1 and out > 0:
        k = math.log(out) / math.log(child_data[0])  # out = a**k, k a small integer
        if abs(k - round(k)) < 1e-9 and round(k) not in (0, 1) and abs(k) <= 8:
            found.append(("pow", round(k)))
    if len(child_data) == 1 and local:
        a = child_data[0]
        if a != 0 and out != 0 and local[0] == local[0]:
            k = local[0] * a / out
            k = round(k) if abs(k - round(k)) < 1e-9 else k
            if fits("pow", k, child_data, out):
                found.append(("pow", k))
    if local is not None:
        found.sort(key=lambda f: not _locals_match(f, child_data, out, local))
    if not found:
        return None, None, "no _op, and none of the studio's ops gives its value from its operands (an op of your own?)"
    note = f"no _op: taken as {found[0][0]} from the data"
    if len(found) > 1 and not (local is not None and _locals_match(found[0], child_data, out, local)):
        note += f" (also fits: {', '.join(f[0] for f in found[1:])})"
    return found[0][0], found[0][1], note


def _locals_match(fit, child_data, out, local):
    op, param = fit
    row = ops.BY_NAME[op]
    extra = ops.params_of(row, param)
    want = [float(f(out, *child_data, *extra)) for f in row.local]
    return len(want) == len(local) and all(same(w, g) for w, g in zip(want, local))
