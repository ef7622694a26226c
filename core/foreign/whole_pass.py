"""Their whole pass: the order of their backward()'s calls, zero_grad, their own topological sort.

When every step of theirs is right and the result is still wrong, the fault is in
the pass: a node's code called twice, never, or before every use had passed its
grad back (`pass_fault`). Beside the tests: whether zero_grad() zeroes what a second
pass would add to (`zeroing_item`), and whether their own sort lists every node
after its users (`topo_item`).
"""

from __future__ import annotations

from typing import Any

from core.foreign import battery
from core.foreign.agree import agree
from core.foreign.diagnosis import backward_fault, order_fault
from core.foreign.quoting import as_number, error_text, line_text
from core.foreign.stepping import final_grads
from core.foreign.trace import Trace, interpret


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
    stepped = any(r.get("operands") for r in records)  # their per-node code ran, so their pass could call it
    if (calls or (stepped and watched.get("watched_all"))) and tr.style not in ("local-grads", "local-fn"):
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
        want = final_grads(records, tr)
        grads = {k: as_number(v) for k, v in (watched.get("grads") or {}).items() if v is not None}
        if grads and all(k in want for k in grads):  # only a pass stepped whole says what every grad should be
            fault = backward_fault(tr, want, grads)
    if fault is not None and fault.get("node_id") in lines and not fault.get("line"):
        fault["line"] = line_text(lines.get(fault["node_id"]))
    return fault, their_records


# -----------------------------------------------------------------------------
# zero_grad and their topological sort


PER_NODE = (
    "your zero_grad() zeroes only the node it is called on: the studio called it on every node, as a loop over "
    "your parameters does -- call it on each parameter before each pass (or have it walk the graph)"
)


def zeroing_item(result: dict[str, Any] | None) -> dict[str, Any] | None:
    """A failing test item or a note from the child's zero_grad observations."""
    from core.foreign.diagnosis import ACCUMULATES, zeroing_fault

    if not result:
        return None
    first = {k: as_number(v) for k, v in result["first"].items()}
    second = {k: as_number(v) for k, v in result["second"].items()}
    if not result["zero_grad"]:
        if not agree(second["x"], first["x"]):
            return {"kind": "note", "text": ACCUMULATES}
        return None
    fault = zeroing_fault(first, second, result["left"])
    if fault is None:
        if result.get("per_node"):
            return {"kind": "note", "text": PER_NODE}
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
    listed = [nid for nid in listed if nid in tr.by_id]  # '?': an object of theirs not in the graph as read
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
