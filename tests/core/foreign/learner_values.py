"""Learners' Value classes in the shapes the studio reads, for the foreign tests: only what the
trace looks at (data, grad, the operands, the op), no arithmetic."""

import os


class SetValue:
    """The lecture's shape: _prev is a set, _op a string, a label."""

    def __init__(self, data, children=(), op="", label=""):
        self.data, self.grad, self._prev, self._op, self.label = data, 0.0, set(children), op, label
        self._backward = lambda: None


class TupleValue:
    """No label, _prev a tuple; ops spelled as learners do."""

    def __init__(self, data, children=(), op=""):
        self.data, self.grad, self._prev, self._op = data, 0.0, tuple(children), op


class Slotted:
    """The local-grads style (2026): _children and _local_grads, no _op, no closures, __slots__."""

    __slots__ = ("data", "grad", "_children", "_local_grads")

    def __init__(self, data, children=(), local_grads=()):
        self.data, self.grad, self._children, self._local_grads = data, 0.0, children, local_grads


BIG_MLP = """
import random


class Neuron:
    def __init__(self, nin):
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(0.0)

    def __call__(self, x):
        return sum((wi * xi for wi, xi in zip(self.w, x)), self.b).relu()


class MLP:
    def __init__(self, nin, nouts):
        sizes = [nin] + nouts
        self.layers = [[Neuron(sizes[i]) for _ in range(sizes[i + 1])] for i in range(len(nouts))]

    def __call__(self, x):
        for layer in self.layers:
            x = [n(x) for n in layer]
        return x[0]


random.seed(1)
model = MLP(3, [16, 16, 1])
xs = [[random.uniform(-1, 1) for _ in range(3)] for _ in range({samples})]
loss = sum((model(x) - (1.0 if sum(x) > 0 else -1.0)) ** 2 for x in xs)
loss.backward()
"""


def big_mlp_file(folder, samples):
    """A learner's file: their Value class (micrograd's) and, at module level, an MLP's loss."""
    engines = os.path.join(os.path.dirname(__file__), "..", "..", "data", "engines")
    with open(os.path.join(engines, "micrograd_like.py"), encoding="utf-8") as f:
        theirs = f.read()
    path = folder / "my_engine.py"
    path.write_text(theirs + BIG_MLP.format(samples=samples))
    return path
