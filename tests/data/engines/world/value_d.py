"""Shape seen in homework sheets: the number in .value and its gradient in .d, the
op recorded as a word ('add', 'mul'), children in `inputs`. (Correct.)"""

import math


class Value:
    def __init__(self, value, inputs=(), op=''):
        self.value = value
        self.d = 0.0
        self.inputs = list(inputs)
        self.op = op
        self._backward = lambda: None

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.value + other.value, (self, other), 'add')

        def _backward():
            self.d += out.d
            other.d += out.d

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.value * other.value, (self, other), 'mul')

        def _backward():
            self.d += other.value * out.d
            other.d += self.value * out.d

        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.value)
        out = Value(t, (self,), 'tanh')

        def _backward():
            self.d += (1 - t * t) * out.d

        out._backward = _backward
        return out

    def backward(self):
        order, seen = [], set()

        def visit(v):
            if id(v) not in seen:
                seen.add(id(v))
                for c in v.inputs:
                    visit(c)
                order.append(v)

        visit(self)
        self.d = 1.0
        for v in reversed(order):
            v._backward()
