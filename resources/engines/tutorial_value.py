"""The Value class of the lesson "Write your own Value", as a learner writes it --
with ONE classic bug left in for the studio to find.

Try it: File -> Debug my engine... and choose this file, or from a terminal

    python main.py --check-engine resources/engines/tutorial_value.py

The studio runs it in a separate process, builds test expressions with this
class, steps each `_backward` one at a time against its own derivatives and
stops at the first wrong gradient. (Spoiler, for after you have looked: the
power rule in __pow__ forgets to lower the exponent by one.)
"""

import math


class Value:
    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None  # a leaf has nothing to pass on
        self._prev = tuple(_children)  # a tuple keeps both uses in a*a (a set keeps one)
        self._op = _op
        self.label = label

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            # d(a + b)/da = 1, d(a + b)/db = 1
            self.grad += 1.0 * out.grad
            other.grad += 1.0 * out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            # d(a * b)/da = b, d(a * b)/db = a
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __pow__(self, k):
        assert isinstance(k, (int, float)), "only a number as the exponent"
        out = Value(self.data**k, (self,), f"**{k}")

        def _backward():
            # d(x^k)/dx = k * x^(k-1) ... but this line computes k * x^k: the bug
            self.grad += k * self.data**k * out.grad

        out._backward = _backward
        return out

    def exp(self):
        out = Value(math.exp(self.data), (self,), "exp")

        def _backward():
            # d(e^x)/dx = e^x, which is out.data
            self.grad += out.data * out.grad

        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")

        def _backward():
            # d tanh(x)/dx = 1 - tanh(x)^2
            self.grad += (1 - t**2) * out.grad

        out._backward = _backward
        return out

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def backward(self):
        # a topological order: every node after the nodes it was made from ...
        topo, visited = [], set()

        def build_topo(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build_topo(child)
                topo.append(v)

        build_topo(self)
        # ... walked backwards, from the output: each node has all its grad
        # before it passes it on
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()


if __name__ == "__main__":
    x, y = Value(2.0, label="x"), Value(-3.0, label="y")
    f = x * y + y**2
    f.backward()
    print(f"f = {f.data}, x.grad = {x.grad}, y.grad = {y.grad}  (right: x.grad = -3, y.grad = -4)")
