"""What a training run reports: four kinds of event, plain data only.

The training loop (loop.py) yields these; a worker thread hands them to the
GUI. So they hold only ints, floats, strings, lists, dicts and numpy arrays --
never a `Value` -- and nothing in them changes after they are made.

    Progress(step, loss, accuracy, test_loss, test_accuracy, lr, warning)   every step
    Boundary(step, xs, ys, grid, neurons)     the model's score over a grid
    Weights(step, weights, grads)             every parameter and its gradient
    Result(status, step, message, state)      the last word: 'finished', 'diverged' or 'stopped'

"Step k" always means the model after k updates: Progress(k) measures the
loss that the (k+1)-th update then descends.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np


@dataclasses.dataclass(frozen=True)
class Progress:
    """Metrics of the model after `step` updates, on the whole training set.

    `loss` includes the L2 term (it is what the optimizer minimises); so does
    `test_loss`, so the gap between the curves is the data loss alone.
    test_loss and test_accuracy are None without a test set. `lr` is the
    learning rate of the update that follows.
    """

    step: int
    loss: float
    accuracy: float
    test_loss: float | None
    test_accuracy: float | None
    lr: float
    warning: str = dataclasses.field(default="", compare=False)  # health.py's words, "" when all is well


@dataclasses.dataclass(frozen=True, eq=False)
class Boundary:
    """The model's score over a grid: grid[j, i] is the score at (xs[i], ys[j]).

    Rows follow y, as pyqtgraph's ImageItem expects in row-major order; the
    decision boundary is where the score crosses 0. `neurons`, if requested,
    holds one array per layer, shape (layer_size, r, r): each neuron's output
    over a coarser r x r grid of the same area.
    """

    step: int
    xs: np.ndarray
    ys: np.ndarray
    grid: np.ndarray
    neurons: tuple[np.ndarray, ...] = ()


@dataclasses.dataclass(frozen=True)
class Weights:
    """Every parameter after `step` updates, and the gradient that made the last update."""

    step: int
    weights: list[list[list[float]]]  # state[layer][neuron] = [w0, ..., b], as MLP.state()
    grads: list[list[list[float]]]  # the same shape


@dataclasses.dataclass(frozen=True)
class Result:
    """How the run ended: status 'finished', 'diverged' or 'stopped', after `step` updates.

    `state` is Trainer.state(): plain lists, but a diverged run's weights may
    hold inf/nan, which strict JSON refuses.
    """

    status: str
    step: int
    message: str
    state: dict[str, Any]


# what `loop.run` yields
Event = Progress | Boundary | Weights | Result
