"""Stepping a learner's backward pass against the studio's reference.

For one test expression built with *their* class:

    1. trace the graph (read-only, `trace.py`), zero every grad, set out.grad = 1;
    2. visit the nodes in a correct reverse topological order and run THEIR code
       for one node at a time -- its `_backward` closure, or in the local-grads
       style `child.grad += local_grad * out.grad` with their `_local_grads`;
    3. after each node, compare what was added to each operand's grad with the
       chain rule:   expected = (local derivative) * out.grad
       The local derivative is the studio's own (`core/ops.py`) where the op is
       one it knows, else a central difference of their own forward:
       (f(a + h) - f(a - h)) / 2h, with f their method re-run on fresh Values.
    4. stop at the first operand whose change disagrees, and ask
       `diagnosis.py` why: the classic bugs each leave a recognisable number
       behind (`=` instead of `+=`, a missing `* out.grad`, swapped operands ...).
    5. if every step agrees, run THEIR `backward()` on the same graph, watching
       the order in which it calls each `_backward`, and compare its calls and
       its result with the correct ones (their_pass.py).

Everything returned is plain data (dicts, lists, floats, strings), because it
crosses a process boundary (`runner.py`). This module runs the learner's code:
the studio itself only ever calls it in the child process.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any

from core import ops
from core.foreign import battery, results
from core.foreign.diagnosis import ABS, REL, close, diagnose
from core.foreign.shapes import Shape, one_like, tolerance, zero_like
from core.foreign.their_pass import check_their_backward, check_their_topo, check_zeroing
from core.foreign.trace import TracedNode, trace

FD_REL, FD_ABS = 1e-4, 1e-6  # ... with a central difference of their forward


class EngineError(Exception):
    """The learner's file cannot be used: the message says why and what to do."""


# -----------------------------------------------------------------------------
# Finding their class


def find_value_class(namespace: dict[str, Any]) -> type:
    """Their Value class from a module's globals: `Value` if it is a class, else the
    one class that has `data` and `grad` on an instance and `__add__` or `__mul__`."""
    classes = [obj for name, obj in namespace.items() if isinstance(obj, type) and not name.startswith("_")]
    classes.sort(key=lambda cls: cls.__name__ != "Value")
    for cls in classes:
        if not any(op in base.__dict__ for base in cls.__mro__[:-1] for op in ("__add__", "__mul__")):
            continue
        try:
            Shape.of(cls)
        except Exception:  # noqa: BLE001 -- their constructor: any failure rules it out
            continue
        return cls
    raise EngineError(
        "no Value class: the file defines no class whose instances have .data and "
        ".grad and that can be added or multiplied (micrograd's Value(2.0) must work)"
    )


# -----------------------------------------------------------------------------
# Reference derivatives


def _rerun(V, node, operands):
    """Their forward for `node`'s op on fresh leaves with data `operands`, or None."""
    raw = node.raw_op.strip()
    leaves = [V(float(x)) for x in operands]
    if node.op is not None:
        name = node.op
        if name in ("add", "sub", "mul", "div") and len(leaves) == 2:
            return battery.apply_binary(name, *leaves)
        if name == "pow" and len(leaves) == 1:
            return leaves[0] ** node.param
        if name in ("neg", "relu", "tanh", "exp", "log", "sigmoid") and len(leaves) == 1:
            return battery.apply_unary(name, leaves[0])
    method = getattr(leaves[0], raw, None) or getattr(leaves[0], raw.lower(), None)
    if callable(method) and raw.isidentifier():
        return method(*leaves[1:])
    return None


def reference_locals(
    V: type, node: TracedNode, data: dict[str, float]
) -> tuple[list[float], tuple[float, float], str] | None:
    """(local derivative per operand port, tolerance pair, how) for `node`, from the
    op table when the studio knows the op, else central differences of their forward.
    None when neither is possible (an unknown op that is no method of theirs)."""
    operands = [data[c] for c in node.children]
    if node.op is not None:
        row = ops.BY_NAME[node.op]
        extra = ops.params_of(row, node.param)
        return [float(f(node.data, *operands, *extra)) for f in row.local], (REL, ABS), "table"
    locals_ = []
    for i, a in enumerate(operands):
        h = 1e-5 * max(1.0, abs(a))
        try:
            up = _rerun(V, node, operands[:i] + [a + h] + operands[i + 1 :])
            down = _rerun(V, node, operands[:i] + [a - h] + operands[i + 1 :])
            if up is None or down is None:
                return None
            locals_.append((float(up.data) - float(down.data)) / (2 * h))
        except Exception:  # noqa: BLE001 -- their forward failed: no reference
            return None
    return locals_, (FD_REL, FD_ABS), "central differences of your forward"


# -----------------------------------------------------------------------------
# One case


def check_case(V: type, case: battery.Case, keep: bool = False, shape: Shape | None = None) -> dict[str, Any]:
    """The verdict on `case`: by what their backward() computes (`results.judge`),
    located and explained by stepping their code node by node (`step_case`).

    Stepping never makes a verdict on its own where their backward() can be run:
    a step the studio reads as wrong (an `_op` that is only a label, a fused op)
    is no fault when their results are right. Without a backward() the stepped
    result is the verdict, and a case in which no step could be checked is
    'unchecked', never 'pass'."""
    shape = shape or Shape.of(V)
    sample = getattr(V(1.0), shape.grad, None)
    verdict = results.judge(V, shape, case)
    stepped = step_case(V, case, keep or (verdict is not None and verdict["status"] != "pass"), sample)
    if verdict is None:
        if stepped["status"] == "pass" and stepped["steps"] and not stepped.get("checked"):
            stepped["status"] = "unchecked"
            stepped["why"] = "no step could be checked (ops the studio does not know, and no backward() to run)"
        return stepped
    result = {**stepped, "verdict": verdict}
    status = verdict["status"]
    if status == "pass":
        if stepped["status"] != "pass":
            result["notes"] = result["notes"] + [
                "stepping node by node disagreed at "
                f"{(stepped.get('fault') or {}).get('node', '?')}, but your backward()'s results are right "
                "(an _op used as a label, or a fused op): judged by the results"
            ]
        result.update(status="pass", fault=None)
        result.pop("error", None)
        if not keep:
            result.pop("graph", None)
            result.pop("records", None)
        return result
    if status == "error":
        result.update(status="error", error=stepped.get("error") or verdict["error"])
        if stepped["status"] == "pass":
            result["fault"] = None  # no step of theirs to show: their backward() itself raised
        return result
    if status == "unchecked":
        result.update(status="unchecked", why=verdict["why"], fault=None)
        return result
    result["status"] = "fail"
    sometimes_right = status == "unstable" and verdict["bad_runs"] < verdict["runs"]
    if status == "unstable" and not sometimes_right and stepped["status"] == "fail" and stepped.get("fault"):
        result["notes"] = result["notes"] + [verdict["why"]]  # wrong in every order: the stepping names the call
    elif status == "unstable":
        result["fault"] = {
            "node": None,
            "op": "order",
            "studio_op": None,
            "diagnosis": "set-order",
            "cause": verdict["why"],
            "wrong": verdict["wrong"],
        }
        return result
    if stepped["status"] != "fail" or not stepped.get("fault"):
        first = verdict["wrong"][0]
        result["fault"] = {
            "node": first["name"],
            "op": None,
            "studio_op": None,
            "diagnosis": "wrong-result",
            "expected": first["expected"],
            "got": first["got"],
            "cause": f"after your backward(): {results.wrong_text(verdict['wrong'])} "
            "(stepping your code node by node could not say which op: the studio does not read your "
            "class's graph well enough to point at one)",
        }
    result["fault"]["wrong"] = verdict["wrong"]
    return result


def step_case(V: type, case: battery.Case, keep: bool = False, sample: Any = None) -> dict[str, Any]:
    """Build `case` with class V, step its backward pass, return a plain-data result:
    {name, status: pass|fail|error, steps, notes, fault (the first wrong step)}.

    A failing case (and any case with `keep`, e.g. the learner's own expression)
    also carries `graph` (the traced nodes) and `records`: one per step in the
    order they ran, each with the operands' grads before and after THEIR code.
    After the first wrong step the rest of the pass still runs and is recorded
    (marked `after_fault`, not checked), so the debugger can replay their whole
    pass (core/debugger/foreign_replay.py)."""
    names: dict[int, str] = {}

    def leaf(x: Any, name: str) -> Any:
        """A new leaf V(x) called `name`; given one of their Values, just names it."""
        value = x if isinstance(x, V) else V(x)
        names[id(value)] = name
        return value

    result: dict[str, Any] = {"name": case.name, "status": "pass", "steps": 0, "notes": [], "fault": None}
    if case.text:
        result["text"] = case.text
    try:
        root = case.build(leaf)
        tr = trace(root, names)
    except Exception as e:  # noqa: BLE001
        return _error(result, "building the expression", e)
    result["notes"] = list(tr.notes)
    result["style"] = tr.style
    objs = tr.objects
    try:
        for nid in objs:
            objs[nid].grad = zero_like(objs[nid].grad)
        objs[tr.root].grad = one_like(objs[tr.root].grad)
    except Exception as e:  # noqa: BLE001
        return _error(result, "setting .grad", e)
    records: list[dict[str, Any]] = []
    steps = [node for node in reversed(tr.nodes) if node.children]
    tol = tolerance(sample)
    for i, node in enumerate(steps):
        record = _step(V, tr, node, tol)
        if isinstance(record, Exception):
            _error(result, f"the _backward of {node.name}", record)
            result["graph"] = [n.as_dict() for n in tr.nodes]
            result["records"] = records
            result["fault"] = {
                "node": node.name,
                "node_id": node.id,
                "op": node.raw_op or node.op,
                "studio_op": node.op,
                "diagnosis": "raised",
                "cause": result["error"],
            }
            raised = _raised_record(tr, node)
            if raised is not None:  # the step that raised, for the debugger to stop on
                records.append({**raised, "ok": False, "fault": result["fault"]})
            return result
        records.append(record)
        result["steps"] += 1
        result["checked"] = result.get("checked", 0) + ("unchecked" not in record)
        if not record["ok"]:
            result["status"] = "fail"
            result["fault"] = record["fault"]
            result["graph"] = [n.as_dict() for n in tr.nodes]
            result["records"] = records + _record_rest(tr, steps[i + 1 :])
            return result
    if keep:
        result["graph"] = [n.as_dict() for n in tr.nodes]
        result["records"] = records
    fault = check_their_backward(tr)
    if fault:
        their_calls = fault.pop("their_calls", None)
        result["status"] = "fail"
        result["fault"] = fault
        result["graph"] = [n.as_dict() for n in tr.nodes]
        result["records"] = records
        if their_calls:  # every step was right, the order was not: replay THEIR backward()
            result["records"] = their_calls
            result["replay"] = "backward()"
    return result


def _error(result, where, e):
    result["status"] = "error"
    result["error"] = f"{where} raised {type(e).__name__}: {e}"[:500]
    return result


def call_backward(fn: Callable[..., Any], out: Any) -> Any:
    """Their `_backward`: micrograd's takes no argument; some take out."""
    try:
        wants_out = len(inspect.signature(fn).parameters) >= 1
    except (TypeError, ValueError):
        wants_out = False
    return fn(out) if wants_out else fn()


def _run_their_step(tr, out):
    """Their code for one node: its `_backward`, or in the local-grads style the
    loop their generic backward() runs for it."""
    if tr.style == "local-grads":
        for child, g in zip(out._children, out._local_grads):
            child.grad += g * out.grad
    else:
        call_backward(out._backward, out)


def _raised_record(tr, node):
    """The record of a step whose `_backward` raised: the grads as it left them (their
    code may have changed some before it raised), or None if they cannot be read."""
    objs = tr.objects
    try:
        out_grad = float(objs[node.id].grad)
        grads = {c: float(objs[c].grad) for c in dict.fromkeys(node.children)}
    except Exception:  # noqa: BLE001 -- their attributes
        return None
    operands = [{"id": c, "name": tr.by_id[c].name, "before": g, "after": g} for c, g in grads.items()]
    return {
        "node_id": node.id,
        "node": node.name,
        "op": node.raw_op or node.op,
        "out_grad": out_grad,
        "operands": operands,
    }


def _record_rest(tr, nodes):
    """The steps after the first wrong one, run and recorded but not checked: what
    their pass does with the wrong grad. Stops quietly if their code raises."""
    records = []
    objs = tr.objects
    for node in nodes:
        unique = list(dict.fromkeys(node.children))
        try:
            out_grad = float(objs[node.id].grad)
            before = {c: float(objs[c].grad) for c in unique}
            _run_their_step(tr, objs[node.id])
            after = {c: float(objs[c].grad) for c in unique}
        except Exception:  # noqa: BLE001 -- their closure: the replay ends here
            break
        operands = [{"id": c, "name": tr.by_id[c].name, "before": before[c], "after": after[c]} for c in unique]
        records.append(
            {
                "node_id": node.id,
                "node": node.name,
                "op": node.raw_op or node.op,
                "out_grad": out_grad,
                "operands": operands,
                "ok": None,
                "fault": None,
                "after_fault": True,
            }
        )
    return records


def _step(V, tr, node, tol=(REL, ABS)):
    """Run their code for one node; return its record (plain data) or the exception."""
    objs = tr.objects
    out = objs[node.id]
    data = {n.id: n.data for n in tr.nodes}
    unique = list(dict.fromkeys(node.children))
    try:
        out_grad = float(out.grad)
        before = {c: float(objs[c].grad) for c in unique}
        _run_their_step(tr, out)
        after = {c: float(objs[c].grad) for c in unique}
    except Exception as e:  # noqa: BLE001 -- their closure
        return e
    record = {
        "node_id": node.id,
        "node": node.name,
        "op": node.raw_op or node.op,
        "out_grad": out_grad,
        "operands": [],
        "ok": True,
        "fault": None,
    }
    reference = reference_locals(V, node, data)
    if reference is None:
        record["unchecked"] = f"op {node.raw_op!r}: no studio derivative and no method to re-run"
        for c in unique:
            record["operands"].append(
                {"id": c, "name": tr.by_id[c].name, "before": before[c], "after": after[c], "expected": None}
            )
        return record
    local, (rel, abs_), how = reference
    rel, abs_ = max(rel, tol[0]), max(abs_, tol[1])
    orders = [local]
    if node.ambiguous and len(local) == 2:
        orders.append(local[::-1])
    for c in unique:
        ports = [p for p, child in enumerate(node.children) if child == c]
        got = after[c] - before[c]
        candidates = [sum(loc[p] for p in ports) * out_grad for loc in orders]
        if node.op == "relu" and tr.by_id[c].data == 0.0:
            candidates.append(out_grad)  # relu'(0): 0 or 1 are both fine
        expected = candidates[0]
        operand = {
            "id": c,
            "name": tr.by_id[c].name,
            "before": before[c],
            "after": after[c],
            "got": got,
            "expected": expected,
            "local": [local[p] for p in ports],
            "how": how,
        }
        record["operands"].append(operand)
        if record["ok"] and not any(close(got, want, rel, abs_) for want in candidates):
            record["ok"] = False
            code, cause = diagnose(tr, node, c, ports, local, out_grad, before[c], after[c], got, expected)
            record["fault"] = {
                "node": node.name,
                "node_id": node.id,
                "op": node.raw_op or node.op,
                "studio_op": node.op,
                "operand": tr.by_id[c].name,
                "operand_id": c,
                "expected": expected,
                "got": got,
                "before": before[c],
                "after": after[c],
                "out_grad": out_grad,
                "reference": how,
                "diagnosis": code,
                "cause": cause,
            }
    return record


def check_class(
    V: type,
    report: Callable[[dict[str, Any]], None],
    own: Iterable[battery.Case] = (),
    namespace: dict[str, Any] | None = None,
) -> None:
    """Every battery case for class V; calls report(result) after each (plain data).
    `own`: the learner's own cases (their expression), checked first and kept whole
    (graph and steps) so that the debugger can step them even when they pass."""
    shape = Shape.of(V)
    offered = battery.offered(V)
    cases, skipped = battery.cases_for(offered)
    own = list(own)
    report(
        {
            "kind": "start",
            "class": V.__name__,
            "offered": sorted(offered),
            "skipped": [{"name": n, "missing": m} for n, m in skipped],
            "cases": len(own) + len(cases),
        }
    )
    for case in own:
        report({"kind": "begin", "name": case.name})
        missing = [op for op in case.needs if op not in offered]
        if missing:
            result = {"name": case.name, "status": "unchecked", "steps": 0, "notes": [], "fault": None}
            result["why"] = f"your expression uses {', '.join(missing)}, which your class does not offer"
        else:
            result = check_case(V, case, keep=True, shape=shape)
        report({"kind": "case", "own": True, **result})
    failed = False
    for case in cases:
        report({"kind": "begin", "name": case.name})
        result = check_case(V, case, shape=shape)
        failed = failed or result["status"] == "fail"
        report({"kind": "case", **result})
    try:
        topo_item = check_their_topo(V, namespace or {}, failed)
    except Exception:  # noqa: BLE001 -- their code: the battery has spoken already
        topo_item = None
    if topo_item is not None:
        report(topo_item)
    try:
        zero = check_zeroing(V, offered, shape)
    except Exception as e:  # noqa: BLE001
        zero = f"checking zero_grad raised {type(e).__name__}: {e}"
    if isinstance(zero, dict):
        report(
            {
                "kind": "case",
                "name": battery.ZERO_GRAD_CASE,
                "status": "fail",
                "steps": 0,
                "notes": [],
                "fault": zero,
            }
        )
    elif zero:
        report({"kind": "note", "text": zero})
