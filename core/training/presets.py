"""Ready-made experiments: the Training panel's Preset box, as named TrainConfigs.

PRESETS            name (as shown) -> TrainConfig
DEFAULT_PRESET     the one a new panel starts with: micrograd's demo
for_display(cfg)   cfg with the per-neuron heatmaps the network view needs switched on
preset_name(cfg)   the preset cfg is, or "custom"
"""

from __future__ import annotations

from core.training.config import MICROGRAD_DEMO, TrainConfig

PRESETS = {
    "micrograd demo (moons, 16-16 ReLU)": MICROGRAD_DEMO,
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
}
DEFAULT_PRESET = "micrograd demo (moons, 16-16 ReLU)"


def for_display(cfg: TrainConfig) -> TrainConfig:
    """cfg with the per-neuron heatmaps the network view needs switched on."""
    return cfg if cfg.neuron_resolution else cfg.replace(neuron_resolution=16)


def preset_name(cfg: TrainConfig) -> str:
    """The name of the preset cfg is (as shown), else "custom". How many steps to run
    (`--train-steps`, the Steps box) is not part of an experiment: it keeps the name."""
    return next((name for name, p in PRESETS.items() if for_display(p).replace(steps=cfg.steps) == cfg), "custom")
