"""Shape seen in public repos: `_op` is only a label. __sub__ is self + (-other)
but the node is labelled '-'; __truediv__ is self * other**-1 labelled '/';
tanh is labelled 'tanh' but built from exp. (Correct.)"""

import math


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = tuple(_children)
        self._op = _op

    def __add__(self, other, op='+'):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), op)

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other, op='*'):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), op)

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __pow__(self, k):
        out = Value(self.data**k, (self,), f'**{k}')

        def _backward():
            self.grad += k * self.data ** (k - 1) * out.grad

        out._backward = _backward
        return out

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return self.__add__(-other, op='-')

    def __truediv__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return self.__mul__(other**-1, op='/')

    def exp(self):
        out = Value(math.exp(self.data), (self,), 'exp')

        def _backward():
            self.grad += out.data * out.grad

        out._backward = _backward
        return out

    def tanh(self):
        e = (self * 2).exp()
        out = (e - 1) / (e + 1)
        out._op = 'tanh'
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
