"""A scalar-valued autograd engine, in the spirit of Karpathy's micrograd.

A `Value` wraps one float (`data`) and remembers how it was made: the operands
it came from (`_prev`, a tuple in operand order, so `a*a` keeps *two* entries)
and the operation (`_op`). Every operation follows the same four beats:

    1. coerce the operand (a plain number becomes a leaf `Value`),
    2. build `out` from the operands' data (the forward pass),
    3. give `out` the op's `_backward`, which pushes gradient from `out` to
       each operand by the chain rule:
           operand.grad += (local derivative) * out.grad
    4. return `out`.

`backward()` then visits the graph from the output back to the inputs in
reverse topological order, so a node's `_backward` runs only after every node
that uses it has added its share to `node.grad`.

Read the file top to bottom as you would micrograd's: the class `Value`, each op
followed by its `_backward`; then `backward()`'s walk, `topological_order`. Two
things look different from micrograd, and the section "How this file is fast",
after the walk, says why:

* each kind of op has ONE `_backward` function, written right below the op's
  method, instead of a fresh closure per node. It is called as
  `node._backward(node)`: it gets its output node and reads the operands from
  it (`a, b = out._a, out._b`);
* an op builds its node with `_node(data, a, b, op, backward)` -- what
  `Value(data, (a, b), op)` builds, made faster.

They change how fast a graph is built and freed, never what a node holds.

Numbers follow IEEE float64 like numpy: overflow gives +-inf, log(0) gives
-inf, log(-1) and (-8)**0.5 give nan, x/0 gives +-inf or nan. A model that
diverges shows inf/nan in its nodes instead of raising halfway through. At the
edges the derivatives take the limits a float64 reference takes: d(x^0)/dx = 0
at x = 0, d(0^x)/dx = 0 for x >= 0, and divisions divide (-(a/b)/b, never
-a/(b*b), which underflows for b = 1e-200).

Everything the rest of the studio needs to know about an op (its name in a
document, its symbol, its derivative in math) is in `core/ops.py`, the op
table; the methods below are the ops themselves, written out one by one. Last
in the file, `refresh` and `recompute` re-run the forward pass of a graph that
already exists (gradient checking, the forward stepper).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from core import ops
from core.ops import ieee_div, ieee_exp, ieee_log, ieee_pow, pow_local, sigmoid_float

# -----------------------------------------------------------------------------
# Value


class Value:
    """Stores a single scalar value and its gradient."""

    __slots__ = ("data", "grad", "label", "_a", "_b", "_op", "_param", "_backward")
    data: float
    grad: float
    label: str
    _a: Value | None  # the operands (None when absent)
    _b: Value | None
    _op: str
    _param: float | None  # pow's exponent, rpow's base
    _backward: Callable[[Value], None]

    def __init__(self, data: float, _children: tuple[Value, ...] = (), _op: str = "", label: str = "") -> None:
        self.data = data if data.__class__ is float else _as_float(data)
        self.grad = 0.0
        self.label = label
        if _children:
            self._a = _children[0]
            self._b = _children[1] if len(_children) == 2 else _second(_children)
        else:
            self._a = self._b = None
        self._op = _op
        self._param = None
        self._backward = _no_backward

    @property
    def _prev(self):
        """The operands in order: (a, b), (a,), or () for a leaf."""
        a, b = self._a, self._b
        if b is not None:
            return (a, b)
        return (a,) if a is not None else ()

    # -- binary operations ---------------------------------------------------

    def __add__(self, other: Value | float) -> Value:
        other = other if isinstance(other, Value) else _operand(other, "+")
        return _node(self.data + other.data, self, other, "+", _add_backward)

    @staticmethod
    def _add_backward(out):
        # d(a+b)/da = 1, d(a+b)/db = 1
        a, b = out._a, out._b
        a.grad += out.grad
        b.grad += out.grad

    def __sub__(self, other: Value | float) -> Value:
        other = other if isinstance(other, Value) else _operand(other, "-")
        return _node(self.data - other.data, self, other, "-", _sub_backward)

    @staticmethod
    def _sub_backward(out):
        # d(a-b)/da = 1, d(a-b)/db = -1
        a, b = out._a, out._b
        a.grad += out.grad
        b.grad -= out.grad

    def __mul__(self, other: Value | float) -> Value:
        other = other if isinstance(other, Value) else _operand(other, "*")
        return _node(self.data * other.data, self, other, "*", _mul_backward)

    @staticmethod
    def _mul_backward(out):
        # d(a*b)/da = b, d(a*b)/db = a
        a, b = out._a, out._b
        a.grad += b.data * out.grad
        b.grad += a.data * out.grad

    def __truediv__(self, other: Value | float) -> Value:
        other = other if isinstance(other, Value) else _operand(other, "/")
        return _node(ieee_div(self.data, other.data), self, other, "/", _div_backward)

    @staticmethod
    def _div_backward(out):
        # d(a/b)/da = 1/b, d(a/b)/db = -a/b^2 = -(a/b)/b
        # (divided, not multiplied: b*b underflows to 0 for b = 1e-200, 1/b overflows
        # for a tiny b, where out.grad / b may still be a fine number)
        a, b = out._a, out._b
        a.grad += ieee_div(out.grad, b.data)
        b.grad -= ieee_div(out.data, b.data) * out.grad

    def __pow__(self, k: float) -> Value:
        if isinstance(k, Value):
            raise TypeError(
                "Value ** Value is not supported: the exponent must be a number "
                "(int or float); for base ** x with a Value x use exp(x * log(base))"
            )
        if isinstance(k, bool) or not isinstance(k, (int, float)):
            raise TypeError(f"the exponent must be an int or float, got {type(k).__name__}")
        out = _node(ieee_pow(self.data, k), self, None, f"**{k!r}", _pow_backward)
        out._param = k
        return out

    @staticmethod
    def _pow_backward(out):
        # d(x^k)/dx = k * x^(k-1); for k = 0, x^0 = 1 is constant: 0, also at x = 0
        x, k = out._a, out._param
        if k != 0:
            x.grad += pow_local(out.data, x.data, k) * out.grad  # k * x^(k-1), PyTorch's limits at the edges

    # -- unary operations ----------------------------------------------------

    def __neg__(self) -> Value:
        return _node(-self.data, self, None, "neg", _neg_backward)

    @staticmethod
    def _neg_backward(out):
        # d(-x)/dx = -1
        out._a.grad -= out.grad

    def relu(self) -> Value:
        # `0 if x <= 0 else x` keeps nan as nan (as numpy's maximum does): a model that
        # diverged must not look healthy behind a ReLU.
        return _node(0.0 if self.data <= 0.0 else self.data, self, None, "relu", _relu_backward)

    @staticmethod
    def _relu_backward(out):
        # d relu(x)/dx = 1 if x > 0 else 0
        x = out._a
        if not x.data <= 0.0:
            x.grad += out.grad

    def tanh(self) -> Value:
        return _node(math.tanh(self.data), self, None, "tanh", _tanh_backward)

    @staticmethod
    def _tanh_backward(out):
        # d tanh(x)/dx = 1 - tanh(x)^2
        out._a.grad += (1.0 - out.data * out.data) * out.grad

    def exp(self) -> Value:
        return _node(ieee_exp(self.data), self, None, "exp", _exp_backward)

    @staticmethod
    def _exp_backward(out):
        # d e^x/dx = e^x
        out._a.grad += out.data * out.grad

    def log(self) -> Value:
        return _node(ieee_log(self.data), self, None, "log", _log_backward)

    @staticmethod
    def _log_backward(out):
        # d ln(x)/dx = 1/x  (out.grad / x: no 1/x that overflows on the way)
        x = out._a
        x.grad += ieee_div(out.grad, x.data)

    def sigmoid(self) -> Value:
        return _node(sigmoid_float(self.data), self, None, "sigmoid", _sigmoid_backward)

    @staticmethod
    def _sigmoid_backward(out):
        # d sigmoid(x)/dx = sigmoid(x) * (1 - sigmoid(x))
        out._a.grad += out.data * (1.0 - out.data) * out.grad

    # -- reflected operations: number (op) Value -------------------------------

    def __radd__(self, other: float) -> Value:  # other + self
        return _operand(other, "+") + self

    def __rsub__(self, other: float) -> Value:  # other - self
        return _operand(other, "-") - self

    def __rmul__(self, other: float) -> Value:  # other * self
        return _operand(other, "*") * self

    def __rtruediv__(self, other: float) -> Value:  # other / self
        return _operand(other, "/") / self

    def __rpow__(self, base: float) -> Value:  # base ** self, for a number base
        if isinstance(base, bool) or not isinstance(base, (int, float)):
            raise TypeError(f"the base of ** must be an int or float, got {type(base).__name__}")
        base = float(base)
        out = _node(ieee_pow(base, self.data), self, None, f"{base!r}**", _rpow_backward)
        out._param = base
        return out

    @staticmethod
    def _rpow_backward(out):
        # d(c^x)/dx = c^x * ln(c); for c = 0 and x >= 0, 0^x is constant: 0, not 0 * -inf
        x, c = out._a, out._param
        if c != 0.0 or not x.data >= 0.0:
            x.grad += out.data * ieee_log(c) * out.grad

    # -- the backward pass -----------------------------------------------------

    def backward(self) -> None:
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
            backward = node._backward  # read once, then called: a touch faster than node._backward(node)
            backward(node)

    def is_finite(self) -> bool:
        """True when both data and grad are finite numbers (no inf, no nan)."""
        return math.isfinite(self.data) and math.isfinite(self.grad)

    def __repr__(self) -> str:
        if self.label:
            return f"Value(data={self.data}, grad={self.grad}, label={self.label!r})"
        return f"Value(data={self.data}, grad={self.grad})"


# -----------------------------------------------------------------------------
# The backward pass's walk


def topological_order(root: Value) -> list[Value]:
    """Every node of root's graph once, each after all of its operands.

    An iterative depth-first search (no recursion limit: a million-deep chain is
    fine) that visits children in `_prev` order. It produces exactly the order
    of micrograd's recursive `build_topo`, on every run:

        build_topo(v): if v is new: mark it; build_topo(each child); append v

    Here a stack of nodes replaces the recursion's call stack. Going down, a
    node goes on the stack and the walk moves to its first new operand. Coming
    back up, the node is popped: its first operand is done, so if its second is
    still new the node goes back on the stack and the walk goes down there;
    otherwise the node is done and is appended. (Nothing else is stacked: no
    marker or pending child per node, which in micrograd's demo makes the sort
    a fifth faster.)
    """
    order: list[Value] = []
    visited = {root}
    stack: list[Value] = []
    push, pop, visit, done = stack.append, stack.pop, visited.add, order.append  # the loop runs once a node and edge
    node = root
    while True:
        # going down: `node` was just reached; walk into its first new operand
        a = node._a  # node._prev, read from the slots without building the tuple
        if a is not None:
            if a not in visited:
                push(node)
                visit(a)
                node = a
                continue
            b = node._b
            if b is not None and b not in visited:
                push(node)
                visit(b)
                node = b
                continue
        done(node)  # a leaf, or its operands were done already
        # coming back up: the node on top has its first operand done
        while stack:
            node = pop()
            b = node._b
            if b is not None and b not in visited:
                push(node)
                visit(b)
                node = b
                break  # go down into b
            done(node)
        else:
            return order


def zero_grad(root: Value) -> None:
    """Set the grad of every node in root's graph to 0 (intermediates included)."""
    for node in topological_order(root):
        node.grad = 0.0


# -----------------------------------------------------------------------------
# How this file is fast
#
# What follows changes how fast a graph is built and freed, never what a node
# holds (tests/core/test_engine.py runs micrograd's own tests and the tutorial,
# test_engine_reference.py every op against a 60-digit reference), and where it
# sits in the file costs nothing: the ops look these names up when they run.
# bench/bench_engine.py measures the speed (the `ours` row).
#
# * One `_backward` per kind of op, not a closure per node. A closure costs
#   Python's cyclic garbage collector six tracked objects a node (the Value, its
#   `_prev`, the closure, its tuple of cells and two cells) that it walks again
#   and again while a graph grows -- in micrograd's demo, where each closure also
#   captures its own output, so every node is a reference cycle, the collector
#   is ~80% of a training step. Here a node is one tracked object and holds no
#   cycle, so a dropped graph is freed at once by reference counting.
# * The operands live in two slots, `_a` and `_b` (None when absent); `_prev`
#   gives them as a tuple, `(a, b)`, `(a,)` or `()` for a leaf. pow's exponent
#   and rpow's base, numbers rather than operands, are kept in `_param`. A
#   `_backward` reads `data` when it runs, never a copy taken when the node was
#   built, so after the forward pass is re-run in place (`refresh`) it is still
#   right.
# * The ops build their node with `_node` (object.__new__ and the slots) rather
#   than through `Value.__init__`, and name their `_backward` as a module global.

# The ops above name their `_backward` as a module global (`_mul_backward`), the very
# function written below the op: reading a global is ~40 ns faster than `Value._mul_backward`
# (a class attribute, looked up through the class on every call), which is ~2.5 ms of
# micrograd's demo step (65,818 nodes).
_add_backward = Value._add_backward
_sub_backward = Value._sub_backward
_mul_backward = Value._mul_backward
_div_backward = Value._div_backward
_pow_backward = Value._pow_backward
_neg_backward = Value._neg_backward
_relu_backward = Value._relu_backward
_tanh_backward = Value._tanh_backward
_exp_backward = Value._exp_backward
_log_backward = Value._log_backward
_sigmoid_backward = Value._sigmoid_backward
_rpow_backward = Value._rpow_backward


def _no_backward(out):
    """A leaf has no operands to pass gradient to."""


def _as_float(data):
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        raise TypeError(f"Value needs a real number, got {type(data).__name__} {data!r}")
    return float(data)


def _operand(other, op):
    """Wrap a plain number as a leaf Value; refuse anything else clearly."""
    if isinstance(other, bool) or not isinstance(other, (int, float)):
        raise TypeError(f"unsupported operand for {op}: Value and {type(other).__name__}")
    return Value(float(other))


_new = object.__new__


def _node(data, a, b, op, backward):
    """A new op node: what `Value(data, (a, b), op)` builds (`b` None for a one-operand
    op), with the op's `_backward` attached.

    The ops call this instead of `Value(...)`: every op of every training step makes a
    node, and `object.__new__` plus the slot assignments takes half the time of a
    call through `__init__`, which checks what the op already knows (the data is a
    float, the operands are Values).
    """
    out = _new(Value)
    out.data = data
    out.grad = 0.0
    out.label = ""
    out._a = a
    out._b = b
    out._op = op
    out._param = None
    out._backward = backward
    return out


def _second(children):
    """The second operand of a one-operand node (None); more than two is refused."""
    if len(children) == 1:
        return None
    raise ValueError(
        f"a Value has at most two operands (every op in core/ops.py has one or two), got {len(children)}: {children!r}"
    )


# -----------------------------------------------------------------------------
# Re-running the forward pass of an existing graph

_FORWARD = ops.FORWARD


def refresh(node: Value) -> None:
    """Recompute one op node's data from its operands' current data, in place.

    The ops above compute `data` once, when a node is built. Gradient checking,
    the forward stepper and training on a fixed graph change some leaves and
    re-run the forward pass of the graph they already have, one node at a time
    in topological order; this is that one step. The `_backward`s stay
    valid because they read data when they run. Leaves are left unchanged.
    The forward formula is the op's row in the table (`core.ops`), the same
    function the method above computes; tests/core/test_ops.py proves they agree.
    """
    a = node._a
    if a is None:  # a leaf
        return
    forward = _FORWARD.get(node._op)
    if forward is None:  # pow and rpow: their number is kept in _param
        op, _param = ops.lookup(node._op)
        node.data = op.forward(a.data, node._param)
    elif node._b is not None:
        node.data = forward(a.data, node._b.data)
    else:
        node.data = forward(a.data)


def recompute(root: Value, order: list[Value] | None = None) -> Value:
    """Re-run the forward pass of root's whole graph in place (see `refresh`)."""
    for node in order if order is not None else topological_order(root):
        refresh(node)
    return root
