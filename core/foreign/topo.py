"""A learner's own topological sort, checked as a function.

MiniTorch has students write `topological_sort(variable)`; some lecture
followers make `build_topo` a method that returns the list. A wrong sort is
the root of a wrong backward pass, so when the file has one the studio calls it
on a test expression and checks the two things a topological order promises:

    each node once      "x·y appears twice in your topo list"
    the order           every node on the same side of all its inputs: after
                        them (the lecture's `topo`, walked reversed) or before
                        them (MiniTorch's, the output first) -- the direction is
                        read from where the output sits

`find_topo(namespace, V)` finds such a function (module level, or a method of
the class that takes no argument); `check_topo(...)` returns a fault (plain
data, like check.py's) or None.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.foreign.shapes import children

NAMES = ("topological_sort", "topo_sort", "build_topo", "topological_order", "toposort")


def find_topo(namespace: dict[str, Any], V: type) -> tuple[str, Callable[[Any], Any]] | None:
    """(name, fn(root) -> their list) for a sort the learner wrote, or None."""
    for name in NAMES:
        fn = namespace.get(name)
        if callable(fn) and not isinstance(fn, type):
            return name, fn
    for name in NAMES:
        method = getattr(V, name, None)
        if callable(method):
            return f"{V.__name__}.{name}", lambda root, _name=name: getattr(root, _name)()
    return None


def check_topo(
    name: str, fn: Callable[[Any], Any], root: Any, names: dict[int, str], case: str
) -> dict[str, Any] | None:
    """Call their sort on `root`; a fault if a node is listed twice or out of order."""
    listed = list(fn(root))
    if not listed:
        return None

    def label(v: Any) -> str:
        return names.get(id(v)) or getattr(v, "label", "") or f"a node of data {getattr(v, 'data', '?')}"

    seen: dict[int, int] = {}
    for i, value in enumerate(listed):
        if id(value) in seen:
            return _fault(
                name,
                case,
                f"{label(value)} appears twice in your {name} list (places {seen[id(value)] + 1} and {i + 1}): "
                "each node must appear once, or its _backward runs twice",
            )
        seen[id(value)] = i
    output_first = id(root) in seen and seen[id(root)] == 0
    for value in listed:
        for child in children(value)[0]:
            if id(child) not in seen:
                continue
            wrong = seen[id(child)] < seen[id(value)] if output_first else seen[id(child)] > seen[id(value)]
            if wrong:
                side = "after" if output_first else "before"
                return _fault(
                    name,
                    case,
                    f"{label(value)} comes {side} its input {label(child)} in your {name} list: "
                    + (
                        "with the output first, every node must come before its inputs"
                        if output_first
                        else "every node must come after its inputs (then backward walks the list reversed)"
                    ),
                )
    return None


def _fault(name: str, case: str, cause: str) -> dict[str, Any]:
    return {"node": None, "op": name, "studio_op": None, "diagnosis": "topo-sort", "cause": cause}
