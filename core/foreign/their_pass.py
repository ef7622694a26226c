"""Watching THEIR whole pass: their backward()'s order, their zero_grad(), their sort.

`check.py` steps a learner's code one node at a time; this module looks at what
their own functions do with the whole graph:

    check_their_backward   run their backward() with every `_backward` wrapped,
                           so each call is recorded: a call twice, never, or
                           before the nodes that use it is an order fault
                           (`diagnosis.order_fault`); without closures, their
                           final grads are compared (`diagnosis.backward_fault`)
    check_zeroing          two passes with zero_grad() between must agree
    check_their_topo       their own topological sort, checked as a function
                           (core/foreign/topo.py)

Like check.py, it runs the learner's code: only ever in the child process.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from core.foreign import battery, topo
from core.foreign.diagnosis import ACCUMULATES, backward_fault, close, order_fault, zeroing_fault
from core.foreign.shapes import Shape, zero_like
from core.foreign.trace import Trace, trace

# -----------------------------------------------------------------------------
# Their backward(): its result and its order


def check_their_backward(tr: Trace) -> dict[str, Any] | None:
    """Run their `backward()` on the traced graph (grads zeroed first) and compare with
    the stepped result; None if it agrees, else a fault ("order", or what differs).

    A fault carries `their_calls` when every call their backward() made was recorded:
    the steps of THEIR pass, in their order, for the debugger to replay. Each is `ok`
    up to the call at fault (`call`), which is not; the calls after it are None."""
    calls: list[str] = []  # node ids, in the order their backward() called them
    steps: list[dict[str, Any]] = []
    fault = _their_backward(tr, calls, steps)
    if fault and steps and len(steps) == len(calls):
        call = fault.get("call")
        for i, step in enumerate(steps):
            step["ok"] = True if call is None or i < call else (False if i == call else None)
        fault["their_calls"] = steps
    return fault


def _their_backward(tr, calls, steps):
    objs = tr.objects
    want = {nid: float(objs[nid].grad) for nid in objs}
    root = objs[tr.root]
    if not callable(getattr(root, "backward", None)):
        return None
    originals = {}
    for node in tr.nodes:
        obj = objs[node.id]
        obj.grad = zero_like(obj.grad)
        if node.children and tr.style == "closures":
            original = obj._backward
            try:
                obj._backward = _recorder(calls, node.id, original, obj, tr, steps)
            except (AttributeError, TypeError):
                continue
            originals[node.id] = original
    try:
        root.backward()
    except Exception as e:  # noqa: BLE001
        return {
            "node": tr.by_id[tr.root].name,
            "node_id": tr.root,
            "op": "backward()",
            "studio_op": None,
            "diagnosis": "raised",
            "cause": f"your backward() raised {type(e).__name__}: {e}"[:500],
        }
    finally:
        for nid, original in originals.items():
            objs[nid]._backward = original
    got = {nid: float(objs[nid].grad) for nid in objs}
    if originals:
        fault = order_fault(tr, calls)
        if fault:
            return fault
    return backward_fault(tr, want, got)


def _recorder(calls, nid, original, out, tr, steps):
    """`original` (their _backward of node nid) that notes each call in `calls`, and
    in `steps` the grads of its operands before and after it (a record as `_step`'s)."""
    node = tr.by_id[nid]
    unique = list(dict.fromkeys(node.children))

    def recorded(*args):
        calls.append(nid)
        try:
            out_grad = float(out.grad)
            before = {c: float(tr.objects[c].grad) for c in unique}
        except Exception:  # noqa: BLE001 -- no record, then no replay of this pass
            return original(*args)
        result = original(*args)
        operands = [
            {"id": c, "name": tr.by_id[c].name, "before": before[c], "after": float(tr.objects[c].grad)} for c in unique
        ]
        steps.append(
            {
                "node_id": nid,
                "node": node.name,
                "op": node.raw_op or node.op,
                "out_grad": out_grad,
                "operands": operands,
            }
        )
        return result

    return recorded


# -----------------------------------------------------------------------------
# Zeroing between passes


def check_zeroing(V: type, ops_offered: Collection[str], shape: Shape | None = None) -> dict[str, Any] | str | None:
    """If the class offers `zero_grad()`, check it zeroes the whole graph: two passes
    of backward() with zero_grad() between must give the same grads. Returns a fault,
    a note (str) or None."""
    if "mul" not in ops_offered or "add" not in ops_offered:
        return None
    grad = (shape or Shape.of(V)).read_grad
    x, y = V(2.0), V(-3.0)
    h = x * y
    root = h + x * h
    if not callable(getattr(root, "zero_grad", None)):
        root.backward()
        once = grad(x)
        root.backward()
        if not close(grad(x), once):
            return ACCUMULATES
        return None
    root.backward()
    first = {"x": grad(x), "y": grad(y)}
    root.zero_grad()
    left = [n for n, v in (("x", x), ("y", y), ("x*y", h)) if grad(v) != 0.0]
    root.backward()
    second = {"x": grad(x), "y": grad(y)}
    return zeroing_fault(first, second, left)


def check_their_topo(V: type, namespace: dict[str, Any], failed: bool) -> dict[str, Any] | None:
    """Their own topological sort, if the file has one, on two expressions where a wrong
    one shows: a failing case when the battery found wrong grads (it is then the likely
    root), a note when every grad was right anyway."""
    found = topo.find_topo(namespace, V)
    if found is None:
        return None
    name, fn = found
    for case in battery.EXPRESSIONS:
        if not case.name.startswith(("reused intermediate", "h at two depths")):
            continue
        names: dict[int, str] = {}

        def leaf(x: Any, label: str, names: dict[int, str] = names) -> Any:
            value = x if isinstance(x, V) else V(x)
            names[id(value)] = label
            return value

        try:
            root = case.build(leaf)
            tr = trace(root, names)
            names.update({id(obj): tr.by_id[nid].name for nid, obj in tr.objects.items()})
            fault = topo.check_topo(name, fn, root, names, case.name)
        except Exception as e:  # noqa: BLE001 -- their function
            fault = {
                "node": None,
                "op": name,
                "studio_op": None,
                "diagnosis": "raised",
                "cause": f"{name} raised {type(e).__name__}: {e}"[:300],
            }
        if fault:
            if not failed:
                return {
                    "kind": "note",
                    "text": f"your {name} on {case.name!r}: {fault['cause']} (your grads came out right anyway)",
                }
            return {
                "kind": "case",
                "name": battery.TOPO_CASE,
                "status": "fail",
                "steps": 0,
                "notes": [],
                "fault": {**fault, "case": case.name},
            }
    return None
