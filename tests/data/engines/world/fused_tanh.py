"""Shape seen in public repos: tanh computed through sub-expressions (exp, +, /)
whose result node gets a _backward that writes straight to the input, the
sub-expression nodes left without one. (Correct.)"""

import math


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), '*')

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def tanh(self):
        e = Value(math.exp(2 * self.data), (self,), 'exp2x')
        num, den = Value(e.data - 1, (e,), '-1'), Value(e.data + 1, (e,), '+1')
        out = Value(num.data / den.data, (num, den), 'tanh')
        x = self

        def _backward():
            x.grad += (1 - out.data**2) * out.grad

        out._backward = _backward
        return out

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def backward(self):
        topo, seen = [], set()

        def build(v):
            if v not in seen:
                seen.add(v)
                for c in v._prev:
                    build(c)
                topo.append(v)

        build(self)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()
