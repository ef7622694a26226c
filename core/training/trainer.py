"""Training an MLP on a 2-D dataset, one step at a time, as a stream of plain data.

A training step is micrograd's loop body:

    1. forward:   scores = [model(x) for x in batch]; loss = data_loss + l2
    2. zero_grad: every parameter's grad back to 0 (grads accumulate)
    3. backward:  loss.backward() fills dloss/dp for every parameter p
    4. update:    the optimizer moves every p against its gradient

`TrainConfig` is everything that decides a run, as frozen pure data: the
dataset and its seed, the input features, the network's shape, the loss, the
optimizer and its schedule. The same config gives the same run, number for
number, because every random choice comes from two seeded `random.Random`s:
one (`data_seed`) makes and splits the data, the other (`init_seed`) draws the
initial weights and then the mini-batches.

`Trainer(cfg)` builds data, model and optimizer once and then trains a step per
`.step()` call, so the app can single-step and inspect `.model` between steps.
`train(cfg)` is a generator over a Trainer's run, yielding events that hold
only floats, lists and numpy arrays -- never a `Value` -- so a worker thread
can pass them to the GUI:

    Progress(step, loss, accuracy, test_loss, test_accuracy, lr)   every step
    Boundary(step, xs, ys, grid, neurons)   at step 0, every `boundary_every` steps, and at the end
    Weights(step, weights, grads)           every `weights_every` steps, if > 0
    Result(status, step, message, state)    last: 'finished', 'diverged' or 'stopped'

"Step k" always means the model after k updates: Progress(k) measures the
loss that the (k+1)-th update then descends. A loss (or a weight) that stops
being a finite number ends the run with a 'diverged' Result.

Why `gc.disable()` around a step: one step of micrograd's demo builds ~66 000
Values (plus a closure each) and frees them again. Python's cyclic garbage
collector is triggered by allocations, and so many new objects keep setting off
full collections that walk every tracked object -- looking for cycles our
graphs never have (see engine.py), since reference counting frees them.
Pausing it for the step, and restoring it after, makes a step several times
faster; nothing is leaked, because nothing cyclic is made.

Why full-batch steps replay one graph (`core.tape.Tape`): with the whole
training set in every batch, each step computes the same graph on new weights.
The first step builds it; later steps re-run its forward pass in place and call
the same `_backward` closures over the recorded order -- no new nodes, nothing
to free, no sort. Mini-batches pick different samples each step, so they build a
fresh graph every time, as micrograd does.
"""

import dataclasses
import gc
import math
import random

import numpy as np

from core.training.datasets import DATASETS, train_test_split
from core.engine import Value
from core.losses import LOSSES, accuracy, l2_floats, l2_regularization, loss_floats, loss_shape
from core.nn import ACTIVATIONS, MLP
from core.optim import SGD, Adam
from core.tape import Tape

FEATURES = ("x1", "x2", "x1^2", "x2^2", "x1*x2", "sin_x1", "sin_x2")
OPTIMIZERS = ("sgd", "adam")


# -----------------------------------------------------------------------------
# input features

def feature_row(x1, x2, features):
    """The network's input for one point: the named features of (x1, x2), in order."""
    row = []
    for name in features:
        if name == "x1":
            row.append(x1)
        elif name == "x2":
            row.append(x2)
        elif name == "x1^2":
            row.append(x1 * x1)
        elif name == "x2^2":
            row.append(x2 * x2)
        elif name == "x1*x2":
            row.append(x1 * x2)
        elif name == "sin_x1":
            row.append(math.sin(x1))
        elif name == "sin_x2":
            row.append(math.sin(x2))
        else:
            raise ValueError(f"unknown feature {name!r}; choose from {', '.join(FEATURES)}")
    return row


def feature_array(x1, x2, features):
    """feature_row for many points at once: x1, x2 arrays of shape (n,) -> array (n, len(features))."""
    columns = []
    for name in features:
        if name == "x1":
            columns.append(x1)
        elif name == "x2":
            columns.append(x2)
        elif name == "x1^2":
            columns.append(x1 * x1)
        elif name == "x2^2":
            columns.append(x2 * x2)
        elif name == "x1*x2":
            columns.append(x1 * x2)
        elif name == "sin_x1":
            columns.append(np.sin(x1))
        elif name == "sin_x2":
            columns.append(np.sin(x2))
        else:
            raise ValueError(f"unknown feature {name!r}; choose from {', '.join(FEATURES)}")
    return np.stack(columns, axis=1)


# -----------------------------------------------------------------------------
# the configuration

def _check(ok, message):
    if not ok:
        raise ValueError(message)


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """Everything that decides a training run. The defaults are micrograd's demo.

    `activation` is one name for all hidden layers (the output layer is then
    linear) or a tuple with one name per layer, hidden and output.
    `lr_decay` d makes the learning rate fall linearly, lr * (1 - d * k / steps)
    at step k: micrograd's demo uses 1.0 * (1 - 0.9 * k / 100); 0 keeps it fixed.
    `batch_size` None trains on the whole training set every step.
    `points`/`labels`, when given (user-drawn points, a CSV), replace the
    generated dataset; `dataset`, `n_samples` and `noise` are then ignored.
    """

    dataset: str = "moons"
    n_samples: int = 100
    noise: float = 0.1
    test_ratio: float = 0.0
    data_seed: int = 1337
    features: tuple = ("x1", "x2")
    hidden_sizes: tuple = (16, 16)
    activation: object = "relu"  # a name, or a tuple of names (one per layer)
    loss: str = "hinge"
    l2_alpha: float = 1e-4
    optimizer: str = "sgd"
    lr: float = 1.0
    momentum: float = 0.0
    betas: tuple = (0.9, 0.999)
    eps: float = 1e-8
    lr_decay: float = 0.9
    batch_size: object = None  # None or an int >= 1
    steps: int = 100
    init_seed: int = 1337
    boundary_every: int = 10
    boundary_resolution: int = 50
    neuron_resolution: int = 0  # > 0: every Boundary also carries per-neuron heatmaps this size
    weights_every: int = 0  # > 0: a Weights snapshot every this many steps
    points: object = None  # None or a tuple of (x1, x2)
    labels: object = None  # None or a tuple of -1.0 / +1.0

    def __post_init__(self):
        # Normalise lists (e.g. from JSON) to tuples so a config stays hashable and immutable.
        # object.__setattr__ is the documented way to do this in a frozen dataclass.
        for name in ("features", "hidden_sizes", "betas"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        if not isinstance(self.activation, str):
            object.__setattr__(self, "activation", tuple(self.activation))
        if self.points is not None or self.labels is not None:
            _check(self.points is not None and self.labels is not None,
                   "points and labels must be given together")
            _check(len(self.points) == len(self.labels),
                   f"{len(self.points)} points but {len(self.labels)} labels")
            points = tuple((float(x1), float(x2)) for x1, x2 in self.points)
            _check(all(math.isfinite(v) for p in points for v in p), "every point must be finite")
            _check(all(y in (-1, 0, 1) for y in self.labels), "labels must be -1/+1 (or 0/1)")
            object.__setattr__(self, "points", points)
            object.__setattr__(self, "labels", tuple(1.0 if y > 0 else -1.0 for y in self.labels))
        self._validate()

    def _validate(self):
        if self.points is None:
            _check(self.dataset in DATASETS,
                   f"dataset: unknown {self.dataset!r}; choose one of {', '.join(DATASETS)}")
            _check(_is_int(self.n_samples) and self.n_samples >= 2, "n_samples must be an int >= 2")
            _check(_is_number(self.noise) and self.noise >= 0, "noise must be a number >= 0")
        else:
            _check(len(self.points) >= 2, "at least 2 points are needed to train")
        _check(_is_number(self.test_ratio) and 0 <= self.test_ratio < 1, "test_ratio must be in [0, 1)")
        _check(_is_int(self.data_seed) and _is_int(self.init_seed), "the seeds must be ints")
        _check(len(self.features) >= 1, "features: choose at least one input feature")
        for name in self.features:
            _check(name in FEATURES, f"features: unknown {name!r}; choose from {', '.join(FEATURES)}")
        _check(len(set(self.features)) == len(self.features), "features: each feature at most once")
        _check(all(_is_int(n) and n >= 1 for n in self.hidden_sizes),
               "hidden_sizes: every layer needs at least 1 neuron")
        if isinstance(self.activation, str):
            _check(self.activation in ACTIVATIONS,
                   f"activation: unknown {self.activation!r}; choose one of {', '.join(ACTIVATIONS)}")
        else:
            _check(len(self.activation) == len(self.hidden_sizes) + 1,
                   f"activation: {len(self.activation)} names for {len(self.hidden_sizes) + 1} layers "
                   "(the hidden layers and the output layer)")
            for name in self.activation:
                _check(name in ACTIVATIONS, f"activation: unknown {name!r}; choose one of {', '.join(ACTIVATIONS)}")
        _check(self.loss in LOSSES, f"loss: unknown {self.loss!r}; choose one of {', '.join(LOSSES)}")
        _check(_is_number(self.l2_alpha) and self.l2_alpha >= 0, "l2_alpha must be a number >= 0")
        _check(self.optimizer in OPTIMIZERS,
               f"optimizer: unknown {self.optimizer!r}; choose one of {', '.join(OPTIMIZERS)}")
        _check(_is_number(self.lr) and self.lr > 0, "lr must be a number > 0")
        _check(_is_number(self.momentum) and 0 <= self.momentum < 1, "momentum must be in [0, 1)")
        _check(len(self.betas) == 2 and all(_is_number(b) and 0 <= b < 1 for b in self.betas),
               "betas must be two numbers in [0, 1)")
        _check(_is_number(self.eps) and self.eps > 0, "eps must be a number > 0")
        _check(_is_number(self.lr_decay) and 0 <= self.lr_decay <= 1, "lr_decay must be in [0, 1]")
        _check(self.batch_size is None or (_is_int(self.batch_size) and self.batch_size >= 1),
               "batch_size must be None (full batch) or an int >= 1")
        _check(_is_int(self.steps) and self.steps >= 1, "steps must be an int >= 1")
        _check(_is_int(self.boundary_every) and self.boundary_every >= 1, "boundary_every must be an int >= 1")
        _check(_is_int(self.boundary_resolution) and self.boundary_resolution >= 2,
               "boundary_resolution must be an int >= 2")
        _check(_is_int(self.neuron_resolution) and self.neuron_resolution >= 0,
               "neuron_resolution must be an int >= 0")
        _check(_is_int(self.weights_every) and self.weights_every >= 0, "weights_every must be an int >= 0")

    def to_dict(self):
        """Plain JSON-ready data (tuples become lists when dumped)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data):
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown training settings: {', '.join(unknown)}")
        return cls(**data)

    def replace(self, **changes):
        """A copy with some fields changed (the config itself never changes)."""
        return dataclasses.replace(self, **changes)


# micrograd's demo.ipynb: make_moons(100, noise=0.1), MLP(2, [16, 16, 1]), hinge loss
# + 1e-4 L2, full-batch SGD with lr = 1.0 - 0.9*k/100 for 100 steps -> 100% accuracy.
MICROGRAD_DEMO = TrainConfig(
    dataset="moons", n_samples=100, noise=0.1, test_ratio=0.0, data_seed=1337,
    features=("x1", "x2"), hidden_sizes=(16, 16), activation="relu",
    loss="hinge", l2_alpha=1e-4, optimizer="sgd", lr=1.0, momentum=0.0, lr_decay=0.9,
    batch_size=None, steps=100, init_seed=1337,
)


# -----------------------------------------------------------------------------
# events (plain data only: they cross from the worker thread to the GUI)

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
    test_loss: object
    test_accuracy: object
    lr: float


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
    neurons: tuple = ()


@dataclasses.dataclass(frozen=True)
class Weights:
    """Every parameter after `step` updates, and the gradient that made the last update."""
    step: int
    weights: list  # state[layer][neuron] = [w0, ..., b], as MLP.state()
    grads: list  # the same shape


@dataclasses.dataclass(frozen=True)
class Result:
    """How the run ended: status 'finished', 'diverged' or 'stopped', after `step` updates.

    `state` is Trainer.state(): plain lists, but a diverged run's weights may
    hold inf/nan, which strict JSON refuses.
    """
    status: str
    step: int
    message: str
    state: dict


# -----------------------------------------------------------------------------
# the trainer

def _bounds(points):
    """A box around the points with a margin, for the boundary image."""
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    span = max(max(xs) - min(xs), max(ys) - min(ys))
    pad = 0.15 * span if span > 0 else 1.0
    return (min(xs) - pad, max(xs) + pad, min(ys) - pad, max(ys) + pad)


def _grad_state(model):
    return [[[p.grad for p in n.parameters()] for n in layer.neurons] for layer in model.layers]


class Trainer:
    """One training run, built once from a TrainConfig and advanced step by step."""

    def __init__(self, cfg):
        self.cfg = cfg
        # 1. the data: generated (or given), then split, all from one seeded rng
        data_rng = random.Random(cfg.data_seed)
        if cfg.points is not None:
            points, labels = list(cfg.points), list(cfg.labels)
        else:
            points, labels = DATASETS[cfg.dataset](cfg.n_samples, cfg.noise, data_rng)
        (self.train_points, self.train_labels,
         self.test_points, self.test_labels) = train_test_split(points, labels, cfg.test_ratio, data_rng)
        self.train_inputs = [feature_row(x1, x2, cfg.features) for x1, x2 in self.train_points]
        self.test_inputs = [feature_row(x1, x2, cfg.features) for x1, x2 in self.test_points]
        self.bounds = _bounds(points)  # (x_min, x_max, y_min, y_max), fixed for the run

        # 2. the model, then (from the same rng, later) the mini-batches
        self.rng = random.Random(cfg.init_seed)
        self.model = MLP(len(cfg.features), list(cfg.hidden_sizes) + [1], cfg.activation, self.rng)
        self.params = self.model.parameters()

        # 3. the optimizer
        if cfg.optimizer == "sgd":
            self.optimizer = SGD(self.params, cfg.lr, cfg.momentum)
        else:
            self.optimizer = Adam(self.params, cfg.lr, cfg.betas, cfg.eps)

        self.steps_done = 0
        self.diverged = None  # the message, once the run has diverged
        self._tape = None     # the full-batch loss graph, recorded on the first step
        self._tape_scores = None
        self._tape_shape = None  # the loss's data-dependent choices when it was recorded

    # -- one step --------------------------------------------------------------

    def lr_at(self, k):
        """The learning rate of update k: a linear decay by lr_decay over cfg.steps."""
        cfg = self.cfg
        return cfg.lr * (1.0 - cfg.lr_decay * min(k, cfg.steps) / cfg.steps)

    def _batch(self):
        n = len(self.train_inputs)
        size = self.cfg.batch_size
        if size is None or size >= n:
            return self.train_inputs, self.train_labels
        picks = self.rng.sample(range(n), size)
        return [self.train_inputs[i] for i in picks], [self.train_labels[i] for i in picks]

    def loss_graph(self):
        """The loss over the whole training set as a Value graph, labelled 'loss':
        exactly what a full-batch step differentiates (lessons and the DAG view show it)."""
        loss, _scores = self._forward(self.train_inputs, self.train_labels)
        loss.label = "loss"
        return loss

    def _record(self):
        """Build the full-batch loss graph and keep it for replay (core/tape.py)."""
        loss, scores = self._forward(self.train_inputs, self.train_labels)
        self._tape, self._tape_scores = Tape(loss), scores
        self._tape_shape = loss_shape(self.cfg.loss, scores, self.train_labels)
        # The recorded graph lives as long as the run and holds no cycles.
        # Moving it (and all else alive now) out of the collector's sight
        # spares every later collection a walk over its ~300k objects,
        # which would otherwise stall the app for tens of ms each time.
        gc.freeze()

    def _forward(self, inputs, labels):
        """The loss graph of one batch, and the scores."""
        # wrap the inputs once, or each of the first layer's neurons would wrap them again
        scores = [self.model([Value(f) for f in row]) for row in inputs]
        loss = LOSSES[self.cfg.loss](scores, labels)
        if self.cfg.l2_alpha > 0:
            loss = loss + l2_regularization(self.params, self.cfg.l2_alpha)
        return loss, scores

    def step(self):
        """Take one training step and return its Progress.

        A non-finite loss (or weights made non-finite by the update) sets
        `self.diverged` to a message; the model is then left as it was.
        """
        if self.diverged:
            raise RuntimeError(f"this run has diverged ({self.diverged}); start a new one")
        k = self.steps_done
        lr = self.lr_at(k)
        full_batch = self.cfg.batch_size is None or self.cfg.batch_size >= len(self.train_inputs)
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            if full_batch:
                if self._tape is not None:
                    self._tape.forward()
                    if loss_shape(self.cfg.loss, self._tape_scores, self.train_labels) != self._tape_shape:
                        self.close()  # a bce softplus must change form: record the graph anew
                if self._tape is None:
                    self._record()
                loss, scores = self._tape.root, self._tape_scores
                train_loss, train_acc = loss.data, accuracy(scores, self.train_labels)
            else:
                # report the whole training set, not the noisy batch
                train_loss, train_acc = self.evaluate(self.train_inputs, self.train_labels)
                loss, scores = self._forward(*self._batch())
            test_loss, test_acc = (self.evaluate(self.test_inputs, self.test_labels)
                                   if self.test_inputs else (None, None))
            progress = Progress(k, train_loss, train_acc, test_loss, test_acc, lr)
            if not math.isfinite(loss.data):
                self.diverged = (f"loss became {loss.data} at step {k}: "
                                 f"the learning rate ({lr:g}) may be too high")
                return progress
            if full_batch:
                self._tape.zero_grad()
                self._tape.backward()
            else:
                self.optimizer.zero_grad()
                loss.backward()
            self.optimizer.lr = lr
            self.optimizer.step()
            del loss, scores  # free the graph while the collector is still off
        finally:
            if gc_was_enabled:
                gc.enable()
        self.steps_done = k + 1
        bad = next((p for p in self.params if not math.isfinite(p.data)), None)
        if bad is not None:
            self.diverged = (f"weight {bad.label} became {bad.data} at step {k + 1}: "
                             f"the learning rate ({lr:g}) may be too high")
        return progress

    # -- looking at the model (float path, no graph) ---------------------------

    def evaluate(self, inputs, labels):
        """(loss, accuracy) of the current model on some inputs, without a graph."""
        scores = self.model.predict_floats(inputs).tolist()
        loss = loss_floats(self.cfg.loss, scores, labels)
        if self.cfg.l2_alpha > 0:
            loss += l2_floats([p.data for p in self.params], self.cfg.l2_alpha)
        return loss, accuracy(scores, labels)

    def _grid(self, resolution):
        x_min, x_max, y_min, y_max = self.bounds
        xs = np.linspace(x_min, x_max, resolution)
        ys = np.linspace(y_min, y_max, resolution)
        gx, gy = np.meshgrid(xs, ys)  # gx[j, i] = xs[i], gy[j, i] = ys[j]
        return xs, ys, feature_array(gx.ravel(), gy.ravel(), self.cfg.features)

    def boundary(self):
        """The current model's score over the data's box, as a Boundary event."""
        r = self.cfg.boundary_resolution
        xs, ys, inputs = self._grid(r)
        grid = self.model.predict_floats(inputs).reshape(r, r)
        neurons = ()
        if self.cfg.neuron_resolution > 0:
            nr = self.cfg.neuron_resolution
            outputs = self.model.activations_floats(self._grid(nr)[2])
            neurons = tuple(out.T.reshape(-1, nr, nr) for out in outputs)
        return Boundary(self.steps_done, xs, ys, grid, neurons)

    def weights(self):
        return Weights(self.steps_done, self.model.state(), _grad_state(self.model))

    def close(self):
        """Free the recorded full-batch graph (~65k nodes for micrograd's demo) a
        node at a time instead of in one long cascade when the trainer is dropped
        (see `core.tape.release`). The trainer records it again if stepped later."""
        tape, self._tape, self._tape_scores = self._tape, None, None
        if tape is not None:
            tape.release()

    # -- saving and resuming ---------------------------------------------------

    def state(self):
        """Everything that changes during a run, as plain data (JSON-ready)."""
        version, internal, gauss_next = self.rng.getstate()
        return {
            "step": self.steps_done,
            "model": self.model.state(),
            "optimizer": self.optimizer.state(),
            "rng": [version, list(internal), gauss_next],
        }

    def load_state(self, state):
        """Resume from state(): the run then continues exactly as the original would."""
        self.model.load_state(state["model"])
        self.optimizer.load_state(state["optimizer"])
        version, internal, gauss_next = state["rng"]
        self.rng.setstate((version, tuple(internal), gauss_next))
        self.steps_done = int(state["step"])
        self.diverged = None

    # -- the whole run -----------------------------------------------------------

    def run(self, should_stop=None):
        """Train up to cfg.steps, yielding events; see `train`."""
        cfg = self.cfg
        while self.steps_done < cfg.steps:
            if should_stop is not None and should_stop():
                yield Result("stopped", self.steps_done, f"stopped after {self.steps_done} steps",
                             self.state())
                return
            if self.steps_done % cfg.boundary_every == 0:
                yield self.boundary()
            progress = self.step()
            yield progress
            if self.diverged:
                yield Result("diverged", self.steps_done, self.diverged, self.state())
                return
            if cfg.weights_every and self.steps_done % cfg.weights_every == 0:
                yield self.weights()
        yield self.boundary()
        final_loss, final_acc = self.evaluate(self.train_inputs, self.train_labels)
        yield Result("finished", self.steps_done,
                     f"finished {self.steps_done} steps: loss {final_loss:.4f}, "
                     f"training accuracy {final_acc:.0%}", self.state())


def train(cfg, should_stop=None):
    """Run a training from `cfg`, yielding Progress, Boundary, Weights and a final Result.

    `should_stop` is an optional no-argument callable (e.g. a
    `threading.Event().is_set`) checked before every step; when it returns
    True the run ends with a 'stopped' Result. To pause, simply stop pulling
    events: the generator waits where it is.
    """
    # a generator itself, so that even building the data happens in the consumer's thread
    trainer = Trainer(cfg)
    try:
        yield from trainer.run(should_stop)
    finally:
        trainer.close()
