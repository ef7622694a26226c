"""Stepping the backward pass of a big graph block by block, and into blocks.

The backward pass visits the nodes in the reverse of the order they were made
(a valid reverse topological order: every node before its operands). In that
order each scope's nodes come together (graph.py), so on a collapsed view the
pass moves through whole blocks: one step runs every `_backward` of the next
block -- "the backward of softmax: 16 steps" -- and leaves its inputs holding
their share of the gradient. Where a block is expanded, the steps go into it:
its inner blocks, and its own nodes one op at a time, each step one chain-rule
step of the studio's engine.

`BlockStepper(view)` does this on the graph's Values (`ScopedGraph.values()`):
`reset()` zeroes every grad and sets the output's to 1; `step()` runs the next
unit of the view as it is now (so expanding a block between two steps steps
into it); `done` when every op has passed its gradient on. Running every step
gives exactly the grads of `backward()` (tests/core/scopes).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.scopes.view import ScopeView


@dataclass(frozen=True)
class BlockStep:
    """One step: the unit it ran, how many `_backward`s, and what to say about it."""

    unit_scope: int  # the block's scope (-1: a single node)
    node: int  # the single node (-1: a block)
    first: int  # the nodes it ran: first..last (descending)
    last: int
    ops: int  # how many `_backward`s ran
    text: str


class BlockStepper:
    def __init__(self, view: ScopeView) -> None:
        self.view = view
        self.graph = view.graph
        self.values = self.graph.values()
        self.reset()

    def reset(self) -> None:
        for v in self.values:
            v.grad = 0.0
        self.values[self.graph.root].grad = 1.0
        self.position = self.graph.root  # the next node whose _backward runs
        self.history: list[BlockStep] = []

    @property
    def done(self) -> bool:
        return self._next_op() < 0

    def _next_op(self) -> int:
        op = self.graph.op
        p = self.position
        while p >= 0 and op[p] < 2:
            p -= 1  # leaves pass nothing on
        return p

    def step(self) -> BlockStep | None:
        """Run the next unit's backward; None when the pass is done."""
        g = self.graph
        p = self._next_op()
        if p < 0:
            self.position = -1
            return None
        units = self.view.units()
        u = int(units.node_unit[p])
        if units.is_block(u):
            s = int(units.scope[u])
            lo = int(g.start[s])
            count = self._run(p, lo)
            summary = g.title(s)
            where = " › ".join(g.title(x) for x in g.path(s)[1:-1])
            text = f"the backward of {summary}: {count} step{'s' * (count != 1)}" + (f" (in {where})" if where else "")
            record = BlockStep(s, -1, p, lo, count, text)
        else:
            self._run(p, p)
            text = f"the backward of {g.name(p)} ({g.op_name(p)}): 1 step"
            record = BlockStep(-1, p, p, p, 1, text)
        self.history.append(record)
        return record

    def _run(self, hi: int, lo: int) -> int:
        values, op = self.values, self.graph.op
        count = 0
        for i in range(hi, lo - 1, -1):
            if op[i] >= 2:
                node = values[i]
                node._backward(node)
                count += 1
        self.position = lo - 1
        return count

    def run_to_end(self) -> None:
        while self.step() is not None:
            pass

    def grads(self) -> list[float]:
        return [v.grad for v in self.values]
