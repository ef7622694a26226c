"""TrainConfig: everything that decides a training run, as frozen pure data.

The dataset and its seed, the input features, the network's shape, the loss,
the optimizer and its schedule: a run is a function of its config. The same
config gives the same run, number for number, because every random choice comes
from two seeded `random.Random`s (see trainer.py). A config is immutable and
hashable; `replace(**changes)` makes a changed copy, `to_dict`/`from_dict`
carry it through JSON (lessons and training-session files hold one).

Two settings shape the problem itself: a regression dataset (plane,
multi-gaussian: a number to predict at each point) needs the mse loss, and the
penalty on the weights is `l2_alpha * sum(w^2) + l1_alpha * sum(|w|)`
(regularization.py; the panel offers none, L1 or L2). An empty `hidden_sizes`
is a network with no hidden layer: one neuron on the features.

The Training panel's number boxes ask `setting_problem(name, value)` before
they send a value, so the limits live here alone and a refusal reads as the box
is named on screen ("Learning rate: lr must be a number > 0 and finite, got 0").

Building a config checks it, and a refusal is a `ConfigError` (a ValueError)
whose message starts with the field at fault, e.g. "lr must be a number > 0
and finite". A file can ask for anything, so the check also refuses work no
screen in the studio would ask for -- a hidden layer of ten million neurons
ran 63 s into a MemoryError; ten million samples took 192 s and 2.7 GB. The
limits below sit far above what the Training panel offers (its spin boxes stop
at 6 layers of 16 neurons, 2,000 samples, batches of 1,000, 1,000,000 steps):

    MAX_HIDDEN_LAYERS      100 hidden layers
    MAX_LAYER_SIZE         1,000 neurons in one layer
    MAX_PARAMETERS         100,000 weights and biases in all
    MAX_SAMPLES            100,000 points (generated, drawn or imported); also caps batch_size
    MAX_SAMPLE_PARAMETERS  10,000,000 = points x parameters: the work of one step. A full-batch
                           step builds about two Values (~1 KB) per point and parameter, and
                           every step evaluates the whole training set (the panel's largest
                           network on its most points is about 3,000,000)
    MAX_STEPS              10,000,000 steps
    MAX_BOUNDARY_RESOLUTION 500 (a 500 x 500 score grid), MAX_NEURON_RESOLUTION 100
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

from core.losses import LOSSES
from core.nn import ACTIVATIONS
from core.training.datasets import DATASETS, REGRESSION_DATASETS
from core.training.features import FEATURES

OPTIMIZERS = ("sgd", "adam")

# settings newer than the first files, and their value when off (to_dict leaves them out then)
NEWER_SETTINGS = {"l1_alpha": 0.0}

MAX_HIDDEN_LAYERS = 100
MAX_LAYER_SIZE = 1_000
MAX_PARAMETERS = 100_000
MAX_SAMPLES = 100_000
MAX_SAMPLE_PARAMETERS = 10_000_000
MAX_STEPS = 10_000_000
MAX_BOUNDARY_RESOLUTION = 500
MAX_NEURON_RESOLUTION = 100


class ConfigError(ValueError):
    """A training setting that cannot be used; the message names the field and what to do."""


# -----------------------------------------------------------------------------
# checking


def _check(ok: object, message: str) -> None:
    if not ok:
        raise ConfigError(message)


def _is_int(x: object) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x: object) -> TypeGuard[float]:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def parameter_count(n_inputs: int, hidden_sizes: Sequence[int]) -> int:
    """Weights and biases of an MLP n_inputs -> hidden_sizes -> 1: each neuron has one weight
    per input and a bias, (nin + 1) * nout per layer. Counted without building anything."""
    sizes = [n_inputs, *hidden_sizes, 1]
    return sum((nin + 1) * nout for nin, nout in zip(sizes, sizes[1:]))


# -----------------------------------------------------------------------------
# the configuration


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
    features: tuple[str, ...] = ("x1", "x2")
    hidden_sizes: tuple[int, ...] = (16, 16)
    activation: str | tuple[str, ...] = "relu"  # a name, or a tuple of names (one per layer)
    loss: str = "hinge"
    l2_alpha: float = 1e-4
    l1_alpha: float = 0.0  # alpha * sum(|w|) (regularization.py); old files have none: 0
    optimizer: str = "sgd"
    lr: float = 1.0
    momentum: float = 0.0
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8
    lr_decay: float = 0.9
    batch_size: int | None = None  # None: the whole training set
    steps: int = 100
    init_seed: int = 1337
    boundary_every: int = 10
    boundary_resolution: int = 50
    neuron_resolution: int = 0  # > 0: every Boundary also carries per-neuron heatmaps this size
    weights_every: int = 0  # > 0: a Weights snapshot every this many steps
    points: tuple[tuple[float, float], ...] | None = None  # None: the dataset's points
    labels: tuple[float, ...] | None = None  # -1.0 / +1.0, one per point

    def __post_init__(self) -> None:
        # Normalise lists (e.g. from JSON) to tuples so a config stays hashable and immutable.
        # object.__setattr__ is the documented way to do this in a frozen dataclass.
        for name in ("features", "hidden_sizes", "betas"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        if not isinstance(self.activation, str):
            object.__setattr__(self, "activation", tuple(self.activation))
        if self.points is not None or self.labels is not None:
            if self.points is None or self.labels is None:
                raise ConfigError("points and labels must be given together")
            _check(
                len(self.points) <= MAX_SAMPLES,
                f"points: {len(self.points):,} points are more than the limit of {MAX_SAMPLES:,}",
            )
            _check(len(self.points) == len(self.labels), f"{len(self.points)} points but {len(self.labels)} labels")
            points = tuple((float(x1), float(x2)) for x1, x2 in self.points)
            _check(all(math.isfinite(v) for p in points for v in p), "every point must be finite")
            _check(all(y in (-1, 0, 1) for y in self.labels), "labels must be -1/+1 (or 0/1)")
            object.__setattr__(self, "points", points)
            object.__setattr__(self, "labels", tuple(1.0 if y > 0 else -1.0 for y in self.labels))
        self._validate()

    def _validate(self) -> None:
        # -- the data
        if self.points is None:
            _check(self.dataset in DATASETS, f"dataset: unknown {self.dataset!r}; choose one of {', '.join(DATASETS)}")
            _check(_is_int(self.n_samples) and self.n_samples >= 2, "n_samples must be an int >= 2")
            _check(
                self.n_samples <= MAX_SAMPLES,
                f"n_samples: {self.n_samples:,} is more than the limit of {MAX_SAMPLES:,}",
            )
            _check(_is_number(self.noise) and self.noise >= 0, "noise must be a number >= 0 and finite")
        else:
            _check(len(self.points) >= 2, "at least 2 points are needed to train")
        _check(_is_number(self.test_ratio) and 0 <= self.test_ratio < 1, "test_ratio must be in [0, 1)")
        _check(_is_int(self.data_seed) and _is_int(self.init_seed), "the seeds must be ints")
        _check(len(self.features) >= 1, "features: choose at least one input feature")
        for name in self.features:
            _check(name in FEATURES, f"features: unknown {name!r}; choose from {', '.join(FEATURES)}")
        _check(len(set(self.features)) == len(self.features), "features: each feature at most once")

        # -- the network, and the work one step makes of it
        _check(
            len(self.hidden_sizes) <= MAX_HIDDEN_LAYERS,
            f"hidden_sizes: {len(self.hidden_sizes):,} hidden layers are more than the limit of {MAX_HIDDEN_LAYERS}",
        )
        _check(
            all(_is_int(n) and n >= 1 for n in self.hidden_sizes), "hidden_sizes: every layer needs at least 1 neuron"
        )
        widest = max(self.hidden_sizes, default=0)
        _check(
            widest <= MAX_LAYER_SIZE,
            f"hidden_sizes: a layer of {widest:,} neurons is more than the limit of {MAX_LAYER_SIZE:,}",
        )
        params = parameter_count(len(self.features), self.hidden_sizes)
        _check(
            params <= MAX_PARAMETERS,
            f"hidden_sizes: the network would have {params:,} parameters, more than the limit of {MAX_PARAMETERS:,}",
        )
        n_points = self.n_samples if self.points is None else len(self.points)
        _check(
            n_points * params <= MAX_SAMPLE_PARAMETERS,
            f"n_samples: {n_points:,} points x {params:,} parameters is {n_points * params:,}, more than "
            f"the limit of {MAX_SAMPLE_PARAMETERS:,} for one training step; use fewer points or a smaller "
            "network",
        )
        if isinstance(self.activation, str):
            _check(
                self.activation in ACTIVATIONS,
                f"activation: unknown {self.activation!r}; choose one of {', '.join(ACTIVATIONS)}",
            )
        else:
            _check(
                len(self.activation) == len(self.hidden_sizes) + 1,
                f"activation: {len(self.activation)} names for {len(self.hidden_sizes) + 1} layers "
                "(the hidden layers and the output layer)",
            )
            for name in self.activation:
                _check(name in ACTIVATIONS, f"activation: unknown {name!r}; choose one of {', '.join(ACTIVATIONS)}")

        # -- the loss and the optimizer
        _check(self.loss in LOSSES, f"loss: unknown {self.loss!r}; choose one of {', '.join(LOSSES)}")
        _check(_is_number(self.l2_alpha) and self.l2_alpha >= 0, "l2_alpha must be a number >= 0 and finite")
        _check(_is_number(self.l1_alpha) and self.l1_alpha >= 0, "l1_alpha must be a number >= 0 and finite")
        if self.points is None and self.dataset in REGRESSION_DATASETS:
            _check(
                self.loss == "mse",
                f"loss: {self.dataset} is a regression problem (a number to predict, not a class); "
                f"it needs the mse loss, not {self.loss}",
            )
        _check(
            self.optimizer in OPTIMIZERS,
            f"optimizer: unknown {self.optimizer!r}; choose one of {', '.join(OPTIMIZERS)}",
        )
        _check(_is_number(self.lr) and self.lr > 0, "lr must be a number > 0 and finite")
        _check(_is_number(self.momentum) and 0 <= self.momentum < 1, "momentum must be in [0, 1)")
        _check(
            len(self.betas) == 2 and all(_is_number(b) and 0 <= b < 1 for b in self.betas),
            "betas must be two numbers in [0, 1)",
        )
        _check(_is_number(self.eps) and self.eps > 0, "eps must be a number > 0 and finite")
        _check(_is_number(self.lr_decay) and 0 <= self.lr_decay <= 1, "lr_decay must be in [0, 1]")
        _check(
            self.batch_size is None or (_is_int(self.batch_size) and self.batch_size >= 1),
            "batch_size must be None (full batch) or an int >= 1",
        )
        if self.batch_size is not None:
            _check(
                self.batch_size <= MAX_SAMPLES,
                f"batch_size: {self.batch_size:,} is more than the limit of {MAX_SAMPLES:,}",
            )
        _check(_is_int(self.steps) and self.steps >= 1, "steps must be an int >= 1")
        _check(self.steps <= MAX_STEPS, f"steps: {self.steps:,} is more than the limit of {MAX_STEPS:,}")

        # -- what the run reports
        _check(_is_int(self.boundary_every) and self.boundary_every >= 1, "boundary_every must be an int >= 1")
        _check(
            _is_int(self.boundary_resolution) and 2 <= self.boundary_resolution <= MAX_BOUNDARY_RESOLUTION,
            f"boundary_resolution must be an int from 2 to {MAX_BOUNDARY_RESOLUTION}",
        )
        _check(
            _is_int(self.neuron_resolution) and 0 <= self.neuron_resolution <= MAX_NEURON_RESOLUTION,
            f"neuron_resolution must be an int from 0 to {MAX_NEURON_RESOLUTION}",
        )
        _check(_is_int(self.weights_every) and self.weights_every >= 0, "weights_every must be an int >= 0")

    @property
    def regression(self) -> bool:
        """True when the targets are numbers to predict (plane, multi-gaussian), not classes."""
        return self.points is None and self.dataset in REGRESSION_DATASETS

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (tuples become lists when dumped).

        A setting added since the first session files (`l1_alpha`) is written only
        when it is in use, so a file that does not use it opens in older versions too.
        """
        data = dataclasses.asdict(self)
        for name, off in NEWER_SETTINGS.items():
            if data[name] == off:
                del data[name]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TrainConfig:
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"unknown training settings: {', '.join(unknown)}")
        return cls(**data)

    def replace(self, **changes: Any) -> TrainConfig:
        """A copy with some fields changed (the config itself never changes)."""
        return dataclasses.replace(self, **changes)


# -----------------------------------------------------------------------------
# one setting at a time, as the Training panel's boxes edit them

SETTING_NAMES = {
    "lr": "Learning rate",
    "momentum": "Momentum",
    "lr_decay": "Decay",
    "l2_alpha": "L2 rate",
    "l1_alpha": "L1 rate",
    "noise": "Noise",
    "eps": "Adam eps",
}


def setting_problem(name: str, value: float, label: str | None = None) -> str | None:
    """What is wrong with `value` for the setting `name`, in words that name it as the screen
    does ("Learning rate: lr must be a number > 0 and finite, got -1"), or None if it is fine.
    `label` is the box's name on screen when it is not SETTING_NAMES[name]. The same check as
    building a config: the limits live here only."""
    try:
        TrainConfig().replace(**{name: value})
    except ConfigError as e:
        return f"{label or SETTING_NAMES.get(name, name)}: {e}, got {value:g}"
    return None


# micrograd's demo.ipynb: make_moons(100, noise=0.1), MLP(2, [16, 16, 1]), hinge loss
# + 1e-4 L2, full-batch SGD with lr = 1.0 - 0.9*k/100 for 100 steps -> 100% accuracy.
MICROGRAD_DEMO = TrainConfig(
    dataset="moons",
    n_samples=100,
    noise=0.1,
    test_ratio=0.0,
    data_seed=1337,
    features=("x1", "x2"),
    hidden_sizes=(16, 16),
    activation="relu",
    loss="hinge",
    l2_alpha=1e-4,
    optimizer="sgd",
    lr=1.0,
    momentum=0.0,
    lr_decay=0.9,
    batch_size=None,
    steps=100,
    init_seed=1337,
)
