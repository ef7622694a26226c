"""Their whole-pass habits: zero_grad between two passes, their own topological sort,
and the biggest graph their file built (sent to open collapsed)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .graph import raw_op_of, read, read_children, stable_children, topological
from .load import their_error
from .shapes import backward_of, number

if TYPE_CHECKING:
    from .probe import Probe

BIG = 1_500  # nodes: a graph their file built, larger, is sent to open collapsed (core/scopes/infer.py BIG)
MAX_BIG = 400_000  # nodes: a larger one is only named
TOPO_NAMES = ("topological_sort", "topo_sort", "build_topo", "topological_order", "toposort")


def zeroing(probe: Probe) -> dict[str, Any] | None:
    """Two passes of their backward() on h = x*y; out = h + x*h, with their
    zero_grad() between when they have one: the grads of x and y after each, and
    which values zero_grad left non-zero. None without a backward() or + and *."""
    try:
        x, y = probe.make(2.0), probe.make(-3.0)
        h = x * y
        root = h + x * h
    except Exception:  # noqa: BLE001 -- no + or * with two Values
        return None
    if backward_of(root) is None:
        return None
    zero = getattr(root, "zero_grad", None)
    backward_of(root)()
    first = {"x": probe.grad(x), "y": probe.grad(y)}
    left: list[str] = []
    named = (("x", x), ("y", y), ("x*y", h))
    per_node = False
    if callable(zero):
        zero()
        if (probe.grad(root) or 0.0) == 0.0 and all((probe.grad(v) or 0.0) != 0.0 for _n, v in named):
            # a zero_grad() of one node (it zeroed the output alone): called on every node, as a training
            # loop calls it on each parameter
            per_node = True
            for v in topological(root, {}):
                own = getattr(v, "zero_grad", None)
                if callable(own):
                    own()
        left = [n for n, v in named if (probe.grad(v) or 0.0) != 0.0]
    backward_of(root)()
    return {
        "zero_grad": callable(zero),
        "first": first,
        "second": {"x": probe.grad(x), "y": probe.grad(y)},
        "left": left,
        "per_node": per_node,
    }


def find_topo(namespace: dict[str, Any], V: type) -> tuple[str, Callable[[Any], Any]] | None:
    """(name, fn(root) -> their list) for a topological sort the learner wrote, or None. Only
    one called with the output alone: `build_topo(v, topo, visited)` is a helper of their
    backward(), not a sort the studio can call."""
    for name in TOPO_NAMES:
        fn = namespace.get(name)
        if callable(fn) and not isinstance(fn, type) and _needs(fn) == 1:
            return name, fn
    for name in TOPO_NAMES:
        method = getattr(V, name, None)
        if callable(method) and _needs(method) == 1:  # self alone
            return f"{V.__name__}.{name}", lambda root, _name=name: getattr(root, _name)()
    return None


def _needs(fn: Callable[..., Any]) -> int:
    """How many arguments `fn` must be given (-1 when its signature cannot be read)."""
    import inspect

    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return -1
    return sum(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


def their_topo(probe: Probe, namespace: dict[str, Any], programs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Their sort called on each program's output: the node ids it lists, in its order."""
    found = find_topo(namespace, probe.V)
    if found is None:
        return None
    name, fn = found
    results = []
    for program in programs:
        item: dict[str, Any] = {"program": program["name"]}
        try:
            made, names = probe.build(program["program"])
            root = made[program["program"]["output"]]
            nodes, objects = read(root, names, probe.roots, probe.shape.data)
        except Exception:  # noqa: BLE001 -- their ops: the tests name it; their sort was never reached
            continue
        ids = {id(obj): n["id"] for n, obj in zip(nodes, objects)}
        item["graph"] = nodes
        try:
            item["listed"] = [ids.get(id(v), "?") for v in fn(root)]
        except Exception as e:  # noqa: BLE001 -- their function
            item["error"] = their_error(name, e, probe.roots)
        results.append(item)
    return {"name": name, "results": results}


def big_graph(namespace: dict[str, Any], probe: Probe) -> dict[str, Any] | None:
    """The biggest graph their file built (a module-level Value of their class: `loss` after
    `loss = sum(...)`), when it has more than BIG nodes: as plain rows, each node after its
    operands -- [label, data, grad, their op, [operand rows], operands in order?]. The studio
    opens it collapsed (core/scopes/infer.py `collapsed_rows`); a small one is not sent (the
    tests' graphs are what the debugger steps)."""
    V, shape = probe.V, probe.shape
    best: tuple[int, str, list[Any]] | None = None
    for name, value in list(namespace.items()):
        if name.startswith("__") or not isinstance(value, V) or not read_children(value)[0]:
            continue
        order = topological(value, {})
        if len(order) > BIG and (best is None or len(order) > best[0]):
            best = (len(order), name, order)
    if best is None:
        return None
    n, name, order = best
    if n > MAX_BIG:
        return {"kind": "big", "name": name, "n": n, "error": f"{n:,} nodes: more than the studio reads ({MAX_BIG:,})"}
    row = {id(v): i for i, v in enumerate(order)}
    rows = []
    for value in order:
        kids, ordered = stable_children(value, {}), read_children(value)[1]  # a set in the order read() gives
        label = getattr(value, "label", None)
        rows.append(
            [
                label.strip() if isinstance(label, str) and label.strip() else None,
                number(getattr(value, shape.data)),
                probe.grad(value),
                raw_op_of(value) if kids else "",
                [row[id(k)] for k in kids],
                ordered,
            ]
        )
    if rows[-1][0] is None:
        rows[-1][0] = name  # the output, by the name their file gave it (`loss`)
    return {"kind": "big", "name": name, "n": n, "rows": rows}
