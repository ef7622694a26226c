"""A learner's script in the local-grads style: a tiny two-neuron model, one backward()."""


class Value:
    __slots__ = ("data", "grad", "_children", "_local_grads")

    def __init__(self, data, children=(), local_grads=()):
        self.data, self.grad, self._children, self._local_grads = data, 0.0, children, local_grads

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data + other.data, (self, other), (1.0, 1.0))

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data * other.data, (self, other), (other.data, self.data))

    def relu(self):
        return Value(max(0.0, self.data), (self,), (float(self.data > 0),))

    def backward(self):
        order, seen = [], set()

        def visit(v):
            if v not in seen:
                seen.add(v)
                for c in v._children:
                    visit(c)
                order.append(v)

        visit(self)
        self.grad = 1.0
        for v in reversed(order):
            for c, g in zip(v._children, v._local_grads):
                c.grad += g * v.grad


def neuron(x, w):
    return sum((wi * xi for wi, xi in zip(w, x)), Value(0.0)).relu()


ws = [[Value(0.5), Value(-0.25)], [Value(1.5), Value(2.0)]]
x = [Value(1.0), Value(2.0)]
outs = []
for k in range(2):
    outs.append(neuron(x, ws[k]))
loss = outs[0] + outs[1]
loss.backward()
print("after backward: this line never runs under the trace")
for _ in range(10**9):  # nor does this loop
    pass
