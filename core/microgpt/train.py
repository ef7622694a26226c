"""Training microgpt fast: each step's graph, recorded once per name length, replayed with numpy.

One training step of microgpt builds 40,000-130,000 scalar Values and walks
them back: ~0.2-0.6 s of pure Python (resources/scripts/microgpt.py). But
the graph of a step depends on the name only through its length and its
letters, and the letters only pick *which* numbers go in:

* which rows of `wte` are the token embeddings (`state_dict['wte'][token_id]`),
* which probability the loss reads (`probs[target_id]`).

So `Tape.record(length, model)` builds the step once with the studio's engine
for a made-up name of that length whose letters are all different (so every
embedding row used belongs to one position), and keeps the graph as arrays
(core/recorded.py's format, the one batched training records too):
each node's op, its operands, the leaf it reads (a parameter, a constant, or
"the embedding of the token at position p, entry j"), and for each position
the 27 probability nodes the loss can read. `Tape.step(tokens, params)` then
runs the graph for any name of that length with numpy, a *level* at a time
(all nodes whose operands are ready, grouped by op: one vectorised call per
op per level -- the recorded graph's one replay, core/recorded.py, with the op
table's array forms), forward then backward, and returns the loss and the grads of
all 4,192 parameters. The numbers are the scalar engine's (same ops in the
same order per node, up to the ulp by which numpy's exp, log and power differ
from the C library's; sums of grads differ in the last bits).

One recording serves every length. Position p's nodes read only positions
0..p (attention is causal), and the loss is `(1/n) * sum(losses)`, a chain of
adds whose k-th partial sum covers positions 0..k. So the tape of the longest
name (every position the model has) holds each shorter name's step as a
prefix: each node is tagged with the last position it reads, the nodes of a
level are sorted by it, and `step` runs only the nodes of positions < n, then
takes the n-th partial sum times 1/n -- the same operations, in the same order,
as the step of that name alone. Recording once instead of once per length is
what makes the whole run fast, recording included (bench/README_scopes.md).

`train(steps, ...)` is the script's loop on top -- same seed, same shuffled
names, same Adam with its decaying learning rate -- yielding the loss of every
step and, every `sample_every` steps, names sampled from the model.
tests/core/microgpt/test_train.py checks the losses against the script's.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from core import ops, recorded
from core.engine import Value
from core.microgpt import model as gpt_model
from core.microgpt.data import Tokenizer, load_names
from core.microgpt.model import Config, MicroGPT
from core.recorded import Block

LEAF_PARAM, LEAF_CONST, LEAF_EMBED = 0, 1, 2


def _forward(tokens: list[int], model: MicroGPT) -> tuple[Value, list[list[Value]], list[Value]]:
    """model.loss's forward pass, keeping each position's probabilities and log node."""
    cfg = model.config
    n = min(cfg.block_size, len(tokens) - 1)
    keys, values = [[] for _ in range(cfg.n_layer)], [[] for _ in range(cfg.n_layer)]
    losses, probs_at, logs = [], [], []
    for pos_id in range(n):
        logits = gpt_model.gpt(tokens[pos_id], pos_id, keys, values, model)
        probs = gpt_model.softmax(logits)
        picked = probs[tokens[pos_id + 1]].log()
        probs_at.append(probs)
        logs.append(picked)
        losses.append(-picked)
    return (1 / n) * sum(losses), probs_at, logs


@dataclass
class Level:
    """The nodes of one op (and one param) at one level: out = f(a[, b])."""

    op: ops.Op
    param: float | None
    out: np.ndarray
    a: np.ndarray
    b: np.ndarray | None
    logs: np.ndarray | None = None  # for the log nodes of the loss: which position each reads
    cut: np.ndarray | None = None  # cut[n]: how many of its nodes (sorted by position) a name of n positions runs

    def block(self, n: int, picked: np.ndarray) -> Block | None:
        """This level's nodes of a name of n positions as a block of the replay
        (core/recorded.py); a log node reads the probability its target `picked`."""
        k = self.cut[n] if self.cut is not None else len(self.out)
        if not k:
            return None
        a = self.a[:k] if self.logs is None else picked[self.logs[:k]]
        b = self.b[:k] if self.b is not None else None
        return Block.gathered(self.op, self.param, self.out[:k], a, b)


@dataclass
class Tape:
    """One name length's step graph, as arrays (see the module docstring)."""

    length: int
    n: int  # nodes
    root: int
    leaf: np.ndarray  # indices of the leaves
    leaf_kind: np.ndarray
    leaf_index: np.ndarray  # LEAF_PARAM: index into the flat parameters; LEAF_EMBED: p * n_embd + j
    const: np.ndarray  # the data of every node at recording (constants keep theirs)
    levels: list[Level] = field(default_factory=list)
    probs: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))  # (positions, vocab)
    n_embd: int = 16
    wte: int = 0  # where wte starts among the flat parameters
    sums: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # the k-th partial sum's node
    bos: int = 0
    # per name length n: its blocks of the replay, None where a block reads what the targets pick
    blocks: dict[int, list[tuple[Level, Block | None]]] = field(default_factory=dict)

    @classmethod
    def record(cls, length: int, model: MicroGPT) -> Tape:
        cfg = model.config
        letters = list(range(min(length, cfg.vocab_size - 1)))
        if len(letters) != length:
            raise ValueError(f"a name of {length} letters has repeated letters: the tape needs one per position")
        bos = cfg.vocab_size - 1
        tokens = [bos] + letters + [bos]
        loss, probs_at, logs = _forward(tokens, model)
        # the step as arrays (core/recorded.py), then every probability the loss may read
        # (another name, another target) after the graph
        graph = recorded.record([loss], also=[x for probs in probs_at for x in probs])
        index = graph.index()
        n = len(graph)
        flat = {id(p): k for k, p in enumerate(model.params)}
        wte_rows = {id(v): (r, j) for r, row in enumerate(model.state_dict["wte"]) for j, v in enumerate(row)}
        position_of = {t: p for p, t in enumerate(tokens[:-1]) if p == 0 or t != bos}
        op, a, b, param = graph.op, graph.a, graph.b, graph.param
        leaves, kinds, where = [], [], []
        for i in np.nonzero(a < 0)[0].tolist():
            v = graph.nodes[i]
            leaves.append(i)
            if id(v) in wte_rows:
                r, j = wte_rows[id(v)]
                kinds.append(LEAF_EMBED)
                where.append(position_of[r] * cfg.n_embd + j)
            elif id(v) in flat:
                kinds.append(LEAF_PARAM)
                where.append(flat[id(v)])
            else:
                kinds.append(LEAF_CONST)
                where.append(-1)
        positions = len(probs_at)
        # each node's level (after its operands) and last position read (its operands' latest; the loss's
        # own node after all): plain lists in one pass, operands first
        a_list, b_list, kinds_at = a.tolist(), b.tolist(), dict(zip(leaves, kinds))
        where_at = dict(zip(leaves, where))
        lev, pos = graph.levels(), [-1] * n
        for i in range(n):
            ai, bi = a_list[i], b_list[i]
            if ai < 0:
                if kinds_at.get(i) == LEAF_EMBED:
                    pos[i] = where_at[i] // cfg.n_embd
            elif bi < 0:
                pos[i] = pos[ai]
            else:
                pos[i] = max(pos[ai], pos[bi])
        log_nodes = {index[id(x)]: p for p, x in enumerate(logs)}
        for i, p in log_nodes.items():
            pos[i] = p  # its operand is chosen by the target: position p's probabilities
        root = index[id(loss)]
        pos[root] = positions  # (1/n) * sum: computed by step() for each n
        level, position = np.array(lev), np.array(pos)
        tape = cls(length, n, root, np.array(leaves), np.array(kinds), np.array(where), graph.data.copy(),
                   n_embd=cfg.n_embd)  # fmt: skip
        tape.bos = bos
        tape.probs = np.array([[index[id(x)] for x in probs] for probs in probs_at])
        tape.sums = _partial_sums(loss, logs, index)
        is_log = np.zeros(n, dtype=bool)
        is_log[list(log_nodes)] = True
        no_param = np.isnan(param)
        for lv in range(1, int(level.max()) + 1):
            at = level == lv
            for code in np.unique(op[at]):
                row = recorded.ROWS[code]
                assert row is not None  # (a node above the leaves is an op)
                of_op = at & (op == code)
                for p in np.unique(param[of_op]) if row.param else [math.nan]:
                    same = of_op & (no_param if math.isnan(p) else (param == p))
                    for picked in (False, True):
                        nodes = np.nonzero(same & (is_log == picked))[0]
                        if not len(nodes):
                            continue
                        nodes = nodes[np.argsort(position[nodes], kind="stable")]
                        bs = b[nodes] if b[nodes[0]] >= 0 else None
                        logs_p = np.array([log_nodes[i] for i in nodes]) if picked else None
                        cut = np.searchsorted(position[nodes], np.arange(positions + 1), side="left")
                        level_param = float(p) if row.param else None
                        tape.levels.append(Level(row, level_param, nodes, a[nodes], bs, logs_p, cut))
        return tape

    @classmethod
    def record_longest(cls, model: MicroGPT) -> Tape:
        """The tape of the longest name the model reads whole (block_size - 1 letters, all
        different): every shorter name's step is a prefix of it (see the module docstring)."""
        cfg = model.config
        return cls.record(min(cfg.block_size - 1, cfg.vocab_size - 1), model)

    @property
    def positions(self) -> int:
        return len(self.probs)

    def step(self, tokens: list[int], params: np.ndarray) -> tuple[float, np.ndarray]:
        """(loss, grads of the flat parameters) of the name `tokens` (BOS, its letters, BOS):
        its first n = min(positions, len(tokens) - 1) positions, as model.loss computes it."""
        n = min(self.positions, len(tokens) - 1)
        tokens = list(tokens[: self.positions + 1]) + [self.bos] * (self.positions + 1 - len(tokens))
        V = self.const.copy()
        kind, where, leaf = self.leaf_kind, self.leaf_index, self.leaf
        is_param = kind == LEAF_PARAM
        V[leaf[is_param]] = params[where[is_param]]
        embed = kind == LEAF_EMBED
        pos, j = np.divmod(where[embed], self.n_embd)
        rows = np.asarray(tokens)[pos]
        embed_index = self.wte + rows * self.n_embd + j
        V[leaf[embed]] = params[embed_index]
        targets = np.asarray(tokens[1 : self.positions + 1])
        picked_by_position = self.probs[np.arange(self.positions), targets]
        blocks = [
            block if block is not None else lv.block(n, picked_by_position)  # type: ignore[misc]
            for lv, block in self._blocks(n)
        ]
        recorded.forward(blocks, V)
        G = np.zeros(self.n)
        if len(self.sums):  # (1/n) * the n-th partial sum: d loss / d sum = 1/n
            scale = 1 / n
            loss = scale * float(V[self.sums[n - 1]])
            G[self.sums[n - 1]] = scale * 1.0
        else:
            loss = float(V[self.root])
            G[self.root] = 1.0
        recorded.backward(blocks, V, G)
        grads = np.zeros(len(params))
        np.add.at(grads, where[is_param], G[leaf[is_param]])
        np.add.at(grads, embed_index, G[leaf[embed]])
        return loss, grads

    def _blocks(self, n: int) -> list[tuple[Level, Block | None]]:
        """The levels a name of n positions runs, each with its block when the block is the same
        for every name of that length (made once); the log nodes of the loss read what each
        name's targets pick, so their block is made per step."""
        made = self.blocks.get(n)
        if made is None:
            empty = np.zeros(0, dtype=np.int64)
            made = self.blocks[n] = [
                (lv, lv.block(n, empty) if lv.logs is None else None)
                for lv in self.levels
                if (lv.cut[n] if lv.cut is not None else len(lv.out))
            ]
        return made


def _partial_sums(loss: Value, logs: list[Value], index: dict[int, int]) -> np.ndarray:
    """The nodes of `sum(losses)`, the k-th holding losses 0..k: the chain of adds under
    the loss's `(1/n) * ...` whose other operand is the k-th position's loss (-log)."""
    total = loss._b if loss._a is not None and loss._a._a is None else loss._a
    chain = []
    while total is not None and total._op == "+":
        chain.append(total)
        total = total._a if total._a is not None and total._a._op == "+" else None
    chain.reverse()
    if len(chain) != len(logs):
        return np.zeros(0, dtype=np.int64)  # another shape of loss: the root is the loss, one length a tape
    return np.array([index[id(c)] for c in chain])


# -----------------------------------------------------------------------------
# The training loop: the script's, step for step


@dataclass(frozen=True)
class Progress:
    step: int  # 1-based
    loss: float
    name: str  # the name this step learned from
    samples: tuple[str, ...] = ()  # names sampled after this step (every sample_every steps)


class Trainer:
    """microgpt's training, the script's way: seed 42, the names shuffled, Adam (see train())."""

    def __init__(self, steps: int = 1000, seed: int = 42, docs: list[str] | None = None) -> None:
        self.docs = list(docs) if docs is not None else load_names()
        self.rng = random.Random(seed)
        self.rng.shuffle(self.docs)
        self.tokenizer = Tokenizer(self.docs)
        self.model = MicroGPT(Config(vocab_size=self.tokenizer.vocab_size), self.rng)
        self.params = np.array([p.data for p in self.model.params])
        self.wte = 0  # wte is the first matrix of state_dict
        self.tapes: dict[int, Tape] = {}
        self.steps = steps
        self.m = np.zeros(len(self.params))
        self.v = np.zeros(len(self.params))
        self.lr, self.beta1, self.beta2, self.eps = 0.01, 0.85, 0.99, 1e-8

    def tape(self, length: int) -> Tape:
        """The tape that runs a name of `length` letters: the longest name's, recorded once,
        for every length it holds as a prefix; one of its own for a longer name when the
        data has too few letters to spell the longest with different ones."""
        longest = self.tapes.get(0)
        if longest is None:
            longest = self.tapes[0] = Tape.record_longest(self.model)
        if len(longest.sums) and (length + 1 <= longest.positions or longest.positions == self.model.config.block_size):
            return longest
        tape = self.tapes.get(length)
        if tape is None:
            tape = self.tapes[length] = Tape.record(length, self.model)
        return tape

    def step(self, step: int) -> tuple[float, str]:
        doc = self.docs[step % len(self.docs)]
        tokens = self.tokenizer.encode(doc)
        loss, g = self.tape(len(doc)).step(tokens, self.params)
        lr_t = self.lr * (1 - step / self.steps)
        self.m = self.beta1 * self.m + (1 - self.beta1) * g
        self.v = self.beta2 * self.v + (1 - self.beta2) * g**2
        m_hat = self.m / (1 - self.beta1 ** (step + 1))
        v_hat = self.v / (1 - self.beta2 ** (step + 1))
        self.params -= lr_t * m_hat / (v_hat**0.5 + self.eps)
        return loss, doc

    def sample(self, count: int = 5, temperature: float = 0.5) -> list[str]:
        """Names drawn from the model as it is now, one letter at a time (the script's sampling)."""
        for p, x in zip(self.model.params, self.params.tolist()):
            p.data = x
        cfg = self.model.config
        names = []
        for _ in range(count):
            keys, values = [[] for _ in range(cfg.n_layer)], [[] for _ in range(cfg.n_layer)]
            token, letters = self.tokenizer.BOS, []
            for pos in range(cfg.block_size):
                logits = gpt_model.gpt(token, pos, keys, values, self.model)
                probs = gpt_model.softmax([logit / temperature for logit in logits])
                token = self.rng.choices(range(cfg.vocab_size), weights=[p.data for p in probs])[0]
                if token == self.tokenizer.BOS:
                    break
                letters.append(self.tokenizer.uchars[token])
            names.append("".join(letters))
        return names


def train(steps: int = 1000, sample_every: int = 0, seed: int = 42, path: str | None = None) -> Iterator[Progress]:
    """Train microgpt for `steps` steps; yield each step's loss (and samples every `sample_every`).
    `path`: a names file of your own, one name a line (default: the bundled names)."""
    trainer = Trainer(steps, seed, load_names(path) if path else None)
    for step in range(steps):
        loss, doc = trainer.step(step)
        samples = tuple(trainer.sample()) if sample_every and (step + 1) % sample_every == 0 else ()
        yield Progress(step + 1, loss, doc, samples)
