"""Shape seen in homework: the children kept under a name of the learner's own
(`_kids`), no _op, a `back` closure attached as _backward. (Correct.)"""


class Value:
    def __init__(self, data, kids=()):
        self.data = data
        self.grad = 0.0
        self._kids = tuple(kids)
        self._backward = lambda: None

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other))

        def back():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = back
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other))

        def back():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = back
        return out

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def backward(self):
        order, seen = [], set()
        stack = [(self, iter(self._kids))]
        seen.add(id(self))
        while stack:
            v, it = stack[-1]
            for k in it:
                if id(k) not in seen:
                    seen.add(id(k))
                    stack.append((k, iter(k._kids)))
                    break
            else:
                stack.pop()
                order.append(v)
        self.grad = 1.0
        for v in reversed(order):
            v._backward()
