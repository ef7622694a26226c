"""Shape seen in public repos: a `Scalar` whose number is `.v`, children in
`children`, the closure called `back` and the pass called `backprop()`, which walks
breadth first through a queue; `__pow__` also keeps the children of its input
instead of the input. Here written right: a depth-first topological order, each
node once, and `__pow__` keeps its input. (Correct.)"""


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
        s = Scalar(self.v**k, children=(self,), op="^")

        def back():
            self.grad += s.grad * k * self.v ** (k - 1)

        s.back = back
        return s

    def backprop(self):
        order, seen = [], set()

        def visit(c):
            if id(c) not in seen:
                seen.add(id(c))
                for child in c.children:
                    visit(child)
                order.append(c)

        visit(self)
        self.grad = 1
        for c in reversed(order):
            c.back()
