"""Judging a learner's engine by what it computes.

A learner's engine is right or wrong by one thing: the gradients its own
`backward()` leaves behind. Not by how the studio reads its shape -- an `_op`
may be a label only (`__sub__` as `self + (-other)` labelled '-'), a tanh may
be fused out of smaller ops, a class may keep its children under a name of its
own. So, for one test expression (a battery `Case`):

    1. build it with the STUDIO's engine, run backward(): the reference grads
       of every named value (the leaves, and interior values the case names);
    2. build it with THEIR class and run THEIR backward() -- several times, on
       fresh objects at fresh addresses, because a walk that follows a set's
       iteration order is right in some runs and wrong in others;
    3. compare each named value's grad, in their number type's tolerance.

    pass        every named grad agrees, in every run
    fail        a grad disagrees: `wrong` lists them (name, expected, got); the
                stepping of `check.py` then LOCATES and EXPLAINS it
    unstable    runs disagree with each other: their walk depends on set order
    error       their code raised while building or running the expression
    unchecked   nothing could be compared (say why, never call it right)

A class without `backward()` is judged by its `_backward`s run in a correct
order (`check.py` does that); this module then returns None.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.foreign.battery import Case
from core.foreign.diagnosis import close
from core.foreign.shapes import Shape, backward_of, children, tolerance

REPEATS = 8  # runs of their backward() per expression: a set-order walk shows in some of them


def named_values(case: Case, make: Callable[[Any], Any], V: type) -> tuple[Any, dict[str, Any], set[str]]:
    """Build `case` with `make(number)` for leaves; (root, {name: value}, interior names)."""
    named: dict[str, Any] = {}
    interior: set[str] = set()

    def leaf(x: Any, name: str) -> Any:
        if isinstance(x, V):
            interior.add(name)
            value = x
        else:
            value = make(x)
        if name not in named:
            named[name] = value
        return value

    root = case.build(leaf)
    return root, named, interior


def reference(case: Case) -> dict[str, float]:
    """{name: grad} of the case built with the studio's own engine."""
    from core.engine import Value

    root, named, _ = named_values(case, lambda x: Value(float(x)), Value)
    root.backward()
    return {name: float(v.grad) for name, v in named.items()}


def _their_run(
    V: type, shape: Shape, case: Case, kept: list[Any], ballast: int
) -> tuple[dict[str, float], set[str], Any]:
    """Build with their class at fresh addresses, run their backward(); ({name: grad},
    interior names, a grad of theirs). `kept` holds every earlier run's objects and
    `ballast` more, so that no run reuses the memory (and the set order) of another."""
    kept.extend(V(0.0) for _ in range(ballast))
    root, named, interior = named_values(case, V, V)
    kept.append(root)
    if ballast % 3:
        reorder_sets(root, ballast % 3)
    backward_of(root)()
    grads = {}
    for name, value in named.items():
        g = getattr(value, shape.grad, None)
        if name in interior and g is None:
            continue  # MiniTorch keeps no interior derivatives
        grads[name] = shape.read_grad(value)
    sample = getattr(root, shape.grad, None)
    return grads, interior, sample


class _SetInOrder(set):
    """A set of their children that iterates in an order the studio chooses."""

    def __init__(self, items: list[Any]) -> None:
        super().__init__(items)
        self._order = items

    def __iter__(self):
        return iter(self._order)


def reorder_sets(root: Any, mode: int) -> None:
    """Make every set of children in the graph iterate reversed (mode 1) or rotated by
    one (mode 2): a walk that is right only in some set orders is wrong in one of these,
    in every run -- no luck with memory addresses needed."""
    seen, stack = {id(root)}, [root]
    while stack:
        value = stack.pop()
        kids, ordered, where = children(value)
        if not ordered and where and len(kids) > 1:
            order = kids[::-1] if mode == 1 else kids[1:] + kids[:1]
            try:
                setattr(value, where, _SetInOrder(order))
            except (AttributeError, TypeError):
                pass
        for kid in kids:
            if id(kid) not in seen:
                seen.add(id(kid))
                stack.append(kid)


def judge(V: type, shape: Shape, case: Case, repeats: int = REPEATS) -> dict[str, Any] | None:
    """The verdict on `case` from their backward()'s results (see the module
    docstring), or None when the class has no backward() to run."""
    if backward_of(V(1.0)) is None:
        return None
    want = reference(case)
    runs: list[dict[str, float]] = []
    sample: Any = None
    kept: list[Any] = []
    for i in range(repeats):
        try:
            got, _, sample = _their_run(V, shape, case, kept, i)
        except RecursionError as e:
            return {"status": "error", "error": f"your backward() recursed too deep: {e}"[:300]}
        except Exception as e:  # noqa: BLE001 -- their code
            where = "building the expression or running your backward()"
            return {"status": "error", "error": f"{where} raised {type(e).__name__}: {e}"[:500]}
        runs.append(got)
    rel, abs_ = tolerance(sample)
    compared = [n for n in want if n in runs[0]]
    if not compared:
        return {"status": "unchecked", "why": "no value of the expression has a grad the studio can read"}
    differing = [i for i in range(1, len(runs)) if any(not close(runs[i][n], runs[0][n], rel, abs_) for n in compared)]
    wrong_runs = [i for i, run in enumerate(runs) if any(not close(run[n], want[n], rel, abs_) for n in compared)]
    first = runs[wrong_runs[0]] if wrong_runs else runs[0]
    wrong = [
        {"name": n, "expected": want[n], "got": first[n]} for n in compared if not close(first[n], want[n], rel, abs_)
    ]
    result: dict[str, Any] = {"compared": compared, "tolerance": [rel, abs_], "runs": len(runs)}
    if differing:
        result.update(
            status="unstable",
            wrong=wrong,
            bad_runs=len(wrong_runs),
            why=(
                f"your backward() gives different grads from run to run ({len(wrong_runs)} of {len(runs)} runs "
                f"wrong): it depends on the order of a set -- build the topological order by visiting each "
                f"node's children before the node itself, whatever order the set gives them in"
            ),
        )
    elif wrong:
        result.update(status="fail", wrong=wrong)
    else:
        result.update(status="pass")
    return result


def wrong_text(wrong: list[dict[str, Any]]) -> str:
    """'x.grad is 3, should be 5; y.grad is 0, should be -2' (the first three)."""
    return "; ".join(f"{w['name']}.grad is {w['got']:.6g}, should be {w['expected']:.6g}" for w in wrong[:3])
