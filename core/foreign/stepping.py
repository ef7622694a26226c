"""Their gradient code, node by node: what each step added to each operand, against the chain rule.

For each node of their graph in a correct reverse topological order, the child ran
THEIR per-node code (a `_backward` closure, local grads, MiniTorch's chain_rule) and
recorded each operand's grad before and after. Here each change is held against
local derivative x out.grad: the local derivative from central differences of their
own op (`local_fd`), or the studio's op table for a node inside their op. The first
step that disagrees LOCATES a wrong result: its op, its line, and why
(core/foreign/diagnosis.py).
"""

from __future__ import annotations

import math
from typing import Any

from core import ops
from core.foreign import battery
from core.foreign.agree import Derivative, Tolerance, agree, central
from core.foreign.diagnosis import diagnose, their_words
from core.foreign.quoting import arg_value, as_number, error_text, line_text
from core.foreign.trace import Trace


def step_records(
    prog: dict[str, Any], got: dict[str, Any], tr: Trace, tol: Tolerance, lines: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, Any] | None, int]:
    """(records of every step, the first wrong step's fault or None, steps checked)."""
    made = got.get("made", {})
    forward = {k: as_number(v) for k, v in got["forward"].items()}
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
            # the child names the node by its id ('n3'); the learner knows it by its name ('x - y', '-y')
            op = node.raw_op or node.op
            where = f"the gradient code of {node.name}" + (f" ({op})" if op else "")
            text = error_text({**raw["error"], "where": where})
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
            change = as_number(o["after"]) - as_number(o["before"])
            operand = {"id": c, "name": tr.by_id[c].name, "before": o["before"], "after": o["after"], "got": change}
            record["operands"].append(operand)
            if expected is None or c not in expected:  # none, or a child the op takes as a number (x ** Value(2))
                operand["expected"] = None
                continue
            want, how, ports, local = expected[c]
            operand.update(expected=_value(want), how=how, local=local)
            if record["ok"] and not _agrees(change, want, tol):
                record["ok"] = False
                others_moved = any(
                    not agree(as_number(x["after"]) - as_number(x["before"]), 0.0, tol)
                    for x in raw["operands"]
                    if x["id"] != c
                )
                code, cause = diagnose(
                    tr,
                    node,
                    c,
                    ports,
                    local,
                    raw["out_grad"],
                    as_number(o["before"]),
                    as_number(o["after"]),
                    change,
                    _value(want),
                    tol,
                    others_moved,
                    attached.get(nid),
                )
                cause = their_words(cause, tr.style)  # MiniTorch's d_output and .derivative, in its style
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
                    "style": tr.style,  # the words its report uses (diagnosis.their_words)
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
    xs = [arg_value(step["args"][i], forward) for i in operands]
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


def final_grads(records: list[dict[str, Any]], tr: Trace) -> dict[str, float]:
    """Each node's grad after the stepped pass: the last `after` written to it."""
    grads: dict[str, float] = {tr.root: 1.0}
    for record in records:
        for o in record.get("operands", []):
            grads[o["id"]] = as_number(o["after"])
    return grads
