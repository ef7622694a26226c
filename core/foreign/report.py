"""A check's report as text for people and as JSON for autograders, and its exit code.

0   every gradient is right (by what their backward() computes, in every run)
1   a wrong gradient was found (the report names the node and op, or "order")
2   the file cannot be used: no Value class, an import error, a timeout ...
3   their code raised while building or running a test expression
4   could not check: their class lacks the ops (or their --expr uses one it lacks)
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from core.foreign.agree import pair
from core.foreign.diagnosis import their_words
from core.sandbox import plain


class Category(NamedTuple):
    """A verdict on a whole engine: its key in reports, its exit code, its words, its colour."""

    key: str
    exit: int
    words: str
    colour: str


CATEGORIES = (
    Category("ok", 0, "every gradient is right", "#2e7d32"),
    Category("wrong", 1, "a wrong gradient", "#c62828"),
    Category("unusable", 2, "the file cannot be used", "#6a1b9a"),
    Category("raised", 3, "your code raised", "#ef6c00"),
    Category("unchecked", 4, "nothing could be checked", "#6d6d6d"),
)
BY_KEY = {c.key: c for c in CATEGORIES}
OK, WRONG, UNUSABLE, RAISED, UNCHECKED = (c.exit for c in CATEGORIES)
CATEGORY = {c.key: c.exit for c in CATEGORIES}


def exit_code(report: dict[str, Any]) -> int:
    return BY_KEY.get(report["status"], BY_KEY["unusable"]).exit


def to_json(report: dict[str, Any]) -> str:
    categorised = {**report, "category": exit_code(report)}
    if report.get("big"):  # the graph's rows are for the window, not for a report
        categorised["big"] = {k: v for k, v in report["big"].items() if k != "rows"}
    categorised.pop("big_graph", None)
    return json.dumps(plain(categorised), indent=2, sort_keys=True, allow_nan=False)


def number(x: float | str) -> str:
    return x if isinstance(x, str) else f"{x:.6g}"


def fault_lines(fault: dict[str, Any]) -> list[str]:
    """The first wrong gradient, as lines of text."""
    lines = [f"First wrong gradient, in test: {fault['case']}"]
    if fault.get("node"):
        lines.append(f"  node:      {fault['node']}")
    lines.append(f"  op:        {fault.get('op') or '?'}")
    if fault.get("operand"):
        arriving = their_words("out.grad", fault.get("style", "closures"))
        lines.append(f"  operand:   {fault['operand']}  ({arriving} = {number(fault['out_grad'])})")
    if isinstance(fault.get("expected"), float) and isinstance(fault.get("got"), float):
        got, want = pair(fault["got"], fault["expected"])  # never two equal-looking numbers
        lines.append(f"  expected:  {want}")
        lines.append(f"  got:       {got}")
    elif fault.get("expected") is not None and fault.get("got") is not None:
        lines.append(f"  expected:  {number(fault['expected'])}")
        lines.append(f"  got:       {number(fault['got'])}")
    if fault.get("line"):
        lines.append(f"  your code: {fault['line']}")
    lines.append(f"  likely cause: {fault['cause']}")
    return lines


def to_text(report: dict[str, Any]) -> str:
    """The report as a person reads it: each test, then the first wrong gradient."""
    lines = [f"Checking {report['file']}"]
    if report.get("class"):
        lines.append(f"Value class: {report['class']} (offers {', '.join(report['offered'])})")
    lines.append("The file ran in a separate process with time and memory limits.")
    for case in report.get("cases", []):
        mark = {"pass": "ok  ", "fail": "FAIL", "error": "ERR ", "unchecked": "----"}.get(case["status"], "?   ")
        lines.append(f"  {mark} {case['name']}  ({case['steps']} steps)")
        if case.get("error"):
            lines.append(f"         {case['error']}")
        if case.get("why"):
            lines.append(f"         could not check: {case['why']}")
        for note in case.get("notes", [])[:3] if case["status"] != "pass" else ():  # a passing test's are noise
            lines.append(f"         note: {note}")
    for skipped in report.get("skipped", []):
        lines.append(f"  skip {skipped['name']}  (needs {', '.join(skipped['missing'])})")
    for note in report.get("notes", []):
        lines.append(f"Note: {note}")
    if report["status"] == "unusable":
        lines.append(f"Cannot use this file: {report['message']}")
    elif report["status"] == "raised":
        if (report.get("fault") or {}).get("line"):
            lines.append(f"  your code: {report['fault']['line']}")
        lines.append(f"Result: {report['message']}")
    elif report["status"] == "unchecked":
        lines.append(f"Result: {report['message']}")
    elif report["fault"]:
        lines += fault_lines(report["fault"])
        op = report["fault"].get("op") or "?"
        lines.append(f"Result: a wrong gradient ({'order of the backward pass' if op == 'order' else 'op ' + op}).")
    else:
        lines.append("Result: every gradient is right.")
    return "\n".join(lines)
