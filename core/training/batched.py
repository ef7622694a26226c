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

1. The tape. The graph is recorded as arrays (core/recorded.py: op, operands,
   param, data per node). Every node gets a row in a table D of shape (nodes, batch); leaves
   are filled in (inputs from X, parameters and constants repeated along the
   row), then every op node is computed from its operands' rows, in a
   topological order: the same op, the same operands, for all samples at once.
2. Levels. A node's level is 1 + its operands' highest level (leaves are 0).
   Nodes at one level never depend on each other, so all the nodes of one op
   at one level -- say the 256 products w*x of a 16x16 layer -- run as ONE
   numpy call over a block of rows. Their rows are next to each other, and
   operand rows are laid out so that most operands are a slice of D too.
3. Backward. A second table G holds the grads. The root's row is seeded, then
   the levels run in reverse, each op adding its `(da, db)` (its row's
   `array_backward` in core/ops.py, run by core/recorded.py's `Block`) to
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

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from core import recorded
from core.engine import Value
from core.recorded import Block, reader

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["BatchedGraph", "graph_order", "reader"]


def graph_order(roots: Iterable[Value]) -> list[Value]:
    """Every node of the roots' graphs once, each after its operands."""
    return recorded.record(roots).nodes


# -----------------------------------------------------------------------------
# the batched graph


class BatchedGraph:
    """A recorded Value graph, replayed with one column per sample (see the module docstring).

    `roots`: the nodes whose values are wanted (the first is the usual one to seed
    backward from). `inputs`: leaves that differ per sample, in the order of X's
    rows. `params`: leaves shared by all samples, in the order of P. Any other
    leaf is a constant, kept at the number it had when the graph was recorded.
    The Values are only read here (recorded as arrays, core/recorded.py); none is kept
    but in `row`.
    """

    def __init__(self, roots: Sequence[Value], inputs: Sequence[Value] = (), params: Sequence[Value] = ()) -> None:
        graph = recorded.record(roots)
        at = graph.index()
        missing = [v for v in list(inputs) + list(params) if id(v) not in at]
        if missing:
            raise ValueError(f"{len(missing)} input or parameter Values are not in the graph (first: {missing[0]!r})")
        a_of, b_of, codes = graph.a.tolist(), graph.b.tolist(), graph.op.tolist()
        params_of = graph.param.tolist()
        # 1. levels, and the blocks: one per (level, op, param), in the order first met
        level = graph.levels()
        groups: dict[tuple[int, int, float], list[int]] = {}
        for i, code in enumerate(codes):
            if a_of[i] >= 0:
                p = params_of[i]
                groups.setdefault((level[i], code, -math.inf if p != p else p), []).append(i)
        keys = sorted(groups, key=lambda key: key[0])
        # 2. the order of nodes inside a block: by where their first reader sits (the last
        #    block first), so that an operand block is read as a slice, e.g. the k-th products
        #    of all the neurons of a layer, which one step of their sums adds
        n_keys = len(keys)
        first_reader: dict[int, tuple[int, int]] = {}
        for k in range(n_keys - 1, -1, -1):
            nodes = sorted(groups[keys[k]], key=lambda i: first_reader.get(i, (n_keys, i)))
            groups[keys[k]] = nodes
            for position, i in enumerate(nodes):
                for operand in (a_of[i], b_of[i]):
                    if operand >= 0 and (operand not in first_reader or first_reader[operand] > (k, position)):
                        first_reader[operand] = (k, position)
        # 3. rows: inputs first (so X is one slice), then each leaf when first read, each block's
        #    outputs together
        row_of: dict[int, int] = {}
        for v in inputs:
            row_of[at[id(v)]] = len(row_of)
        self.blocks: list[Block] = []
        for key in keys:
            nodes = groups[key]
            for operands in (a_of, b_of):
                for i in nodes:
                    operand = operands[i]
                    if operand >= 0 and operand not in row_of:
                        row_of[operand] = len(row_of)
            for i in nodes:
                row_of[i] = len(row_of)
            op = recorded.ROWS[key[1]]
            assert op is not None  # (an op node's code names a row)
            self.blocks.append(
                Block.laid_out(
                    op,
                    params_of[nodes[0]] if op.param else None,
                    [row_of[i] for i in nodes],
                    [row_of[a_of[i]] for i in nodes],  # (an op node has one)
                    [row_of[b_of[i]] for i in nodes if b_of[i] >= 0],
                    nodes,  # an entry's index is its topological position
                )
            )
        for i in range(len(graph)):  # leaves that no op reads (a root that is a leaf)
            if i not in row_of:
                row_of[i] = len(row_of)
        self.n_rows = len(row_of)
        self.n_inputs = len(inputs)
        self.root_rows = [row_of[at[id(r)]] for r in roots]
        self.param_rows = np.array([row_of[at[id(p)]] for p in params], dtype=np.intp)
        shared = {at[id(v)] for v in list(params) + list(inputs)}
        constants = [i for i in range(len(graph)) if a_of[i] < 0 and i not in shared]
        self.const_rows = np.array([row_of[i] for i in constants], dtype=np.intp)
        self.const_values = graph.data[constants] if constants else np.zeros(0)
        self.D: NDArray[np.float64] | None = None  # the last batch's data, one row per node
        self.G: NDArray[np.float64] | None = None  # and grads
        # Value -> its row; for tests and for asking about a node (e.g. a neuron's output)
        self.row = {v: row_of[i] for i, v in enumerate(graph.nodes)}

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
        recorded.forward(self.blocks, D)

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
        recorded.backward(self.blocks, D, G)
        return G

    def param_grads(self, first: ArrayLike | None = None) -> NDArray[np.float64]:
        """Each parameter's grad: `first` (what another term added before, e.g. a penalty on
        the weights) plus its row of G summed over the batch; shape (n_params,)."""
        _D, G = self._tables("param_grads")
        with np.errstate(all="ignore"):
            grads = G[self.param_rows].sum(axis=1)
            return grads if first is None else np.asarray(first, dtype=float) + grads
