"""The trainer's batched replay equals the scalar engine: per sample (scores, loss terms,
each sample's share of every grad), and the batch's mean loss and every parameter's grad
to 1e-12 relative, for every activation, loss, optimizer and feature set."""

import itertools

import numpy as np
import pytest

from core.engine import Value, topological_order
from core.losses import LOSSES, loss_shape
from core.nn import ACTIVATIONS, MLP
from core.training.config import OPTIMIZERS, TrainConfig
from core.training.features import FEATURES
from core.training.regularization import penalty
from core.training.replay import NetworkReplay, _shape_bits
from core.training.trainer import Trainer

FEATURE_SETS = [("x1", "x2"), FEATURES, ("x1^2", "x2^2")]
SMALL = TrainConfig(
    dataset="moons", n_samples=24, noise=0.2, hidden_sizes=(4, 3), lr=0.3, lr_decay=0.0, l2_alpha=1e-3, steps=10
)


def scalar_loss(trainer, inputs=None, labels=None):
    """micrograd's way: the whole batch's loss as one Value graph, backpropagated."""
    inputs = trainer.train_inputs if inputs is None else inputs
    labels = trainer.train_labels if labels is None else labels
    scores = [trainer.model([Value(f) for f in row]) for row in inputs]
    loss = LOSSES[trainer.cfg.loss](scores, labels)
    price = penalty(trainer.params, trainer.cfg.l1_alpha, trainer.cfg.l2_alpha)
    if price is not None:
        loss = loss + price
    trainer.model.zero_grad()
    loss.backward()
    return loss.data, [s.data for s in scores], [p.grad for p in trainer.params]


def assert_close(got, want):
    """1e-12 relative per entry, on the scale of the largest entry: a grad whose samples' shares
    cancel to ~0 (or a score whose weighted inputs do) keeps only the absolute precision of its
    terms, ~1e-16 of their size, which the ulp-level differences of exp/tanh then show."""
    want = np.array(want)
    assert np.allclose(got, want, rtol=1e-12, atol=1e-12 * np.max(np.abs(want)))


@pytest.mark.parametrize(
    "activation, loss, optimizer, features", list(itertools.product(ACTIVATIONS, LOSSES, OPTIMIZERS, FEATURE_SETS))
)
def test_a_training_step_equals_the_scalar_engine(activation, loss, optimizer, features):
    """Along the batched trainer's own run (three steps of its optimizer), the scalar engine on
    the same weights gives the same loss, scores and grads, and the update is the optimizer's.
    (Comparing two runs' weights after several steps would measure Adam, not the replay: Adam
    divides a grad by its own size, so a grad that cancels to ~0 turns an ulp into a step.)"""
    cfg = SMALL.replace(
        activation=activation,
        loss=loss,
        optimizer=optimizer,
        features=features,
        lr=0.3 if optimizer == "sgd" else 0.05,
        momentum=0.5 if optimizer == "sgd" else 0.0,
    )
    assert_steps_equal_the_scalar_engine(cfg)


# L2 (SMALL's), L1, both, none
PENALTIES = [
    {"l1_alpha": 1e-2, "l2_alpha": 0.0},
    {"l1_alpha": 1e-2, "l2_alpha": 1e-3},
    {"l1_alpha": 0.0, "l2_alpha": 0.0},
]
# a classification, both regression problems (mse), and a network with no hidden layer
PROBLEMS = [
    {"dataset": "moons"},
    {"dataset": "plane", "loss": "mse"},
    {"dataset": "multi-gaussian", "loss": "mse"},
    {"dataset": "circles", "hidden_sizes": ()},
]


@pytest.mark.parametrize(
    "activation, optimizer, regularization, problem",
    list(itertools.product(ACTIVATIONS, OPTIMIZERS, PENALTIES, PROBLEMS)),
)
def test_l1_regression_and_no_hidden_layer_equal_the_scalar_engine(activation, optimizer, regularization, problem):
    cfg = SMALL.replace(
        activation=activation,
        optimizer=optimizer,
        features=FEATURES,
        lr=0.3 if optimizer == "sgd" else 0.05,
        momentum=0.5 if optimizer == "sgd" else 0.0,
        **regularization,
        **problem,
    )
    assert_steps_equal_the_scalar_engine(cfg)


def assert_steps_equal_the_scalar_engine(cfg):
    batched, scalar = Trainer(cfg), Trainer(cfg)
    for _ in range(3):
        scalar.model.load_state(batched.model.state())
        want_loss, want_scores, want_grads = scalar_loss(scalar)
        got_loss, got_scores, got_grads = batched.replay.step(batched._train_X, batched._train_y)
        assert got_loss == pytest.approx(want_loss, rel=1e-12, abs=0)
        assert_close(got_scores, want_scores)
        assert_close(got_grads, want_grads)
        # the trainer's step: the same replay, then the optimizer on its grads
        scalar.optimizer.load_state(batched.optimizer.state())
        progress = batched.step()
        assert progress.loss == got_loss
        for p, g in zip(scalar.params, got_grads.tolist()):
            p.grad = g
        scalar.optimizer.lr = scalar.lr_at(batched.steps_done - 1)
        scalar.optimizer.step()
        assert [p.data for p in batched.params] == [p.data for p in scalar.params]


@pytest.mark.parametrize("loss", list(LOSSES))
def test_each_samples_share_equals_its_own_scalar_graph(loss):
    cfg = SMALL.replace(loss=loss, activation="tanh", l2_alpha=0.0)
    trainer = Trainer(cfg)
    replay = trainer.replay
    X, y = trainer._train_X, trainer._train_y
    n = len(y)
    replay.step(X, y)
    shares = replay.graph.G[replay.graph.param_rows]
    terms, _ = replay.terms.run(replay.graph.D[replay.score_row].copy(), y)
    for i in range(n):
        s = trainer.model([Value(f) for f in trainer.train_inputs[i]])
        term = LOSSES[loss]([s], [trainer.train_labels[i]])
        trainer.model.zero_grad()
        term.grad = 1.0 / n  # this sample's share of the mean: the engine's backward seeded with 1/n
        for node in reversed(topological_order(term)):
            node._backward(node)
        assert replay.graph.D[replay.score_row, i] == pytest.approx(s.data, rel=1e-12, abs=0)
        assert terms[i] == pytest.approx(term.data, rel=1e-12, abs=1e-300)
        assert_close(shares[:, i], [p.grad for p in trainer.params])


def test_mini_batches_and_the_test_set_equal_the_scalar_engine():
    cfg = SMALL.replace(batch_size=7, test_ratio=0.25, activation="sigmoid", loss="bce", optimizer="adam", lr=0.05)
    batched, scalar = Trainer(cfg), Trainer(cfg)
    for _ in range(4):
        scalar.model.load_state(batched.model.state())
        progress = batched.step()
        test_loss, _, _ = scalar_loss(scalar, scalar.test_inputs, scalar.test_labels)
        assert progress.test_loss == pytest.approx(test_loss, rel=1e-12)
        picks = scalar.rng.sample(range(len(scalar.train_inputs)), 7)  # the same draws, same rng
        _, _, grads = scalar_loss(
            scalar, [scalar.train_inputs[i] for i in picks], [scalar.train_labels[i] for i in picks]
        )
        assert_close([p.grad for p in batched.params], grads)


def test_bce_records_both_forms_of_its_softplus_and_picks_per_sample():
    trainer = Trainer(SMALL.replace(loss="bce", l2_alpha=0.0))
    loss, scores, _ = trainer.replay.step(trainer._train_X, trainer._train_y)
    forms = _shape_bits("bce", scores, trainer._train_y)
    assert forms.tolist() == list(loss_shape("bce", scores.tolist(), trainer.train_labels))
    assert 0 < forms.sum() < len(forms)  # both forms occur in this batch
    assert len(trainer.replay.terms.terms) == 2  # one graph per form, labels merged as constants
    assert loss == pytest.approx(scalar_loss(trainer)[0], rel=1e-12)


def test_the_boundary_and_the_heatmaps_are_the_networks_outputs():
    cfg = SMALL.replace(activation="relu", boundary_resolution=9, neuron_resolution=5)
    trainer = Trainer(cfg)
    trainer.step()
    b = trainer.boundary()
    xs, ys, grid_inputs = trainer._grid(9)
    assert np.allclose(b.grid.ravel(), trainer.model.predict_floats(grid_inputs.T), rtol=1e-12, atol=1e-14)
    layers = trainer.model.activations_floats(trainer._grid(5)[2].T)
    assert [h.shape for h in b.neurons] == [(4, 5, 5), (3, 5, 5), (1, 5, 5)]
    for heat, want in zip(b.neurons, layers):
        assert np.allclose(heat.reshape(len(heat), -1), want.T, rtol=1e-12, atol=1e-14)


def test_a_replay_reads_the_models_weights_as_they_are_now():
    model = MLP(2, [3, 1], "tanh")
    replay = NetworkReplay(model, ("x1", "x2"), "mse", 0.0)
    X = np.array([[0.5, -1.0], [0.25, 2.0]])
    before = replay.scores(X)
    model.layers[1].neurons[0].b.data += 1.0
    assert np.allclose(replay.scores(X), before + 1.0)


def test_last_activations_before_any_step_says_so():
    # was TypeError: 'NoneType' object is not subscriptable (mypy: the graph's table is None until a step)
    replay = NetworkReplay(MLP(2, [3, 1], "relu"), ("x1", "x2"), "mse", 0.0)
    with pytest.raises(RuntimeError, match=r"last_activations\(\) needs a step\(\) first"):
        replay.last_activations()
    replay.step(np.array([[0.5, -1.0], [0.25, 2.0]]), np.array([1.0, -1.0]))
    assert [a.shape for a in replay.last_activations()] == [(3, 2), (1, 2)]
