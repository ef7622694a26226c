"""Shape seen in public repos: a `Scalar` with children in `_operands`, a label in
its repr, `backward()` listing nodes where it first meets them (pre-order, the
output first) and `__truediv__` that never attaches a `_backward`. (Bug.)"""


class Scalar:
    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data
        self.label = label
        self._op = _op
        self._operands = _children
        self.grad = 0.0
        self._backward = lambda: None

    def __repr__(self):
        return f"{self.label}: {self.data}"

    def backward(self):
        nodes = []

        def build(n):
            if n not in nodes:
                nodes.append(n)
                for child in tuple(reversed(n._operands)):
                    build(child)

        build(self)
        self.grad = 1
        for n in nodes:
            n._backward()

    def __add__(self, other):
        other = other if isinstance(other, Scalar) else Scalar(other)
        out = Scalar(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Scalar) else Scalar(other)
        out = Scalar(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __truediv__(self, other):
        other = other if isinstance(other, Scalar) else Scalar(other)
        return Scalar(self.data / other.data, (self, other), "/")
