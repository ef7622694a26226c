"""Loss functions: one number that says how wrong the model is, as a `Value`.

Training minimises a loss, so the loss must be built from `Value` operations:
then `loss.backward()` tells every weight which way to move. Each loss here
takes the model's raw scores (a list of Values, one per example) and the labels
(a list of numbers), and averages a per-example penalty:

    hinge   relu(1 - y*s)                 y in {-1, +1}  (micrograd's demo)
    mse     (s - y)^2                     y any number; for classes, -1/+1
    bce     -log sigmoid(y*s)             y in {-1, +1}  (0 also means negative)

A score s > 0 means "class +1". The hinge loss is zero once an example is on
the right side with a margin (y*s >= 1); binary cross-entropy treats s as a
logit, log(p / (1 - p)), and keeps pushing, ever more gently.

`l2_regularization` adds alpha * sum(w^2), which prefers small weights and so
smoother decision boundaries. `accuracy` is not a loss (it has no useful
gradient) and returns a plain float.

Each loss also has a float version (`loss_floats`, `l2_floats`) doing the same
arithmetic in the same order, so it gives the very same number without
building a graph -- for evaluating a held-out test set.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from core.engine import Value

# -----------------------------------------------------------------------------
# helpers


def _mean(terms: Sequence[Value]) -> Value:
    # the same shape as micrograd's demo: sum(losses) * (1.0 / len(losses))
    if not terms:
        raise ValueError("a loss needs at least one example")
    return sum(terms) * (1.0 / len(terms))  # type: ignore[return-value]  # 0 + Value is a Value


def _check_lengths(scores: Sequence[object], labels: Sequence[float]) -> None:
    if len(scores) != len(labels):
        raise ValueError(f"{len(scores)} scores but {len(labels)} labels")


def _sign(y: float) -> float:
    """A class label as -1.0 / +1.0, so 0/1 labels work too."""
    return 1.0 if y > 0 else -1.0


# -----------------------------------------------------------------------------
# the losses (Values in, a Value out)


def hinge_loss(scores: Sequence[Value], labels: Sequence[float]) -> Value:
    """mean(relu(1 - y*s)) over the examples, labels -1/+1 (0 is taken as -1)."""
    _check_lengths(scores, labels)
    return _mean([(1 + -_sign(y) * s).relu() for s, y in zip(scores, labels)])


def mse_loss(scores: Sequence[Value], targets: Sequence[float]) -> Value:
    """mean((s - y)^2): the targets are used as given, so pass -1/+1 for classes."""
    _check_lengths(scores, targets)
    return _mean([(s - float(y)) ** 2 for s, y in zip(scores, targets)])


def _softplus(z: Value) -> Value:
    """log(1 + e^z) for a Value z, never overflowing.

    For z > 0 we use the identity log(1 + e^z) = z + log(1 + e^-z), so exp only
    ever sees a number <= 0. Choosing the branch by z's data is exact: both
    forms are the same smooth function, so the gradient (sigmoid(z)) is right
    everywhere, z = 0 included -- unlike relu(z) + log(1 + e^-|z|), whose kinks
    have a zero derivative at 0.
    """
    if z.data > 0.0:
        return z + (1 + (-z).exp()).log()
    return (1 + z.exp()).log()


def bce_loss(logits: Sequence[Value], labels: Sequence[float]) -> Value:
    """Binary cross-entropy on logits: mean(log(1 + e^(-y*s))), labels -1/+1 (0 is taken as -1).

    With t = (y + 1) / 2 in {0, 1} and p = sigmoid(s) this is the familiar
    -[t log p + (1 - t) log(1 - p)], which also equals the textbook stable form
    max(s, 0) - s*t + log(1 + e^-|s|). Computed through `_softplus`, no exp can
    overflow and no log sees 0, however large |s| grows.
    """
    _check_lengths(logits, labels)
    return _mean([_softplus(s * -_sign(y)) for s, y in zip(logits, labels)])


def l2_regularization(params: Iterable[Value], alpha: float) -> Value:
    """alpha * sum(p^2): the penalty that keeps weights small (micrograd's reg_loss).

    The sum starts from Value(0.0), the leaf that `0 + p*p` would make anyway, so the
    graph is micrograd's and a model without parameters still gets a Value, not 0.0.
    """
    return alpha * sum((p * p for p in params), Value(0.0))


LOSSES = {"hinge": hinge_loss, "mse": mse_loss, "bce": bce_loss}


def loss_shape(name: str, scores: Sequence[Value | float], labels: Sequence[float]) -> tuple[bool, ...] | None:
    """The choices a loss's graph made from the data, or None if it made none.

    hinge and mse build the same graph whatever the scores are (relu decides
    its derivative from data when it runs). bce does not: `_softplus` picks
    one of two forms by the sign of its input. A recorded graph (core/tape.py)
    may be replayed only while this stays the same; the trainer records anew
    when it changes.
    """
    if name != "bce":
        return None
    return tuple([_data(s) * -_sign(y) > 0.0 for s, y in zip(scores, labels)])


# -----------------------------------------------------------------------------
# accuracy and float versions (no graph)


def _data(score: Value | float) -> float:
    return score.data if isinstance(score, Value) else score


def accuracy(scores: Sequence[Value | float], labels: Sequence[float]) -> float:
    """The fraction of examples on the right side of 0: (s > 0) == (y > 0).

    Scores may be Values or floats. A plain float, not a Value.
    """
    _check_lengths(scores, labels)
    if not scores:
        return 0.0
    right = sum((_data(s) > 0) == (y > 0) for s, y in zip(scores, labels))
    return right / len(scores)


def _softplus_float(z: float) -> float:
    # log(1 + x) rather than log1p(x): the same arithmetic as the Value ops
    if z > 0.0:
        return z + math.log(1.0 + math.exp(-z))
    return math.log(1.0 + math.exp(z))


def loss_floats(name: str, scores: Sequence[float], labels: Sequence[float]) -> float:
    """The loss `name` ('hinge', 'mse' or 'bce') of float scores, as a float."""
    _check_lengths(scores, labels)
    if not scores:
        raise ValueError("a loss needs at least one example")
    if name == "hinge":
        # written as the engine's relu computes it, so both versions agree exactly
        margins = [1.0 - _sign(y) * s for s, y in zip(scores, labels)]
        terms = [m if m > 0.0 else 0.0 for m in margins]
    elif name == "mse":
        # d*d, not d**2: a float ** raises OverflowError where * gives inf
        terms = [(s - float(y)) * (s - float(y)) for s, y in zip(scores, labels)]
    elif name == "bce":
        terms = [_softplus_float(-_sign(y) * s) for s, y in zip(scores, labels)]
    else:
        raise ValueError(f"unknown loss {name!r}; choose one of {', '.join(LOSSES)}")
    return sum(terms) * (1.0 / len(terms))


def l2_floats(numbers: Iterable[float], alpha: float) -> float:
    """alpha * sum(w^2) of plain floats."""
    return alpha * sum(w * w for w in numbers)
