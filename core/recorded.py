"""A recorded graph as arrays, and its replay with numpy over the op table.

`Value.backward()` walks Python objects one node at a time. When the same
computation runs again and again -- one sample's graph over a whole batch
(core/training/batched.py), one name's training step of microgpt
(core/microgpt/train.py) -- we record the graph ONCE and keep it as plain
arrays, one entry per node, operands first:

    op      the node's op: INPUT or CONST for a leaf, else 2 + its row in ops.TABLE
    a, b    its operands' indices (-1: none)
    param   pow's exponent k / rpow's base c (nan for the other ops)
    data    its number when it was recorded (a constant keeps it)
    grad    and its grad

so x*y + y**2 at x = 2, y = 3 is

    i   op      a   b   param   data
    0   input   -1  -1  nan     2.0      x
    1   input   -1  -1  nan     3.0      y
    2   mul      0   1  nan     6.0      x*y
    3   pow      1  -1  2.0     9.0      y**2
    4   add      2   3  nan    15.0      x*y + y**2

Replaying it needs no Value at all. A node's *level* is 1 + its operands'
highest level (leaves are 0): nodes of one level never read each other, so all
the nodes of one op (and one param) at one level form a `Block` that runs as ONE
numpy call -- the op table's own array forms (`Op.array_forward`,
`Op.array_backward`, written beside each op's float form in core/ops.py, bound
to numpy in core/numpy_ops.py):

    forward:   for each block, level by level:   out = op(a, b)
    backward:  for each block, in reverse:       grad[a] += d out/d a * grad[out]   (and b)

The tables D (data) and G (grad) may have one column per sample (batched
training: shape (nodes, batch)) or none (microgpt: shape (nodes,)); the same
blocks run either way. How a block reads its rows is the caller's choice: a
slice when its rows lie evenly spaced (a view, no copy: `Block.laid_out`, for a
layout planned once) or index arrays (`Block.gathered`). An operand read by
several nodes of one block (x, multiplied by every neuron's weight) gets their
contributions summed before they are added, as the engine would add them.

`core/tape.py` is the same replay on the Values themselves: slower, but every
node stays a Value a learner can inspect.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core import ops
from core.engine import Value, topological_order
from core.numpy_ops import NUMPY_OPS

# op codes: the two kinds of leaf, then the op table in its order
INPUT, CONST = 0, 1
OP_NAMES = ("input", "const") + tuple(op.name for op in ops.TABLE)
OP_CODE = {name: i for i, name in enumerate(OP_NAMES)}
ROWS: tuple[ops.Op | None, ...] = (None, None) + ops.TABLE  # code -> its row of the op table

Index = slice | np.ndarray


# -----------------------------------------------------------------------------
# Recording: Values -> arrays


@dataclass
class Recorded:
    """One recorded graph (see the module docstring): `nodes[i]` is the Value of entry i."""

    nodes: list[Value]
    op: np.ndarray  # int64 codes: INPUT, CONST, or 2 + the op's row in ops.TABLE
    a: np.ndarray  # int64, -1 for none
    b: np.ndarray
    param: np.ndarray  # float64, nan for none
    data: np.ndarray
    grad: np.ndarray
    at: dict[int, int]  # id(Value) -> its entry

    def __len__(self) -> int:
        return len(self.nodes)

    def index(self) -> dict[int, int]:
        """id(Value) -> its entry."""
        return self.at

    def levels(self) -> list[int]:
        """Each node's level: 0 for a leaf, else 1 + its operands' highest."""
        a_list, b_list = self.a.tolist(), self.b.tolist()
        level = [0] * len(a_list)
        for i, (ai, bi) in enumerate(zip(a_list, b_list)):
            if ai >= 0:
                level[i] = 1 + (level[ai] if bi < 0 else max(level[ai], level[bi]))
        return level


def fill_rows(
    nodes: Sequence[Value],
    index: dict[int, int],
    named: set[int],
    op: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    param: np.ndarray,
) -> None:
    """Write each node's row into the arrays: its op code and param (the op table's, one
    lookup per kind of op), the rows of its operands (-1: none); a leaf is INPUT when it
    has a label or its id is in `named`, else CONST. `index`: id(node) -> row."""
    codes: dict[str, tuple[int, float]] = {}  # engine `_op` -> (code, param)
    for i, v in enumerate(nodes):
        if v._a is None:
            op[i] = INPUT if (v.label or id(v) in named) else CONST
            continue
        code = codes.get(v._op)
        if code is None:
            row, p = ops.lookup(v._op)
            code = codes[v._op] = (OP_CODE[row.name], math.nan if p is None else float(p))
        op[i], param[i] = code
        a[i] = index[id(v._a)]
        if v._b is not None:
            b[i] = index[id(v._b)]


def record(roots: Iterable[Value], inputs: Iterable[Value] = (), also: Iterable[Value] = ()) -> Recorded:
    """The graphs of `roots` as arrays, every node once, each after its operands (the
    roots' own topological orders, one after another), then each node of `also` not
    in them yet (nodes no root reads, whose operands are in: microgpt's unread
    probabilities). A leaf in `inputs` (or with a label) is INPUT, any other leaf CONST."""
    seen: set[int] = set()
    nodes: list[Value] = []
    for root in roots:
        for v in topological_order(root):
            if id(v) not in seen:
                seen.add(id(v))
                nodes.append(v)
    for v in also:
        if id(v) not in seen:
            seen.add(id(v))
            nodes.append(v)
    n = len(nodes)
    index = {id(v): i for i, v in enumerate(nodes)}
    op = np.empty(n, dtype=np.int64)
    a = np.full(n, -1, dtype=np.int64)
    b = np.full(n, -1, dtype=np.int64)
    param = np.full(n, math.nan)
    fill_rows(nodes, index, {id(v) for v in inputs}, op, a, b, param)
    data = np.array([v.data for v in nodes], dtype=float)
    grad = np.array([v.grad for v in nodes], dtype=float)
    return Recorded(nodes, op, a, b, param, data, grad, index)


# -----------------------------------------------------------------------------
# Blocks: the nodes of one op at one level, run as one numpy call


def reader(rows: Sequence[int]) -> Index:
    """How to read these rows of a table: a slice (a view, no copy) when they are
    evenly spaced upwards, else an index array (a gathered copy)."""
    if len(rows) == 1:
        return slice(rows[0], rows[0] + 1)
    step = rows[1] - rows[0]
    if step > 0 and all(y - x == step for x, y in zip(rows, rows[1:])):
        return slice(rows[0], rows[-1] + 1, step)
    return np.array(rows, dtype=np.intp)


class Adder:
    """How a block's contributions (one per node of the block) are added to its operands' grads.

    Distinct operands: in place, `G[rows] += c`. An operand read by several
    nodes of the block: its contributions are first summed in reverse
    topological order (as the scalar engine adds them), then added.
    """

    def __init__(self, rows: Sequence[int], ranks: Sequence[int]) -> None:
        self.index: Index = reader(rows)
        self.perm: np.ndarray | None = None
        self.starts = np.zeros(0, dtype=np.intp)
        if len(set(rows)) < len(rows):
            # the node latest in topological order adds first, as in the engine's reverse pass
            perm = sorted(range(len(rows)), key=lambda i: (rows[i], -ranks[i]))
            targets = [rows[i] for i in perm]
            starts = [k for k in range(len(targets)) if k == 0 or targets[k] != targets[k - 1]]
            self.perm = np.array(perm, dtype=np.intp)
            self.starts = np.array(starts, dtype=np.intp)
            self.index = np.array([targets[k] for k in starts], dtype=np.intp)

    def add(self, G: np.ndarray, contribution: Any) -> None:
        if self.perm is not None:
            contribution = np.add.reduceat(contribution[self.perm], self.starts, axis=0)
        G[self.index] += contribution


class GatherAdder:
    """Adds contributions at any rows, repeated ones summed (`np.add.at`): nothing planned."""

    def __init__(self, rows: np.ndarray) -> None:
        self.index = rows

    def add(self, G: np.ndarray, contribution: Any) -> None:
        np.add.at(G, self.index, contribution)


@dataclass
class Block:
    """All the nodes of one op (one param) at one level: out = op(a[, b]), row for row."""

    op: ops.Op
    param: float | None
    out: Index
    a: Index
    b: Index | None
    a_adder: Adder | GatherAdder
    b_adder: Adder | GatherAdder | None

    def __post_init__(self) -> None:
        # the row's array forms bound to numpy (core/numpy_ops.py), looked up once: a block runs thousands of times
        self.array_forward: Callable = NUMPY_OPS[self.op.name].forward
        self.array_backward: Callable = NUMPY_OPS[self.op.name].backward
        self.gather = isinstance(self.a_adder, GatherAdder)
        self.in_place = isinstance(self.out, slice)  # out a view: the op writes straight into the table

    @classmethod
    def laid_out(
        cls,
        op: ops.Op,
        param: float | None,
        out: Sequence[int],
        a: Sequence[int],
        b: Sequence[int],
        ranks: Sequence[int],
    ) -> Block:
        """A block whose output rows are consecutive, its operand rows read as slices where they
        can be and their grads summed in the engine's order (`ranks`: each node's topological
        position): planned once, replayed many times."""
        return cls(
            op, param, slice(out[0], out[-1] + 1), reader(a), reader(b) if b else None,
            Adder(a, ranks), Adder(b, ranks) if b else None,
        )  # fmt: skip

    @classmethod
    def gathered(cls, op: ops.Op, param: float | None, out: np.ndarray, a: np.ndarray, b: np.ndarray | None) -> Block:
        """A block read and written through index arrays: cheap to make, for blocks that change."""
        return cls(op, param, out, a, b, GatherAdder(a), GatherAdder(b) if b is not None else None)


def forward(blocks: Iterable[Block], D: np.ndarray) -> None:
    """Every block's output from its operands' rows of D, in order (leaves filled in before):
    out = op(a, b). Numpy's warnings are off: the engine returns inf and nan silently (core/ops.py).
    (The loop is written out here, not as a method per block: a step runs thousands of blocks.)"""
    with np.errstate(all="ignore"):
        for block in blocks:
            b = D[block.b] if block.b is not None else None
            if block.in_place:
                block.array_forward(D[block.a], b, block.param, D[block.out])
            else:
                a = D[block.a]
                out = np.empty_like(a)
                block.array_forward(a, b, block.param, out)
                D[block.out] = out


def backward(blocks: Sequence[Block], D: np.ndarray, G: np.ndarray) -> None:
    """Each block, last first, adds its share to its operands' grads in G (seeded before):
    grad[a] += d out/d a * grad[out], and b's likewise."""
    with np.errstate(all="ignore"):
        for block in reversed(blocks):
            b = D[block.b] if block.b is not None else None
            da, db = block.array_backward(D[block.out], D[block.a], b, G[block.out], block.param)
            if block.gather:  # index arrays, repeats summed by np.add.at
                np.add.at(G, block.a, da)  # type: ignore[arg-type]
                if db is not None:
                    np.add.at(G, block.b, db)  # type: ignore[arg-type]
                continue
            block.a_adder.add(G, da)
            if db is not None and block.b_adder is not None:
                block.b_adder.add(G, db)
