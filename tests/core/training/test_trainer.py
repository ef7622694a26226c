"""Training runs: micrograd's demo, events, divergence, determinism, resuming."""

import dataclasses
import gc
import json
import math

import numpy as np
import pytest

from core.engine import Value
from core.training.trainer import (MICROGRAD_DEMO, Boundary, Progress, Result, TrainConfig, Trainer, Weights,
                           feature_array, feature_row, train)

SMALL = TrainConfig(dataset="moons", n_samples=40, hidden_sizes=(8,), steps=30, lr=0.5,
                    test_ratio=0.25, boundary_every=10, boundary_resolution=12)


def run(cfg, **kwargs):
    return list(train(cfg, **kwargs))


def progresses(events):
    return [e for e in events if isinstance(e, Progress)]


# -----------------------------------------------------------------------------
# micrograd's demo

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


def test_demo_preset_is_micrograds_setup():
    cfg = MICROGRAD_DEMO
    assert (cfg.dataset, cfg.n_samples, cfg.noise) == ("moons", 100, 0.1)
    assert (cfg.hidden_sizes, cfg.activation, cfg.loss, cfg.l2_alpha) == ((16, 16), "relu", "hinge", 1e-4)
    assert (cfg.optimizer, cfg.lr, cfg.lr_decay, cfg.batch_size, cfg.steps) == ("sgd", 1.0, 0.9, None, 100)
    assert repr(Trainer(cfg).model).startswith("MLP of [Layer of [ReLUNeuron(2), ")


# -----------------------------------------------------------------------------
# learning

def test_loss_falls_on_xor():
    cfg = TrainConfig(dataset="xor", n_samples=60, noise=0.0, hidden_sizes=(8,), activation="tanh",
                      optimizer="adam", lr=0.05, lr_decay=0.0, steps=60, boundary_every=100)
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
    cfg = TrainConfig(dataset="circles", n_samples=60, noise=0.0, features=("x1^2", "x2^2"),
                      hidden_sizes=(), loss="bce", l2_alpha=0.0, optimizer="adam", lr=0.1, lr_decay=0.0,
                      steps=150, boundary_every=1000)
    assert progresses(run(cfg))[-1].accuracy == 1.0


def test_features():
    assert feature_row(2.0, 3.0, ("x1", "x2", "x1^2", "x2^2", "x1*x2", "sin_x1", "sin_x2")) == \
        [2.0, 3.0, 4.0, 9.0, 6.0, math.sin(2.0), math.sin(3.0)]
    arr = feature_array(np.array([2.0, 0.5]), np.array([3.0, -1.0]), ("x1*x2", "x2"))
    np.testing.assert_allclose(arr, [[6.0, 3.0], [-0.5, -1.0]])


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


def test_boundary_grid_is_the_models_score_row_major_in_y():
    trainer = Trainer(SMALL)
    b = trainer.boundary()
    j, i = 3, 7
    score = trainer.model.forward_floats([b.xs[i], b.ys[j]])
    assert b.grid[j, i] == pytest.approx(score, abs=1e-12)


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
    assert "became" in result.message and "the learning rate (1e+06) may be too high" in result.message
    assert isinstance(events[-2], Progress)


def test_a_nan_loss_is_reported_at_its_step_and_the_model_kept():
    trainer = Trainer(SMALL)
    trainer.step()
    trainer.model.layers[1].neurons[0].b.data = math.nan
    progress = trainer.step()
    assert math.isnan(progress.loss)
    assert trainer.diverged == "loss became nan at step 1: the learning rate (0.485) may be too high"
    assert trainer.steps_done == 1
    with pytest.raises(RuntimeError, match="diverged"):
        trainer.step()


def test_should_stop_ends_the_run():
    calls = []

    def should_stop():
        calls.append(1)
        return len(calls) > 3

    result = run(SMALL, should_stop=should_stop)[-1]
    assert result.status == "stopped" and result.step == 3


# -----------------------------------------------------------------------------
# determinism and resuming

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


def test_resuming_from_state_continues_the_same_run():
    cfg = SMALL.replace(batch_size=8, optimizer="adam", lr=0.05)
    straight = Trainer(cfg)
    for _ in range(10):
        straight.step()
    first = Trainer(cfg)
    for _ in range(5):
        first.step()
    saved = json.loads(json.dumps(first.state()))
    second = Trainer(cfg)
    second.load_state(saved)
    for _ in range(5):
        second.step()
    assert second.state() == straight.state()


def test_single_stepping_matches_the_generator():
    trainer = Trainer(SMALL)
    stepped = [trainer.step() for _ in range(SMALL.steps)]
    assert stepped == progresses(run(SMALL))


def test_gc_state_is_restored_after_a_step():
    trainer = Trainer(SMALL)
    assert gc.isenabled()
    trainer.step()
    assert gc.isenabled()
    gc.disable()
    try:
        trainer.step()
        assert not gc.isenabled()
    finally:
        gc.enable()


# -----------------------------------------------------------------------------
# the configuration

def test_full_batch_loss_equals_the_float_evaluation():
    trainer = Trainer(SMALL)
    loss, acc = trainer.evaluate(trainer.train_inputs, trainer.train_labels)
    progress = trainer.step()
    assert progress.loss == pytest.approx(loss, rel=1e-12)
    assert progress.accuracy == acc


def test_linear_lr_decay():
    trainer = Trainer(MICROGRAD_DEMO)
    assert [trainer.lr_at(k) for k in (0, 50, 99)] == pytest.approx([1.0, 0.55, 1.0 - 0.9 * 99 / 100])
    assert Trainer(SMALL.replace(lr_decay=0.0)).lr_at(29) == 0.5


def test_config_round_trips_through_json_and_is_frozen():
    cfg = SMALL.replace(activation=("tanh", "linear"), batch_size=4)
    again = TrainConfig.from_dict(json.loads(json.dumps(cfg.to_dict())))
    assert again == cfg and hash(again) == hash(cfg)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.lr = 2.0
    with pytest.raises(ValueError, match="unknown training settings: colour"):
        TrainConfig.from_dict({"colour": "red"})


@pytest.mark.parametrize("changes, message", [
    ({"dataset": "swirl"}, "dataset: unknown 'swirl'"),
    ({"features": ("x1", "x3")}, "features: unknown 'x3'"),
    ({"features": ()}, "at least one input feature"),
    ({"activation": ("relu",)}, "activation: 1 names for 3 layers"),
    ({"loss": "l1"}, "loss: unknown 'l1'"),
    ({"optimizer": "rmsprop"}, "optimizer: unknown 'rmsprop'"),
    ({"lr": 0.0}, "lr must be"),
    ({"batch_size": 0}, "batch_size"),
    ({"points": ((0.0, 0.0),)}, "points and labels must be given together"),
])
def test_bad_configs_say_what_is_wrong(changes, message):
    with pytest.raises(ValueError, match=message):
        MICROGRAD_DEMO.replace(**changes)


def test_explicit_points_replace_the_dataset():
    points = [[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]
    cfg = SMALL.replace(points=points, labels=[0, 0, 1, 1], test_ratio=0.0)
    assert cfg.labels == (-1.0, -1.0, 1.0, 1.0)
    trainer = Trainer(cfg)
    assert sorted(trainer.train_points) == sorted(map(tuple, points))
    result = run(cfg)[-1]
    assert result.status == "finished"


@pytest.mark.parametrize("loss", ["hinge", "mse", "bce"])
def test_full_batch_replay_equals_rebuilding_the_graph_every_step(loss):
    """The trainer replays one recorded graph for full batches; it must give exactly
    the numbers of micrograd's rebuild-every-step loop. For bce that includes the
    steps where a logit changes sign, so that its stable softplus changes form."""
    from core.engine import Value
    from core.losses import LOSSES, l2_regularization
    from core.training.trainer import MICROGRAD_DEMO, Trainer

    steps = 12
    cfg = MICROGRAD_DEMO.replace(steps=steps, loss=loss, n_samples=40, lr=0.5)
    replayed = Trainer(cfg)
    rebuilt = Trainer(cfg)
    signs = []
    for k in range(steps):
        progress = replayed.step()
        scores = [rebuilt.model([Value(f) for f in row]) for row in rebuilt.train_inputs]
        signs.append([s.data > 0 for s in scores])
        loss = LOSSES[cfg.loss](scores, rebuilt.train_labels) + l2_regularization(rebuilt.params, cfg.l2_alpha)
        assert progress.loss == loss.data
        rebuilt.model.zero_grad()
        loss.backward()
        for p in rebuilt.params:
            p.data -= rebuilt.lr_at(k) * p.grad
        assert [p.data for p in replayed.params] == [p.data for p in rebuilt.params]
    assert signs[0] != signs[-1]  # some logit changed sign on the way
