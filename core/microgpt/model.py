"""microgpt: a GPT built of scalar Values.

In February 2026 Karpathy published `microgpt.py`, a GPT that trains and
samples in 200 lines of plain Python: a dataset of names, a tokenizer of
characters, the very micrograd-style `Value` this studio teaches, a one-layer
transformer, Adam, and sampling. This module is its model, on the studio's
engine (`core.engine.Value`): the same functions with the same names and the
same lines -- `linear`, `softmax`, `rmsnorm`, `gpt` -- so that what the canvas
shows is named as his code names it. Two things differ, both for a library
rather than a script: the model's numbers live in a `MicroGPT` object passed
in (not module globals), and every parameter is labelled with where it sits
(`layer0.attn_wq[3][5]`), so a traced graph says what each leaf is.

The architecture, in the order `gpt()` runs it for one token at one position:

    x = wte[token] + wpe[pos]                   token and position embedding
    x = rmsnorm(x)
    for each layer:
        # 1) Multi-head Attention block
        q, k, v = linear(x, wq), linear(x, wk), linear(x, wv)
        each head h: softmax of q_h . k_h(t) / sqrt(head_dim) over the
                     positions t so far, then the weighted sum of v_h(t)
        x = linear(heads, wo) + x               the residual stream
        # 2) MLP block
        x = linear(relu(linear(rmsnorm(x), fc1)), fc2) + x
    logits = linear(x, lm_head)

`loss(tokens, model)` is one training step's forward pass: the document's
tokens go in one at a time (the keys and values of earlier positions kept,
as a KV cache), each position predicts the next token, and the step's loss
is the mean of -log(probability of the right next token). One step on a
5-letter name is ~30,000 Values; on a 15-letter one ~100,000 (in Karpathy's
own Value, which spells a - b as a + (-1 * b) and a / b as a * b**-1, it is
41,885 and 130,467).

Numbers: the parameters are drawn exactly as the script draws them --
`random.gauss(0, 0.08)` matrix by matrix in the order wte, wpe, lm_head,
then each layer's wq, wk, wv, wo, fc1, fc2 -- from the `random.Random`
passed in, so `Random(42)` after shuffling the same names gives the
script's very numbers (`core/microgpt/train.py`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from core.engine import Value

Matrix = list[list[Value]]


@dataclass(frozen=True)
class Config:
    """The script's hyperparameters (its defaults)."""

    vocab_size: int = 27  # 26 letters and BOS, the token that begins and ends a name
    n_layer: int = 1  # depth of the transformer
    n_embd: int = 16  # width of the residual stream
    block_size: int = 16  # the longest context (the longest name is 15 letters)
    n_head: int = 4  # attention heads
    std: float = 0.08  # the parameters' spread at initialisation

    @property
    def head_dim(self) -> int:
        return self.n_embd // self.n_head


class MicroGPT:
    """The model's parameters (`state_dict`, matrices of Values, as in the script) and its shape."""

    def __init__(self, config: Config, rng: random.Random) -> None:
        self.config = config
        self.state_dict = init_params(config, rng)
        self.params = [p for mat in self.state_dict.values() for row in mat for p in row]


def init_params(config: Config, rng: random.Random) -> dict[str, Matrix]:
    """The script's `state_dict`, drawn from rng in the script's order."""
    c = config

    def matrix(name: str, nout: int, nin: int) -> Matrix:
        return [[Value(rng.gauss(0, c.std), label=f"{name}[{i}][{j}]") for j in range(nin)] for i in range(nout)]

    state_dict = {
        "wte": matrix("wte", c.vocab_size, c.n_embd),
        "wpe": matrix("wpe", c.block_size, c.n_embd),
        "lm_head": matrix("lm_head", c.vocab_size, c.n_embd),
    }
    for i in range(c.n_layer):
        for name, nout, nin in (
            ("attn_wq", c.n_embd, c.n_embd),
            ("attn_wk", c.n_embd, c.n_embd),
            ("attn_wv", c.n_embd, c.n_embd),
            ("attn_wo", c.n_embd, c.n_embd),
            ("mlp_fc1", 4 * c.n_embd, c.n_embd),
            ("mlp_fc2", c.n_embd, 4 * c.n_embd),
        ):
            state_dict[f"layer{i}.{name}"] = matrix(f"layer{i}.{name}", nout, nin)
    return state_dict


# -----------------------------------------------------------------------------
# The model: Karpathy's functions, line for line


def linear(x, w):
    return [sum(wi * xi for wi, xi in zip(wo, x)) for wo in w]


def softmax(logits):
    max_val = max(val.data for val in logits)
    exps = [(val - max_val).exp() for val in logits]
    total = sum(exps)
    return [e / total for e in exps]


def rmsnorm(x):
    ms = sum(xi * xi for xi in x) / len(x)
    scale = (ms + 1e-5) ** -0.5
    return [xi * scale for xi in x]


def gpt(token_id, pos_id, keys, values, model):
    state_dict, config = model.state_dict, model.config
    n_layer, n_head, head_dim = config.n_layer, config.n_head, config.head_dim
    tok_emb = state_dict['wte'][token_id]  # token embedding
    pos_emb = state_dict['wpe'][pos_id]  # position embedding
    x = [t + p for t, p in zip(tok_emb, pos_emb)]  # joint token and position embedding
    x = rmsnorm(x)

    for li in range(n_layer):
        # 1) Multi-head Attention block
        x_residual = x
        x = rmsnorm(x)
        q = linear(x, state_dict[f'layer{li}.attn_wq'])
        k = linear(x, state_dict[f'layer{li}.attn_wk'])
        v = linear(x, state_dict[f'layer{li}.attn_wv'])
        keys[li].append(k)
        values[li].append(v)
        x_attn = []
        for h in range(n_head):
            hs = h * head_dim
            q_h = q[hs : hs + head_dim]
            k_h = [ki[hs : hs + head_dim] for ki in keys[li]]
            v_h = [vi[hs : hs + head_dim] for vi in values[li]]
            attn_logits = [sum(q_h[j] * k_h[t][j] for j in range(head_dim)) / head_dim**0.5 for t in range(len(k_h))]
            attn_weights = softmax(attn_logits)
            head_out = [sum(attn_weights[t] * v_h[t][j] for t in range(len(v_h))) for j in range(head_dim)]
            x_attn.extend(head_out)
        x = linear(x_attn, state_dict[f'layer{li}.attn_wo'])
        x = [a + b for a, b in zip(x, x_residual)]
        # 2) MLP block
        x_residual = x
        x = rmsnorm(x)
        x = linear(x, state_dict[f'layer{li}.mlp_fc1'])
        x = [xi.relu() for xi in x]
        x = linear(x, state_dict[f'layer{li}.mlp_fc2'])
        x = [a + b for a, b in zip(x, x_residual)]

    logits = linear(x, state_dict['lm_head'])
    return logits


def loss(tokens, model):
    """One training step's forward pass on one document (its tokens, BOS on both sides):
    the mean over its positions of -log(the probability given to the right next token)."""
    n_layer = model.config.n_layer
    n = min(model.config.block_size, len(tokens) - 1)
    keys, values = [[] for _ in range(n_layer)], [[] for _ in range(n_layer)]
    losses = []
    for pos_id in range(n):
        token_id, target_id = tokens[pos_id], tokens[pos_id + 1]
        logits = gpt(token_id, pos_id, keys, values, model)
        probs = softmax(logits)
        loss_t = -probs[target_id].log()
        losses.append(loss_t)
    return (1 / n) * sum(losses)  # the average loss over the document
