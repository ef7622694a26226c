"""The training loop: the one place where steps are repeated until a run ends.

    for event in train(cfg):       # builds a Trainer from the config, then runs it
        ...

    for event in run(trainer, until=500, should_stop=stop.is_set):
        ...

Both are generators of plain-data events (events.py), in this order:

    1. before each step: `should_stop()` true -> Result('stopped') and the end
       (a pause is simpler still: stop pulling events, the loop waits where it is)
    2. a Boundary, when one is due (`boundary_due(step)`)
    3. the step itself: its Progress, always
    4. a loss or weight that is no longer a finite number -> Result('diverged') and the end
    5. a Weights snapshot, when one is due (`weights_due(step)`)
    6. after `until` updates: a last Boundary and Result('finished')

Nothing else decides when a run diverges or finishes, or what it reports: the
app's worker thread (app/training/worker.py) runs this same loop -- it only
decides when to pull, with its own `should_stop` (pause, stop, a new command)
and `boundary_due` (a few per second, by the clock, while plots are live). A
headless run takes the config's cadence: a Boundary every `boundary_every`
steps, Weights every `weights_every` steps (if > 0).

`until=None` never finishes: the app's Play carries on past `cfg.steps` until
it is paused. A run over a trainer that has already diverged ends at once with
its 'diverged' Result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from core.format import format_number
from core.training.events import Result
from core.training.trainer import Trainer

if TYPE_CHECKING:
    from core.training.config import TrainConfig
    from core.training.events import Event


def every(n: int) -> Callable[[int], bool]:
    """A due-rule for `run`: true at steps 0, n, 2n, ...; never when n is 0."""
    return (lambda step: step % n == 0) if n > 0 else (lambda step: False)


def run(
    trainer: Trainer,
    until: int | None = None,
    should_stop: Callable[[], bool] | None = None,
    boundary_due: Callable[[int], bool] | None = None,
    weights_due: Callable[[int], bool] | None = None,
) -> Iterator[Event]:
    """Step `trainer` up to `until` updates in all, yielding events (see the module docstring).

    `should_stop`: a no-argument callable checked before every step (e.g. a
    `threading.Event().is_set`). `boundary_due`/`weights_due`: callables of the
    step count; by default the config's `boundary_every` and `weights_every`.
    """
    cfg = trainer.cfg
    boundary_due = boundary_due or every(cfg.boundary_every)
    weights_due = weights_due or every(cfg.weights_every)
    while until is None or trainer.steps_done < until:
        if trainer.diverged:
            yield Result("diverged", trainer.steps_done, trainer.diverged, trainer.state())
            return
        if should_stop is not None and should_stop():
            yield Result("stopped", trainer.steps_done, f"stopped after {trainer.steps_done} steps", trainer.state())
            return
        if boundary_due(trainer.steps_done):
            yield trainer.boundary()
        yield trainer.step()
        if trainer.diverged:
            yield Result("diverged", trainer.steps_done, trainer.diverged, trainer.state())
            return
        if weights_due(trainer.steps_done):
            yield trainer.weights()
    yield trainer.boundary()
    final_loss, final_acc = trainer.evaluate(trainer.train_inputs, trainer.train_labels)
    message = f"finished {trainer.steps_done} steps: loss {format_number(final_loss)}"
    if not cfg.regression:
        message += f", training accuracy {final_acc:.0%}"
    yield Result("finished", trainer.steps_done, message, trainer.state())


def train(cfg: TrainConfig, should_stop: Callable[[], bool] | None = None) -> Iterator[Event]:
    """Run a training from `cfg` for `cfg.steps` steps, yielding Progress, Boundary, Weights and a Result.

    `should_stop` is an optional no-argument callable checked before every
    step; when it returns True the run ends with a 'stopped' Result.
    """
    # a generator itself, so that even building the data happens in the consumer's thread
    trainer = Trainer(cfg)
    try:
        yield from run(trainer, until=cfg.steps, should_stop=should_stop)
    finally:
        trainer.close()
