"""Run health: dead ReLUs, an exploded loss and a stalled one are noticed and said in plain words."""

import numpy as np
import pytest

from core.training import health
from core.training.config import MICROGRAD_DEMO
from core.training.events import Progress
from core.training.health import STALL_WINDOW, HealthWatch
from core.training.loop import train
from core.training.trainer import Trainer

# -----------------------------------------------------------------------------
# the checks on plain numbers


def test_a_layer_is_dead_only_if_no_relu_of_it_is_active_anywhere():
    alive = np.array([[0.0, 0.0], [0.0, 0.3]])
    dead = np.zeros((2, 2))
    assert health.dead_layers([alive, dead], ("relu", "relu")) == [2]
    assert health.dead_layers([dead, dead], ("tanh", "relu")) == [2]  # tanh outputs 0 at 0 but is not dead
    assert health.dead_layers([alive], ("relu",)) == []


def test_a_loss_up_a_hundredfold_has_exploded():
    watch = HealthWatch(("tanh",), (4,))
    assert watch.update(0, 0.9, 1.0) == ""
    assert watch.update(1, 50.0, 1.0) == ""
    text = watch.update(2, 124.0, 1.0)
    assert text.startswith("The loss exploded: it grew to over 100 times its value at step 0 (0.9000)")
    assert watch.update(3, 125.0, 1.0) == text  # the same words while it holds: no relayout per step
    assert "learning rate (1) is too high" in text and "Try 0.1 or less" in text


def test_a_flat_loss_far_from_zero_has_stalled_and_a_falling_or_small_one_has_not():
    flat = HealthWatch((), ())
    texts = [flat.update(k, 0.5, 0.1) for k in range(2 * STALL_WINDOW)]
    assert texts[STALL_WINDOW - 1] == ""  # a full window after the first one is needed
    assert texts[-1].startswith("The loss has stalled: less than 1% better over the last 100 steps")
    falling = HealthWatch((), ())
    assert not any(falling.update(k, 1.0 / (k + 1), 0.1) for k in range(3 * STALL_WINDOW))
    near_zero = HealthWatch((), ())
    assert not any(near_zero.update(k, 1.0 if k == 0 else 1e-3, 0.1) for k in range(3 * STALL_WINDOW))


# -----------------------------------------------------------------------------
# on real runs


def test_lr_10_on_moons_says_the_relus_died():
    """issue 17: lr 10 killed every ReLU of a layer silently (loss 4.4 M, 50 %)."""
    trainer = Trainer(MICROGRAD_DEMO.replace(lr=10.0))
    progress = [trainer.step() for _ in range(10)]
    assert progress[0].warning == ""
    assert "Every ReLU in hidden layer 2 (16 neurons) is dead" in progress[-1].warning
    assert "Try a smaller learning rate (it is 10)" in progress[-1].warning
    events = list(train(MICROGRAD_DEMO.replace(lr=10.0, steps=20)))
    last = [e for e in events if isinstance(e, Progress)][-1]
    assert events[-1].status == "finished" and "is dead" in last.warning and "exploded" in last.warning


def test_dead_relus_are_seen_with_mini_batches_too():
    trainer = Trainer(MICROGRAD_DEMO.replace(lr=10.0, batch_size=20))
    warnings = [trainer.step().warning for _ in range(30)]
    assert any("is dead" in w for w in warnings)


def test_the_micrograd_demo_gets_no_warning():
    trainer = Trainer(MICROGRAD_DEMO)
    assert [p.warning for p in (trainer.step() for _ in range(100)) if p.warning] == []


def test_a_diverged_run_says_what_happened_and_what_to_try():
    trainer = Trainer(MICROGRAD_DEMO.replace(lr=1e6, loss="mse"))
    while not trainer.diverged:
        trainer.step()
    assert trainer.diverged.startswith("The run diverged: the loss became inf at step 3")
    assert "The learning rate (1e+06) is too high" in trainer.diverged and "Try 100000 or less" in trainer.diverged


@pytest.mark.parametrize("dataset", ["plane", "multi-gaussian"])
def test_a_regression_run_reports_its_loss_without_an_accuracy(dataset):
    result = list(train(MICROGRAD_DEMO.replace(dataset=dataset, loss="mse", lr=0.1, steps=5)))[-1]
    assert result.message.startswith("finished 5 steps: loss ") and "accuracy" not in result.message
