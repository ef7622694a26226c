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

RUNGS = 4

# the local derivative of each op, asked as a question and then given
QUESTION = {
    "add": ("what is d(a + b)/da, and d(a + b)/db?", "both are 1"),
    "sub": ("what is d(a − b)/da, and d(a − b)/db?", "1 and −1"),
    "mul": ("what is d(a·b)/da, and d(a·b)/db?", "d(a·b)/da = b and d(a·b)/db = a"),
    "div": ("what is d(a/b)/da, and d(a/b)/db?", "1/b and −a/b²"),
    "neg": ("what is d(−a)/da?", "−1"),
    "pow": ("what is d(x^k)/dx?", "k·x^(k−1)"),
    "relu": ("what is d relu(x)/dx, for x > 0 and for x < 0?", "1 for x > 0, 0 for x < 0"),
    "tanh": ("what is d tanh(x)/dx, written with t = tanh(x)?", "1 − t²"),
    "exp": ("what is d exp(x)/dx?", "exp(x) itself (out.data)"),
    "log": ("what is d log(x)/dx?", "1/x"),
    "sigmoid": ("what is d σ(x)/dx, written with s = σ(x)?", "s·(1 − s)"),
}

FIX = {
    "assign": "accumulate: write `child.grad += ...`, never `child.grad = ...` -- a value used twice "
    "(x·x, or x in two places) must keep every contribution",
    "missing-out-grad": "multiply by the gradient arriving at the node: `child.grad += local * out.grad`",
    "swapped-operands": "in `__mul__`'s _backward, `self.grad += other.data * out.grad` and "
    "`other.grad += self.data * out.grad` (each operand gets the OTHER one's data)",
    "sign": "mind the sign: d(a − b)/db = −1 and d(−a)/da = −1, so that operand's grad goes DOWN by out.grad",
    "power-rule": "the power rule: `self.grad += k * self.data ** (k - 1) * out.grad`",
    "relu-derivative": "`self.grad += (out.data > 0) * out.grad`: the step is 1 where the output is positive, else 0",
    "tanh-derivative": "`self.grad += (1 - t**2) * out.grad` with t = out.data (the tanh, not its input)",
    "exp-derivative": "`self.grad += out.data * out.grad`: exp is its own derivative",
    "no-backward": "attach the closure: `out._backward = _backward` before `return out` (and make it write "
    "to the operands, not to copies of them)",
    "wrong-derivative": "compare your local derivative with the one of rung 3, term by term",
    "order": "build the topological order first (each node after all its children), then call `_backward` "
    "on `reversed(topo)`, each node once",
    "set-order": "a set's order is arbitrary: build `topo` by visiting every child before the node itself "
    "(depth first), so the order is right whatever order the set gives",
    "no-seed": "start the pass with `self.grad = 1` on the output, before the loop over the nodes",
    "not-zeroed": "zero_grad() must set the grad of EVERY node of the graph to 0, not only the leaves",
    "topo-sort": "in your topological sort, visit every child BEFORE appending the node itself, and skip a node "
    "already visited: then each node comes once, after all its inputs",
    "raised": "read the error: your code raised while computing the gradient -- the line it names is the bug",
    "forward": "fix the forward pass first: compute the op's value exactly as its formula says (a wrong "
    "forward makes every gradient through it wrong too), then check its _backward against the new value",
    "wrong-result": "step your backward pass node by node (python main.py --debug-engine FILE) and compare "
    "each grad with the chain rule",
}

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
    formula = {"sigmoid": "1/(1 + e^(−x))", "tanh": "(e^(2x) − 1)/(e^(2x) + 1)", "relu": "max(0, x)", "exp": "e^x"}
    ask = f"Question: what is the formula of {op}" + (f"? (It is {formula[op]}.)" if op in formula else "?")
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
    """The first `n` rungs (0 to 4)."""
    return ladder(fault)[: max(0, min(RUNGS, n))]
