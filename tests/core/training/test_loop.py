"""The one training loop: train(cfg) and run(trainer, ...) as streams of plain-data events."""

import dataclasses
import json
import math
import threading

import numpy as np
import pytest

from core.engine import Value
from core.training.config import MICROGRAD_DEMO, TrainConfig
from core.training.events import Boundary, Progress, Result, Weights
from core.training.loop import every, train
from core.training.loop import run as run_loop
from core.training.trainer import Trainer

SMALL = TrainConfig(
    dataset="moons",
    n_samples=40,
    hidden_sizes=(8,),
    steps=30,
    lr=0.5,
    test_ratio=0.25,
    boundary_every=10,
    boundary_resolution=12,
)


def run(cfg, **kwargs):
    return list(train(cfg, **kwargs))


def progresses(events):
    return [e for e in events if isinstance(e, Progress)]


# -----------------------------------------------------------------------------
# micrograd's demo, and learning


def test_micrograd_demo_reaches_full_training_accuracy():
    # ~10-20 s: 100 full-batch steps over ~66 000-node graphs
    events = run(MICROGRAD_DEMO)
    result = events[-1]
    assert result.status == "finished" and result.step == 100
    steps = progresses(events)
    assert len(steps) == 100
    assert [p.lr for p in steps[:2]] == [1.0, pytest.approx(1.0 - 0.9 / 100)]
    assert steps[-1].accuracy == 1.0
    assert steps[-1].loss < 0.1 * steps[0].loss
    assert "100%" in result.message


def test_loss_falls_on_xor():
    cfg = TrainConfig(
        dataset="xor",
        n_samples=60,
        noise=0.0,
        hidden_sizes=(8,),
        activation="tanh",
        optimizer="adam",
        lr=0.05,
        lr_decay=0.0,
        steps=60,
        boundary_every=100,
    )
    steps = progresses(run(cfg))
    assert steps[-1].loss < 0.5 * steps[0].loss
    assert steps[-1].accuracy >= 0.9


def test_loss_falls_on_moons_with_minibatches_and_a_test_set():
    cfg = SMALL.replace(batch_size=10, momentum=0.5, lr=0.2, steps=60, boundary_every=100)
    steps = progresses(run(cfg))
    assert steps[-1].loss < steps[0].loss
    assert steps[-1].test_loss is not None and 0.0 <= steps[-1].test_accuracy <= 1.0


@pytest.mark.parametrize("loss", ["hinge", "mse", "bce"])
def test_every_loss_trains(loss):
    steps = progresses(run(SMALL.replace(loss=loss, lr=0.1, boundary_every=100)))
    assert all(math.isfinite(p.loss) for p in steps)
    assert steps[-1].loss < steps[0].loss


def test_features_let_a_tiny_net_solve_circles():
    cfg = TrainConfig(
        dataset="circles",
        n_samples=60,
        noise=0.0,
        features=("x1^2", "x2^2"),
        hidden_sizes=(),
        loss="bce",
        l2_alpha=0.0,
        optimizer="adam",
        lr=0.1,
        lr_decay=0.0,
        steps=150,
        boundary_every=1000,
    )
    assert progresses(run(cfg))[-1].accuracy == 1.0


# -----------------------------------------------------------------------------
# events


def test_event_stream_shape():
    events = run(SMALL)
    boundaries = [e for e in events if isinstance(e, Boundary)]
    assert [b.step for b in boundaries] == [0, 10, 20, 30]  # step 0, every 10, and the end
    b = boundaries[0]
    assert b.grid.shape == (12, 12) and len(b.xs) == len(b.ys) == 12
    assert np.all(np.diff(b.xs) > 0) and np.all(np.diff(b.ys) > 0)
    assert [p.step for p in progresses(events)] == list(range(30))
    assert isinstance(events[-1], Result)
    assert sum(isinstance(e, Result) for e in events) == 1


def test_neuron_heatmaps_and_weights_snapshots():
    events = run(SMALL.replace(neuron_resolution=5, weights_every=10, steps=20))
    b = next(e for e in events if isinstance(e, Boundary))
    assert [n.shape for n in b.neurons] == [(8, 5, 5), (1, 5, 5)]
    weights = [e for e in events if isinstance(e, Weights)]
    assert [w.step for w in weights] == [10, 20]
    assert len(weights[0].weights) == 2 and len(weights[0].grads[0]) == 8


def test_events_are_plain_data():
    def check(x):
        assert not isinstance(x, Value)
        if isinstance(x, (list, tuple)):
            for item in x:
                check(item)
        elif isinstance(x, dict):
            for item in x.values():
                check(item)
        elif dataclasses.is_dataclass(x):
            for field in dataclasses.fields(x):
                check(getattr(x, field.name))
        else:
            assert x is None or isinstance(x, (int, float, str, np.ndarray))

    for event in run(SMALL.replace(weights_every=5, neuron_resolution=3)):
        check(event)


def test_final_state_is_json_ready():
    result = run(SMALL)[-1]
    json.dumps(result.state, allow_nan=False)


# -----------------------------------------------------------------------------
# divergence and stopping


def test_a_huge_learning_rate_diverges_with_a_message():
    events = run(MICROGRAD_DEMO.replace(lr=1e6, lr_decay=0.0, n_samples=20, hidden_sizes=(8,)))
    result = events[-1]
    assert result.status == "diverged"
    assert result.step < 100
    # issue 17: what happened, and what to try, in plain words
    assert "The run diverged: the loss became" in result.message
    assert "The learning rate (1e+06) is too high" in result.message and "Try 100000 or less" in result.message
    assert isinstance(events[-2], Progress)


def test_should_stop_ends_the_run():
    calls = []

    def should_stop():
        calls.append(1)
        return len(calls) > 3

    result = run(SMALL, should_stop=should_stop)[-1]
    assert result.status == "stopped" and result.step == 3


def test_a_non_finite_loss_stops_the_loop_with_diverged_after_its_progress():
    trainer = Trainer(SMALL)
    trainer.model.layers[1].neurons[0].b.data = math.inf
    events = list(run_loop(trainer, until=30))
    assert [type(e) for e in events] == [Boundary, Progress, Result]
    assert math.isinf(events[1].loss) or math.isnan(events[1].loss)
    assert events[-1].status == "diverged" and events[-1].step == 0
    assert "The learning rate (0.5) is too high" in events[-1].message


def test_a_diverged_trainer_ends_at_once():
    trainer = Trainer(SMALL)
    trainer.diverged = "loss became nan at step 3"
    events = list(run_loop(trainer, until=30))
    assert len(events) == 1 and events[0].status == "diverged" and events[0].message == trainer.diverged


def test_stop_from_another_thread_with_an_event():
    """A consumer on its own thread, stopped by a threading.Event that another thread sets."""
    stop = threading.Event()
    seen = []

    def consume():
        for event in train(SMALL.replace(steps=10**6, boundary_every=1000), should_stop=stop.is_set):
            seen.append(event)
            if isinstance(event, Progress) and event.step == 4:
                stop.set()

    thread = threading.Thread(target=consume)
    thread.start()
    thread.join(60)
    assert not thread.is_alive()
    assert seen[-1].status == "stopped" and seen[-1].step == 5
    assert [p.step for p in progresses(seen)] == [0, 1, 2, 3, 4]


def test_a_paused_consumer_resumes_where_it_left_off():
    """Pausing is not pulling: the generator waits between events and carries on unchanged."""
    events = train(SMALL)
    first = [next(events) for _ in range(8)]
    rest = list(events)
    assert progresses(first + rest) == progresses(run(SMALL))


# -----------------------------------------------------------------------------
# determinism


def test_same_seed_same_run():
    cfg = SMALL.replace(batch_size=8)
    a, b = run(cfg), run(cfg)
    assert progresses(a) == progresses(b)
    assert a[-1].state == b[-1].state
    for x, y in zip(a, b):
        if isinstance(x, Boundary):
            assert np.array_equal(x.grid, y.grid)
    assert progresses(run(cfg.replace(init_seed=2))) != progresses(a)
    assert progresses(run(cfg.replace(data_seed=2))) != progresses(a)


def test_single_stepping_matches_the_generator():
    trainer = Trainer(SMALL)
    stepped = [trainer.step() for _ in range(SMALL.steps)]
    assert stepped == progresses(run(SMALL))


# -----------------------------------------------------------------------------
# run(trainer): the app's worker runs this same loop


def test_until_none_runs_past_cfg_steps_until_stopped():
    trainer = Trainer(SMALL.replace(steps=3))
    steps = []

    def should_stop():
        return len(steps) >= 7

    for event in run_loop(trainer, until=None, should_stop=should_stop, boundary_due=every(0), weights_due=every(0)):
        if isinstance(event, Progress):
            steps.append(event.step)
        last = event
    assert steps == list(range(7)) and last.status == "stopped" and trainer.steps_done == 7


def test_due_rules_choose_the_snapshots():
    trainer = Trainer(SMALL)
    events = list(
        run_loop(trainer, until=4, boundary_due=lambda step: step == 2, weights_due=lambda step: step in (1, 3))
    )
    kinds = [(type(e).__name__, e.step) for e in events]
    assert kinds == [
        ("Progress", 0),
        ("Weights", 1),
        ("Progress", 1),
        ("Boundary", 2),
        ("Progress", 2),
        ("Weights", 3),
        ("Progress", 3),
        ("Boundary", 4),
        ("Result", 4),
    ]
    assert events[-1].status == "finished"


def test_one_step_at_a_time_equals_one_run():
    stepped = Trainer(SMALL)
    for _ in range(5):
        list(run_loop(stepped, until=stepped.steps_done + 1))
    whole = Trainer(SMALL)
    list(run_loop(whole, until=5))
    assert stepped.state() == whole.state()
