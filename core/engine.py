"""A scalar-valued autograd engine, in the spirit of Karpathy's micrograd.

A `Value` wraps one float (`data`) and remembers how it was made: the operands
it came from (`_prev`, a tuple in operand order, so `a*a` keeps *two* entries)
and the operation (`_op`). Every operation follows the same four beats:

    1. coerce the operand (a plain number becomes a leaf `Value`),
    2. build `out` from the operands' data (the forward pass),
    3. define `_backward`, which pushes gradient from `out` to each operand by
       the chain rule:   operand.grad += (local derivative) * out.grad
    4. attach it to `out`.

`backward()` then visits the graph from the output back to the inputs in
reverse topological order, so a node's `_backward` runs only after every node
that uses it has added its share to `node.grad`.

Two differences from micrograd, both visible in the code below:

* `_backward(out)` receives its output node as an argument instead of
  capturing it. The closure therefore holds no reference to its own output, so
  a graph holds no reference cycles and Python frees a dropped graph at once by
  reference counting, instead of leaving tens of thousands of cycles for the
  cyclic garbage collector (which makes micrograd's training step ~13x slower
  and would freeze a GUI for hundreds of ms). Closures read `data` when they
  run, never a copy taken when the node was built, so after the forward pass is
  re-run in place (`refresh`) the same closures are still right.
* Numbers follow IEEE float64 like numpy: overflow gives +-inf, log(0) gives
  -inf, log(-1) and (-8)**0.5 give nan, x/0 gives +-inf or nan. A model that
  diverges shows inf/nan in its nodes instead of raising halfway through.
  At the edges the derivatives take the limits a float64 reference takes:
  d(x^0)/dx = 0 at x = 0, d(0^x)/dx = 0 for x >= 0, and divisions divide
  (-(a/b)/b, never -a/(b*b), which underflows for b = 1e-200).

Everything the rest of the studio needs to know about an op (its name in a
document, its symbol, its derivative in math) is in `core/ops.py`, the op
table; the methods below are the ops themselves, written out one by one.

`topological_order()` is iterative, so graphs a million nodes deep work.
"""

import math

from core import ops
from core.ops import ieee_div, ieee_exp, ieee_log, ieee_pow, sigmoid_float

# -----------------------------------------------------------------------------
# Value

def _no_backward(out):
    """A leaf has no operands to pass gradient to."""


def _as_float(data):
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        raise TypeError(f"Value needs a real number, got {type(data).__name__} {data!r}")
    return float(data)


class Value:
    """Stores a single scalar value and its gradient."""

    __slots__ = ("data", "grad", "label", "_prev", "_op", "_backward")

    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data if data.__class__ is float else _as_float(data)
        self.grad = 0.0
        self.label = label
        self._prev = _children
        self._op = _op
        self._backward = _no_backward

    # -- binary operations ---------------------------------------------------

    def __add__(self, other):
        other = other if isinstance(other, Value) else _operand(other, "+")
        out = Value(self.data + other.data, (self, other), "+")

        def _backward(out):
            # d(a+b)/da = 1, d(a+b)/db = 1
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __sub__(self, other):
        other = other if isinstance(other, Value) else _operand(other, "-")
        out = Value(self.data - other.data, (self, other), "-")

        def _backward(out):
            # d(a-b)/da = 1, d(a-b)/db = -1
            self.grad += out.grad
            other.grad -= out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else _operand(other, "*")
        out = Value(self.data * other.data, (self, other), "*")

        def _backward(out):
            # d(a*b)/da = b, d(a*b)/db = a
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __truediv__(self, other):
        other = other if isinstance(other, Value) else _operand(other, "/")
        out = Value(ieee_div(self.data, other.data), (self, other), "/")

        def _backward(out):
            # d(a/b)/da = 1/b, d(a/b)/db = -a/b^2 = -(a/b)/b
            # (divided, not multiplied: b*b underflows to 0 for b = 1e-200, 1/b overflows
            # for a tiny b, where out.grad / b may still be a fine number)
            self.grad += ieee_div(out.grad, other.data)
            other.grad -= ieee_div(out.data, other.data) * out.grad
        out._backward = _backward
        return out

    def __pow__(self, k):
        if isinstance(k, Value):
            raise TypeError("Value ** Value is not supported: the exponent must be a number "
                            "(int or float); for base ** x with a Value x use exp(x * log(base))")
        if isinstance(k, bool) or not isinstance(k, (int, float)):
            raise TypeError(f"the exponent must be an int or float, got {type(k).__name__}")
        out = Value(ieee_pow(self.data, k), (self,), f"**{k!r}")

        def _backward(out):
            # d(x^k)/dx = k * x^(k-1); for k = 0, x^0 = 1 is constant: 0, also at x = 0
            if k != 0:
                self.grad += k * ieee_pow(self.data, k - 1) * out.grad
        out._backward = _backward
        return out

    # -- unary operations ----------------------------------------------------

    def __neg__(self):
        out = Value(-self.data, (self,), "neg")

        def _backward(out):
            # d(-x)/dx = -1
            self.grad -= out.grad
        out._backward = _backward
        return out

    def relu(self):
        # `0 if x <= 0 else x` keeps nan as nan (as numpy's maximum does): a model that
        # diverged must not look healthy behind a ReLU.
        out = Value(0.0 if self.data <= 0.0 else self.data, (self,), "relu")

        def _backward(out):
            # d relu(x)/dx = 1 if x > 0 else 0
            if not self.data <= 0.0:
                self.grad += out.grad
        out._backward = _backward
        return out

    def tanh(self):
        out = Value(math.tanh(self.data), (self,), "tanh")

        def _backward(out):
            # d tanh(x)/dx = 1 - tanh(x)^2
            self.grad += (1.0 - out.data * out.data) * out.grad
        out._backward = _backward
        return out

    def exp(self):
        out = Value(ieee_exp(self.data), (self,), "exp")

        def _backward(out):
            # d e^x/dx = e^x
            self.grad += out.data * out.grad
        out._backward = _backward
        return out

    def log(self):
        out = Value(ieee_log(self.data), (self,), "log")

        def _backward(out):
            # d ln(x)/dx = 1/x  (out.grad / x: no 1/x that overflows on the way)
            self.grad += ieee_div(out.grad, self.data)
        out._backward = _backward
        return out

    def sigmoid(self):
        out = Value(sigmoid_float(self.data), (self,), "sigmoid")

        def _backward(out):
            # d sigmoid(x)/dx = sigmoid(x) * (1 - sigmoid(x))
            self.grad += out.data * (1.0 - out.data) * out.grad
        out._backward = _backward
        return out

    # -- reflected operations: number (op) Value -------------------------------

    def __radd__(self, other):  # other + self
        return _operand(other, "+") + self

    def __rsub__(self, other):  # other - self
        return _operand(other, "-") - self

    def __rmul__(self, other):  # other * self
        return _operand(other, "*") * self

    def __rtruediv__(self, other):  # other / self
        return _operand(other, "/") / self

    def __rpow__(self, base):  # base ** self, for a number base
        if isinstance(base, bool) or not isinstance(base, (int, float)):
            raise TypeError(f"the base of ** must be an int or float, got {type(base).__name__}")
        base = float(base)
        out = Value(ieee_pow(base, self.data), (self,), f"{base!r}**")
        log_base = ieee_log(base)

        def _backward(out):
            # d(c^x)/dx = c^x * ln(c); for c = 0 and x >= 0, 0^x is constant: 0, not 0 * -inf
            if base != 0.0 or not self.data >= 0.0:
                self.grad += out.data * log_base * out.grad
        out._backward = _backward
        return out

    # -- the backward pass -----------------------------------------------------

    def backward(self):
        """Backpropagate from this node: set its grad to 1, then call every node's
        `_backward` in reverse topological order.

        Like micrograd, this does NOT zero any gradient first: gradients
        accumulate with `+=`. That is what makes a node used twice receive the
        sum of both contributions -- and it is also why calling `backward()`
        again without zeroing gives wrong grads: the second pass adds on top of
        the first, and since intermediate grads were not zeroed either, they
        pass on their doubled values (for f = x*y + y**2 at x=2, y=3, x.grad
        goes 3 -> 9, not 6). A training loop must zero every grad (`zero_grad`)
        before each backward pass.
        """
        order = topological_order(self)
        self.grad = 1.0
        for node in reversed(order):
            node._backward(node)

    def is_finite(self):
        """True when both data and grad are finite numbers (no inf, no nan)."""
        return math.isfinite(self.data) and math.isfinite(self.grad)

    def __repr__(self):
        if self.label:
            return f"Value(data={self.data}, grad={self.grad}, label={self.label!r})"
        return f"Value(data={self.data}, grad={self.grad})"


def _operand(other, op):
    """Wrap a plain number as a leaf Value; refuse anything else clearly."""
    if isinstance(other, bool) or not isinstance(other, (int, float)):
        raise TypeError(f"unsupported operand for {op}: Value and {type(other).__name__}")
    return Value(float(other))


# -----------------------------------------------------------------------------
# Graph walks

_FINISH = object()   # on the stack: "the node below me has all its children done"


def topological_order(root):
    """Every node of root's graph once, each after all of its operands.

    An iterative depth-first search (no recursion limit: a million-deep chain is
    fine) that visits children in `_prev` order. It produces exactly the order
    of micrograd's recursive `build_topo`, on every run:

        build_topo(v): if v is new: mark it; build_topo(each child); append v

    Here a stack replaces the recursion. A node is expanded when popped: it is
    pushed back with the _FINISH marker above it ("finish me after my
    children"), then its new children are pushed in reverse so the first child
    is popped first. (The marker is one shared object: a fresh 1-tuple per node
    would be a million objects alive at once in a chain that deep, and their
    allocation set off the cyclic garbage collector's full collections.)
    """
    order = []
    visited = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node is _FINISH:  # all the children of the node below are done
            order.append(stack.pop())
            continue
        if node in visited:
            continue
        visited.add(node)
        prev = node._prev
        if not prev:
            order.append(node)
            continue
        stack.append(node)
        stack.append(_FINISH)
        for child in reversed(prev):
            if child not in visited:
                stack.append(child)
    return order


def zero_grad(root):
    """Set the grad of every node in root's graph to 0 (intermediates included)."""
    for node in topological_order(root):
        node.grad = 0.0


# -----------------------------------------------------------------------------
# Re-running the forward pass of an existing graph

_FORWARD = ops.FORWARD


def refresh(node):
    """Recompute one op node's data from its operands' current data, in place.

    The ops above compute `data` once, when a node is built. Gradient checking,
    the forward stepper and training on a fixed graph change some leaves and
    re-run the forward pass of the graph they already have, one node at a time
    in topological order; this is that one step. The `_backward` closures stay
    valid because they read data when they run. Leaves are left unchanged.
    The forward formula is the op's row in the table (`core.ops`), the same
    function the method above computes; tests/core/test_ops.py proves they agree.
    """
    prev = node._prev
    if not prev:
        return
    forward = _FORWARD.get(node._op)
    if forward is None:  # pow and rpow carry their number in the op: '**2', '2.0**'
        op, param = ops.lookup(node._op)
        node.data = op.forward(prev[0].data, param)
    elif len(prev) == 2:
        node.data = forward(prev[0].data, prev[1].data)
    else:
        node.data = forward(prev[0].data)


def recompute(root, order=None):
    """Re-run the forward pass of root's whole graph in place (see `refresh`)."""
    for node in (order if order is not None else topological_order(root)):
        refresh(node)
    return root
