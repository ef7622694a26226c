"""Ready-made experiments: the Training panel's Preset box, as named TrainConfigs.

PRESETS            name (as shown) -> TrainConfig
DEFAULT_PRESET     the one a new panel starts with: micrograd's demo, 20% of its points held out
for_display(cfg)   cfg with the per-neuron heatmaps the network view needs switched on
preset_name(cfg)   the preset cfg is, or "custom"
goal_missed(...)   what a finished run of a preset falls short of, or None

Every preset reaches its goal with its own settings, as they are (a test trains
each, headless): a classification ends with at least 95% of its training points
and 90% of its test points on the right side; a regression ends with a test
loss (mean squared error) under a quarter of what predicting the mean would
give -- the model explains more than three quarters of the targets' variance.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.training.config import MICROGRAD_DEMO, TrainConfig

GOAL_TRAIN_ACCURACY = 0.95
GOAL_TEST_ACCURACY = 0.90
GOAL_VARIANCE_LEFT = 0.25  # a regression's test loss / the variance of its test targets

PRESETS = {
    # micrograd's demo trains on 100 moons points; here 25 more are held out to test on
    "micrograd demo (moons, 16-16 ReLU)": MICROGRAD_DEMO.replace(n_samples=125, test_ratio=0.2),
    "spiral, 2 tanh layers": TrainConfig(
        dataset="spiral",
        n_samples=200,
        noise=0.0,
        test_ratio=0.2,
        hidden_sizes=(12, 12),
        activation=("tanh", "tanh", "linear"),
        loss="bce",
        l2_alpha=0.0,
        optimizer="adam",
        lr=0.03,
        lr_decay=0.0,
        batch_size=None,
        steps=300,
    ),
    "circles, x₁² and x₂² features": TrainConfig(
        dataset="circles",
        n_samples=200,
        noise=0.05,
        test_ratio=0.2,
        features=("x1^2", "x2^2"),
        hidden_sizes=(2,),
        activation=("tanh", "linear"),
        loss="hinge",
        l2_alpha=0.0,
        optimizer="sgd",
        lr=0.1,
        momentum=0.9,
        lr_decay=0.0,
        batch_size=10,
        steps=200,
    ),
    "xor, 4 tanh neurons": TrainConfig(
        dataset="xor",
        n_samples=200,
        noise=0.05,
        test_ratio=0.2,
        hidden_sizes=(4,),
        activation=("tanh", "linear"),
        loss="bce",
        l2_alpha=0.0,
        optimizer="adam",
        lr=0.05,
        lr_decay=0.0,
        batch_size=10,
        steps=300,
    ),
    "blobs, one linear neuron": TrainConfig(
        dataset="blobs",
        n_samples=200,
        noise=0.1,
        test_ratio=0.2,
        hidden_sizes=(1,),
        activation=("linear", "linear"),
        loss="hinge",
        l2_alpha=0.0,
        optimizer="sgd",
        lr=0.1,
        lr_decay=0.0,
        batch_size=10,
        steps=100,
    ),
    "plane (regression), a linear model": TrainConfig(
        dataset="plane",
        n_samples=200,
        noise=0.0,
        test_ratio=0.2,
        hidden_sizes=(),
        activation=("linear",),
        loss="mse",
        l2_alpha=0.0,
        optimizer="sgd",
        lr=0.1,
        lr_decay=0.0,
        batch_size=None,
        steps=100,
    ),
    "multi-gaussian (regression), 8-8 tanh": TrainConfig(
        dataset="multi-gaussian",
        n_samples=300,
        noise=0.0,
        test_ratio=0.2,
        hidden_sizes=(8, 8),
        activation="tanh",
        loss="mse",
        l2_alpha=0.0,
        optimizer="adam",
        lr=0.03,
        lr_decay=0.0,
        batch_size=None,
        steps=1000,
    ),
}
DEFAULT_PRESET = "micrograd demo (moons, 16-16 ReLU)"


def for_display(cfg: TrainConfig) -> TrainConfig:
    """cfg with the per-neuron heatmaps the network view needs switched on."""
    return cfg if cfg.neuron_resolution else cfg.replace(neuron_resolution=16)


def preset_name(cfg: TrainConfig) -> str:
    """The name of the preset cfg is (as shown), else "custom". How many steps to run
    (`--train-steps`, the Steps box) is not part of an experiment: it keeps the name."""
    return next((name for name, p in PRESETS.items() if for_display(p).replace(steps=cfg.steps) == cfg), "custom")


def goal_missed(
    cfg: TrainConfig,
    train_accuracy: float,
    test_loss: float | None,
    test_accuracy: float | None,
    test_targets: Sequence[float] = (),
) -> str | None:
    """What a finished run of `cfg` falls short of (the module docstring's goals), or None."""
    if cfg.regression:
        if test_loss is None or not test_targets:
            return "a regression preset needs test points to judge its fit"
        mean = sum(test_targets) / len(test_targets)
        variance = sum((t - mean) ** 2 for t in test_targets) / len(test_targets)
        if not test_loss <= GOAL_VARIANCE_LEFT * variance:
            return (
                f"test loss {test_loss:.4g} is not under {GOAL_VARIANCE_LEFT:g} x the targets' variance {variance:.4g}"
            )
        return None
    if not train_accuracy >= GOAL_TRAIN_ACCURACY:
        return f"training accuracy {train_accuracy:.1%} < {GOAL_TRAIN_ACCURACY:.0%}"
    if test_accuracy is not None and not test_accuracy >= GOAL_TEST_ACCURACY:
        return f"test accuracy {test_accuracy:.1%} < {GOAL_TEST_ACCURACY:.0%}"
    return None
