"""Neurons, layers and multi-layer perceptrons built from `Value`s, as in micrograd.

A neuron computes a weighted sum of its inputs plus a bias, then squashes it:

    out = activation(b + w0*x0 + w1*x1 + ...)

A `Layer` is a list of neurons that all read the same inputs; an `MLP` is a
list of layers, each reading the previous one's outputs. Calling a model on a
list of numbers builds a fresh `Value` graph, so `loss.backward()` fills the
`grad` of every weight, and training is: nudge each weight against its grad.

Defaults match micrograd's `nn.py`: ReLU hidden layers, a linear output layer
(so the score can be any real number), biases 0 and weights uniform in [-1, 1].
Unlike micrograd the weights come from a `random.Random` you pass in; with
none, a model uses its own `random.Random(0)` (shared by all of its neurons),
so `MLP(2, [16, 16, 1])` is the same network on every run.

Every weight and bias is labelled with the path that reaches it in code --
`mlp.layers[1].neurons[3].w[0]` is labelled `L1.n3.w0` -- so a traced graph of
one forward pass says what each leaf is.

Two float-only forward passes build no graph at all, for when only the numbers
matter: `forward_floats(x)` for one input (pure Python, the very same
arithmetic as the Value pass, so the results are equal bit for bit), and
`predict_floats(points)` / `activations_floats(points)`, numpy-vectorised over
many inputs, for decision-boundary images and per-neuron heatmaps (equal to
the Value pass up to float rounding, ~1e-15).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from core import ops
from core.engine import Value

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

# a model's input: numbers or Values (one forward pass may read another's outputs)
Inputs = Sequence[Value | float]

ACTIVATIONS = ("relu", "tanh", "sigmoid", "linear")

# The repr names, as in micrograd's ReLUNeuron / LinearNeuron.
_REPR_NAMES = {"relu": "ReLU", "tanh": "Tanh", "sigmoid": "Sigmoid", "linear": "Linear"}


def _check_activation(activation: str) -> str:
    if activation not in ACTIVATIONS:
        raise ValueError(f"unknown activation {activation!r}; choose one of {', '.join(ACTIVATIONS)}")
    return activation


def _prefixed(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


# -----------------------------------------------------------------------------
# float versions of the activations (one number, and numpy arrays)


def activate_float(activation: str, x: float) -> float:
    """activation(x) for a float, exactly as the Value op computes it (the op table's forward)."""
    return x if activation == "linear" else ops.BY_NAME[activation].forward(x)


def activate_array(activation: str, z: NDArray[np.float64]) -> NDArray[np.float64]:
    """activation(z) elementwise on a numpy array."""
    if activation == "relu":
        return np.maximum(z, 0.0)
    if activation == "tanh":
        return np.tanh(z)
    if activation == "sigmoid":
        # the two stable forms sigmoid_float picks between, so exp never overflows
        e = np.exp(-np.abs(z))
        return np.where(z >= 0.0, 1.0 / (1.0 + e), e / (1.0 + e))
    return z


# -----------------------------------------------------------------------------
# Module


class Module:
    """Anything with parameters: they can be listed and their grads zeroed."""

    def zero_grad(self) -> None:
        # gradients accumulate with +=, so each backward pass must start from 0
        for p in self.parameters():
            p.grad = 0.0

    def parameters(self) -> list[Value]:
        return []


# -----------------------------------------------------------------------------
# Neuron


class Neuron(Module):
    """activation(b + sum_i w_i * x_i) with `nin` weights and one bias."""

    def __init__(self, nin: int, activation: str = "relu", rng: random.Random | None = None, name: str = "") -> None:
        rng = rng if rng is not None else random.Random(0)
        self.activation = _check_activation(activation)
        self.w = [Value(rng.uniform(-1.0, 1.0), label=_prefixed(name, f"w{i}")) for i in range(nin)]
        self.b = Value(0.0, label=_prefixed(name, "b"))

    def __call__(self, x: Inputs) -> Value:
        # the same chain as micrograd's sum(w*x, b): ((b + w0*x0) + w1*x1) + ...
        act = self.b
        for wi, xi in zip(self.w, x):
            act = act + wi * xi
        # act.relu(), act.tanh() or act.sigmoid(): the op table's call, as a learner writes it
        return act if self.activation == "linear" else ops.BY_NAME[self.activation].call(act)

    def forward_float(self, x: Sequence[float]) -> float:
        act = self.b.data
        for wi, xi in zip(self.w, x):
            act = act + wi.data * xi
        return activate_float(self.activation, act)

    def parameters(self) -> list[Value]:
        return self.w + [self.b]

    def state(self) -> list[float]:
        """[w0, w1, ..., b] as plain floats."""
        return [p.data for p in self.parameters()]

    def load_state(self, state: Sequence[float]) -> None:
        for p, number in zip(self.parameters(), self._checked(state, "neuron")):
            p.data = number

    def _checked(self, state: Sequence[float], where: str) -> list[float]:
        """state as floats, or a ValueError saying where it does not fit."""
        n = len(self.w) + 1
        if len(state) != n:
            raise ValueError(f"{where} needs {n} numbers ({len(self.w)} weights and a bias), got {len(state)}")
        try:
            return [float(number) for number in state]
        except (TypeError, ValueError):
            raise ValueError(f"{where}: every weight and bias must be a number, got {state!r}") from None

    def __repr__(self) -> str:
        return f"{_REPR_NAMES[self.activation]}Neuron({len(self.w)})"


# -----------------------------------------------------------------------------
# Layer


class Layer(Module):
    """`nout` neurons reading the same `nin` inputs."""

    def __init__(
        self, nin: int, nout: int, activation: str = "relu", rng: random.Random | None = None, name: str = ""
    ) -> None:
        # one rng for all neurons: a fresh Random(0) each would make them identical
        rng = rng if rng is not None else random.Random(0)
        self.neurons = [Neuron(nin, activation, rng, _prefixed(name, f"n{j}")) for j in range(nout)]

    def __call__(self, x: Inputs) -> Value | list[Value]:
        out = [n(x) for n in self.neurons]
        # like micrograd, a one-neuron layer returns its Value rather than a list
        return out[0] if len(out) == 1 else out

    def forward_floats(self, x: Sequence[float]) -> list[float]:
        return [n.forward_float(x) for n in self.neurons]

    def parameters(self) -> list[Value]:
        return [p for n in self.neurons for p in n.parameters()]

    def arrays(self) -> tuple[NDArray[np.float64], NDArray[np.float64], str]:
        """(W, b, activation): W[j, i] is neuron j's weight on input i."""
        W = np.array([[w.data for w in n.w] for n in self.neurons], dtype=float)
        b = np.array([n.b.data for n in self.neurons], dtype=float)
        return W, b, self.neurons[0].activation if self.neurons else "linear"

    def state(self) -> list[list[float]]:
        return [n.state() for n in self.neurons]

    def load_state(self, state: Sequence[Sequence[float]]) -> None:
        for n, numbers in zip(self.neurons, self._checked(state, "layer")):
            n.load_state(numbers)

    def _checked(self, state: Sequence[Sequence[float]], where: str) -> list[list[float]]:
        if len(state) != len(self.neurons):
            raise ValueError(f"{where} has {len(self.neurons)} neurons, the state has {len(state)}")
        return [n._checked(s, f"{where} neuron {j}") for j, (n, s) in enumerate(zip(self.neurons, state))]

    def __repr__(self) -> str:
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


# -----------------------------------------------------------------------------
# MLP


class MLP(Module):
    """A stack of layers: `nin` inputs, then one layer per entry of `nouts`.

    `activation` is either one name for every hidden layer (the last layer is
    then linear, as in micrograd), or a list with one name per layer,
    e.g. `['tanh', 'tanh', 'linear']`.
    """

    def __init__(
        self, nin: int, nouts: Sequence[int], activation: str | Sequence[str] = "relu", rng: random.Random | None = None
    ) -> None:
        rng = rng if rng is not None else random.Random(0)
        nouts = list(nouts)
        if not nouts:
            raise ValueError("an MLP needs at least one layer: nouts is empty")
        if isinstance(activation, str):
            activations = [activation] * (len(nouts) - 1) + ["linear"]
        else:
            activations = list(activation)
            if len(activations) != len(nouts):
                raise ValueError(f"{len(activations)} activations given for {len(nouts)} layers")
        self.sizes = [nin] + nouts
        self.activations = [_check_activation(a) for a in activations]
        self.layers = [
            Layer(self.sizes[i], self.sizes[i + 1], self.activations[i], rng, f"L{i}") for i in range(len(nouts))
        ]

    def __call__(self, x: Inputs) -> Value | list[Value]:
        # lists between layers (micrograd's unwrapped one-neuron layer would
        # break the next layer); only the final output is unwrapped
        for layer in self.layers:
            x = [n(x) for n in layer.neurons]
        # an MLP has at least one layer, so x is now the last layer's list of Values
        return x[0] if len(x) == 1 else x  # type: ignore[return-value]

    def parameters(self) -> list[Value]:
        return [p for layer in self.layers for p in layer.parameters()]

    # -- float-only forward passes (no graph) ----------------------------------

    def forward_floats(self, x: Sequence[float]) -> float | list[float]:
        """The forward pass on plain floats: equal, bit for bit, to `self(x)`'s data.

        Returns a float for a one-neuron output layer, else a list of floats.
        """
        for layer in self.layers:
            x = layer.forward_floats(x)
        return x[0] if len(x) == 1 else x  # type: ignore[return-value]  # a list after the first layer

    def activations_floats(self, points: ArrayLike) -> list[NDArray[np.float64]]:
        """Every neuron's output at every point: one (n_points, layer_size) array per layer.

        `points` is anything numpy can turn into an (n_points, nin) array. The
        weights are copied into arrays once, then each layer is one matrix
        product over all the points, so a 50x50 grid takes about a
        millisecond instead of the ~100 ms of a Python loop. Column j of array l, reshaped to the grid, is the heatmap
        of neuron j of layer l.
        """
        x = np.asarray(points, dtype=float).reshape(-1, self.sizes[0])
        outputs = []
        for layer in self.layers:
            W, b, activation = layer.arrays()
            x = activate_array(activation, x @ W.T + b)
            outputs.append(x)
        return outputs

    def predict_floats(self, points: ArrayLike) -> NDArray[np.float64]:
        """The model's outputs at many points: shape (n,) for one output, else (n, nout)."""
        out = self.activations_floats(points)[-1]
        return out[:, 0] if out.shape[1] == 1 else out

    # -- saving and loading ----------------------------------------------------

    def state(self) -> list[list[list[float]]]:
        """All parameters as nested plain lists: state[layer][neuron] = [w0, ..., b]."""
        return [layer.state() for layer in self.layers]

    def load_state(self, state: Sequence[Sequence[Sequence[float]]]) -> None:
        """Set every parameter from `state()`'s format.

        The whole state is checked before any weight changes, so a state that
        does not fit raises ValueError (naming the layer and neuron) and leaves
        the model as it was.
        """
        if len(state) != len(self.layers):
            raise ValueError(f"this MLP has {len(self.layers)} layers, the state has {len(state)}")
        checked = [layer._checked(s, f"layer {i}") for i, (layer, s) in enumerate(zip(self.layers, state))]
        for layer, numbers in zip(self.layers, checked):
            layer.load_state(numbers)

    def __repr__(self) -> str:
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"
