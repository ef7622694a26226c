"""The network edits the Training panel's buttons make, as changes to a TrainConfig.

Plain functions of a frozen `TrainConfig`: every button of the NETWORK column
turns into "the changes to the current config", which the panel hands to
`TrainConfig.replace` -- so a refused edit is explained once, in one place,
and the same edits can be tested without a window.

    layers_changed(cfg, delta)           {hidden_sizes, activation} with a layer more or less, or None
    neurons_changed(cfg, layer, delta)   likewise for one layer's width
    activation_changed(cfg, layer, name)
    feature_toggled(cfg, name)           {features} with one input switched, or None if it is the last one
    dataset_chosen(cfg, name)            the DATA column's dataset buttons: a regression problem brings mse
                                         (and a plain-SGD learning rate it can take); lr_changed says so

MAX_LAYERS and MAX_NEURONS are what the buttons offer; a file may ask for more,
up to the limits in config.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.training.datasets import REGRESSION_DATASETS
from core.training.features import FEATURES

if TYPE_CHECKING:
    from core.training.config import TrainConfig

MAX_LAYERS = 6
MAX_NEURONS = 16
NEW_LAYER_SIZE = 4


def activations_of(cfg: TrainConfig) -> tuple[str, ...]:
    """The config's activations as one name per layer (hidden layers, then the output)."""
    if isinstance(cfg.activation, str):
        return (cfg.activation,) * len(cfg.hidden_sizes) + ("linear",)
    return tuple(cfg.activation)


def layers_changed(cfg: TrainConfig, delta: int) -> dict[str, Any] | None:
    """One hidden layer more (+1, NEW_LAYER_SIZE neurons, the activation of the layer before)
    or fewer (-1, the last one); None at the limits (0 and MAX_LAYERS layers).

    With 0 hidden layers the network is one neuron on the features: a linear model
    (with the output's activation), which can only draw a straight boundary in
    the space of its features."""
    sizes = list(cfg.hidden_sizes)
    acts = list(activations_of(cfg))
    if delta > 0 and len(sizes) < MAX_LAYERS:
        sizes.append(NEW_LAYER_SIZE)
        acts.insert(len(acts) - 1, acts[-2] if len(acts) > 1 else "relu")
    elif delta < 0 and len(sizes) > 0:
        sizes.pop()
        acts.pop(len(acts) - 2)
    else:
        return None
    return {"hidden_sizes": tuple(sizes), "activation": tuple(acts)}


def neurons_changed(cfg: TrainConfig, layer: int, delta: int) -> dict[str, Any] | None:
    """Hidden layer `layer` delta neurons wider; None outside 1..MAX_NEURONS."""
    sizes = list(cfg.hidden_sizes)
    new = sizes[layer] + delta
    if not 1 <= new <= MAX_NEURONS:
        return None
    sizes[layer] = new
    return {"hidden_sizes": tuple(sizes), "activation": activations_of(cfg)}


def activation_changed(cfg: TrainConfig, layer: int, name: str) -> dict[str, Any]:
    acts = list(activations_of(cfg))
    acts[layer] = name
    return {"activation": tuple(acts)}


def feature_toggled(cfg: TrainConfig, name: str) -> dict[str, Any] | None:
    """The input feature `name` switched on or off, in FEATURES order; None if it is the last one on."""
    on = list(cfg.features)
    if name in on:
        if len(on) == 1:
            return None
        on.remove(name)
    else:
        on.append(name)
    return {"features": tuple(f for f in FEATURES if f in on)}


REGRESSION_SGD_LR = 0.1  # the largest plain-SGD learning rate a regression is given


def dataset_chosen(cfg: TrainConfig, name: str) -> dict[str, Any]:
    """A new generated dataset `name` (drawn points are dropped). A regression problem needs
    the mse loss; leaving one for classes goes back to micrograd's hinge loss.

    The mse loss's gradients are not the hinge loss's: micrograd's demo settings (SGD
    at lr 1.0) on `plane` kill every ReLU in a few steps (loss 0.43 -> 4.65), so a
    regression brings plain SGD down to lr REGRESSION_SGD_LR (0.1: plane's loss 0.46 ->
    0.003 in 100 steps); lr_changed(cfg, changes) says so in words."""
    changes: dict[str, Any] = {"dataset": name, "points": None, "labels": None, "loss": cfg.loss}
    if name in REGRESSION_DATASETS:
        changes["loss"] = "mse"
        if cfg.optimizer == "sgd" and cfg.lr > REGRESSION_SGD_LR:
            changes["lr"] = REGRESSION_SGD_LR
    elif cfg.regression:
        changes["loss"] = "hinge"
    return changes


def lr_changed(cfg: TrainConfig, changes: dict[str, Any]) -> str:
    """A sentence for the screen when `changes` lower the learning rate, else ''."""
    if "lr" not in changes or changes["lr"] == cfg.lr:
        return ""
    return (
        f"{changes['dataset']} is a regression problem: loss mse, and the learning rate "
        f"{cfg.lr:g} -> {changes['lr']:g} (SGD at {cfg.lr:g} on mse kills the ReLUs in a few steps)."
    )
