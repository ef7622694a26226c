"""The forward pass, one node at a time: the first half of the round trip.

Before gradients can flow backward, every node's `data` must be computed, each
from its operands, in topological order (operands first). `ForwardStepper`
walks that order one op node per `step()`, recomputing the node from its
operands' current data (`engine.refresh`) and describing the arithmetic:

    m = x · y = 2.0000 · 3.0000 = 6.0000

Nodes not yet reached count as "pending": a view shows them without a value.
Leaves (inputs, weights, constants) are known from the start.
"""

from __future__ import annotations

from collections.abc import Mapping

from core.debugger.stepper import forward_formula
from core.engine import Value, refresh, topological_order
from core.format import format_number


class ForwardRecord:
    __slots__ = ("index", "node", "text")

    def __init__(self, index: int, node: Value, text: str) -> None:
        self.index = index
        self.node = node
        self.text = text

    def __repr__(self) -> str:
        return f"ForwardRecord({self.index}, {self.text!r})"


class ForwardStepper:
    def __init__(self, root: Value, names: Mapping[Value, str] | None = None) -> None:
        self.root = root
        self.topo = topological_order(root)
        self.order = [node for node in self.topo if node._prev]
        self._index = {node: i for i, node in enumerate(self.order)}
        self._topo_index = {node: i for i, node in enumerate(self.topo)}
        self._names = names or {}
        self.position = 0

    @property
    def done(self) -> bool:
        return self.position >= len(self.order)

    @property
    def current(self) -> Value | None:
        return None if self.done else self.order[self.position]

    def name(self, node: Value) -> str:
        return self._names.get(node) or node.label or f"#{self._topo_index.get(node, '?')}"

    def computed(self, node: Value) -> bool:
        """True once node's data is known (leaves always)."""
        index = self._index.get(node)
        return index is None or index < self.position

    def reset(self) -> None:
        self.position = 0

    def step(self) -> ForwardRecord | None:
        if self.done:
            return None
        return self._take_step()

    def _take_step(self) -> ForwardRecord:
        # the caller has made sure a step is left
        node = self.order[self.position]
        refresh(node)
        record = ForwardRecord(self.position, node, self.describe(node))
        self.position += 1
        return record

    def step_back(self) -> None:
        if self.position:
            self.position -= 1

    def run_to_end(self) -> list[ForwardRecord]:
        return [self._take_step() for _ in range(len(self.order) - self.position)]

    def describe(self, node: Value) -> str:
        """'m = x · y = 2.0000 · 3.0000 = 6.0000'."""
        symbolic = forward_formula(node, self.name)
        numbers = forward_formula(node, lambda v: format_number(v.data))  # as the canvas writes them
        return f"{symbolic} = {numbers.split(' = ', 1)[1]} = {format_number(node.data)}"
