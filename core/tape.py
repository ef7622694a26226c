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
        tape.backward()           # the same _backward closures, in reverse
        update the parameters

Nothing is allocated per step, so there is nothing to free and nothing for the
garbage collector to scan; each node costs one `refresh` and one `_backward`
call. The nodes, ops and closures are exactly the ones `Value` built, so the
graph a learner inspects is the graph that trains.
"""

from core.engine import refresh, topological_order


class Tape:
    def __init__(self, root):
        self.root = root
        self.order = topological_order(root)             # every node, operands first
        self.ops = [node for node in self.order if node._prev]
        self._reversed_ops = self.ops[::-1]

    def __len__(self):
        return len(self.order)

    def forward(self):
        """Recompute every op node from its operands' current data."""
        for node in self.ops:
            refresh(node)
        return self.root.data

    def zero_grad(self):
        for node in self.order:
            node.grad = 0.0

    def backward(self):
        """Like `Value.backward()` (root grad 1, accumulate), without re-sorting."""
        self.root.grad = 1.0
        for node in self._reversed_ops:
            node._backward(node)
