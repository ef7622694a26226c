"""Gradient checking: does backprop agree with nudging the inputs?

The derivative df/dx is the slope of f when x alone moves. A central finite
difference measures that slope directly, without any chain rule:

    df/dx ≈ (f(x + h) - f(x - h)) / 2h

Its error shrinks like h², so with h ≈ 1e-5 it agrees with an analytic
gradient to ~1e-8 on smooth functions. Where it disagrees, either the backward
pass has a bug or f is not smooth at x (relu at 0, log near 0).

`gradcheck(root)` nudges every leaf of root's graph in turn, re-runs the
forward pass of the existing graph (`engine.recompute`), and compares with the
grads `backward()` gives. The graph is left exactly as it was found: data
restored, grads those of a fresh backward pass.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from core import ops
from core.engine import recompute, topological_order

if TYPE_CHECKING:
    from core.engine import Value


class LeafCheck:
    __slots__ = ("leaf", "analytic", "numeric", "rel_error", "ok")

    def __init__(self, leaf: Value, analytic: float, numeric: float, rel_error: float, ok: bool) -> None:
        self.leaf = leaf
        self.analytic = analytic
        self.numeric = numeric
        self.rel_error = rel_error
        self.ok = ok

    def __repr__(self) -> str:
        return (
            f"LeafCheck({self.leaf.label or '?'}: analytic={self.analytic:.6g}, "
            f"numeric={self.numeric:.6g}, rel_error={self.rel_error:.2g})"
        )


def relative_error(a: float, b: float) -> float:
    """|a - b| / max(|a|, |b|, 1): relative for large values, absolute near 0."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return 0.0 if a == b else math.inf
    return abs(a - b) / max(abs(a), abs(b), 1.0)


def gradcheck(
    root: Value, h: float = 1e-5, tolerance: float = 1e-5, leaves: Sequence[Value] | None = None
) -> list[LeafCheck]:
    """[LeafCheck] for every leaf of root's graph (or the given leaves)."""
    order = topological_order(root)
    if leaves is None:
        leaves = [node for node in order if not node._prev]
    ops = [node for node in order if node._prev]

    for node in order:  # analytic grads from a clean backward pass
        node.grad = 0.0
    root.backward()
    analytic = [leaf.grad for leaf in leaves]
    grads = [node.grad for node in order]

    checks = []
    for leaf, grad in zip(leaves, analytic):
        x = leaf.data
        leaf.data = x + h
        recompute(root, ops)
        f_plus = root.data
        leaf.data = x - h
        recompute(root, ops)
        f_minus = root.data
        leaf.data = x
        numeric = (f_plus - f_minus) / (2.0 * h)
        error = relative_error(grad, numeric)
        checks.append(LeafCheck(leaf, grad, numeric, error, error <= tolerance))

    recompute(root, ops)
    for node, grad in zip(order, grads):
        node.grad = grad
    return checks


# -----------------------------------------------------------------------------
# What the check says


def verdict(checks: Sequence[LeafCheck], root: Value, name: Callable[[Value], str] | None = None) -> str:
    """The check's one-paragraph summary, blaming what is to blame.

    A leaf that differs has three possible causes, and only one of them is a
    `_backward`: f is not defined at the inputs (y / x at x = 0: the finite
    difference straddles a pole, so the two slopes cannot agree -- the input's
    fault), f has a kink there (relu at 0), or a `_backward` is wrong."""
    name = name or (lambda v: v.label or "?")
    n = len(checks)
    bad = [c for c in checks if not c.ok]
    if not bad:
        worst = max((c.rel_error for c in checks), default=0.0)
        return f"All {n} leaves agree: backprop matches the finite differences (largest relative error {worst:.1e})."
    differ = f"{len(bad)} of {n} leaves differ (red)."
    pole = undefined_at(root, name)
    if pole is not None:
        return (
            f"{differ} No _backward is to blame: {pole}, so neither slope means anything at these inputs. "
            f"Change the input."
        )
    return f"{differ} Either a _backward is wrong, or the function is not smooth there (relu at 0, log near 0)."


def undefined_at(root: Value, name: Callable[[Value], str]) -> str | None:
    """Where the forward pass first leaves the numbers: 'y / x divides by x = 0',
    'log(x) needs x > 0, and x = -1' -- or None when every node's data is finite."""
    for node in topological_order(root):
        if math.isfinite(node.data) or not all(math.isfinite(c.data) for c in node._prev):
            continue
        children = list(node._prev)
        try:
            op, param = ops.lookup(node._op)
        except ValueError:
            op, param = None, None
        said = name(node)
        if op is ops.DIV and len(children) == 2 and children[1].data == 0:
            return f"{said} divides by {name(children[1])} = 0"
        if op is ops.POW and param is not None and param < 0 and children[0].data == 0:
            return f"{said} raises {name(children[0])} = 0 to the power {ops.short_number(param)}"
        if op is ops.LOG and children and children[0].data <= 0:
            return f"{said} needs {name(children[0])} > 0, and {name(children[0])} = {children[0].data!r}"
        return f"{said} is {node.data!r} at these inputs"
    return None
