"""A training step on the batched replay of one sample's graph (batched.py).

The loss of a batch, as the losses in `core.losses` build it, is

    loss = mean_i( term(score(x_i), y_i) ) + alpha * sum_p p^2

`NetworkReplay` records the pieces once, from the real model, and runs them
over every batch with numpy:

1. The network: ONE sample's graph through the MLP, inputs to score
   (`model(x)`, with every neuron's output kept for the heatmaps), replayed
   for the whole batch (`BatchedGraph`).
2. The loss term of one sample: `LOSSES[name]([s], [y])`, the loss of a batch
   of one, recorded from a leaf `s` for the score. Its graph depends on the
   sample only through constants -- the label y -- and, for bce, through which
   of its two stable forms `_softplus` picks (`losses.loss_shape`). So one
   graph is recorded per (label, form) that occurs, and graphs of the same
   shape are merged, their constants becoming rows that differ per sample.
   A batch of one computes `(0 + term) * 1.0`, which is exactly `term`.
3. The mean, `sum(terms) * (1.0 / n)`, is the engine's sum: added in sample
   order. Backward, it hands every sample's term the grad 1/n.
4. The penalty (regularization.py) involves no sample. L2, `alpha * sum(p * p)`:
   each p*p adds p*alpha to p's grad twice (d(p*p)/dp, one operand at a
   time). L1, `alpha * sum(relu(p) + relu(-p))`: p's grad gets +alpha where
   p > 0, -alpha where p < 0, nothing at 0. Both before the samples' shares,
   as in the engine's reverse pass.

Then every parameter's grad is its shares summed over the batch
(`BatchedGraph.param_grads`). tests/core/training/test_replay.py checks loss and
grads against the scalar engine for every activation, loss, optimizer and
feature set.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from core.engine import Value, topological_order
from core.losses import LOSSES, loss_floats
from core.training.batched import BatchedGraph
from core.training.regularization import penalty_floats

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from core.nn import MLP

# a loss term's key: the sample's label, and which of bce's two forms it takes
Key = tuple[float, bool]

# -----------------------------------------------------------------------------
# the loss term of one sample, per (label, form)


def _shape_bits(loss: str, scores: NDArray[np.float64], labels: NDArray[np.float64]) -> NDArray[np.bool_]:
    """`losses.loss_shape` for arrays: True where bce's softplus takes its z > 0 form."""
    if loss != "bce":
        return np.zeros(len(scores), dtype=bool)
    sign = np.where(labels > 0, 1.0, -1.0)
    return scores * -sign > 0.0


class _Term:
    """The recorded loss-term graphs of one shape, and their constants per (label, form)."""

    def __init__(self, score_leaf: Value, root: Value, constants: list[Value]) -> None:
        self.graph = BatchedGraph([root], inputs=[score_leaf] + constants)
        self.root_row = self.graph.root_rows[0]
        self.keys: list[Key] = []  # (label, form) in the order of `values`
        self.values: list[list[float]] = []  # per key: the constants' numbers

    def add(self, key: Key, constants: list[Value]) -> None:
        self.keys.append(key)
        self.values.append([c.data for c in constants])


class LossTerms:
    """Every sample's loss term and d(mean loss)/d(score), for one loss, over a batch."""

    def __init__(self, loss: str) -> None:
        self.loss = loss
        self.terms: dict[tuple, _Term] = {}  # signature -> _Term
        self.by_key: dict[Key, tuple[_Term, int]] = {}  # (label, form) -> (its _Term, its index there)

    def _record(self, key: Key, score: float) -> None:
        s = Value(float(score), label="score")
        root = LOSSES[self.loss]([s], [key[0]])
        order = topological_order(root)
        index: dict[Value | None, int] = {node: i for i, node in enumerate(order)}  # None: no operand
        constants = [n for n in order if n._a is None and n is not s]
        signature = tuple((n._op, index.get(n._a), index.get(n._b), n is s) for n in order)
        term = self.terms.get(signature)
        if term is None:
            term = self.terms[signature] = _Term(s, root, constants)
        self.by_key[key] = (term, len(term.keys))
        term.add(key, constants)

    def run(
        self, scores: NDArray[np.float64], labels: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(terms, dscores): each sample's loss term, and its grad seeded with 1/n."""
        n = len(scores)
        forms = _shape_bits(self.loss, scores, labels)
        keys = list(zip(labels.tolist(), forms.tolist()))
        for i, key in enumerate(keys):
            if key not in self.by_key:
                self._record(key, scores[i])
        terms = np.empty(n)
        dscores = np.empty(n)
        which = np.array([id(self.by_key[k][0]) for k in keys]) if len(self.terms) > 1 else None
        slot = np.array([self.by_key[k][1] for k in keys])
        for term in self.terms.values():
            picked = None if which is None else np.nonzero(which == id(term))[0]
            idx = slice(None) if picked is None else picked
            count = n if picked is None else len(picked)
            if count == 0:
                continue
            constants = np.array(term.values)[slot[idx]].T  # (n_constants, count)
            X = np.vstack([scores[idx][None, :], constants])
            D = term.graph.forward(X)
            terms[idx] = D[term.root_row]
            G = term.graph.backward({term.root_row: 1.0 / n})
            dscores[idx] = G[0]
        return terms, dscores


# -----------------------------------------------------------------------------
# the network and its loss


class NetworkReplay:
    """The model's one-sample graph and the loss's, replayed over batches (module docstring)."""

    def __init__(self, model: MLP, features: Sequence[str], loss: str, l2_alpha: float, l1_alpha: float = 0.0) -> None:
        self.params = model.parameters()
        self.loss, self.l2_alpha, self.l1_alpha = loss, l2_alpha, l1_alpha
        inputs = [Value(0.0, label=name) for name in features]
        x = inputs
        layers: list[list[Value]] = []
        for layer in model.layers:
            x = [n(x) for n in layer.neurons]
            layers.append(x)
        score = layers[-1][0]
        self.graph = BatchedGraph([score] + [v for layer in layers for v in layer], inputs, self.params)
        self.score_row = self.graph.row[score]
        self.layer_rows = [[self.graph.row[v] for v in layer] for layer in layers]
        self.terms = LossTerms(loss)

    def weights(self) -> NDArray[np.float64]:
        return np.array([p.data for p in self.params])

    def step(
        self, X: NDArray[np.float64], labels: NDArray[np.float64]
    ) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
        """Forward and backward over a batch: X (n_features, batch), labels (batch,).

        Returns (loss, scores, grads), grads in the order of `model.parameters()`.
        """
        P = self.weights()
        n = X.shape[1]
        D = self.graph.forward(X, P)
        scores = D[self.score_row].copy()
        terms, dscores = self.terms.run(scores, labels)
        first = None
        with np.errstate(all="ignore"):  # a diverging run makes inf and nan; the trainer reports it
            loss = np.cumsum(terms)[-1] * (1.0 / n)
            penalty = None
            if self.l2_alpha > 0:
                penalty = self.l2_alpha * np.cumsum(P * P)[-1]
                share = P * self.l2_alpha
                first = share + share
            if self.l1_alpha > 0:
                # relu(p) + relu(-p) is |p|; its grad alpha * sign(p), 0 at p = 0
                l1 = self.l1_alpha * np.cumsum(np.abs(P))[-1]
                penalty = l1 if penalty is None else penalty + l1
                pull = np.where(P > 0.0, self.l1_alpha, np.where(P < 0.0, -self.l1_alpha, 0.0))
                first = pull if first is None else first + pull
            if penalty is not None:
                loss = loss + penalty
        self.graph.backward({self.score_row: dscores})
        return float(loss), scores, self.graph.param_grads(first)

    # -- forward only (no grads), any number of points ---------------------------

    def scores(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        return self.graph.evaluate(X, self.weights(), [self.score_row])[0]

    def activations(self, X: NDArray[np.float64]) -> list[NDArray[np.float64]]:
        """Every neuron's output at every point: one (layer_size, n_points) array per layer."""
        rows = [r for layer in self.layer_rows for r in layer]
        out = self.graph.evaluate(X, self.weights(), rows)
        sizes = np.cumsum([len(layer) for layer in self.layer_rows])[:-1]
        return np.split(out, sizes)

    def last_activations(self) -> list[NDArray[np.float64]]:
        """`activations` of the batch of the last `step`, read from its table (no new pass)."""
        D = self.graph.D
        if D is None:
            raise RuntimeError("NetworkReplay.last_activations() needs a step() first: there is no batch yet")
        return [D[rows] for rows in self.layer_rows]

    def evaluate(self, X: NDArray[np.float64], labels: Sequence[float]) -> tuple[float, NDArray[np.float64]]:
        """(loss, scores) without grads, with the float loss (`losses.loss_floats`)."""
        scores = self.scores(X)
        loss = loss_floats(self.loss, scores.tolist(), labels)
        if self.l2_alpha > 0 or self.l1_alpha > 0:
            loss += penalty_floats(self.weights().tolist(), self.l1_alpha, self.l2_alpha)
        return loss, scores
