"""micrograd's nn module on the studio's engine: `Neuron(nin, nonlin=True)`,
`Layer(nin, nout, **kwargs)`, `MLP(nin, nouts)`, `Module.zero_grad()`.

As in micrograd, the weights come from the global `random` module (the runner
seeds it, so a cell gives the same numbers every run), biases start at 0, hidden
layers use ReLU and the last layer is linear. core/nn.py does the work: with
`rng=random` it draws the same numbers in the same order as micrograd does, and
labels each weight with its place (`L0.n1.w2`), so the canvas names it.
"""

import random

from core import nn as studio_nn
from core.nn import Module

__all__ = ["Module", "Neuron", "Layer", "MLP"]


def _activation(nonlin):
    return "relu" if nonlin else "linear"


class Neuron(studio_nn.Neuron):
    def __init__(self, nin, nonlin=True):
        super().__init__(nin, _activation(nonlin), rng=random)
        self.nonlin = nonlin


class Layer(studio_nn.Layer):
    def __init__(self, nin, nout, nonlin=True):
        super().__init__(nin, nout, _activation(nonlin), rng=random)


class MLP(studio_nn.MLP):
    def __init__(self, nin, nouts):
        super().__init__(nin, nouts, "relu", rng=random)
