"""Regularization: a price on big weights, added to the loss.

Training minimises `data_loss + penalty`, and the penalty grows with the
weights, so the optimizer only lets a weight grow when that pays off on the
data. Two penalties, as in TensorFlow Playground (none, L1 or L2, each with
its rate alpha):

    L2   alpha * sum(w^2)     d/dw = 2 * alpha * w     shrinks big weights most,
                                                       rarely to exactly 0
    L1   alpha * sum(|w|)     d/dw = alpha * sign(w)   the same pull on every weight,
                                                       so small ones reach 0: a sparse net

A TrainConfig has both rates, `l2_alpha` and `l1_alpha` (0 means off); the
panel offers one at a time. The penalty is built from Value ops, so backward
differentiates it with everything else: |w| is written relu(w) + relu(-w),
which is w for w > 0 and -w for w < 0 (at 0 both relus pass no gradient, so
an L1 weight at exactly 0 stays put).

The float versions give the same numbers without a graph (test losses, the
batched replay).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from core.engine import Value
from core.losses import l2_floats, l2_regularization

# The choices the panel offers, in its order.
REGULARIZATIONS = ("none", "L1", "L2")


def l1_regularization(params: Iterable[Value], alpha: float) -> Value:
    """alpha * sum(|p|), with |p| = relu(p) + relu(-p) so that it is made of Value ops.
    The sum starts from Value(0.0), as core.losses.l2_regularization's does, so a model
    without parameters still gets a Value (with backward()), not the number 0.0."""
    return alpha * sum((p.relu() + (-p).relu() for p in params), Value(0.0))


def l1_floats(numbers: Iterable[float], alpha: float) -> float:
    """alpha * sum(|w|) of plain floats, the same arithmetic as l1_regularization."""
    return alpha * sum((w if w > 0.0 else 0.0) + (-w if -w > 0.0 else 0.0) for w in numbers)


def penalty(params: Sequence[Value], l1_alpha: float, l2_alpha: float) -> Value | None:
    """The Value penalty of a config's rates, or None when both are 0."""
    terms: list[Value] = []
    if l2_alpha > 0:
        terms.append(l2_regularization(params, l2_alpha))
    if l1_alpha > 0:
        terms.append(l1_regularization(params, l1_alpha))
    if not terms:
        return None
    return terms[0] if len(terms) == 1 else terms[0] + terms[1]


def penalty_floats(numbers: Sequence[float], l1_alpha: float, l2_alpha: float) -> float:
    """`penalty` on plain floats: 0.0 when both rates are 0."""
    total = 0.0
    if l2_alpha > 0:
        total += l2_floats(numbers, l2_alpha)
    if l1_alpha > 0:
        total += l1_floats(numbers, l1_alpha)
    return total


def choice_of(l1_alpha: float, l2_alpha: float) -> str:
    """The panel's choice for a config's rates: 'L2' if L2 is on, else 'L1' if L1 is, else 'none'."""
    if l2_alpha > 0:
        return "L2"
    return "L1" if l1_alpha > 0 else "none"


def rates_for(choice: str, rate: float) -> dict[str, float]:
    """The config's two rates for the panel's choice and its one rate box: {l1_alpha, l2_alpha}."""
    if choice not in REGULARIZATIONS:
        raise ValueError(f"regularization: unknown {choice!r}; choose one of {', '.join(REGULARIZATIONS)}")
    return {"l1_alpha": rate if choice == "L1" else 0.0, "l2_alpha": rate if choice == "L2" else 0.0}
