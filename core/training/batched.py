"""Batched replay: the graph of ONE sample, run over a whole batch at once.

A full-batch training step in micrograd's style builds one graph per sample --
hundreds of Values each, the same ops on different numbers -- and walks all of
them node by node. The ops do not depend on the sample. So we record the graph
of a single sample once, with the very Values, ops and `_backward`s the
debugger shows, and then run THAT graph with a numpy array in place of each
node's `data` and `grad`: entry i of every array belongs to sample i.

    graph = BatchedGraph([score], inputs=[x1, x2], params=model.parameters())
    graph.forward(X, P)          # X[i] = input i of every sample, P[j] = params[j].data
    graph.backward({score: dscore})
    grads = graph.param_grads()  # each parameter's grad, summed over the samples

1. The tape. Every node gets a row in a table D of shape (nodes, batch); leaves
   are filled in (inputs from X, parameters and constants repeated along the
   row), then every op node is computed from its operands' rows, in a
   topological order: the same op, the same operands, for all samples at once.
2. Levels. A node's level is 1 + its operands' highest level (leaves are 0).
   Nodes at one level never depend on each other, so all the nodes of one op
   at one level -- say the 256 products w*x of a 16x16 layer -- run as ONE
   numpy call over a block of rows. Their rows are next to each other, and
   operand rows are laid out so that most operands are a slice of D too.
3. Backward. A second table G holds the grads. The root's row is seeded, then
   the levels run in reverse, each op adding its `(da, db)` (numpy_ops.py) to
   its operands' rows, `+=` as in the engine. A node read twice in one block
   (x is multiplied by every neuron's weight) gets its contributions summed
   first, in the order the scalar engine would add them.
4. Parameters are the same number for every sample, yet each sample adds its
   own share to their grad: `param_grads()` sums each parameter's row over the
   batch (numpy's pairwise sum: the scalar engine adds the samples one after
   another, which rounds a little differently).

The result equals running the scalar engine on every sample, node for node,
up to the ulp or two by which numpy's tanh/exp/log differ from the C library's
and the order of a few sums: about 1e-15 relative. tests/core/training/
test_batched.py checks it per sample, and the trainer's loss and every
parameter's grad to 1e-12.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from core import ops
from core.engine import Value, topological_order
from core.training.numpy_ops import NUMPY_OPS

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

# -----------------------------------------------------------------------------
# recording: which rows each op reads and writes


def graph_order(roots: Iterable[Value]) -> list[Value]:
    """Every node of the roots' graphs once, each after its operands."""
    seen: set[Value] = set()
    order: list[Value] = []
    for root in roots:
        for node in topological_order(root):
            if node not in seen:
                seen.add(node)
                order.append(node)
    return order


def _reader(rows: Sequence[int]) -> slice | NDArray[np.intp]:
    """How to read these rows of a table: a slice (a view, no copy) when they are
    evenly spaced upwards, else an index array (a gathered copy)."""
    if len(rows) == 1:
        return slice(rows[0], rows[0] + 1)
    step = rows[1] - rows[0]
    if step > 0 and all(b - a == step for a, b in zip(rows, rows[1:])):
        return slice(rows[0], rows[-1] + 1, step)
    return np.array(rows, dtype=np.intp)


class _Adder:
    """How a block's contributions (one per node of the block) are added to its operands' grads.

    Distinct operands: in place, `G[rows] += c`. An operand read by several
    nodes of the block: its contributions are first summed in reverse
    topological order (as the scalar engine adds them), then added.
    """

    def __init__(self, rows, ranks):
        self.index = _reader(rows)
        self.perm = None
        if len(set(rows)) < len(rows):
            # the node latest in topological order adds first, as in the engine's reverse pass
            perm = sorted(range(len(rows)), key=lambda i: (rows[i], -ranks[i]))
            targets = [rows[i] for i in perm]
            starts = [k for k in range(len(targets)) if k == 0 or targets[k] != targets[k - 1]]
            self.perm = np.array(perm, dtype=np.intp)
            self.starts = np.array(starts, dtype=np.intp)
            self.index = np.array([targets[k] for k in starts], dtype=np.intp)

    def add(self, G, contribution):
        if self.perm is not None:
            contribution = np.add.reduceat(contribution[self.perm], self.starts, axis=0)
        G[self.index] += contribution


class _Block:
    """All the nodes of one op at one level: out rows a slice, operand rows readers."""

    def __init__(self, op, param, out_rows, a_rows, b_rows, ranks):
        self.forward = NUMPY_OPS[op.name].forward
        self.backward = NUMPY_OPS[op.name].backward
        self.param = param
        self.out = slice(out_rows[0], out_rows[-1] + 1)
        self.a = _reader(a_rows)
        self.b = _reader(b_rows) if b_rows else None
        self.a_adder = _Adder(a_rows, ranks)
        self.b_adder = _Adder(b_rows, ranks) if b_rows else None


# -----------------------------------------------------------------------------
# the batched graph


class BatchedGraph:
    """A recorded Value graph, replayed with one column per sample (see the module docstring).

    `roots`: the nodes whose values are wanted (the first is the usual one to seed
    backward from). `inputs`: leaves that differ per sample, in the order of X's
    rows. `params`: leaves shared by all samples, in the order of P. Any other
    leaf is a constant, kept at the number it had when the graph was recorded.
    The Values are only read here; none is kept.
    """

    def __init__(self, roots: Sequence[Value], inputs: Sequence[Value] = (), params: Sequence[Value] = ()) -> None:
        order = graph_order(roots)
        in_graph = set(order)
        missing = [v for v in list(inputs) + list(params) if v not in in_graph]
        if missing:
            raise ValueError(f"{len(missing)} input or parameter Values are not in the graph (first: {missing[0]!r})")
        # 1. levels, and the blocks: one per (level, op)
        level: dict[Value, int] = {}
        blocks: dict[tuple[int, str], list[Value]] = {}
        for node in order:
            a, b = node._a, node._b
            if a is None:
                level[node] = 0
                continue
            level[node] = 1 + max(level[a], level[b] if b is not None else 0)
            blocks.setdefault((level[node], node._op), []).append(node)
        keys = sorted(blocks, key=lambda key: key[0])
        # 2. the order of nodes inside a block: by where their first reader sits (the last
        #    block first), so that an operand block is read as a slice, e.g. the k-th products
        #    of all the neurons of a layer, which one step of their sums adds
        topo = {node: i for i, node in enumerate(order)}
        reader: dict[Value, tuple[int, int]] = {}
        for k in range(len(keys) - 1, -1, -1):
            nodes = sorted(blocks[keys[k]], key=lambda n: reader.get(n, (len(keys), topo[n])))
            blocks[keys[k]] = nodes
            for position, node in enumerate(nodes):
                for operand in (node._a, node._b):
                    if operand is not None and (operand not in reader or reader[operand] > (k, position)):
                        reader[operand] = (k, position)
        # 3. rows: inputs first (so X is one slice), then each leaf when first read, each block's
        #    outputs together
        row: dict[Value, int] = {}
        for node in inputs:
            row[node] = len(row)
        self.blocks = []
        for key in keys:
            nodes = blocks[key]
            for side in ("_a", "_b"):
                for node in nodes:
                    operand = getattr(node, side)
                    if operand is not None and operand not in row:
                        row[operand] = len(row)
            out_rows = []
            for node in nodes:
                row[node] = len(row)
                out_rows.append(row[node])
            op, param = ops.lookup(key[1])
            ranks = [topo[n] for n in nodes]
            self.blocks.append(
                _Block(
                    op,
                    param,
                    out_rows,
                    [row[n._a] for n in nodes if n._a is not None],  # (an op node has one)
                    [row[n._b] for n in nodes if n._b is not None],
                    ranks,
                )
            )
        for node in order:  # leaves that no op reads (a root that is a leaf)
            if node not in row:
                row[node] = len(row)
        self.n_rows = len(row)
        self.n_inputs = len(inputs)
        self.root_rows = [row[r] for r in roots]
        self.param_rows = np.array([row[p] for p in params], dtype=np.intp)
        params_set, inputs_set = set(params), set(inputs)
        constants = [n for n in order if n._a is None and n not in params_set and n not in inputs_set]
        self.const_rows = np.array([row[c] for c in constants], dtype=np.intp)
        self.const_values = np.array([c.data for c in constants], dtype=float)
        self.D: NDArray[np.float64] | None = None  # the last batch's data, one row per node
        self.G: NDArray[np.float64] | None = None  # and grads
        self.row = row  # Value -> its row; for tests and for asking about a node (e.g. a neuron's output)

    def __len__(self) -> int:
        return self.n_rows

    # -- the forward pass --------------------------------------------------------

    def forward(self, X: ArrayLike, P: ArrayLike = ()) -> NDArray[np.float64]:
        """Compute every node for every sample: X of shape (n_inputs, batch), P of shape (n_params,).

        Returns the table D (nodes x batch): D[graph.row[node]] is that node's data per sample.
        """
        X = np.asarray(X, dtype=float).reshape(self.n_inputs, -1)
        batch = X.shape[1]
        if self.D is None or self.D.shape[1] != batch:
            self.D = np.empty((self.n_rows, batch))
            self.G = np.empty((self.n_rows, batch))
        self._forward_into(self.D, X, P)
        return self.D

    def _forward_into(self, D, X, P):
        D[: self.n_inputs] = X
        if len(self.param_rows):
            D[self.param_rows] = np.asarray(P, dtype=float)[:, None]
        if len(self.const_rows):
            D[self.const_rows] = self.const_values[:, None]
        with np.errstate(all="ignore"):
            for block in self.blocks:
                b = D[block.b] if block.b is not None else None
                block.forward(D[block.a], b, block.param, D[block.out])

    def evaluate(
        self, X: ArrayLike, P: ArrayLike = (), rows: Iterable[int] | None = None, chunk: int = 2048
    ) -> NDArray[np.float64]:
        """The data of some rows (default: the roots) for many samples, `chunk` at a time,
        so a large grid never needs the whole table at once. Returns (len(rows), n).
        The training batch's tables (D, G) are left as they were."""
        rows = self.root_rows if rows is None else list(rows)
        X = np.asarray(X, dtype=float).reshape(self.n_inputs, -1)
        n = X.shape[1]
        out = np.empty((len(rows), n))
        D = np.empty((self.n_rows, min(chunk, n)))
        for start in range(0, n, chunk):
            width = min(chunk, n - start)
            part = D[:, :width] if width < D.shape[1] else D
            self._forward_into(part, X[:, start : start + width], P)
            out[:, start : start + width] = part[rows]
        return out

    # -- the backward pass -------------------------------------------------------

    def _tables(self, caller: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """D and G of the last `forward`; before any, a clear error rather than None's."""
        if self.D is None or self.G is None:
            raise RuntimeError(f"BatchedGraph.{caller}() needs a forward() first: there is no batch yet")
        return self.D, self.G

    def backward(self, seeds: Mapping[int, ArrayLike]) -> NDArray[np.float64]:
        """Fill G (nodes x batch) from `seeds`, {row: d root / d that node per sample (or one number)},
        after a `forward`. Every node's grad starts at 0; each op adds its share, in reverse."""
        D, G = self._tables("backward")
        G.fill(0.0)
        for r, seed in seeds.items():
            G[r] = seed
        with np.errstate(all="ignore"):
            for block in reversed(self.blocks):
                b = D[block.b] if block.b is not None else None
                da, db = block.backward(D[block.out], D[block.a], b, G[block.out], block.param)
                block.a_adder.add(G, da)
                if db is not None:
                    block.b_adder.add(G, db)
        return G

    def param_grads(self, first: ArrayLike | None = None) -> NDArray[np.float64]:
        """Each parameter's grad: `first` (what another term added before, e.g. a penalty on
        the weights) plus its row of G summed over the batch; shape (n_params,)."""
        _D, G = self._tables("param_grads")
        with np.errstate(all="ignore"):
            grads = G[self.param_rows].sum(axis=1)
            return grads if first is None else np.asarray(first, dtype=float) + grads
