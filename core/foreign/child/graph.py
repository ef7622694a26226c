"""Reading a learner's Value graph as plain data, without interpreting it.

`read(root, names)` walks every Value reachable from `root` -- iteratively, so
a 100 000-deep chain does not hit Python's recursion limit -- and returns one
plain dict per node, each after its children (a topological order):

    id          'n1', 'n2' ... in that order
    given       the name the caller gave the value (a test's `x`), or None
    label       their own `.label`, or None
    data        their number, as a float
    raw_op      their `_op` (or `op`, or MiniTorch's `history.last_fn` name)
                exactly as written, '' for a leaf
    children    operand ids: their tuple/list order, or for a set a fixed order
    ordered     False when their children are a set (order and duplicates lost)
    local_grads their `_local_grads` (the local-grads style), else None
    line        [file, line number, source line] of the code that computes this
                node's gradient: their `_backward` closure, or MiniTorch's
                `backward(ctx, d)` of the op -- so a report can point at it

What the op *means* is the studio's business, not the child's: it happens in
the parent (core/foreign/trace.py), which never sees their objects.
"""

from __future__ import annotations

import linecache
from typing import Any

from .shapes import alias_of, local_grads, mangled, number
from .shapes import children as shape_children


def read_children(value: Any) -> tuple[list[Any], bool]:
    found, ordered, _ = shape_children(value)
    return found, ordered


def raw_op_of(value: Any) -> str:
    raw = next((getattr(value, n) for n in mangled(value, "_op") if isinstance(getattr(value, n, None), str)), None)
    if raw is None and isinstance(getattr(value, "op", None), str):
        raw = value.op
    if raw is None:
        fn = getattr(getattr(value, "history", None), "last_fn", None)
        if fn is not None:
            raw = getattr(fn, "__name__", "") or type(fn).__name__
    return "" if raw is None else str(raw)


# a node's own gradient code, as learners name it
CLOSURES = ("_backward", "_back", "back", "backward_fn", "_backward_fn", "back_prop", "_back_prop", "_backprop")


def closure_name(value: Any) -> str | None:
    """The attribute holding `value`'s gradient closure (micrograd's `_backward`), or None."""
    names = [alias_of(value, "closure")] + [m for name in CLOSURES for m in mangled(value, name)]
    for name in names:  # their own spelling first, over a default `_backward`; `__backward` as Python keeps it
        if name and callable(getattr(value, name, None)) and name in getattr(value, "__dict__", {name: 1}):
            return name
    return None


def backward_code(value: Any) -> Any:
    """The function whose code computes `value`'s operands' gradients, or None."""
    name = closure_name(value)
    fn = getattr(value, name) if name else None
    if fn is None:
        last = getattr(getattr(value, "history", None), "last_fn", None)
        fn = getattr(last, "backward", None) or getattr(last, "_backward", None)
    return getattr(fn, "__func__", fn)


def line_of(fn: Any, roots: tuple[str, ...] = ()) -> list[Any] | None:
    """[file, line, source] of `fn`'s first statement that writes a gradient (`grad`,
    `derivative`, `return` in a MiniTorch backward), else its first line; None for
    code that is not in their files (`roots`: their file or package folder)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    path = code.co_filename
    if roots and not any(path.startswith(r) for r in roots):
        return None
    first = code.co_firstlineno
    for cell in getattr(fn, "__closure__", None) or ():  # `lambda: backward(out)`: the function it calls
        try:
            inner = cell.cell_contents
        except ValueError:
            continue
        if callable(inner) and getattr(inner, "__code__", None) is not None and inner is not fn:
            if inner.__code__.co_filename == path and getattr(inner, "__name__", "") != "<lambda>":
                return line_of(inner, roots)
    if code.co_name == "<lambda>":
        return [path, first, linecache.getline(path, first).strip()[:200]]
    lines = [(n, linecache.getline(path, n)) for n in range(first, first + 40)]
    body = [(n, t) for n, t in lines[1:] if t.strip()]
    for n, text in body:
        t = text.strip()
        if "grad" in t or "derivative" in t or t.startswith("return"):
            return [path, n, t[:200]]
        if not text.startswith((" ", "\t")):
            break
    return [path, first, linecache.getline(path, first).strip()[:200]]


def stable_children(value: Any, names: dict[int, str]) -> list[Any]:
    """Children in a fixed order: a set's iteration order changes from run to run
    (it follows memory addresses), so a set is walked in a fixed order: computed
    operands before leaves, then by name, then by data."""
    kids, ordered = read_children(value)
    if ordered:
        return kids
    return sorted(kids, key=lambda child: _sort_key(child, names))


def _sort_key(value: Any, names: dict[int, str]) -> tuple[bool, str, float]:
    label = names.get(id(value)) or getattr(value, "label", "")
    try:
        data = float(getattr(value, "data", 0.0))
    except (TypeError, ValueError):
        data = 0.0
    leaf = not read_children(value)[0]
    return (leaf, label if isinstance(label, str) else "", data if data == data else 0.0)


def topological(root: Any, names: dict[int, str]) -> list[Any]:
    """Every Value reachable from root, each after its children (iterative)."""
    order, seen = [], {id(root)}
    stack = [(root, iter(stable_children(root, names)))]
    while stack:
        value, pending = stack[-1]
        for child in pending:
            if id(child) not in seen:
                seen.add(id(child))
                stack.append((child, iter(stable_children(child, names))))
                break
        else:
            stack.pop()
            order.append(value)
    return order


def _holds_number(value: Any, data: str) -> bool:
    held = getattr(value, data, None)
    try:
        number(held if held is not None else getattr(value, "value", None))
        return True
    except (TypeError, ValueError):
        return False


class ReadError(ValueError):
    """A node of their graph holds no number where its data should be."""


def read_float(value: Any, field: str) -> float:
    got: Any = getattr(value, field, None)
    if got is None and field == "data":
        got = getattr(value, "value", None)  # the .value / .d homework shape
    try:
        return number(got)
    except (TypeError, ValueError):
        raise ReadError(f"a Value's {field} is {got!r}, not a number") from None


def read(
    root: Any, names: dict[int, str] | None = None, roots: tuple[str, ...] = (), data: str = "data"
) -> tuple[list[dict], list[Any]]:
    """(plain nodes in topological order, their objects in the same order); `data`:
    the attribute their class keeps its number in (shapes.Shape)."""
    names = names or {}
    order = topological(root, names)
    for value in order:
        if not isinstance(value, type(root)) and not _holds_number(value, data):
            users = [raw_op_of(v) for v in order if any(k is value for k in read_children(v)[0])]
            whose = f"your {users[0]} node" if users and users[0] else "your node"
            kind = type(value).__name__
            article = "an" if kind[:1].lower() in "aeiou" else "a"
            raise ReadError(
                f"{whose} keeps {value!r} ({article} {kind}) among its children, where a backward pass expects "
                f"Values of your class (yours walks into it too): keep the operand as a Value there -- "
                f"{type(root).__name__}({value!r}) -- or keep the number out of the children"
            )
    ids = {id(v): f"n{i}" for i, v in enumerate(order, start=1)}
    nodes = []
    for value in order:
        kids = stable_children(value, names)
        _, ordered = read_children(value)
        local = local_grads(value) if kids else None
        label = getattr(value, "label", None)
        nodes.append(
            {
                "id": ids[id(value)],
                "given": names.get(id(value)),
                "label": label.strip() if isinstance(label, str) and label.strip() else None,
                "data": read_float(value, data),
                "raw_op": raw_op_of(value) if kids else "",
                "children": [ids[id(k)] for k in kids],
                "ordered": ordered,
                "local_grads": None if local is None else [number(g) for g in local],
                "line": line_of(backward_code(value), roots) if kids else None,
            }
        )
    return nodes, order
