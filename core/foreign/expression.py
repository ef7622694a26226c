"""The learner's own expression, built with THEIR Value class.

Besides the battery (battery.py), a learner may give one expression of their
own, typed in the studio's expression syntax: `x*y + y**2`, `Value(2.0,
label='x')` lines, `.tanh()` ... It is read by `core/document/expr.py`, which
never runs the text, in the studio's process:

    1. `program_of(text)` parses it into a GraphDocument and writes that out
       as a *program*: plain data, one step per node in topological order,

           {"text": "x*y + y**2",
            "nodes": [{"id": "n1", "kind": "input", "label": "x", "value": 1.0, "args": []},
                      {"id": "n3", "kind": "op", "op": "mul", "args": ["n1", "n2"]}, ...],
            "output": "n5"}

       A typed expression that does not parse raises `ExprError` naming the
       line and column, before any process starts: nothing runs.

    2. the program crosses to the child process (runner.py) as JSON, where
       `case_of(program)` turns it into a battery `Case` whose build makes
       each node with their class: `leaf(value, label)` for a leaf, their
       `a * b`, `a ** 2`, `a.tanh()` for an op -- the same calls the studio's
       own compile makes (core/document/compile.py).

So the expression is checked and stepped like any battery case, with the
learner's names on the canvas.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from core import ops
from core.document.expr import ExprError, parse
from core.foreign import battery
from core.foreign.words import WORDS

__all__ = ["ExprError", "case_of", "missing_ops", "program_of"]

MAX_NODES = 500  # the child steps every node; a typed expression is small

# the battery's name for what each document op needs from the class: its own name in the op table
NEEDS = {op.name: op.name for op in ops.TABLE}


# -----------------------------------------------------------------------------
# In the studio: text -> program (plain data)


def program_of(text: str | None, values: Mapping[str, float] | None = None) -> dict[str, Any]:
    """The plain-data program of a typed expression; ExprError if it cannot be read."""
    text = (text or "").strip()
    if not text:
        raise ExprError("the expression is empty: type one, e.g. x*y + y**2")
    doc = parse(text, values)
    output = doc.effective_output()
    if output is None or doc.nodes[output].kind != "op":
        raise ExprError("the expression has no operation to check: use at least one op, e.g. x*y")
    if len(doc.nodes) > MAX_NODES:
        raise ExprError(f"the expression has {len(doc.nodes)} nodes; at most {MAX_NODES} are checked")
    nodes = []
    for nid in doc.topological_ids():
        node = doc.nodes[nid]
        step: dict[str, Any] = {"id": nid, "kind": node.kind, "label": node.label, "args": list(doc.inputs_of(nid))}
        if node.kind == "op":
            step["op"] = node.op
            step["param"] = node.param
        else:
            step["value"] = float(node.value)
        nodes.append(step)
    return {"text": text, "nodes": nodes, "output": output}


# -----------------------------------------------------------------------------
# In the child: program -> a Case built with their class


def missing_ops(program: dict[str, Any], offered: Iterable[str]) -> list[str]:
    """What the typed expression asks of the class that it does not offer (sorted)."""
    return sorted({WORDS.get(n, n) for n in case_of(program).needs} - set(offered))


def case_of(program: dict[str, Any]) -> battery.Case:
    """A battery Case that builds the typed expression with the learner's class: their
    `a * b`, `a ** 2`, `a.tanh()` -- the same calls the studio's own compile makes."""
    steps: list[dict[str, Any]] = []
    ids: dict[str, str] = {}
    taken: set[str] = set()
    for node in program["nodes"]:
        name = node["label"] or ""
        if node["kind"] != "op":
            sid = name if name.isidentifier() and name not in taken else f"v{len(steps) + 1}"
            steps.append({"id": sid, "leaf": float(node["value"])})
        else:
            sid = f"t{len(steps) + 1}"
            args = [ids[a] for a in node["args"]]
            step = _call(node["op"], node.get("param"), args)
            step["id"] = sid
            if name:
                step["name"] = name
            steps.append(step)
        ids[node["id"]] = sid
        taken.add(sid)
    name = f"your expression: {program['text']}"
    prog: dict[str, Any] = {"name": name, "steps": steps, "output": ids[program["output"]]}
    return battery.Case(name, prog, program["text"])


def _call(op: str, param: Any, args: list[str]) -> dict[str, Any]:
    """One op of the studio's documents as a step of a test program, as its op table row
    says a learner writes it: a method (x.tanh()), or the operator of its first special
    method ('__truediv__': a / b); the number of x ** k after x, the base of c ** x first."""
    row = ops.BY_NAME[op]
    if row.param == "k":
        k = float(param)
        return {"call": "pow", "args": [args[0], {"n": int(k) if k.is_integer() else k}]}
    if row.param == "c":
        return {"call": "pow", "args": [{"n": float(param)}, args[0]]}
    if row.method or not row.dunders:
        return {"method": row.method or op, "args": args}
    return {"call": row.dunders[0].strip("_"), "args": args}
