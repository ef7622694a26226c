"""Small learner engines for the checker's one rule (core/foreign/agree.py), written for
these tests: a correct micrograd-style `Base` with every op the battery tries (reflected
ones included), and variants that each change one thing -- a regulariser in log, relu'(0)
= 1, float32 data, a wrong __rsub__, ops the studio does not know, a wrong forward, an
opt-in requires_grad flag."""

import math

import numpy as np


def topological(root, children=lambda v: v._prev):
    """The nodes below `root` (itself last), each after its children: the order these
    engines' passes walk in reverse."""
    topo, seen = [], set()

    def build(v):
        if id(v) not in seen:
            seen.add(id(v))
            for child in children(v):
                build(child)
            topo.append(v)

    build(root)
    return topo


class Base:
    def __init__(self, data, _children=(), _op=""):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = tuple(_children)
        self._op = _op

    @classmethod
    def wrap(cls, x):
        return x if isinstance(x, Base) else cls(x)

    def _out(self, data, children, op, backward):
        out = type(self)(data, children, op)
        out._backward = lambda: backward(out)
        return out

    def __add__(self, other):
        other = self.wrap(other)

        def back(out):
            self.grad += out.grad
            other.grad += out.grad

        return self._out(self.data + other.data, (self, other), "+", back)

    def __mul__(self, other):
        other = self.wrap(other)

        def back(out):
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        return self._out(self.data * other.data, (self, other), "*", back)

    def __pow__(self, k):
        def back(out):
            self.grad += k * self.data ** (k - 1) * out.grad

        return self._out(self.data**k, (self,), f"**{k}", back)

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-self.wrap(other))

    def __truediv__(self, other):
        return self * self.wrap(other) ** -1

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def __rsub__(self, other):
        return self.wrap(other) + (-self)

    def __rtruediv__(self, other):
        return self.wrap(other) * self**-1

    def exp(self):
        def back(out):
            self.grad += out.data * out.grad

        return self._out(math.exp(self.data), (self,), "exp", back)

    def log(self):
        def back(out):
            self.grad += out.grad / self.data

        return self._out(math.log(self.data), (self,), "log", back)

    def tanh(self):
        def back(out):
            self.grad += (1 - out.data**2) * out.grad

        return self._out(math.tanh(self.data), (self,), "tanh", back)

    def relu(self):
        def back(out):
            self.grad += (out.data > 0) * out.grad

        return self._out(max(0.0, self.data), (self,), "ReLU", back)

    def sigmoid(self):
        def back(out):
            self.grad += out.data * (1 - out.data) * out.grad

        return self._out(1 / (1 + math.exp(-self.data)), (self,), "sigmoid", back)

    def backward(self):
        topo = topological(self)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()


class LogEps(Base):
    """MiniTorch's course code: log(x + 1e-6), its derivative 1/(x + 1e-6). Correct."""

    def log(self):
        def back(out):
            self.grad += out.grad / (self.data + 1e-6)

        return self._out(math.log(self.data + 1e-6), (self,), "log", back)


class ReluKinkOne(Base):
    """relu'(0) = 1 (x >= 0): a one-sided derivative, right at the kink. Correct."""

    def relu(self):
        def back(out):
            self.grad += (self.data >= 0) * out.grad

        return self._out(max(0.0, self.data), (self,), "ReLU", back)


class Float32(Base):
    """Data and grads in numpy float32. Correct, in float32's precision."""

    def __init__(self, data, _children=(), _op=""):
        super().__init__(np.float32(data), _children, _op)
        self.grad = np.float32(0.0)

    def exp(self):
        def back(out):
            self.grad += out.data * out.grad

        return self._out(np.exp(self.data), (self,), "exp", back)

    def tanh(self):
        def back(out):
            self.grad += (1 - out.data**2) * out.grad

        return self._out(np.tanh(self.data), (self,), "tanh", back)

    def log(self):
        def back(out):
            self.grad += out.grad / self.data

        return self._out(np.log(self.data), (self,), "log", back)

    def sigmoid(self):
        def back(out):
            self.grad += out.data * (1 - out.data) * out.grad

        return self._out(np.float32(1) / (1 + np.exp(-self.data)), (self,), "sigmoid", back)


class RsubBug(Base):
    """`1 - x` computed right, its gradient with the wrong sign: only __rsub__ shows it."""

    def __rsub__(self, other):
        def back(out):
            self.grad += out.grad  # should be -out.grad

        return self._out(other - self.data, (self,), "rsub", back)


class Unknown(Base):
    """Ops the studio does not know, named as the learner names them. Correct."""

    def sin(self):
        def back(out):
            self.grad += math.cos(self.data) * out.grad

        return self._out(math.sin(self.data), (self,), "sin", back)

    def softplus(self):
        def back(out):
            self.grad += out.grad / (1 + math.exp(-self.data))

        return self._out(math.log1p(math.exp(self.data)), (self,), "softplus", back)


class UnknownBug(Unknown):
    """softplus's gradient uses e^x/(1 + e^x)... with the sign lost: wrong."""

    def softplus(self):
        def back(out):
            self.grad += out.grad / (1 + math.exp(self.data))

        return self._out(math.log1p(math.exp(self.data)), (self,), "softplus", back)


class SigmoidForwardBug(Base):
    """The forward computes 1/(1 + e^x); its backward is consistent with the right sigmoid."""

    def sigmoid(self):
        def back(out):
            s = 1 / (1 + math.exp(-self.data))
            self.grad += s * (1 - s) * out.grad

        return self._out(1 / (1 + math.exp(self.data)), (self,), "sigmoid", back)


class OptIn(Base):
    """PyTorch-like: leaves take gradients only when made with requires_grad=True. Correct."""

    def __init__(self, data, _children=(), _op="", requires_grad=False):
        super().__init__(data, _children, _op)
        self.requires_grad = requires_grad or bool(_children)

    def backward(self):
        super().backward()
        for v in self._walk():
            if not v.requires_grad:
                v.grad = 0.0

    def _walk(self):
        seen, stack = set(), [self]
        while stack:
            v = stack.pop()
            if id(v) not in seen:
                seen.add(id(v))
                yield v
                stack.extend(v._prev)


class RoundedExp(Base):
    """exp computed on x rounded to 4 digits: flat to a central difference with a tiny h,
    but its author meant exp(x) and the gradient exp(x) is right."""

    def exp(self):
        def back(out):
            self.grad += out.data * out.grad

        return self._out(math.exp(round(self.data, 4)), (self,), "exp", back)


class PowerBug(Base):
    """The power rule off by one in the exponent: k·x^k."""

    def __pow__(self, k):
        def back(out):
            self.grad += k * self.data**k * out.grad

        return self._out(self.data**k, (self,), f"**{k}", back)


class GradMethod:
    """`grad` is a method summing the contributions each use left (a shape seen in public
    repos): the studio reads it by calling it. Correct, for + and *."""

    def __init__(self, data, _children=()):
        self.data = data
        self._grad = []
        self._prev = tuple(_children)
        self._backward = lambda: None

    def grad(self):
        return sum(self._grad)

    def __add__(self, other):
        out = GradMethod(self.data + other.data, (self, other))

        def _backward():
            self._grad.append(out.grad())
            other._grad.append(out.grad())

        out._backward = _backward
        return out

    def __mul__(self, other):
        out = GradMethod(self.data * other.data, (self, other))

        def _backward():
            self._grad.append(other.data * out.grad())
            other._grad.append(self.data * out.grad())

        out._backward = _backward
        return out

    def backward(self):
        topo = topological(self)
        for v in topo:
            v._grad = []
        self._grad = [1.0]
        for v in reversed(topo):
            v._backward()


class ExponentChild(Base):
    """__pow__ keeps the exponent itself among its children: their own backward() breaks."""

    def __pow__(self, k):
        def back(out):
            self.grad += k * self.data ** (k - 1) * out.grad

        return self._out(self.data**k, (self, k), f"**{k}", back)


class NoReturn(Base):
    """relu forgets `return out`."""

    def relu(self):
        out = Base(max(0.0, self.data), (self,), "ReLU")
        out._backward = lambda: None


class OptInOtherName(Base):
    """Gradients only where `require_grad` (singular) is set: a constructor keyword whose
    leaf default is False, the op's output on when an operand is. Correct."""

    def __init__(self, data, _children=(), _op="", require_grad=False):
        super().__init__(data, _children, _op)
        self.require_grad = require_grad

    def _out(self, data, children, op, backward):
        out = super()._out(data, children, op, backward)
        out.require_grad = any(getattr(c, "require_grad", False) for c in children)
        if not out.require_grad:
            out._backward = lambda: None
        return out


class OptInAttribute(OptInOtherName):
    """The same switch as an attribute only: `__init__` takes no keyword for it. Correct."""

    def __init__(self, data, _children=(), _op=""):
        super().__init__(data, _children, _op)


class OptInMethod(OptInOtherName):
    """Held-out batch 5's shape (a MiniTorch variant): the switch is PyTorch's method alone,
    `x.requires_grad_(True)` -- no attribute a fresh leaf shows False. Correct."""

    def __init__(self, data, _children=(), _op=""):
        super().__init__(data, _children, _op)
        del self.require_grad  # nothing to read on a fresh leaf: only the method says it

    def requires_grad_(self, on=True):
        self.require_grad = on
        return self


class SwitchedOff(Base):
    """A False attribute that names gradients but switches them OFF (`no_grad`): never
    to be set by the checker. Correct as it is."""

    def __init__(self, data, _children=(), _op=""):
        super().__init__(data, _children, _op)
        self.no_grad = False

    def backward(self):
        if not self.no_grad:
            super().backward()


class PrivateGrad:
    """The gradient kept as `self._grad`, no `.grad` at all: every closure and backward()
    use `_grad`. Correct."""

    def __init__(self, data, _children=(), _op=""):
        self.data = data
        self._grad = 0.0
        self._backward = lambda: None
        self._prev = tuple(_children)
        self._op = _op

    def __add__(self, other):
        other = other if isinstance(other, PrivateGrad) else PrivateGrad(other)
        out = PrivateGrad(self.data + other.data, (self, other), "+")

        def _backward():
            self._grad += out._grad
            other._grad += out._grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, PrivateGrad) else PrivateGrad(other)
        out = PrivateGrad(self.data * other.data, (self, other), "*")

        def _backward():
            self._grad += other.data * out._grad
            other._grad += self.data * out._grad

        out._backward = _backward
        return out

    def backward(self):
        topo = topological(self)
        self._grad = 1.0
        for v in reversed(topo):
            v._backward()


class GradIsAValue(Base):
    """`__pow__` wraps its exponent in a Value and its closure multiplies by that Value:
    x.grad becomes a Value whose number is right. A bug of its own (a Value in .grad)."""

    def __pow__(self, k):
        k = self.wrap(k)
        out = type(self)(self.data**k.data, (self,), "**")

        def _backward():
            self.grad += (k * self.data ** (k.data - 1)) * out.grad

        out._backward = _backward
        return out


class ForwardOnly:
    """A start: + and * compute values, the constructor's do-nothing `_backward` is never
    replaced, there is no backward(). Nothing computes a gradient yet: unusable."""

    def __init__(self, data, _children=(), _op=""):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    def __add__(self, other):
        other = other if isinstance(other, ForwardOnly) else ForwardOnly(other)
        return ForwardOnly(self.data + other.data, (self, other), "+")

    def __mul__(self, other):
        other = other if isinstance(other, ForwardOnly) else ForwardOnly(other)
        return ForwardOnly(self.data * other.data, (self, other), "*")


class AddReturnsNothing(Base):
    """`__add__` builds `out` and its closure but never returns it: x + y is None."""

    def __add__(self, other):
        super().__add__(other)


class RelabelledSub(Base):
    """x - y made as x + (-y), then the result's `_op` set to "-": a label for the whole
    step, not what the node computes. Correct."""

    def __sub__(self, other):
        out = self + (-self.wrap(other))
        out._op = "-"
        return out


class RelabelledSubRootOnly(RelabelledSub):
    """The same, with a backward() whose topological sort drops its recursive results:
    only the output's closure ever runs."""

    def backward(self):
        self.grad = 1.0
        self._backward()


class ClosuresOnOperands(ForwardOnly):
    """Gradient code hung on the operands (`self._backward = ...`), never on `out`:
    wrong (the output's closure adds nothing), but gradient code all the same."""

    def __mul__(self, other):
        other = other if isinstance(other, ClosuresOnOperands) else ClosuresOnOperands(other)
        return ClosuresOnOperands(self.data * other.data, (self, other), "*")

    def __add__(self, other):
        other = other if isinstance(other, ClosuresOnOperands) else ClosuresOnOperands(other)
        out = ClosuresOnOperands(self.data + other.data, (self, other), "+")

        def _self_grad():
            self.grad += out.grad

        self._backward = _self_grad
        return out


class ReluForwardDoubled(Base):
    """relu's forward gives twice its input: wrong at a step whose operand is itself a step."""

    def relu(self):
        def back(out):
            self.grad += (self.data > 0) * out.grad

        return self._out(2 * max(0.0, self.data), (self,), "ReLU", back)


class PairParents:
    """No closures: each node keeps its operands as (node, local derivative) pairs, and a
    recursive backprop() adds every path's contribution (right, if slow on a deep graph)."""

    def __init__(self, value, parents=()):
        self.value = value
        self.grad = 0.0
        self.parents = list(parents)

    def wrap(self, x):
        return x if isinstance(x, PairParents) else type(self)(x)

    def __add__(self, other):
        other = self.wrap(other)
        return type(self)(self.value + other.value, [(self, 1.0), (other, 1.0)])

    def __mul__(self, other):
        other = self.wrap(other)
        return type(self)(self.value * other.value, [(self, other.value), (other, self.value)])

    def __pow__(self, k):
        return type(self)(self.value**k, [(self, k * self.value ** (k - 1))])

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-self.wrap(other))

    def __truediv__(self, other):
        return self * self.wrap(other) ** -1

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def __rsub__(self, other):
        return self.wrap(other) - self

    def __rtruediv__(self, other):
        return self.wrap(other) / self

    def tanh(self):
        t = math.tanh(self.value)
        return type(self)(t, [(self, 1 - t * t)])

    def backprop(self, bp=1.0):
        self.grad += bp
        for parent, local in self.parents:
            parent.backprop(local * bp)


class PairParentsBug(PairParents):
    """The same, with mul's local derivatives swapped."""

    def __mul__(self, other):
        other = self.wrap(other)
        return type(self)(self.value * other.value, [(self, self.value), (other, other.value)])


class ClosureAsBackward(Base):
    """Each op stores its closure as `out.backward`, hiding the class's backward() method."""

    def _out(self, data, children, op, backward):
        out = type(self)(data, children, op)
        out.backward = lambda: backward(out)
        return out


class NeverWalks(Base):
    """backward() builds its topological order and never walks it."""

    def backward(self):
        topo, seen = [], set()

        def build(v):
            if v not in seen:
                seen.add(v)
                for child in v._prev:
                    build(child)
                topo.append(v)

        build(self)
        self.grad = 1.0


class MisspeltPass(ForwardOnly):
    """Closures named `_backwards`, a pass named `backaward`: nothing under the names micrograd uses."""

    def __mul__(self, other):
        other = other if isinstance(other, MisspeltPass) else MisspeltPass(other)
        out = MisspeltPass(self.data * other.data, (self, other), "*")

        def _backwards():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backwards = _backwards
        return out

    def backaward(self):
        self.grad = 1.0


class NoneChild(Base):
    """Unary ops keep `(self, None)` as children: a binary op's shape, None for no operand."""

    def relu(self):
        def back(out):
            self.grad += (self.data > 0) * out.grad

        return self._out(max(0.0, self.data), (self, None), "relu", back)

    def tanh(self):
        t = math.tanh(self.data)

        def back(out):
            self.grad += (1 - t * t) * out.grad

        return self._out(t, (self, None), "tanh", back)

    def backward(self):
        topo, seen = [], set()

        def build(v):
            if v is not None and id(v) not in seen:  # their walk skips the None
                seen.add(id(v))
                for child in v._prev:
                    build(child)
                topo.append(v)

        build(self)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()


class SqrtMethod(Base):
    """A method the studio does not know, defined only for x >= 0 (`math.sqrt`): right."""

    def sqrt(self):
        s = math.sqrt(self.data)

        def back(out):
            self.grad += 0.5 / s * out.grad

        return self._out(s, (self,), "sqrt", back)


class SqrtAsPower(Base):
    """The same method written `self ** 0.5`: a complex number at a negative x."""

    def sqrt(self):
        return self**0.5


class PrivateData:
    """micrograd's Value with its number and gradient kept as `_data` and `_grad`."""

    def __init__(self, data, _children=(), _op=""):
        self._data = data
        self._grad = 0.0
        self._backward = lambda: None
        self._prev = tuple(_children)
        self._op = _op

    def wrap(self, x):
        return x if isinstance(x, PrivateData) else PrivateData(x)

    def _out(self, data, children, op, backward):
        out = PrivateData(data, children, op)
        out._backward = lambda: backward(out)
        return out

    def __add__(self, other):
        other = self.wrap(other)

        def back(out):
            self._grad += out._grad
            other._grad += out._grad

        return self._out(self._data + other._data, (self, other), "+", back)

    def __mul__(self, other):
        other = self.wrap(other)

        def back(out):
            self._grad += other._data * out._grad
            other._grad += self._data * out._grad

        return self._out(self._data * other._data, (self, other), "*", back)

    def __pow__(self, k):
        def back(out):
            self._grad += k * self._data ** (k - 1) * out._grad

        return self._out(self._data**k, (self,), f"**{k}", back)

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-self.wrap(other))

    def __truediv__(self, other):
        return self * self.wrap(other) ** -1

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def backward(self):
        topo = topological(self)
        self._grad = 1.0
        for v in reversed(topo):
            v._backward()


class MisspeltClosures:
    """Closures named `_backwards` and no pass of any spelling (a lecture's first cells)."""

    def __init__(self, data, _children=(), _op=""):
        self.data, self.grad, self._prev, self._op = data, 0.0, set(_children), _op

    def __add__(self, other):
        other = other if isinstance(other, MisspeltClosures) else MisspeltClosures(other)
        out = MisspeltClosures(self.data + other.data, (self, other), "+")

        def _backwards():
            self.grad += out.grad
            other.grad += out.grad

        out._backwards = _backwards
        return out

    def __mul__(self, other):
        other = other if isinstance(other, MisspeltClosures) else MisspeltClosures(other)
        out = MisspeltClosures(self.data * other.data, (self, other), "*")

        def _backwards():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backwards = _backwards
        return out


class CutDivide(Base):
    """Held-out batch 4's shape: / returns a new leaf made from the number (`Value(self.data *
    other.data**-1)`), with no children -- the graph is cut, no gradient code runs."""

    def __truediv__(self, other):
        other = self.wrap(other)
        return type(self)(self.data * other.data**-1)


class CutHalf(Base):
    """/ keeps only its left operand as a child: the graph reaches x but never y."""

    def __truediv__(self, other):
        other = self.wrap(other)

        def back(out):
            self.grad += out.grad / other.data

        return self._out(self.data / other.data, (self,), "/", back)


class MulRaisesAtZero(Base):
    """* divides by an operand in its backward: right everywhere but at 0, where it raises."""

    def __mul__(self, other):
        other = self.wrap(other)

        def back(out):
            self.grad += out.grad * out.data / self.data
            other.grad += out.grad * out.data / other.data

        return self._out(self.data * other.data, (self, other), "*", back)


class TanhAlwaysRaises(MulRaisesAtZero):
    """...and tanh's backward raises at every point (a name it never defined)."""

    def tanh(self):
        t = math.tanh(self.data)

        def back(out):
            self.grad += (1 - t2) * out.grad  # noqa: F821 -- the learner's slip

        return self._out(t, (self,), "tanh", back)


class LnStaircase(Base):
    """Held-out batch 4's shape: `ln` (not `log`) computed as N·(x^(1/N) − 1), N = 99999999 --
    ln to 7 digits but a staircase to a central difference (steps of N·2⁻⁵² in the value) --
    with the exact derivative 1/x. Correct: their ln is the studio's log."""

    def ln(self):
        n = 99999999

        def back(out):
            self.grad += out.grad / self.data

        return self._out(n * (self.data ** (1 / n) - 1), (self,), "ln", back)


class LnStaircaseBug(LnStaircase):
    """...with the derivative of ln written as 1/x²: wrong, whatever the staircase."""

    def ln(self):
        n = 99999999

        def back(out):
            self.grad += out.grad / self.data**2

        return self._out(n * (self.data ** (1 / n) - 1), (self,), "ln", back)


def _made(cls, data, parents, local):
    out = cls(data, parents)
    out._backward = local
    return out


class OperandCode:
    """Held-out batch 5's shape (Function objects): a node's `_backward` takes its operands
    and RETURNS their local derivatives, `Add.backward(x, y) -> (1.0, 1.0)`; backward()
    multiplies each by the node's grad and adds it. Correct."""

    def __init__(self, value, _parents=()):
        self.value = value
        self.grad = 0.0
        self._parents = tuple(_parents)
        self._backward = lambda *parents: tuple(0.0 for _ in parents)

    def _wrap(self, other):
        return other if isinstance(other, OperandCode) else type(self)(other)

    def __add__(self, other):
        other = self._wrap(other)
        return _made(type(self), self.value + other.value, (self, other), lambda x, y: (1.0, 1.0))

    def __mul__(self, other):
        other = self._wrap(other)
        return _made(type(self), self.value * other.value, (self, other), self._mul_locals)

    @staticmethod
    def _mul_locals(x, y):
        return (y.value, x.value)

    def __neg__(self):
        return _made(type(self), -self.value, (self,), lambda x: (-1.0,))

    def __sub__(self, other):
        return self + (-self._wrap(other))

    def tanh(self):
        t = math.tanh(self.value)
        return _made(type(self), t, (self,), lambda x: (1 - t * t,))

    def backward(self):
        topo = topological(self, lambda v: v._parents)
        self.grad = 1.0
        for u in reversed(topo):
            for v, g in zip(u._parents, u._backward(*u._parents)):
                v.grad += u.grad * g


class OperandCodeBug(OperandCode):
    """...with *'s local derivatives swapped: x gets x's own value."""

    @staticmethod
    def _mul_locals(x, y):
        return (x.value, y.value)


class LocalGradSingular:
    """Held-out batch 5's shape: microgpt's style with the local derivatives kept as
    `_local_grad` (singular) beside `_children`. Correct."""

    def __init__(self, data, children=(), local_grad=()):
        self.data = data
        self.grad = 0.0
        self._children = children
        self._local_grad = local_grad

    def _wrap(self, other):
        return other if isinstance(other, LocalGradSingular) else LocalGradSingular(other)

    def __add__(self, other):
        other = self._wrap(other)
        return LocalGradSingular(self.data + other.data, (self, other), (1.0, 1.0))

    def __mul__(self, other):
        other = self._wrap(other)
        return LocalGradSingular(self.data * other.data, (self, other), (other.data, self.data))

    def tanh(self):
        t = math.tanh(self.data)
        return LocalGradSingular(t, (self,), (1 - t * t,))

    def backward(self):
        topo = topological(self, lambda v: v._children)
        self.grad = 1.0
        for v in reversed(topo):
            for c, g in zip(v._children, v._local_grad):
                c.grad += g * v.grad


class MangledClosures(Base):
    """Held-out batch 5's shape: `self.__backward` and `self.__op` in class Value, kept by
    Python as `_MangledClosures__backward` and `_MangledClosures__op`. Correct."""

    def __init__(self, data, _children=(), _op=""):
        super().__init__(data, _children, _op)
        self.__backward = lambda: None
        self.__op = _op
        del self._backward, self._op

    def _out(self, data, children, op, backward):
        out = type(self)(data, children, op)
        out.__backward = lambda: backward(out)
        return out

    def backward(self):
        topo = topological(self)
        self.grad = 1.0
        for v in reversed(topo):
            v.__backward()


class PowExponentChild(Base):
    """Held-out batch 5's shape: `x ** k` keeps k as a Value among its children, labelled '^',
    in a set (order lost). Correct."""

    def __init__(self, data, _children=(), _op=""):
        super().__init__(data, _children, _op)
        self._prev = set(_children)

    def __pow__(self, k):
        k = self.wrap(k)

        def back(out):
            self.grad += k.data * self.data ** (k.data - 1) * self._scale(out)

        return self._out(self.data**k.data, (self, k), "^", back)

    @staticmethod
    def _scale(out):
        return out.grad


class PowExponentChildBug(PowExponentChild):
    """...with `* out.grad` missing in its backward."""

    @staticmethod
    def _scale(out):
        return 1.0


class PullGrad:
    """Held-out batch 5's shape (CS207's reverse mode): each node keeps its users as
    `children = [(weight, user)]`, and `x.grad()` pulls d(out)/dx from them. Right, but
    there is no backward() to check."""

    def __init__(self, val):
        self.val = val
        self.children = []
        self.der = None

    def grad(self):
        if self.der is None:
            self.der = sum(w * node.grad() for w, node in self.children) if self.children else 1.0
        return self.der

    def __add__(self, other):
        out = PullGrad(self.val + other.val)
        self.children.append((1.0, out))
        other.children.append((1.0, out))
        return out

    def __mul__(self, other):
        out = PullGrad(self.val * other.val)
        self.children.append((other.val, out))
        other.children.append((self.val, out))
        return out


class NodeZeroGrad(Base):
    """Held-out batch 6's shape (four engines): `zero_grad()` zeroes the node it is called on, as
    PyTorch's parameters do; a training loop calls it on each parameter. Correct."""

    def zero_grad(self):
        self.grad = 0.0


class NodeZeroGradBug(Base):
    """...a zero_grad() that zeroes nothing at all: the second pass adds to the first."""

    def zero_grad(self):
        pass


class GradientNamed:
    """Held-out batch 6's shape: the gradient kept as `.gradient` and each node's closure as
    `back_prop`. Correct."""

    def __init__(self, data, children=()):
        self.data = data
        self.gradient = 0.0
        self.children = tuple(children)
        self.back_prop = lambda: None

    def _wrap(self, other):
        return other if isinstance(other, GradientNamed) else GradientNamed(other)

    def __add__(self, other):
        other = self._wrap(other)
        out = GradientNamed(self.data + other.data, (self, other))

        def back():
            self.gradient += out.gradient
            other.gradient += out.gradient

        out.back_prop = back
        return out

    def __mul__(self, other):
        other = self._wrap(other)
        out = GradientNamed(self.data * other.data, (self, other))

        def back():
            self.gradient += other.data * out.gradient
            other.gradient += self.data * out.gradient

        out.back_prop = back
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = GradientNamed(t, (self,))

        def back():
            self.gradient += (1 - t * t) * out.gradient

        out.back_prop = back
        return out

    def backward(self):
        topo = topological(self, lambda v: v.children)
        self.gradient = 1.0
        for v in reversed(topo):
            v.back_prop()


class RequireGradRefuses(Base):
    """Held-out batch 6's shape: leaves opt in with `require_grad` (no s), and backward()
    REFUSES a graph without it ("require_grad is False"). Correct."""

    def __init__(self, data, _children=(), _op="", require_grad=False):
        super().__init__(data, _children, _op)
        self.require_grad = require_grad or any(getattr(c, "require_grad", False) for c in _children)

    def backward(self):
        if not self.require_grad:
            raise ValueError("require_grad is False, cannot call backward")
        super().backward()


class Float32Copy(Base):
    """Held-out batch 6's shape: an op whose output is float32 on float64 leaves (`sum()` as
    np.float32), with the derivative 1. Correct: a difference quotient at a float64-sized step
    reads its staircase as 1.004."""

    def f32(self):
        def back(out):
            self.grad += out.grad

        return self._out(np.float32(self.data), (self,), "f32", back)


class BackpropNames:
    """Held-out batch 6's names: the closure is `.back` and the pass `backprop()`; `*`'s closure
    writes `=` for `+=` (a bug, to be told in their names)."""

    def __init__(self, data, children=()):
        self.data = data
        self.grad = 0.0
        self._prev = tuple(children)
        self.back = lambda: None

    def _wrap(self, other):
        return other if isinstance(other, BackpropNames) else BackpropNames(other)

    def __add__(self, other):
        other = self._wrap(other)
        out = BackpropNames(self.data + other.data, (self, other))

        def back():
            self.grad += out.grad
            other.grad += out.grad

        out.back = back
        return out

    def __mul__(self, other):
        other = self._wrap(other)
        out = BackpropNames(self.data * other.data, (self, other))

        def back():
            self.grad = other.data * out.grad
            other.grad = self.data * out.grad

        out.back = back
        return out

    def backprop(self):
        topo = topological(self)
        self.grad = 1.0
        for v in reversed(topo):
            v.back()
