"""The shape of MiniTorch module 1, written anew: a Scalar with .derivative (None
until backward), a history (last_fn, ctx, inputs), ScalarFunctions with
forward(ctx, ...) / backward(ctx, d), chain_rule, topological_sort and
backpropagate. Only leaves keep a derivative. Bug: topological_sort lists a node where it first
meets it (depth first, before the nodes that use it): each node once, the order wrong."""

import math


class Context:
    def __init__(self):
        self.saved_values = ()

    def save_for_backward(self, *values):
        self.saved_values = values


class ScalarHistory:
    def __init__(self, last_fn=None, ctx=None, inputs=()):
        self.last_fn = last_fn
        self.ctx = ctx
        self.inputs = inputs


_ids = [0]


class ScalarFunction:
    @classmethod
    def apply(cls, *vals):
        scalars = [v if isinstance(v, Scalar) else Scalar(v) for v in vals]
        ctx = Context()
        c = cls.forward(ctx, *[s.data for s in scalars])
        return Scalar(c, ScalarHistory(cls, ctx, scalars))


class Add(ScalarFunction):
    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, d):
        return d, d


class Mul(ScalarFunction):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, d):
        a, b = ctx.saved_values
        return b * d, a * d


class Neg(ScalarFunction):
    @staticmethod
    def forward(ctx, a):
        return -a

    @staticmethod
    def backward(ctx, d):
        return (-d,)


class Inv(ScalarFunction):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return 1.0 / a

    @staticmethod
    def backward(ctx, d):
        (a,) = ctx.saved_values
        return (-d / a**2,)


class Sigmoid(ScalarFunction):
    @staticmethod
    def forward(ctx, a):
        s = 1.0 / (1.0 + math.exp(-a))
        ctx.save_for_backward(s)
        return s

    @staticmethod
    def backward(ctx, d):
        (s,) = ctx.saved_values
        return (s * (1 - s) * d,)


class ReLU(ScalarFunction):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a if a > 0 else 0.0

    @staticmethod
    def backward(ctx, d):
        (a,) = ctx.saved_values
        return (d if a > 0 else 0.0,)


class Exp(ScalarFunction):
    @staticmethod
    def forward(ctx, a):
        e = math.exp(a)
        ctx.save_for_backward(e)
        return e

    @staticmethod
    def backward(ctx, d):
        (e,) = ctx.saved_values
        return (e * d,)


class Scalar:
    def __init__(self, v, back=None):
        self.history = back or ScalarHistory()
        self.derivative = None
        self.data = float(v)
        _ids[0] += 1
        self.unique_id = _ids[0]

    def __add__(self, b):
        return Add.apply(self, b)

    def __radd__(self, b):
        return Add.apply(b, self)

    def __mul__(self, b):
        return Mul.apply(self, b)

    def __rmul__(self, b):
        return Mul.apply(b, self)

    def __neg__(self):
        return Neg.apply(self)

    def __sub__(self, b):
        return Add.apply(self, Neg.apply(b))

    def __truediv__(self, b):
        return Mul.apply(self, Inv.apply(b))

    def sigmoid(self):
        return Sigmoid.apply(self)

    def relu(self):
        return ReLU.apply(self)

    def exp(self):
        return Exp.apply(self)

    def is_leaf(self):
        return self.history.last_fn is None

    def accumulate_derivative(self, x):
        if self.derivative is None:
            self.derivative = 0.0
        self.derivative += x

    def chain_rule(self, d):
        h = self.history
        return list(zip(h.inputs, h.last_fn.backward(h.ctx, d)))

    def backward(self, d=None):
        backpropagate(self, 1.0 if d is None else d)


def topological_sort(variable):
    order, seen = [], set()

    def visit(v):
        if v.unique_id in seen:
            return
        seen.add(v.unique_id)
        order.append(v)
        for parent in v.history.inputs:
            visit(parent)

    visit(variable)
    return order


def backpropagate(variable, deriv):
    derivs = {variable.unique_id: deriv}
    for v in topological_sort(variable):
        d = derivs.pop(v.unique_id, 0.0)
        if v.is_leaf():
            v.accumulate_derivative(d)
            continue
        for parent, dp in v.chain_rule(d):
            derivs[parent.unique_id] = derivs.get(parent.unique_id, 0.0) + dp
