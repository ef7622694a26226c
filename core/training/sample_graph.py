"""One sample's scalar graph: the micrograd Values behind one neuron, from plain weights.

The app's training worker owns the training's live `Value`s and never shares them across
threads; what the GUI gets is a snapshot of the weights (`MLP.state()` form).
From it `sample_graph` builds a fresh model and pushes ONE sample through it,
so the graph a student opens is small (one forward pass of one point, up to
the neuron they clicked), exactly what the network computes (the data equal
the float forward bit for bit), and already backpropagated.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from core.engine import Value, topological_order
from core.losses import LOSSES
from core.nn import MLP
from core.training.features import feature_row

if TYPE_CHECKING:
    from core.training.config import TrainConfig

LIVE_GRAPH_MAX_NODES = 2000  # "Follow live" rebuilds only graphs a repaint can keep up with


def model_from_weights(cfg: TrainConfig, weights: Sequence[Sequence[Sequence[float]]]) -> MLP:
    """A fresh MLP of cfg's shape holding `weights` (MLP.state() format)."""
    model = MLP(len(cfg.features), list(cfg.hidden_sizes) + [1], cfg.activation, random.Random(0))
    model.load_state(weights)
    return model


def sample_graph(
    cfg: TrainConfig,
    weights: Sequence[Sequence[Sequence[float]]],
    point: Sequence[float],
    label: float,
    layer: int,
    neuron: int,
    through_loss: bool = False,
) -> tuple[Value, MLP]:
    """The Value graph of ONE sample through the network up to neuron `neuron` of `layer`.

    1. the inputs: the sample's features as labelled leaves (x1, x2, x1^2, ...)
    2. every layer before `layer` in full (a neuron reads all of the previous layer)
    3. the chosen neuron; with `through_loss` (output neuron only), this sample's data loss
    4. backward() from that root, so every node holds its data and its grad

    Returns (root, model); the data equal the float forward pass bit for bit.
    """
    model = model_from_weights(cfg, weights)
    x = [Value(f, label=name) for f, name in zip(feature_row(point[0], point[1], cfg.features), cfg.features)]
    for i in range(layer):
        x = [n(x) for n in model.layers[i].neurons]
        for j, v in enumerate(x):
            v.label = f"L{i}.n{j}"
    root = model.layers[layer].neurons[neuron](x)
    root.label = f"L{layer}.n{neuron}"
    if through_loss and layer == len(model.layers) - 1:
        root = LOSSES[cfg.loss]([root], [label])
        root.label = f"{cfg.loss} loss"
    root.backward()
    return root, model


def graph_size(root: Value) -> int:
    return len(topological_order(root))
