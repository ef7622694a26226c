"""Shape seen in public repos: a `Scalar` whose number is `.v`, children in
`children`, the closure called `back` and the pass called `backprop()`, which walks
breadth first through a queue; `__pow__` also keeps the children of its input
instead of the input. (Bug.)"""


class Scalar:
    def __init__(self, v, grad=0, children=(), back=lambda: None, op=""):
        self.v = v
        self.grad = grad
        self.children = children
        self.back = back
        self.op = op

    def __add__(self, o):
        o = o if isinstance(o, Scalar) else Scalar(o)
        s = Scalar(self.v + o.v, children=(self, o), op="+")

        def back():
            self.grad += s.grad
            o.grad += s.grad

        s.back = back
        return s

    def __mul__(self, o):
        o = o if isinstance(o, Scalar) else Scalar(o)
        s = Scalar(self.v * o.v, children=(self, o), op="*")

        def back():
            self.grad += s.grad * o.v
            o.grad += s.grad * self.v

        s.back = back
        return s

    def __pow__(self, k):
        s = Scalar(self.v**k, children=self.children, op="^")

        def back():
            self.grad += s.grad * k * self.v ** (k - 1)

        s.back = back
        return s

    def backprop(self):
        queue = [self]
        self.grad = 1
        while queue:
            c = queue.pop(0)
            c.back()
            queue.extend(c.children)
