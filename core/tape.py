"""Run the same graph again: forward and backward over a recorded order.

`Value.backward()` sorts the graph topologically every time it is called, and a
training loop in micrograd's style rebuilds the whole graph every step, tens of
thousands of new nodes, only to throw them away. When the *shape* of the
computation does not change -- full-batch training, or mini-batches of a fixed
size whose inputs are leaves we can overwrite -- we can keep the graph and
replay it instead:

    tape = Tape(loss)             # sort once: the recorded order ("tape")
    for step in range(100):
        set the input leaves' data
        tape.forward()            # every op node recomputed from its operands
        tape.zero_grad()
        tape.backward()           # the same _backward calls, in reverse
        update the parameters

Nothing is allocated per step, so there is nothing to free and nothing for the
garbage collector to scan; each node costs one `refresh` and one `_backward`
call. The nodes, ops and `_backward`s are exactly the ones `Value` built, so the
graph a learner inspects is the graph that trains.

When the run ends, `tape.release()` frees the recorded graph a node at a time
(see `release`), so dropping it never stalls the app.
"""

from __future__ import annotations

import time

from core.engine import Value, refresh, topological_order


def release(nodes: list[Value], chunk: int = 2000) -> None:
    """Free a graph given as a list in topological order, one node at a time.

    Dropping the last reference to a graph's root frees the whole graph in one
    go: the root's reference count reaches 0, which drops its operands' counts
    to 0, and so on down to the leaves -- one cascade inside the interpreter
    that no other thread can interrupt, ~0.5 µs a node, over 30 ms for the
    65k nodes of micrograd's demo. Popping the list from the end frees the root
    first while its operands are still held by the list, so each pop frees one
    node. Every `chunk` nodes (~1 ms) it offers the interpreter to another
    thread (`time.sleep(0)`), so a GUI thread waiting for it never waits long.
    The list is empty afterwards. Nodes that something else still holds (the
    parameters) simply stay alive.
    """
    while nodes:
        for _ in range(min(chunk, len(nodes))):
            nodes.pop()
        time.sleep(0)


class Tape:
    def __init__(self, root: Value) -> None:
        self.root: Value | None = root  # None once released
        self.order = topological_order(root)  # every node, operands first
        self.ops = [node for node in self.order if node._prev]
        self._reversed_ops = self.ops[::-1]

    def __len__(self) -> int:
        return len(self.order)

    def forward(self) -> float:
        """Recompute every op node from its operands' current data; the root's new data."""
        root = self._recorded_root()
        for node in self.ops:
            refresh(node)
        return root.data

    def zero_grad(self) -> None:
        for node in self.order:
            node.grad = 0.0

    def backward(self) -> None:
        """Like `Value.backward()` (root grad 1, accumulate), without re-sorting."""
        self._recorded_root().grad = 1.0
        for node in self._reversed_ops:
            node._backward(node)

    def release(self) -> None:
        """Free the recorded graph a node at a time (see `release`); the tape is empty after."""
        order = self.order
        self.root = None
        self.ops, self._reversed_ops, self.order = [], [], []
        release(order)

    def _recorded_root(self) -> Value:
        if self.root is None:
            raise RuntimeError("this tape was released (Tape.release): record the graph again with Tape(root)")
        return self.root
