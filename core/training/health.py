"""Run health: noticing, step by step, that a run has gone wrong, and saying so in plain words.

A curve that flattens at a loss of 4.4 million looks like a run that is
merely slow. Three ways a run goes wrong are easy to see from numbers the
trainer already has, and each has a usual cure:

1. Dead ReLUs. A ReLU passes a gradient only where its input is > 0. If a
   big update pushes every neuron of a hidden layer below 0 on every training
   point, the whole layer outputs 0 everywhere: no gradient reaches anything
   before it, the network's output is a constant, and no later step can
   revive it (only the L2 penalty still shrinks the weights). The cure is a
   smaller learning rate, or other initial weights.

       dead: for every neuron n of a ReLU layer, max over the points of out_n == 0

2. An exploded loss. Steps too big for the curvature of the loss overshoot
   the valley, each overshoot bigger than the last: the loss grows by orders
   of magnitude instead of shrinking. (When it overflows to inf or nan the
   trainer stops the run; this warns before.)

       exploding: loss > EXPLODE_FACTOR * the loss at the first step watched

3. A stalled loss. The loss has not improved by even STALL_IMPROVEMENT over
   the last STALL_WINDOW steps, while it is still far from 0 (above
   FAR_FROM_ZERO of where it started). The learning rate may be too small,
   or the network too small for the problem (a straight line cannot separate
   moons).

       stalled: min(last window) > (1 - STALL_IMPROVEMENT) * min(everything before it)

`HealthWatch` keeps what these need -- the first loss, the best loss before
the window, the window itself -- and `update` returns the current warnings as
one text ("" when all is well) that names no changing number, so it stays the
same while it holds. The trainer calls it every step and puts the text on that
step's Progress; the app shows it while it lasts.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from core.format import format_number

if TYPE_CHECKING:
    from numpy.typing import NDArray

STALL_WINDOW = 100  # steps
STALL_IMPROVEMENT = 0.01  # 1 %
FAR_FROM_ZERO = 0.05  # of the first loss
EXPLODE_FACTOR = 100.0

# -----------------------------------------------------------------------------
# the three checks, on plain numbers


def dead_layers(layer_outputs: Iterable[NDArray[np.float64]], activations: Iterable[str]) -> list[int]:
    """The hidden layers (numbered from 1) whose activation is relu and whose every neuron
    outputs 0 on every point. `layer_outputs`: one (layer_size, n_points) array per hidden layer."""
    dead = []
    for number, (outputs, name) in enumerate(zip(layer_outputs, activations), start=1):
        if name == "relu" and outputs.size and not np.any(outputs > 0.0):
            dead.append(number)
    return dead


def exploding(first_loss: float | None, loss: float) -> bool:
    """The loss grew by more than EXPLODE_FACTOR times since the first step watched."""
    return first_loss is not None and loss > EXPLODE_FACTOR * max(first_loss, 1e-12)


def stalled(best_before: float | None, window: Sequence[float], first_loss: float | None) -> bool:
    """No real improvement over a full window while still far from 0 (module docstring)."""
    if best_before is None or len(window) < STALL_WINDOW or first_loss is None:
        return False
    recent = min(window)
    return recent > (1.0 - STALL_IMPROVEMENT) * best_before and recent > FAR_FROM_ZERO * first_loss


# -----------------------------------------------------------------------------
# the words


def _layers_in_words(numbers: Sequence[int], sizes: Sequence[int]) -> str:
    if len(numbers) == 1:
        n = numbers[0]
        return f"hidden layer {n} ({sizes[n - 1]} neurons)"
    return "hidden layers " + ", ".join(str(n) for n in numbers[:-1]) + f" and {numbers[-1]}"


def dead_relu_warning(numbers: Sequence[int], sizes: Sequence[int], lr: float) -> str:
    return (
        f"Every ReLU in {_layers_in_words(numbers, sizes)} is dead: none is active (> 0) on any "
        "training point, so no gradient gets through and the network cannot learn. "
        f"Try a smaller learning rate (it is {lr:g}), or Re-initialise for other initial weights."
    )


def exploding_warning(first_step: int, first_loss: float, lr: float) -> str:
    # no current loss or step in the words: the text stays the same while it holds, so the
    # banner showing it is not laid out again at every step
    return (
        f"The loss exploded: it grew to over {EXPLODE_FACTOR:g} times its value at step {first_step} "
        f"({format_number(first_loss)}). The learning rate ({lr:g}) is too high: each step overshoots. "
        f"Try {lr / 10:g} or less, or Adam."
    )


def stalled_warning() -> str:
    return (
        f"The loss has stalled: less than {STALL_IMPROVEMENT:.0%} better over the last {STALL_WINDOW} steps, "
        "and far from 0. Try a larger learning rate or Adam, more neurons or hidden layers, or other "
        "input features."
    )


def diverged_message(what: str, step: int, first_step: int | None, first_loss: float | None, lr: float) -> str:
    """The trainer's word when the loss (or a weight) stops being a number: what happened, and what to try."""
    before = f" (the loss was {format_number(first_loss)} at step {first_step})" if first_loss is not None else ""
    return (
        f"The run diverged: {what} at step {step}{before}. The learning rate ({lr:g}) is too high: "
        f"the steps overshoot, ever further, until the numbers overflow. Try {lr / 10:g} or less, or Adam"
    )


# -----------------------------------------------------------------------------
# watching a run


class HealthWatch:
    """The memory the checks need, fed one step at a time (module docstring)."""

    def __init__(self, activations: Iterable[str], sizes: Iterable[int]) -> None:
        self.activations = tuple(activations)  # one name per hidden layer
        self.sizes = tuple(sizes)
        self.first_step: int | None = None
        self.first_loss: float | None = None
        self.best_before: float | None = None  # the lowest loss before the window
        self.window: deque[float] = deque(maxlen=STALL_WINDOW)
        self.dead: list[int] = []  # the dead ReLU layers at the last check

    @property
    def watches_relus(self) -> bool:
        return "relu" in self.activations

    def update(
        self, step: int, loss: float, lr: float, layer_outputs: Sequence[NDArray[np.float64]] | None = None
    ) -> str:
        """The warnings after a step with this (finite) loss, as one text; "" when all is well.
        `layer_outputs` (one (size, n_points) array per hidden layer), when given, is checked
        for dead ReLUs."""
        if self.first_step is None or self.first_loss is None:  # (they are set together)
            self.first_step, self.first_loss = step, loss
        if len(self.window) == self.window.maxlen:
            oldest = self.window[0]
            self.best_before = oldest if self.best_before is None else min(self.best_before, oldest)
        self.window.append(loss)
        warnings = []
        if layer_outputs is not None:
            self.dead = dead_layers(layer_outputs, self.activations)
        if self.dead:
            warnings.append(dead_relu_warning(self.dead, self.sizes, lr))
        if exploding(self.first_loss, loss):
            warnings.append(exploding_warning(self.first_step, self.first_loss, lr))
        elif stalled(self.best_before, self.window, self.first_loss):
            warnings.append(stalled_warning())
        return "\n".join(warnings)
