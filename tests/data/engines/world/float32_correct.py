"""A float32 engine (numpy 0-d arrays of float32), as in repos that
mimic torch's default dtype. (Correct.)"""

import numpy as np


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = np.asarray(data, dtype=np.float32)
        self.grad = np.zeros_like(self.data)
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    def _acc(self, g):
        assert self.grad.shape == np.shape(g)
        self.grad = self.grad + g

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            self._acc(out.grad)
            other._acc(out.grad)

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), '*')

        def _backward():
            self._acc(other.data * out.grad)
            other._acc(self.data * out.grad)

        out._backward = _backward
        return out

    def __pow__(self, k):
        out = Value(self.data**k, (self,), f'**{k}')

        def _backward():
            self._acc(k * self.data ** (k - 1) * out.grad)

        out._backward = _backward
        return out

    def tanh(self):
        t = np.tanh(self.data)
        out = Value(t, (self,), 'tanh')

        def _backward():
            self._acc((1 - t**2) * out.grad)

        out._backward = _backward
        return out

    def backward(self):
        topo, seen = [], set()

        def build(v):
            if v not in seen:
                seen.add(v)
                for c in v._prev:
                    build(c)
                topo.append(v)

        build(self)
        self.grad = np.ones_like(self.data)
        for v in reversed(topo):
            v._backward()

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other
