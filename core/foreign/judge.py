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
from core.foreign.quoting import arg_value, as_number, error_text, line_text, wrong_text
from core.foreign.stepping import final_grads, near, step_records
from core.foreign.trace import Trace, interpret
from core.foreign.whole_pass import pass_fault


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
    shadowing = got.get("pass_shadowed")
    fault = result.get("fault") or {}
    if shadowing and result["status"] == "fail" and fault.get("diagnosis") not in ("forward", "raised"):
        result["fault"] = {
            "node": fault.get("node"),
            "node_id": fault.get("node_id"),
            "op": f"{shadowing}()",
            "studio_op": None,
            "diagnosis": "pass-shadowed",
            "cause": (
                f"your ops store their closure as `out.{shadowing}`, which hides your {shadowing}() method on every "
                f"node they make: `loss.{shadowing}()` then runs only the output's closure, with no grad seeded "
                "-- store it as `out._backward`"
            ),
            "wrong": fault.get("wrong", []),
        }
    return result


def _judge(case: battery.Case, got: dict[str, Any], eps: float, keep: bool = False) -> dict[str, Any]:
    result: dict[str, Any] = {"name": case.name, "status": "pass", "steps": 0, "notes": [], "fault": None}
    result["text"] = case.text
    if "error" in got:
        return _raised(result, got["error"])
    tol = tolerance(eps)
    prog = case.program
    forward = {k: as_number(v) for k, v in got["forward"].items()}
    tr = interpret(got["graph"], got.get("style", "closures"))
    result["ops_inferred"] = any(n.children and not n.raw_op.strip() for n in tr.nodes)  # no _op: read from data
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
        result["stepped"] = False  # the report says it once, with why (core/foreign/runner.py)
        result["unstepped"] = got.get("unstepped", "")
    if runs is None:  # no backward(): their steps, and the grads they leave, are the verdict
        if step_fault is not None:
            result.update(status="fail", fault=step_fault, records=records)
            return result
        final = final_grads(records, tr)
        wrong = _wrong(truth, {k: final.get(got["made"].get(k)) for k in truth}, tol, reference)
        if wrong:
            result.update(status="fail", fault=_wrong_result(wrong, prog, tr, got.get("made")), records=records)
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
            fault = _wrong_result(verdict["wrong"], prog, tr, got.get("made"))
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


def _name_nodes(tr: Trace, prog: dict[str, Any], made: dict[str, str]) -> None:
    """Leaves and named steps carry the test's names (x, y, h)."""
    for step in prog["steps"]:
        nid = made.get(step["id"])
        if nid in tr.by_id and "method" in step and not tr.by_id[nid].raw_op and tr.by_id[nid].op is None:
            tr.by_id[nid].raw_op = step["method"]  # no _op of theirs: the op is the method the test called
        name = step["id"] if "leaf" in step else step.get("name")
        if nid in tr.by_id and name:
            tr.by_id[nid].name = name


def _reached(tr: Trace, start: str) -> set[str]:
    """The ids their graph reaches from `start` through children (start included)."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        nid = todo.pop()
        if nid not in seen and nid in tr.by_id:
            seen.add(nid)
            todo.extend(tr.by_id[nid].children)
    return seen


def cut_fault(
    wrong: list[dict[str, Any]], prog: dict[str, Any], tr: Trace, made: dict[str, str]
) -> dict[str, Any] | None:
    """A leaf with a wrong grad that their graph never reaches from the output: the
    graph is cut, and the first step whose Value does not lead back to an operand of its
    own is where (`Value(self.data / other.data)` with no children). No gradient code
    of theirs is wrong there -- none runs. None when every wrong leaf is reached."""
    whole = _reached(tr, tr.root)  # their graph, read from the output (an unreached leaf is not in it)
    unreached = [w for w in wrong if w["name"] in made and made[w["name"]] not in whole]
    if not unreached:
        return None
    written = battery.step_texts(prog)
    for step in prog["steps"]:
        node_id = made.get(step["id"])
        if "leaf" in step or node_id not in tr.by_id:
            continue
        reach = _reached(tr, node_id)
        lost = [a for a in step.get("args", []) if isinstance(a, str) and a in made and made[a] not in reach]
        if not lost:
            continue
        op = step.get("method") or step.get("call")
        names = " and ".join(written.get(a, a) for a in lost)
        keeps = "keeps no children" if not tr.by_id[node_id].children else f"does not lead back to {names}"
        return {
            "node": written.get(step["id"], step["id"]),
            "op": op,
            "studio_op": battery.studio_op(step)[0],
            "diagnosis": "cut-graph",
            "expected": unreached[0]["expected"],
            "got": unreached[0]["got"],
            "cause": (
                f"your {op} returns a Value that {keeps}, so backward() never reaches {names}: "
                f"{wrong_text(unreached)} -- make the result with its operands as children, "
                "as in Value(data, (self, other))"
            ),
        }
    return None


# -----------------------------------------------------------------------------
# 1. Their forward


# op: ((what they wrote, f(x)), ...) -- named when their number fits; from the op table's rows
FORWARD_SLIPS = {op.name: op.forward_slips for op in ops.TABLE if op.forward_slips}


def forward_fault(
    prog: dict[str, Any], forward: dict[str, float], made: dict[str, str], tr: Trace, eps: float
) -> dict[str, Any] | None:
    """The first step whose output their class computes wrongly, or None. The step is
    written as the program writes it, over the leaves (`x / (y + 2)`), its operands named
    the same way, whether they are leaves or steps before it."""
    written = battery.step_texts(prog)
    for step in prog["steps"]:
        if "leaf" in step:
            continue
        op, param, operands = battery.studio_op(step)
        if op is None:
            continue
        values = [arg_value(a, forward) for a in step["args"]]
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
        text = written[step["id"]]
        a, b = pair(theirs, ours)
        slip = _forward_slip(op, xs, theirs)
        at = ", ".join(f"{k} = {v:g}" for k, v in zip(_arg_names(step, written), xs))
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


def _arg_names(step: dict[str, Any], written: dict[str, str]) -> list[str]:
    return [written.get(a, a) if isinstance(a, str) else "c" for a in step["args"]]


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
    steps = [  # their x.ln() is the studio's x.log()
        {**s, "method": ops.BY_NAME[battery.SPELLED_METHODS[s["method"]]].method}
        if s.get("method") in battery.SPELLED_METHODS
        else s
        for s in prog["steps"]
    ]
    try:
        made = build({**prog, "steps": steps}, lambda x, name: Value(float(x)))
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
    vals = [{n: (None if run.get(n) is None else as_number(run.get(n))) for n in compared} for run in runs]
    differing = [i for i in range(1, len(vals)) if any(not _same(vals[i][n], vals[0][n], tol) for n in compared)]
    wrong_runs = [i for i, v in enumerate(vals) if _wrong(truth, v, tol, reference)]
    first = vals[wrong_runs[0]] if wrong_runs else vals[0]
    wrong = _wrong(truth, first, tol, reference)
    result: dict[str, Any] = {"compared": compared, "tolerance": list(tol), "runs": len(vals)}
    if differing and len(wrong_runs) < len(vals):  # some orders right: the order of a set is the cause
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
            if agree(as_number(g), reference[name], tol):
                continue
            if not near(d, reference[name], tol):  # their difference quotient strays from their own function's
                wrong.append({"name": name, "expected": reference[name], "got": as_number(g)})
                continue
        if not agree(as_number(g), d, tol):
            wrong.append({"name": name, "expected": d.value, "got": as_number(g)})
    return wrong


def _wrong_result(
    wrong: list[dict[str, Any]],
    prog: dict[str, Any] | None = None,
    tr: Trace | None = None,
    made: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A wrong result no step of theirs could be pinned on: where their graph is cut, the
    step that cut it; in a test of one op, that op."""
    cut = cut_fault(wrong, prog, tr, made) if prog and tr and made else None
    if cut is not None:
        return cut
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
