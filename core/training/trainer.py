"""The Trainer: one training run's data, model and optimizer, advanced a step at a time.

A training step is micrograd's loop body:

    1. forward:   scores = [model(x) for x in batch]; loss = data_loss + l2
    2. zero_grad: every parameter's grad back to 0 (grads accumulate)
    3. backward:  loss.backward() fills dloss/dp for every parameter p
    4. update:    the optimizer moves every p against its gradient

`Trainer(cfg)` builds data, model and optimizer once from a `TrainConfig`
(config.py) and then takes one step per `.step()` call, returning that step's
`Progress` (events.py). Between steps the model can be looked at (`boundary`,
`weights`, `evaluate`), saved and resumed (`state`, `load_state`) or edited
(`set_weight`, `continued` for new settings). Repeating steps until the run
ends is the training loop's job (loop.py), and it is the only loop: the app's
worker thread and headless runs alike run it.

The same config gives the same run, number for number: every random choice
comes from two seeded `random.Random`s. One (`data_seed`) makes and splits the
data, the other (`init_seed`) draws the initial weights and then the
mini-batches.

A loss (or a weight) that stops being a finite number sets `diverged` to a
message saying where and why; the run cannot step on from there.

Why a step builds no graph: the batch's loss is the same small graph for every
sample -- the network and the loss term of ONE sample -- on different numbers.
The trainer records that graph once and runs it over the whole batch at once
with numpy (`core.training.replay`, on `core.training.batched`): every node's
data and grad an array with one entry per sample, the same ops in the same
order, vectorised over the samples. Full batches and mini-batches alike; the
decision boundary and the neurons' heatmaps are the same replay, forward only,
over a grid. The result equals micrograd's build-every-step loop to ~1e-15
(tests/core/training/test_replay.py); `loss_graph()` still builds the real
Value graph of the whole batch for lessons and the graph view.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from core.engine import Value
from core.losses import LOSSES
from core.nn import MLP
from core.optim import SGD, Adam
from core.training.datasets import DATASETS, train_test_split
from core.training.events import Boundary, Progress, Weights
from core.training.features import feature_array, feature_row
from core.training.health import HealthWatch, diverged_message
from core.training.network_edits import activations_of
from core.training.regularization import penalty
from core.training.replay import NetworkReplay

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from core.training.config import TrainConfig
    from core.training.datasets import Point

# -----------------------------------------------------------------------------
# the trainer


DEAD_CHECK_EVERY = 10  # steps between dead-ReLU checks with mini-batches


def _bounds(points: Sequence[Point]) -> tuple[float, float, float, float]:
    """A box around the points with a margin, for the boundary image."""
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    span = max(max(xs) - min(xs), max(ys) - min(ys))
    pad = 0.15 * span if span > 0 else 1.0
    return (min(xs) - pad, max(xs) + pad, min(ys) - pad, max(ys) + pad)


def _columns(rows: Sequence[Sequence[float]], width: int) -> NDArray[np.float64]:
    """Feature rows as the replay's input table: shape (n_features, n_points)."""
    return np.array(rows, dtype=float).reshape(-1, width).T.copy()


def _accuracy(scores: NDArray[np.float64], labels: NDArray[np.float64]) -> float:
    """losses.accuracy on arrays: the fraction with (s > 0) == (y > 0)."""
    if len(scores) == 0:
        return 0.0
    return int(np.count_nonzero((scores > 0) == (labels > 0))) / len(scores)


def _grad_state(model: MLP) -> list[list[list[float]]]:
    return [[[p.grad for p in n.parameters()] for n in layer.neurons] for layer in model.layers]


class Trainer:
    """One training run, built once from a TrainConfig and advanced step by step."""

    def __init__(self, cfg: TrainConfig) -> None:
        self.cfg = cfg
        # 1. the data: generated (or given), then split, all from one seeded rng
        data_rng = random.Random(cfg.data_seed)
        if cfg.points is not None and cfg.labels is not None:  # (a config has both or neither)
            points, labels = list(cfg.points), list(cfg.labels)
        else:
            points, labels = DATASETS[cfg.dataset](cfg.n_samples, cfg.noise, data_rng)
        (self.train_points, self.train_labels, self.test_points, self.test_labels) = train_test_split(
            points, labels, cfg.test_ratio, data_rng
        )
        self.train_inputs = [feature_row(x1, x2, cfg.features) for x1, x2 in self.train_points]
        self.test_inputs = [feature_row(x1, x2, cfg.features) for x1, x2 in self.test_points]
        self.bounds = _bounds(points)  # (x_min, x_max, y_min, y_max), fixed for the run

        # 2. the model, then (from the same rng, later) the mini-batches
        self.rng = random.Random(cfg.init_seed)
        self.model = MLP(len(cfg.features), list(cfg.hidden_sizes) + [1], cfg.activation, self.rng)
        self.params = self.model.parameters()

        # 3. the optimizer
        self.optimizer: SGD | Adam
        if cfg.optimizer == "sgd":
            self.optimizer = SGD(self.params, cfg.lr, cfg.momentum)
        else:
            self.optimizer = Adam(self.params, cfg.lr, cfg.betas, cfg.eps)

        # 4. the one-sample graph, replayed over batches; the data as its input tables
        width = len(cfg.features)
        self.replay = NetworkReplay(self.model, cfg.features, cfg.loss, cfg.l2_alpha, cfg.l1_alpha)
        self._train_X = _columns(self.train_inputs, width)
        self._train_y = np.array(self.train_labels, dtype=float)
        self._test_X = _columns(self.test_inputs, width)
        self._test_y = np.array(self.test_labels, dtype=float)

        self.steps_done = 0
        self.diverged: str | None = None  # the message, once the run has diverged
        self.health = HealthWatch(activations_of(cfg)[:-1], cfg.hidden_sizes)
        self.warning = ""  # the last step's health warning (health.py), "" when all is well

    # -- one step --------------------------------------------------------------

    def lr_at(self, k: int) -> float:
        """The learning rate of update k: a linear decay by lr_decay over cfg.steps."""
        cfg = self.cfg
        return cfg.lr * (1.0 - cfg.lr_decay * min(k, cfg.steps) / cfg.steps)

    def _batch(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The batch's input table and labels; a mini-batch draws its samples from the run's rng."""
        n = len(self.train_inputs)
        size = self.cfg.batch_size
        if size is None or size >= n:
            return self._train_X, self._train_y
        picks = self.rng.sample(range(n), size)
        return self._train_X[:, picks], self._train_y[picks]

    def loss_graph(self) -> Value:
        """The loss over the whole training set as a Value graph, labelled 'loss':
        exactly what a full-batch step differentiates (lessons and the DAG view show it)."""
        loss, _scores = self._forward(self.train_inputs, self.train_labels)
        loss.label = "loss"
        return loss

    def _forward(self, inputs: Sequence[Sequence[float]], labels: Sequence[float]) -> tuple[Value, list[Value]]:
        """The loss graph of one batch, and the scores."""
        # wrap the inputs once, or each of the first layer's neurons would wrap them again
        # one output neuron: the model gives a Value, not a list
        scores = [cast(Value, self.model([Value(f) for f in row])) for row in inputs]
        loss = LOSSES[self.cfg.loss](scores, labels)
        price = penalty(self.params, self.cfg.l1_alpha, self.cfg.l2_alpha)
        if price is not None:
            loss = loss + price
        return loss, scores

    def step(self) -> Progress:
        """Take one training step and return its Progress.

        A non-finite loss (or weights made non-finite by the update) sets
        `self.diverged` to a message; the model is then left as it was.
        """
        if self.diverged:
            raise RuntimeError(f"this run has diverged ({self.diverged}); start a new one")
        k = self.steps_done
        lr = self.lr_at(k)
        full_batch = self.cfg.batch_size is None or self.cfg.batch_size >= len(self.train_inputs)
        if full_batch:
            loss, scores, grads = self.replay.step(self._train_X, self._train_y)
            train_loss, train_acc = loss, _accuracy(scores, self._train_y)
        else:
            # report the whole training set, not the noisy batch
            train_loss, train_acc = self.evaluate(self.train_inputs, self.train_labels)
            loss, _scores, grads = self.replay.step(*self._batch())
        test_loss, test_acc = self.evaluate(self.test_inputs, self.test_labels) if self.test_inputs else (None, None)
        if not math.isfinite(loss):
            health = self.health
            self.diverged = diverged_message(
                f"the loss became {loss}", k, health.first_step, health.first_loss, self.cfg.lr
            )
            return Progress(k, train_loss, train_acc, test_loss, test_acc, lr, self.diverged)
        warning = self.warning = self.health.update(k, train_loss, self.cfg.lr, self._hidden_outputs(full_batch))
        progress = Progress(k, train_loss, train_acc, test_loss, test_acc, lr, warning)
        for p, g in zip(self.params, grads.tolist()):
            p.grad = g
        self.optimizer.lr = lr
        self.optimizer.step()
        self.steps_done = k + 1
        bad = next((p for p in self.params if not math.isfinite(p.data)), None)
        if bad is not None:
            health = self.health
            self.diverged = diverged_message(
                f"weight {bad.label} became {bad.data}", k + 1, health.first_step, health.first_loss, self.cfg.lr
            )
        return progress

    def _hidden_outputs(self, full_batch: bool) -> list[NDArray[np.float64]] | None:
        """Every hidden neuron's output on the training points, for the dead-ReLU check, or None
        when there is nothing to check now. A full-batch step has just computed them; with
        mini-batches they cost a forward pass, so every DEAD_CHECK_EVERY steps."""
        if not self.health.watches_relus:
            return None
        if full_batch:
            return self.replay.last_activations()[:-1]
        if self.steps_done % DEAD_CHECK_EVERY:
            return None
        return self.replay.activations(self._train_X)[:-1]

    # -- looking at the model (float path, no graph) ---------------------------

    def evaluate(self, inputs: Sequence[Sequence[float]], labels: Sequence[float]) -> tuple[float, float]:
        """(loss, accuracy) of the current model on some inputs, without grads."""
        if inputs is self.train_inputs:
            X, y = self._train_X, self._train_y
        elif inputs is self.test_inputs:
            X, y = self._test_X, self._test_y
        else:
            X, y = _columns(inputs, len(self.cfg.features)), np.array(labels, dtype=float)
        loss, scores = self.replay.evaluate(X, list(labels))
        return loss, _accuracy(scores, y)

    def _grid(self, resolution: int) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        x_min, x_max, y_min, y_max = self.bounds
        xs = np.linspace(x_min, x_max, resolution)
        ys = np.linspace(y_min, y_max, resolution)
        gx, gy = np.meshgrid(xs, ys)  # gx[j, i] = xs[i], gy[j, i] = ys[j]
        return xs, ys, feature_array(gx.ravel(), gy.ravel(), self.cfg.features).T

    def boundary(self) -> Boundary:
        """The current model's score over the data's box, as a Boundary event."""
        r = self.cfg.boundary_resolution
        xs, ys, inputs = self._grid(r)
        grid = self.replay.scores(inputs).reshape(r, r)
        neurons: tuple[NDArray[np.float64], ...] = ()
        if self.cfg.neuron_resolution > 0:
            nr = self.cfg.neuron_resolution
            outputs = self.replay.activations(self._grid(nr)[2])
            neurons = tuple(out.reshape(-1, nr, nr) for out in outputs)
        return Boundary(self.steps_done, xs, ys, grid, neurons)

    def weights(self) -> Weights:
        return Weights(self.steps_done, self.model.state(), _grad_state(self.model))

    def close(self) -> None:
        """Nothing to free any more: the batched replay holds numpy tables, not a Value graph.
        Kept so that callers (the app's worker, `train`) need not know."""

    # -- saving and resuming ---------------------------------------------------

    def state(self) -> dict[str, Any]:
        """Everything that changes during a run, as plain data (JSON-ready)."""
        version, internal, gauss_next = self.rng.getstate()
        return {
            "step": self.steps_done,
            "model": self.model.state(),
            "optimizer": self.optimizer.state(),
            "rng": [version, list(internal), gauss_next],
        }

    def load_state(self, state: Mapping[str, Any]) -> None:
        """Resume from state(): the run then continues exactly as the original would."""
        self.model.load_state(state["model"])
        self.optimizer.load_state(state["optimizer"])
        version, internal, gauss_next = state["rng"]
        self.rng.setstate((version, tuple(internal), gauss_next))
        self.steps_done = int(state["step"])
        self.diverged = None

    # -- what the app shows and edits between steps ----------------------------

    def data(self) -> dict[str, Any]:
        """The run's points as plain lists: training and test points, labels, the plot box, and
        whether the labels are a regression problem's targets."""
        return {
            "train_points": list(self.train_points),
            "train_labels": list(self.train_labels),
            "test_points": list(self.test_points),
            "test_labels": list(self.test_labels),
            "bounds": self.bounds,
            "regression": self.cfg.regression,  # labels are targets to predict, not classes
        }

    def metrics(self) -> tuple[float, float, float | None, float | None]:
        """(train loss, train accuracy, test loss, test accuracy) of the model as it is now."""
        loss, acc = self.evaluate(self.train_inputs, self.train_labels)
        test_loss: float | None = None
        test_acc: float | None = None
        if self.test_inputs:
            test_loss, test_acc = self.evaluate(self.test_inputs, self.test_labels)
        return loss, acc, test_loss, test_acc

    def set_weight(self, layer: int, neuron: int, index: int, value: float) -> str:
        """Set one weight (index < nin) or the bias (index == nin); returns the parameter's label."""
        param = self.model.layers[layer].neurons[neuron].parameters()[index]
        param.data = float(value)
        return param.label

    def continued(self, cfg: TrainConfig) -> Trainer:
        """A Trainer for `cfg` that carries on from this one: same weights, step and batch rng.

        Only for changes that keep the network's shape (training settings, edited
        points); switching between SGD and Adam starts the new optimizer's memory at 0.
        """
        new = Trainer(cfg)
        state = self.state()
        if cfg.optimizer != self.cfg.optimizer:
            state["optimizer"] = new.optimizer.state()
        new.load_state(state)
        return new
