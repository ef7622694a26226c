"""A learner's engine whose pass is a module-level function, not a method: `backward(variable)`
walks op objects (each op a small class with forward() and backward(grad_output)). Its own
module: the pass function applies to the classes written beside it."""

import math


class Variable:
    def __init__(self, value):
        self.value = value
        self.grad = 0.0
        self.op = None
        self.children = []

    def _apply(self, op, *children):
        result = op.forward()
        result.children = list(children)
        return result

    def __add__(self, other):
        other = other if isinstance(other, Variable) else Variable(other)
        return self._apply(AddOp(self, other), self, other)

    def __mul__(self, other):
        other = other if isinstance(other, Variable) else Variable(other)
        return self._apply(MulOp(self, other), self, other)

    def tanh(self):
        return self._apply(TanhOp(self), self)


class AddOp:
    def __init__(self, left, right):
        self.left, self.right = left, right

    def forward(self):
        out = Variable(self.left.value + self.right.value)
        out.op = self
        return out

    def backward(self, grad_output):
        self.left.grad += grad_output
        self.right.grad += grad_output


class MulOp:
    def __init__(self, left, right):
        self.left, self.right = left, right

    def forward(self):
        out = Variable(self.left.value * self.right.value)
        out.op = self
        return out

    def backward(self, grad_output):
        self.left.grad += grad_output * self.right.value
        self.right.grad += grad_output * self.left.value


class TanhOp:
    def __init__(self, x):
        self.x = x

    def forward(self):
        self.out = Variable(math.tanh(self.x.value))
        self.out.op = self
        return self.out

    def backward(self, grad_output):
        self.x.grad += grad_output * (1 - self.out.value**2)


def backward(variable):
    """Their pass, in a correct order: every node after all of its users."""
    order, seen = [], set()

    def visit(v):
        if id(v) not in seen:
            seen.add(id(v))
            for child in v.children:
                visit(child)
            order.append(v)

    visit(variable)
    variable.grad = 1.0
    for v in reversed(order):
        if v.op is not None:
            v.op.backward(v.grad)


def backward_by_stack(variable):
    """The same pass walking a stack, no topological order: a node used twice passes its
    grad on before its second use has added to it."""
    variable.grad = 1.0
    stack = [variable]
    while stack:
        v = stack.pop()
        if v.op is not None:
            v.op.backward(v.grad)
            stack.extend(v.children)
