"""Judging one test from the numbers the learner's engine computed.

The child (core/foreign/child/run.py) ran their class and sent back plain
numbers; this module, in the studio's own process, decides. For one test:

    1. their forward, op by op: at each step the studio knows (+, *, tanh ...),
       their output against the studio's forward of THEIR operands, loosely
       (`agree.forward_agrees`): a regulariser passes, a wrong formula is a
       *forward* fault at that op ("your sigmoid computes 0.3775 ...");
    2. the truth for each leaf's grad: the derivative of THEIR function, by
       central differences of their forward (`agree.central`);
    3. their own backward(), run several times: each leaf's grad against that
       truth (`agree.agree`); runs that disagree with each other mean a walk
       that follows a set's order;
    4. their gradient code stepped node by node: what each step added to each
       operand against local derivative · out.grad -- the local derivative
       again from central differences of their own op (or the studio's table
       for a node inside their op, `_op` read) -- to LOCATE a wrong result at
       its op, name the line of their file that wrote it, and say why
       (`diagnosis.diagnose`); their backward()'s call order (`order_fault`).

Stepping never makes a verdict on its own where their backward() can be run:
a step the studio cannot read as they meant it (a fused op) is no fault when
their results are right. Without a backward(), the stepped result is the
verdict. Every result is plain data in the report's shape (core/foreign/report.py).
"""

from __future__ import annotations

import math
from typing import Any, TypedDict

from core import ops
from core.foreign import battery
from core.foreign.agree import Derivative, Tolerance, agree, central, forward_agrees, pair, tolerance
from core.foreign.diagnosis import backward_fault, diagnose, order_fault, ref
from core.foreign.trace import Trace, interpret


class Fault(TypedDict, total=False):
    """The first fault of a test, as every reader takes it (the report, the hints, the
    class table, the debugger's replay). Plain data, not a class: it crosses a JSON
    boundary (--json, the class CSV) and must read the same on both sides.

    node, node_id   their node (the test's name for it) and its id in `graph`
    op, studio_op   the op as THEY spell it ('Mul', '**2') and the studio's name for it
    operand(_id)    the operand whose grad went wrong
    expected, got   what the chain rule adds there, what their code added
    before, after, out_grad   the operand's grad around their code, the grad arriving
    diagnosis       a code of diagnosis.DIAGNOSES; cause: the sentence for the learner
    line            'engine.py, line 27: self.grad += ...' -- the line of theirs that wrote it
    reference       how `expected` was found (central differences of their forward, or the table)
    case, expr      the test and its text (the report adds them)
    wrong           [{name, expected, got}] after their backward()
    """

    node: str | None
    node_id: str | None
    op: str | None
    studio_op: str | None
    operand: str
    operand_id: str
    expected: float
    got: float
    before: float
    after: float
    out_grad: float
    diagnosis: str
    cause: str
    line: str | None
    reference: str
    case: str
    expr: str
    call: int | None
    wrong: list[dict[str, Any]]


# -----------------------------------------------------------------------------
# Their exceptions


def error_text(error: dict[str, Any]) -> str:
    """'your backward() raised ZeroDivisionError: float division by zero (engine.py,
    line 12: `self.grad += 1 / other.data`)' from the child's record of it."""
    text = f"{error['where']} raised {error['type']}: {error['message']}"
    at = error.get("at")
    if at:
        text += f" ({_short(at[0])}, line {at[1]}: `{at[2]}`)"
    return text[:600]


def _short(path: str) -> str:
    parts = path.replace("\\", "/").split("/")
    return "/".join(parts[-2:]) if len(parts) > 1 and parts[-2] not in ("", "tmp") else parts[-1]


def line_text(line: list[Any] | None) -> str | None:
    return f"{_short(line[0])}, line {line[1]}: {line[2]}" if line else None


# -----------------------------------------------------------------------------
# One test


def judge(case: battery.Case, got: dict[str, Any], eps: float, keep: bool = False) -> dict[str, Any]:
    """The result of `case` from the child's numbers `got` (see the module docstring).
    A grad that was a node of their class (the child read its number through) is a
    fault of its own where the numbers alone would pass."""
    result = _judge(case, got, eps, keep)
    if got.get("node_grad") and result["status"] == "pass":
        result.update(
            status="fail",
            fault={
                "node": None,
                "op": None,
                "studio_op": None,
                "diagnosis": "grad-node",
                "cause": (
                    "after your backward() a .grad holds a Value (a node of your class), not a number: "
                    "its number is right here, but a _backward that multiplies by the Value `other` "
                    "(not `other.data`) stores a Value"
                ),
            },
        )
    return result


def _judge(case: battery.Case, got: dict[str, Any], eps: float, keep: bool = False) -> dict[str, Any]:
    result: dict[str, Any] = {"name": case.name, "status": "pass", "steps": 0, "notes": [], "fault": None}
    result["text"] = case.text
    if "error" in got:
        return _raised(result, got["error"])
    tol = tolerance(eps)
    prog = case.program
    forward = {k: _f(v) for k, v in got["forward"].items()}
    tr = interpret(got["graph"], got.get("style", "closures"))
    _name_nodes(tr, prog, got.get("made", {}))
    result["notes"] = list(tr.notes)
    result["style"] = tr.style
    result["graph"] = [n.as_dict() for n in tr.nodes]
    lines = {n["id"]: n.get("line") for n in got["graph"]}

    bad = forward_fault(prog, forward, got.get("made", {}), tr, eps)
    if bad is not None:
        result.update(status="fail", fault=bad)
        return result

    truth = leaf_truth(prog, forward, got.get("fd", {}))
    reference = reference_grads(prog)  # their forward is the studio's at every op (no forward fault above)
    records, step_fault, checked = step_records(prog, got, tr, tol, lines)
    result["steps"] = len([r for r in records if not r.get("after_fault")])
    result["checked"] = checked
    if step_fault is not None and step_fault.get("diagnosis") == "raised":
        result.update(status="error", error=step_fault["cause"], fault=step_fault, records=records)
        return result

    runs = got.get("runs")
    if not got.get("steps") and any(n["children"] for n in got["graph"]):
        result["stepped"] = False  # the report says it once (core/foreign/runner.py)
    if runs is None:  # no backward(): their steps, and the grads they leave, are the verdict
        if step_fault is not None:
            result.update(status="fail", fault=step_fault, records=records)
            return result
        final = _final_grads(records, tr)
        wrong = _wrong(truth, {k: final.get(got["made"].get(k)) for k in truth}, tol, reference)
        if wrong:
            result.update(status="fail", fault=_wrong_result(wrong, prog), records=records)
        elif not checked and not truth:
            result.update(status="unchecked", why="no step could be checked and no grad compared")
        if keep:
            result["records"] = records
        return result

    if runs and "error" in runs[0]:
        result["records"] = records
        return _raised(result, runs[0]["error"])
    verdict = results_verdict(truth, runs, tol, reference)
    result["verdict"] = verdict
    status = verdict["status"]
    if status == "unchecked":
        result.update(status="unchecked", why=verdict["why"])
        return result
    if status == "pass":
        if step_fault is not None:
            result["notes"].append(
                f"stepping node by node disagreed at {step_fault.get('node', '?')}, but your backward()'s results "
                "are right (an _op used as a label, or a fused op): judged by the results"
            )
        if keep:
            result["records"] = records
        return result
    result["status"] = "fail"
    if status == "unstable" and verdict["bad_runs"] < verdict["runs"]:
        result["fault"] = {
            "node": None,
            "op": "order",
            "studio_op": None,
            "diagnosis": "set-order",
            "cause": verdict["why"],
            "wrong": verdict["wrong"],
        }
        return result
    if status == "unstable":
        result["notes"].append(verdict["why"])
    if step_fault is not None:
        result.update(fault=step_fault, records=records)
    else:
        watched = got.get("watched") or {}
        fault, their_records = pass_fault(tr, watched, records, lines)
        if fault is None:
            fault = _wrong_result(verdict["wrong"], prog)
        result.update(fault=fault, records=their_records or records)
        if their_records:
            result["replay"] = "backward()"
    result["fault"]["wrong"] = verdict["wrong"]
    return result


def _raised(result: dict[str, Any], error: dict[str, Any]) -> dict[str, Any]:
    text = error_text(error)
    result.update(status="error", error=text)
    result["fault"] = {
        "node": None,
        "op": None,
        "studio_op": None,
        "diagnosis": "raised",
        "cause": text,
        "line": line_text(error.get("at")),
    }
    return result


def _f(x: Any) -> float:
    return float(x) if x is not None else math.nan


def _name_nodes(tr: Trace, prog: dict[str, Any], made: dict[str, str]) -> None:
    """Leaves and named steps carry the test's names (x, y, h)."""
    for step in prog["steps"]:
        nid = made.get(step["id"])
        if nid in tr.by_id and "method" in step and not tr.by_id[nid].raw_op and tr.by_id[nid].op is None:
            tr.by_id[nid].raw_op = step["method"]  # no _op of theirs: the op is the method the test called
        name = step["id"] if "leaf" in step else step.get("name")
        if nid in tr.by_id and name and not tr.by_id[nid].name == name:
            if "leaf" in step or tr.by_id[nid].name.startswith(("(", "?")) or True:
                tr.by_id[nid].name = name


# -----------------------------------------------------------------------------
# 1. Their forward


# op: ((what they wrote, f(x)), ...) -- named when their number fits; from the op table's rows
FORWARD_SLIPS = {op.name: op.forward_slips for op in ops.TABLE if op.forward_slips}


def forward_fault(
    prog: dict[str, Any], forward: dict[str, float], made: dict[str, str], tr: Trace, eps: float
) -> dict[str, Any] | None:
    """The first step whose output their class computes wrongly, or None."""
    for step in prog["steps"]:
        if "leaf" in step:
            continue
        op, param, operands = battery.studio_op(step)
        if op is None:
            continue
        values = [_arg(a, forward) for a in step["args"]]
        row = ops.BY_NAME[op]
        xs = [values[i] for i in operands] if not row.param else [values[operands[0]]]
        try:
            ours = float(row.forward(*xs, *ops.params_of(row, param)))
        except (ArithmeticError, ValueError, TypeError):
            continue
        theirs = forward.get(step["id"], math.nan)
        if not math.isfinite(ours) or forward_agrees(theirs, ours, eps):
            continue
        nid = made.get(step["id"])
        node = tr.by_id.get(nid) if nid else None
        shown = battery.source({"steps": [s for s in prog["steps"] if "leaf" in s] + [step], "output": step["id"]})
        text = shown.split("; ")[-1]
        a, b = pair(theirs, ours)
        slip = _forward_slip(op, xs, theirs)
        at = ", ".join(f"{k} = {v:g}" for k, v in zip(_arg_names(step), xs))
        return {
            "node": node.name if node else text,
            "node_id": nid,
            "op": (node.raw_op if node and node.raw_op else op),
            "studio_op": op,
            "diagnosis": "forward",
            "expected": ours,
            "got": theirs,
            "cause": f"your {op} computes the wrong value: {text} at {at} gives {a}, should be {b}"
            + (f" -- it computes {slip}" if slip else "")
            + ". The forward pass is wrong, so every gradient through it is too: fix the forward first",
        }
    return None


def _arg(a: Any, forward: dict[str, float]) -> float:
    return forward[a] if isinstance(a, str) else float(a["n"])


def _arg_names(step: dict[str, Any]) -> list[str]:
    return [a if isinstance(a, str) else "c" for a in step["args"]]


def _forward_slip(op: str, xs: list[float], theirs: float) -> str | None:
    for text, f in FORWARD_SLIPS.get(op, ()):
        try:
            if forward_agrees(theirs, f(*xs)):
                return text
        except (ArithmeticError, ValueError):
            continue
    return None


# -----------------------------------------------------------------------------
# 2. The truth: derivatives of their function


def leaf_truth(prog: dict[str, Any], forward: dict[str, float], fd: dict[str, Any]) -> dict[str, Derivative]:
    """{leaf: d(output)/d(leaf) of THEIR forward}, where central differences exist."""
    out = forward.get(prog["output"])
    truth = {}
    for leaf, item in fd.items():
        d = central(item["f"], item["h"], out)
        if d is not None:
            truth[leaf] = d
    return truth


def reference_grads(prog: dict[str, Any]) -> dict[str, float]:
    """{leaf: grad} of the program built with the studio's own engine, or {} when it
    uses an op the studio does not know. A second truth, used only where their
    forward agrees with the studio's at every op: then the learner computes the
    studio's function, and its exact derivative is right too (a forward rounded to
    4 digits is flat to a central difference, but its author meant exp(x))."""
    from core.engine import Value
    from core.foreign.child.build import build

    if any(battery.studio_op(s)[0] is None for s in prog["steps"] if "leaf" not in s):
        return {}
    try:
        made = build(prog, lambda x, name: Value(float(x)))
        made[prog["output"]].backward()
    except (ArithmeticError, ValueError, TypeError, AttributeError):
        return {}
    return {s["id"]: float(made[s["id"]].grad) for s in prog["steps"] if "leaf" in s}


def results_verdict(
    truth: dict[str, Derivative], runs: list[dict[str, Any]], tol: Tolerance, reference: dict[str, float] | None = None
) -> dict[str, Any]:
    """pass / fail / unstable / unchecked from their backward()'s runs."""
    compared = [n for n in truth if runs and n in runs[0]]
    if not compared:
        return {"status": "unchecked", "why": "no value of the expression has a grad the studio can read"}
    vals = [{n: (None if run.get(n) is None else _f(run.get(n))) for n in compared} for run in runs]
    differing = [i for i in range(1, len(vals)) if any(not _same(vals[i][n], vals[0][n], tol) for n in compared)]
    wrong_runs = [i for i, v in enumerate(vals) if _wrong(truth, v, tol, reference)]
    first = vals[wrong_runs[0]] if wrong_runs else vals[0]
    wrong = _wrong(truth, first, tol, reference)
    result: dict[str, Any] = {"compared": compared, "tolerance": list(tol), "runs": len(vals)}
    if differing:
        result.update(
            status="unstable",
            wrong=wrong,
            bad_runs=len(wrong_runs),
            why=(
                f"your backward() gives different grads from run to run ({len(wrong_runs)} of {len(vals)} runs "
                "wrong): it depends on the order of a set -- build the topological order by visiting each "
                "node's children before the node itself, whatever order the set gives them in"
            ),
        )
    elif wrong:
        result.update(status="fail", wrong=wrong)
    else:
        result.update(status="pass")
    return result


def _same(a: float | None, b: float | None, tol: Tolerance) -> bool:
    if a is None or b is None:
        return a is b
    return agree(a, b, Tolerance(tol.rtol / 10, tol.atol / 10))


def _wrong(
    truth: dict[str, Derivative], got: dict[str, Any], tol: Tolerance, reference: dict[str, float] | None = None
) -> list[dict[str, Any]]:
    """The grads that agree neither with the derivative of their function nor (where
    their forward is the studio's) with the studio's exact derivative."""
    wrong = []
    for name, d in truth.items():
        if name not in got:
            continue
        g = got[name]
        if g is None:  # their backward() left no gradient on this leaf at all
            if not agree(0.0, d, tol):
                wrong.append({"name": name, "expected": d.value, "got": None})
            continue
        if reference and name in reference:
            if agree(_f(g), reference[name], tol):
                continue
            if not near(d, reference[name], tol):  # their difference quotient strays from their own function's
                wrong.append({"name": name, "expected": reference[name], "got": _f(g)})
                continue
        if not agree(_f(g), d, tol):
            wrong.append({"name": name, "expected": d.value, "got": _f(g)})
    return wrong


def wrong_text(wrong: list[dict[str, Any]]) -> str:
    """'x.grad is 3, should be 5; y.grad is 0, should be -2' (the first three), with
    enough digits that the two numbers differ on the page."""
    parts = []
    for w in wrong[:3]:
        if w["got"] is None:
            parts.append(
                f"{w['name']}.grad is None (your backward() left it no gradient), should be {w['expected']:.6g}"
            )
            continue
        got, want = pair(w["got"], w["expected"])
        parts.append(f"{w['name']}.grad is {got}, should be {want}")
    return "; ".join(parts)


def _wrong_result(wrong: list[dict[str, Any]], prog: dict[str, Any] | None = None) -> dict[str, Any]:
    """A wrong result no step of theirs could be pinned on; in a test of one op, that op."""
    first = wrong[0]
    ops_of = [s for s in (prog or {}).get("steps", []) if "leaf" not in s]
    if len(ops_of) == 1:
        step = ops_of[0]
        op = step.get("method") or step.get("call")
        text = battery.source(prog or {}).split("; ")[-1]
        return {
            "node": text,
            "op": op,
            "studio_op": battery.studio_op(step)[0],
            "diagnosis": "wrong-derivative",
            "expected": first["expected"],
            "got": first["got"],
            "cause": f"after your backward(): {wrong_text(wrong)} -- in a test of {op} alone, so your {op} "
            "computes the wrong gradient",
        }
    return {
        "node": first["name"],
        "op": None,
        "studio_op": None,
        "diagnosis": "wrong-result",
        "expected": first["expected"],
        "got": first["got"],
        "cause": f"after your backward(): {wrong_text(wrong)} (stepping your code node by node could not say "
        "which op: the studio does not read your class's graph well enough to point at one)",
    }


# -----------------------------------------------------------------------------
# 4. Their code, node by node


def step_records(
    prog: dict[str, Any], got: dict[str, Any], tr: Trace, tol: Tolerance, lines: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, Any] | None, int]:
    """(records of every step, the first wrong step's fault or None, steps checked)."""
    made = got.get("made", {})
    forward = {k: _f(v) for k, v in got["forward"].items()}
    local_fd = got.get("local_fd", {})
    by_node: dict[str, dict[str, Any]] = {}
    for step in prog["steps"]:
        if "leaf" not in step and made.get(step["id"]):
            by_node.setdefault(made[step["id"]], step)
    records: list[dict[str, Any]] = []
    fault = None
    checked = 0
    attached = {n["id"]: not n["default_closure"] for n in got["graph"] if "default_closure" in n}
    for raw in got.get("steps", []):
        nid = raw["node_id"]
        node = tr.by_id[nid]
        if "error" in raw:
            text = error_text(raw["error"])
            fault = {
                "node": node.name,
                "node_id": nid,
                "op": node.raw_op or node.op,
                "studio_op": node.op,
                "diagnosis": "raised",
                "cause": text,
                "line": line_text(raw["error"].get("at")) or line_text(lines.get(nid)),
            }
            records.append(
                {
                    "node_id": nid,
                    "node": node.name,
                    "op": node.raw_op or node.op,
                    "out_grad": 0.0,
                    "operands": [],
                    "ok": False,
                    "fault": fault,
                }
            )
            return records, fault, checked
        record: dict[str, Any] = {
            "node_id": nid,
            "node": node.name,
            "op": node.raw_op or node.op,
            "out_grad": raw["out_grad"],
            "operands": [],
            "ok": True,
            "fault": None,
        }
        if fault is not None:
            record.update(ok=None, after_fault=True)
            record["operands"] = [
                {"id": o["id"], "name": tr.by_id[o["id"]].name, "before": o["before"], "after": o["after"]}
                for o in raw["operands"]
            ]
            records.append(record)
            continue
        expected = expected_changes(node, by_node.get(nid), made, forward, local_fd, raw["out_grad"], tr)
        if expected is None:
            record["unchecked"] = f"op {node.raw_op!r}: no studio derivative and no step of the test to re-run"
        else:
            checked += 1
        for o in raw["operands"]:
            c = o["id"]
            change = _f(o["after"]) - _f(o["before"])
            operand = {"id": c, "name": tr.by_id[c].name, "before": o["before"], "after": o["after"], "got": change}
            record["operands"].append(operand)
            if expected is None:
                operand["expected"] = None
                continue
            want, how, ports, local = expected[c]
            operand.update(expected=_value(want), how=how, local=local)
            if record["ok"] and not _agrees(change, want, tol):
                record["ok"] = False
                others_moved = any(
                    not agree(_f(x["after"]) - _f(x["before"]), 0.0, tol) for x in raw["operands"] if x["id"] != c
                )
                code, cause = diagnose(
                    tr,
                    node,
                    c,
                    ports,
                    local,
                    raw["out_grad"],
                    _f(o["before"]),
                    _f(o["after"]),
                    change,
                    _value(want),
                    tol,
                    others_moved,
                    attached.get(nid),
                )
                fault = {
                    "node": node.name,
                    "node_id": nid,
                    "op": node.raw_op or node.op,
                    "studio_op": node.op,
                    "operand": tr.by_id[c].name,
                    "operand_id": c,
                    "expected": _value(want),
                    "got": change,
                    "before": o["before"],
                    "after": o["after"],
                    "out_grad": raw["out_grad"],
                    "reference": how,
                    "diagnosis": code,
                    "cause": cause,
                    "line": line_text(lines.get(nid)),
                }
                record["fault"] = fault
        records.append(record)
    return records, fault, checked


def _value(want: Any) -> float:
    if isinstance(want, list):
        return _value(want[0])
    return want.value if isinstance(want, Derivative) else want


def _agrees(change: float, want: Any, tol: Tolerance) -> bool:
    if isinstance(want, list):  # either operand order (a set lost it)
        return any(_agrees(change, w, tol) for w in want)
    return agree(change, want, tol)


def expected_changes(
    node: Any,
    step: dict[str, Any] | None,
    made: dict[str, str],
    forward: dict[str, float],
    local_fd: dict[str, Any],
    out_grad: float,
    tr: Trace,
) -> dict[str, tuple[Any, str, list[int], list[float]]] | None:
    """{operand id: (what the chain rule adds, how it was found, ports, local
    derivatives)} for one step, or None when no reference exists."""
    if step is not None:
        ports_fd = local_fd.get(step["id"]) or []
        args = step["args"]
        ids = [made.get(a) if isinstance(a, str) else None for a in args]
        if set(i for i in ids if i) == set(node.children) and len(ports_fd) == len(args):
            derivs: list[Derivative | None] = []
            for item in ports_fd:
                if item is None:
                    derivs.append(None)
                    continue
                f0 = forward.get(step["id"])
                d = central(item["f"], item["h"], f0)
                derivs.append(d)
            exact = _table_locals(node, tr, forward.get(step["id"]))
            if all(d is not None for i, d in enumerate(derivs) if ids[i]):
                if exact is not None and list(node.children) == ids:  # their op is the studio's: print exact numbers
                    derivs = [
                        None if d is None else d._replace(value=e) if d.low == d.high else d
                        for d, e in zip(derivs, exact)
                    ]
                table = _table_changes(step, ids, forward, out_grad)
                out = {}
                known = [d if d is not None else Derivative(0.0, 0.0, 0.0, 0.0) for d in derivs]  # None: a number
                for c in dict.fromkeys(node.children):
                    ports = [i for i, x in enumerate(ids) if x == c]
                    total = _sum([known[p] for p in ports])
                    scaled = Derivative(
                        total.value * out_grad,
                        total.err * abs(out_grad),
                        *sorted((total.low * out_grad, total.high * out_grad)),
                    )
                    want: Any = scaled
                    if c in table:  # the studio's exact derivative; theirs too where it is near (a regulariser)
                        want = [scaled, *table[c]] if any(near(scaled, t, TOL_ANY) for t in table[c]) else table[c]
                    out[c] = (want, "central differences of your forward", ports, [known[p].value for p in ports])
                return out
    if node.op is None:
        return None
    if step is not None and battery.studio_op(step)[0] == node.op:
        operands = {made.get(a) for a in step["args"] if isinstance(a, str)}
        if operands != set(node.children):
            return None  # `_op` names the whole step (x - y made as x + (-y), then `out._op = "-"`), not this node
    row = ops.BY_NAME[node.op]
    data = [tr.by_id[c].data for c in node.children]
    try:
        if not node.ambiguous and not _computes(row, node, data):
            return None  # their `_op` names an op the node does not compute (a label): no reference
        local = [float(f(node.data, *data, *ops.params_of(row, node.param))) for f in row.local]
    except (ArithmeticError, ValueError, TypeError):
        return None
    orders = [local] + ([local[::-1]] if node.ambiguous and len(local) == 2 else [])
    out = {}
    for c in dict.fromkeys(node.children):
        ports = [p for p, child in enumerate(node.children) if child == c]
        wants = [sum(loc[p] for p in ports) * out_grad for loc in orders]
        if node.op == "relu" and tr.by_id[c].data == 0.0:
            wants.append(out_grad)  # relu'(0): 0 or 1 are both fine
        out[c] = (
            wants if len(wants) > 1 else wants[0],
            "the studio's derivative of " + node.op,
            ports,
            [local[p] for p in ports],
        )
    return out


def _computes(row: Any, node: Any, data: list[Any]) -> bool:
    """Does the node's own number come from its children by the op its `_op` names? An
    add node relabelled "-" (out = x + (-y), then `out._op = "-"`) does not: x − (−y) is
    not its number, so the studio's d(a−b)/db = −1 is no truth for it."""
    ours = float(row.forward(*data, *ops.params_of(row, node.param)))
    return math.isclose(ours, float(node.data), rel_tol=1e-6, abs_tol=1e-9)


def _table_changes(
    step: dict[str, Any], ids: list[str | None], forward: dict[str, float], out_grad: float
) -> dict[str, list[float]]:
    """{operand id: [what the chain rule adds by the studio's table]} for a test step of
    an op the studio knows -- the op the test ASKED for, whose forward was checked
    (never their `_op`, which may be a label only) -- else {}."""
    op, param, operands = battery.studio_op(step)
    if op is None:
        return {}
    row = ops.BY_NAME[op]
    xs = [_arg(step["args"][i], forward) for i in operands]
    try:
        out = forward[step["id"]]
        local = [float(f(out, *xs, *ops.params_of(row, param))) for f in row.local]
    except (ArithmeticError, ValueError, TypeError, KeyError):
        return {}
    changes: dict[str, list[float]] = {}
    for port, i in enumerate(operands):
        c = ids[i]
        if c is not None and port < len(local):
            changes[c] = [changes.get(c, [0.0])[0] + local[port] * out_grad]
    return changes


def _table_locals(node: Any, tr: Trace, theirs: float | None) -> list[float] | None:
    """The studio's local derivatives for `node` when its op is one the studio knows and
    their forward gives the studio's number to 1e-9 (then their function is ours here,
    and the exact derivative can be printed instead of a central difference)."""
    if node.op is None or node.ambiguous or theirs is None:
        return None
    row = ops.BY_NAME[node.op]
    data = [tr.by_id[c].data for c in node.children]
    try:
        ours = float(row.forward(*data, *ops.params_of(row, node.param)))
        if not math.isclose(ours, theirs, rel_tol=1e-9, abs_tol=1e-12):
            return None
        return [float(f(node.data, *data, *ops.params_of(row, node.param))) for f in row.local]
    except (ArithmeticError, ValueError, TypeError):
        return None


NEAR = 1e-2  # how far their function's derivative may stray from the studio's and still stand for it
TOL_ANY = Tolerance(NEAR, 1e-6)


def near(d: Derivative, exact: float, tol: Tolerance) -> bool:
    """Is the derivative of THEIR function (a central difference) within 1 % of the
    studio's exact one? Then both stand: a regulariser (log(x + 1e-6)) moves it by
    far less. Further off, where their forward agrees with the studio's, the studio's
    exact derivative is the truth: a forward rounded to 4 digits is flat to a central
    difference, and a child that sends made-up difference quotients cannot move it."""
    return agree(exact, d, Tolerance(max(NEAR, tol.rtol * 10), max(1e-6, tol.atol)))


def _sum(ds: list[Derivative]) -> Derivative:
    return Derivative(sum(d.value for d in ds), sum(d.err for d in ds), sum(d.low for d in ds), sum(d.high for d in ds))


def _final_grads(records: list[dict[str, Any]], tr: Trace) -> dict[str, float]:
    """Each node's grad after the stepped pass: the last `after` written to it."""
    grads: dict[str, float] = {tr.root: 1.0}
    for record in records:
        for o in record.get("operands", []):
            grads[o["id"]] = _f(o["after"])
    return grads


# -----------------------------------------------------------------------------
# Their backward()'s order


def pass_fault(
    tr: Trace, watched: dict[str, Any], records: list[dict[str, Any]], lines: dict[str, Any]
) -> tuple[dict[str, Any] | None, list[dict[str, Any]] | None]:
    """Every step right, the result wrong: their backward()'s order (a call twice,
    never, too early), else what its final grads say. (fault, their calls as records)."""
    if "error" in watched:
        text = error_text(watched["error"])
        return {
            "node": tr.by_id[tr.root].name,
            "node_id": tr.root,
            "op": "backward()",
            "studio_op": None,
            "diagnosis": "raised",
            "cause": text,
            "line": line_text(watched["error"].get("at")),
        }, None
    calls = [c["node_id"] for c in watched.get("calls", [])]
    their_records = None
    fault = None
    if calls and tr.style != "local-grads":
        fault = order_fault(tr, calls)
        if fault is not None and watched.get("watched_all"):
            their_records = []
            call = fault.get("call")
            for i, c in enumerate(watched["calls"]):
                node = tr.by_id[c["node_id"]]
                their_records.append(
                    {
                        "node_id": node.id,
                        "node": node.name,
                        "op": node.raw_op or node.op,
                        "out_grad": c.get("out_grad") or 0.0,
                        "operands": [
                            {"id": o["id"], "name": tr.by_id[o["id"]].name, "before": o["before"], "after": o["after"]}
                            for o in c.get("operands", [])
                        ],
                        "ok": True if call is None or i < call else (False if i == call else None),
                    }
                )
    if fault is None:
        want = _final_grads(records, tr)
        grads = {k: _f(v) for k, v in (watched.get("grads") or {}).items() if v is not None}
        if want and grads:
            fault = backward_fault(tr, {k: want.get(k, 0.0) for k in grads}, grads)
    if fault is not None and fault.get("node_id") in lines and not fault.get("line"):
        fault["line"] = line_text(lines.get(fault["node_id"]))
    return fault, their_records


# -----------------------------------------------------------------------------
# zero_grad and their topological sort


def zeroing_item(result: dict[str, Any] | None) -> dict[str, Any] | None:
    """A failing test item or a note from the child's zero_grad observations."""
    from core.foreign.diagnosis import ACCUMULATES, zeroing_fault

    if not result:
        return None
    first = {k: _f(v) for k, v in result["first"].items()}
    second = {k: _f(v) for k, v in result["second"].items()}
    if not result["zero_grad"]:
        if not agree(second["x"], first["x"]):
            return {"kind": "note", "text": ACCUMULATES}
        return None
    fault = zeroing_fault(first, second, result["left"])
    if fault is None:
        return None
    return {"kind": "case", "name": battery.ZERO_GRAD_CASE, "status": "fail", "steps": 0, "notes": [], "fault": fault}


def topo_item(result: dict[str, Any] | None, failed: bool) -> dict[str, Any] | None:
    """A failing test item (when the battery found wrong grads: their sort is the
    likely root) or a note (their grads came out right anyway) for their sort."""
    if not result:
        return None
    name = result["name"]
    for item in result["results"]:
        fault: dict[str, Any] | None
        if "error" in item:
            text = error_text(item["error"])
            fault = {
                "node": None,
                "op": name,
                "studio_op": None,
                "diagnosis": "raised",
                "cause": text,
                "line": line_text(item["error"].get("at")),
            }
            if failed:  # their sort raised where the grads were wrong: an error of theirs, with its line
                return {
                    "kind": "case",
                    "name": battery.TOPO_CASE,
                    "status": "error",
                    "steps": 0,
                    "notes": [],
                    "error": text,
                    "fault": {**fault, "case": item["program"]},
                }
        else:
            fault = check_listing(name, item["listed"], interpret(item["graph"]))
        if fault:
            if not failed:
                return {
                    "kind": "note",
                    "text": f"your {name} on {item['program']!r}: {fault['cause']} (your grads came out right anyway)",
                }
            return {
                "kind": "case",
                "name": battery.TOPO_CASE,
                "status": "fail",
                "steps": 0,
                "notes": [],
                "fault": {**fault, "case": item["program"]},
            }
    return None


def check_listing(name: str, listed: list[str], tr: Trace) -> dict[str, Any] | None:
    """Their sort's list (node ids) checked for the two promises of a topological order:
    each node once, and every node on the same side of all its inputs."""
    if not listed:
        return None
    label = {n.id: n.name for n in tr.nodes}
    seen: dict[str, int] = {}
    for i, nid in enumerate(listed):
        if nid in seen:
            return _topo(
                name,
                f"{label.get(nid, nid)} appears twice in your {name} list (places {seen[nid] + 1} and {i + 1}): "
                "each node must appear once, or its _backward runs twice",
            )
        seen[nid] = i
    output_first = seen.get(tr.root) == 0
    for nid in listed:
        node = tr.by_id.get(nid)
        for child in node.children if node else ():
            if child not in seen:
                continue
            wrong = seen[child] < seen[nid] if output_first else seen[child] > seen[nid]
            if wrong:
                side = "after" if output_first else "before"
                rule = (
                    "with the output first, every node must come before its inputs"
                    if output_first
                    else "every node must come after its inputs (then backward walks the list reversed)"
                )
                return _topo(name, f"{label[nid]} comes {side} its input {label[child]} in your {name} list: {rule}")
    return None


def _topo(name: str, cause: str) -> dict[str, Any]:
    return {"node": None, "op": name, "studio_op": None, "diagnosis": "topo-sort", "cause": cause}


__all__ = ["judge", "wrong_text", "zeroing_item", "topo_item", "error_text", "ref"]
