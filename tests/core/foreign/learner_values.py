"""Learners' Value classes in the shapes the studio reads, for the foreign tests: only what the
trace looks at (data, grad, the operands, the op), no arithmetic."""


class SetValue:
    """The lecture's shape: _prev is a set, _op a string, a label."""

    def __init__(self, data, children=(), op="", label=""):
        self.data, self.grad, self._prev, self._op, self.label = data, 0.0, set(children), op, label
        self._backward = lambda: None


class TupleValue:
    """No label, _prev a tuple; ops spelled as learners do."""

    def __init__(self, data, children=(), op=""):
        self.data, self.grad, self._prev, self._op = data, 0.0, tuple(children), op


class Slotted:
    """The local-grads style (2026): _children and _local_grads, no _op, no closures, __slots__."""

    __slots__ = ("data", "grad", "_children", "_local_grads")

    def __init__(self, data, children=(), local_grads=()):
        self.data, self.grad, self._children, self._local_grads = data, 0.0, children, local_grads
