"""A big graph collapsed by scope: a box per call, expanded in place, down to single ops.

A microgpt step is 40,000 to 130,000 nodes; drawn op by op it is a wall of
boxes. Collapsed by scope it reads like its code: the step (`loss`) is a row
of positions (`pos_id = 0`, `pos_id = 1` ...), each position a `gpt` call
and a `softmax`, each `gpt` a `1) Multi-head Attention block` and a
`2) MLP block`, each head `h = 0..3` a few dot products and a `softmax`.

`ScopeView(graph)` holds which scopes are *expanded*. What is on screen are
*units*: a **block** for each collapsed scope whose parents are all expanded
(it stands for every node inside it), and a **node** for each node directly
in an expanded scope. Expanding a block puts its inner scopes (as blocks) and
its own nodes in its place; collapsing does the reverse. Wires join units:
node i's operand a[i] feeds i, so the unit holding a[i] feeds the unit holding
i -- one wire per pair of units, however many nodes' wires it stands for
(`count`).

A block's summary says what it is and what it did: its title (as the code
names it: `softmax`, `h = 2`), the line that made it, its size (nodes, inner
blocks), its wires in and out (how many values come in from outside, how many
it hands on), and the numbers of its first output (data, grad).

The first picture: `ScopeView.first(graph)` expands, a whole level at a
time, the blocks whose expansion keeps the picture within `budget`
units -- for a microgpt step, the step and its positions: a `gpt` and a
`softmax` per position.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.scopes.graph import ScopedGraph

BUDGET = 48  # units on the first picture: each legible at a classroom's zoom
FEW = 8  # a first picture of fewer units than this says too little: its biggest block opens, up to 2x budget


@dataclass(frozen=True)
class Units:
    """What is on screen. Unit u is a block (scope `scope[u]`) or a node (`node[u]`, -1 for a block).

    first      the first node of each unit (units are in this order: the order of making)
    node_unit  the unit of every node of the graph
    src, dst, count   the wires between units, and how many node-to-node wires each stands for
    """

    scope: np.ndarray
    node: np.ndarray
    first: np.ndarray
    node_unit: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    count: np.ndarray

    def __len__(self) -> int:
        return len(self.first)

    def is_block(self, u: int) -> bool:
        return self.node[u] < 0


@dataclass(frozen=True)
class Summary:
    """A collapsed block in numbers (see the module docstring)."""

    title: str
    kind: str
    site: str
    path: str  # 'loss › pos_id = 2 › gpt'
    nodes: int
    blocks: int
    ins: int  # distinct values coming in from outside the block
    outs: int  # distinct values of the block used outside it (or the graph's output)
    out_node: int  # its first output (-1: none)
    data: float
    grad: float


class ScopeView:
    """The expanded scopes of one graph, and the units and wires they show."""

    def __init__(self, graph: ScopedGraph, expanded: set[int] | None = None) -> None:
        self.graph = graph
        self.expanded = {0} if expanded is None else set(expanded) | {0}
        self._units: Units | None = None
        self._users: np.ndarray | None = None

    @classmethod
    def first(cls, graph: ScopedGraph, budget: int = BUDGET) -> ScopeView:
        """The first picture: expand the biggest blocks while the picture stays within budget."""
        view = cls(graph)
        while True:  # a whole level at a time: every position open, or none
            units = view.units()
            blocks = [int(units.scope[u]) for u in range(len(units)) if units.is_block(u)]
            # blocks with a structure inside (not a pile of leaves: a matrix, the inputs)
            blocks = [s for s in blocks if graph.scopes[s].kind != "inputs" and graph.children(s)]
            if not blocks:
                return view
            level = min(int(graph.depth[s]) for s in blocks)
            opening = [s for s in blocks if graph.depth[s] == level]
            grows = sum(len(graph.children(s)) + int(graph.own[s]) - 1 for s in opening)
            if len(units) + grows > budget:
                if len(units) >= FEW:
                    return view
                # a picture of a few blocks says too little: open the biggest alone, if that stays small
                biggest = max(blocks, key=lambda s: int(graph.total[s]))
                if len(units) + len(graph.children(biggest)) + int(graph.own[biggest]) - 1 > 2 * budget:
                    return view
                opening = [biggest]
            for s in opening:
                view.expand(s)

    # -- changing ----------------------------------------------------------------

    def expand(self, s: int) -> None:
        """Show scope s's inner blocks and own nodes in its place (its parents too, if collapsed)."""
        for p in self.graph.path(s):
            self.expanded.add(p)
        self._units = None

    def collapse(self, s: int) -> None:
        """Show scope s as one block again (and everything inside it collapsed)."""
        if s == 0:
            return
        g = self.graph
        self.expanded = {e for e in self.expanded if not (g.start[s] <= g.start[e] and s in g.path(e))}
        self._units = None

    def is_expanded(self, s: int) -> bool:
        return s in self.expanded

    # -- reading ----------------------------------------------------------------

    def shown_scope(self) -> np.ndarray:
        """For every scope: the collapsed block that stands for it on screen, or -1 where
        the scope is expanded (its own nodes are on screen one by one)."""
        g = self.graph
        rep = np.full(len(g.scopes), -1, dtype=np.int64)
        expanded = self.expanded
        parent = g.parent
        for s in range(1, len(g.scopes)):
            p = parent[s]
            if rep[p] >= 0:
                rep[s] = rep[p]  # inside a collapsed block
            elif s not in expanded:
                rep[s] = s
        return rep

    def units(self) -> Units:
        if self._units is None:
            self._units = self._make_units()
        return self._units

    def _make_units(self) -> Units:
        g = self.graph
        n = g.n
        rep = self.shown_scope()[g.scope]
        key = np.where(rep >= 0, n + rep, np.arange(n))  # a block's key: n + its scope
        keys, first = np.unique(key, return_index=True)
        order = np.argsort(first, kind="stable")
        keys, first = keys[order], first[order]
        # the unit of each node: where its key is among the units (ordered by first node)
        by_key = np.argsort(keys)
        node_unit = by_key[np.searchsorted(keys[by_key], key)]
        is_block = keys >= n
        scope = np.where(is_block, keys - n, g.scope[np.minimum(keys, n - 1)]).astype(np.int64)
        node = np.where(is_block, -1, keys).astype(np.int64)
        src_parts, dst_parts = [], []
        for side in (g.a, g.b):
            has = np.nonzero(side >= 0)[0]
            su, du = node_unit[side[has]], node_unit[has]
            keep = su != du
            src_parts.append(su[keep])
            dst_parts.append(du[keep])
        src = np.concatenate(src_parts)
        dst = np.concatenate(dst_parts)
        m = len(keys)
        pair, count = np.unique(src * m + dst, return_counts=True)
        return Units(scope, node, first, node_unit, pair // m, pair % m, count)

    def users(self) -> np.ndarray:
        """How many ops use each node as an operand (the output counts as used once)."""
        if self._users is None:
            g = self.graph
            used = np.bincount(g.a[g.a >= 0], minlength=g.n) + np.bincount(g.b[g.b >= 0], minlength=g.n)
            used[g.root] += 1
            self._users = used
        return self._users

    def summary(self, s: int) -> Summary:
        """The numbers of block s (see Summary)."""
        g = self.graph
        lo, hi = int(g.start[s]), int(g.end[s])
        inside = np.zeros(g.n, dtype=bool)
        inside[lo:hi] = True
        if not g.contiguous:
            inside[:] = False
            inside[lo:hi] = np.isin(g.scope[lo:hi], self._descendants(s))
        members = np.nonzero(inside)[0]
        ins: set[int] = set()
        for side in (g.a, g.b):
            ops = side[members]
            outside = ops[(ops >= 0)]
            outside = outside[~inside[outside]]
            ins.update(np.unique(outside).tolist())
        used_outside = np.zeros(g.n, dtype=bool)
        for side in (g.a, g.b):
            has = np.nonzero((side >= 0) & ~inside)[0]
            targets = side[has]
            used_outside[targets[inside[targets]]] = True
        if inside[g.root]:
            used_outside[g.root] = True
        outs = np.nonzero(used_outside)[0]
        out_node = int(outs[-1]) if len(outs) else -1
        scope = g.scopes[s]
        path = " › ".join(g.title(p) for p in g.path(s)[1:])
        return Summary(
            g.title(s), scope.kind, scope.site, path, int(len(members)), len(self._descendants(s)) - 1,
            len(ins), int(len(outs)), out_node,
            float(g.data[out_node]) if out_node >= 0 else float("nan"),
            float(g.grad[out_node]) if out_node >= 0 else float("nan"),
        )  # fmt: skip

    def _descendants(self, s: int) -> list[int]:
        found, todo = [], [s]
        while todo:
            t = todo.pop()
            found.append(t)
            todo.extend(self.graph.children(t))
        return found
