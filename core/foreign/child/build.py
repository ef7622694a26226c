"""Building a test expression with the learner's class, from plain data.

The studio (the parent process) sends each test as a *program*: steps in
order, each a leaf or one Python operation on earlier steps and numbers,

    {"id": "x", "leaf": 2.0}
    {"id": "t1", "call": "mul", "args": ["x", "y"]}        x * y
    {"id": "t2", "call": "sub", "args": [{"n": 1.0}, "x"]}  1.0 - x   (their __rsub__)
    {"id": "t3", "call": "pow", "args": ["x", {"n": -1}]}   x ** -1
    {"id": "t4", "method": "tanh", "args": ["x"]}           x.tanh()

`call` names a function of Python's `operator` module, `method` one of their
methods: the child knows Python, not what the ops mean -- their derivatives,
the verdict, the words of a report all stay in the parent, out of reach of
the learner's code.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

CALLS: dict[str, Callable[..., Any]] = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "truediv": operator.truediv,
    "pow": operator.pow,
    "neg": operator.neg,
    "abs": operator.abs,
}


def apply(step: dict[str, Any], args: list[Any]) -> Any:
    """Run one step's operation on `args` (their Values and plain numbers)."""
    if "method" in step:
        return getattr(args[0], step["method"])(*args[1:])
    return CALLS[step["call"]](*args)


def arguments(step: dict[str, Any], made: dict[str, Any]) -> list[Any]:
    """The step's arguments: earlier steps' Values, or numbers ({"n": 2.0})."""
    return [made[a] if isinstance(a, str) else a["n"] for a in step.get("args", ())]


def build(program: dict[str, Any], leaf: Callable[[float, str], Any], at: dict[str, float] | None = None) -> dict:
    """Every step of `program` made with their class: {step id: Value}. `leaf(x, name)`
    makes a leaf; `at` overrides leaves' numbers (a nudged point)."""
    made: dict[str, Any] = {}
    for step in program["steps"]:
        if "leaf" in step:
            x = step["leaf"] if at is None or step["id"] not in at else at[step["id"]]
            made[step["id"]] = leaf(x, step["id"])
        else:
            made[step["id"]] = apply(step, arguments(step, made))
    return made
