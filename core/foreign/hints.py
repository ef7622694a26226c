"""A hint ladder for a wrong gradient: a nudge first, the fix last.

A learner whose engine is wrong wants to find the bug, not to be handed it. So
each diagnosis (`diagnosis.py`) has four rungs, climbed one at a time:

    1. where     which node of THEIR expression (their names): "look at x·y"
    2. which     which operand's grad goes wrong there, and by how much
    3. ask       the local derivative asked as a question: "what is d(a·b)/da?"
    4. fix       the fix, in words and in the line of code it belongs to

Every number comes from the check's own fault (expected, got, out.grad), so a
hint never says anything the engine did not compute. `ladder(fault)` gives the
four rungs; `climb(fault, n)` the first n (a course releases hints in stages:
`--check-engine --hints N`).
"""

from __future__ import annotations

from typing import Any

from core import ops
from core.foreign.diagnosis import DIAGNOSES, their_words

RUNGS = 4

# the local derivative of each op, asked as a question and then given
# per op: the question on its derivative and its answer, from the op table (core/ops.py)
QUESTION = {op.name: (op.question, op.answer) for op in ops.TABLE if op.question}

FIX = {d.code: d.fix for d in DIAGNOSES}  # the one table: core/foreign/diagnosis.py

KNOWN = sorted(FIX)


def number(x: Any) -> str:
    try:
        return f"{float(x):.6g}"
    except (TypeError, ValueError):
        return str(x)


def crash_ladder(fault: dict[str, Any]) -> list[str]:
    """The four rungs for code that raised: where, what, a question, the fix."""
    case = fault.get("case", "a test")
    line = fault.get("line")
    where = f"In the test {case!r}, your code stopped with an error" + (f" at {line}." if line else ".")
    what = f"The error: {fault.get('cause', 'see the report')}"
    ask = (
        "Question: which value does that line use, and what type or number did it get there? "
        "Run the test's expression in Python and print it just before that line."
    )
    return [where, what, ask, f"Fix: {FIX['raised']}."]


def forward_ladder(fault: dict[str, Any]) -> list[str]:
    """The four rungs for a wrong forward pass."""
    op = fault.get("studio_op") or fault.get("op")
    where = f"In the test {fault.get('case', 'a test')!r}, look at the VALUE your {op} computes, not its gradient."
    what = f"It is {fault.get('node')}: {fault.get('cause', '')}"
    row = ops.BY_NAME.get(op or "")
    formula = row.definition if row else ""  # the op table's words for its forward: 'max(0, x)'
    ask = f"Question: what is the formula of {op}" + (f"? (It is {formula}.)" if formula else "?")
    return [where, what, ask, f"Fix: {FIX['forward']}."]


def ladder(fault: dict[str, Any]) -> list[str]:
    """The four rungs for one fault (a report's `fault`), first to last: each about the
    fault found (a crash gets crash hints, a wrong forward forward hints)."""
    diagnosis = fault.get("diagnosis") or "wrong-result"
    if diagnosis == "raised":
        return crash_ladder(fault)
    if diagnosis == "forward":
        return forward_ladder(fault)
    node = fault.get("node")
    op = fault.get("studio_op") or fault.get("op")
    case = fault.get("case", "a test")
    if node and op not in (None, "order", "backward()", "zero_grad"):
        where = (
            f"In the test {case!r}, look at the node {node} (your op {fault.get('op')!r}): "
            "its _backward is where the gradient first goes wrong."
        )
    elif diagnosis in ("order", "set-order", "no-seed"):
        where = (
            f"In the test {case!r}, every op's own step may be right: look at your backward() itself "
            "-- the order it visits nodes in."
        )
    elif diagnosis == "not-zeroed":
        where = "Look at your zero_grad(): run backward() twice with zero_grad() between and compare the grads."
    else:
        where = f"In the test {case!r}, look at {node or 'the output'}: its gradient is not what the chain rule gives."
    operand = fault.get("operand")
    if operand and fault.get("expected") is not None and fault.get("got") is not None:
        which = (
            f"It is {operand}.grad: the chain rule adds {number(fault['expected'])} to it at {node}, your code "
            f"adds {number(fault['got'])} (the gradient arriving at {node} is "
            f"out.grad = {number(fault.get('out_grad'))})."
        )
    elif fault.get("wrong"):
        w = fault["wrong"][0]
        which = (
            f"It is {w['name']}.grad: after your backward() it is {number(w['got'])}, "
            f"the chain rule gives {number(w['expected'])}."
        )
    else:
        which = f"Which grad: {fault.get('cause', 'see the report')}"
    question = QUESTION.get(op or "")
    if question and diagnosis not in ("order", "set-order", "no-seed", "not-zeroed"):
        ask = f"Question: {question[0]} Then: what should {operand or 'the operand'}.grad get, times out.grad?"
    elif diagnosis in ("order", "set-order"):
        ask = (
            "Question: when a node's _backward runs, must every node that USES it have run its own "
            "_backward already? Does your order guarantee it?"
        )
    elif diagnosis == "no-seed":
        ask = "Question: what is d(out)/d(out)? Where does your backward() put that number?"
    else:
        ask = "Question: what is the local derivative of this op, and what does the chain rule multiply it by?"
    fix = f"Fix: {FIX.get(diagnosis, FIX['wrong-result'])}."
    if question:
        fix += f" (The local derivative: {question[1]}.)"
    return [where, which, ask, fix]


def climb(fault: dict[str, Any], n: int) -> list[str]:
    """The first `n` rungs (0 to 4), in the words of their engine's style (MiniTorch's
    `d_output` and `.derivative`: diagnosis.their_words)."""
    style = fault.get("style", "closures")
    return [their_words(rung, style) for rung in ladder(fault)[: max(0, min(RUNGS, n))]]
