"""Blocks read from a graph's own structure (core/scopes/infer.py): no recording, any class."""

import math
import random

import numpy as np
import pytest

from core.engine import Value
from core.microgpt.data import Tokenizer, load_names
from core.microgpt.model import Config, MicroGPT, loss
from core.nn import MLP
from core.scopes.debug import BlockDebugger
from core.scopes.graph import ScopedGraph
from core.scopes.infer import MAX_ITEMS, collapsed, infer_scopes, is_big
from core.scopes.view import ScopeView


def random_graph(rng, size):
    """A random DAG of the studio's ops whose values are all read (the output sums the loose ends)."""
    nodes = [Value(rng.uniform(-1, 1), label=f"x{i}") for i in range(4)]
    for _ in range(size):
        a, b = rng.choice(nodes[-12:]), rng.choice(nodes)
        pick = rng.random()
        out = a * b if pick < 0.35 else a + b if pick < 0.7 else (a.tanh() if pick < 0.85 else a - b)
        nodes.append(out)
    used = {id(x) for v in nodes for x in v._prev}
    return sum((v for v in nodes if id(v) not in used), Value(0.0))


def scopes_titles(graph):
    return [graph.title(s) for s in range(1, len(graph.scopes))]


@pytest.mark.parametrize("seed", range(6))
def test_blocks_are_runs_of_a_valid_order_and_stepping_them_is_backward(seed):
    out = random_graph(random.Random(seed), 400)
    out.backward()
    graph = infer_scopes(ScopedGraph.from_values(out))  # raises if an op comes before an operand
    assert graph.contiguous  # every block one run of consecutive nodes: the stepper runs it at once
    assert graph.n == len(ScopedGraph.from_values(out).op)
    view = ScopeView.first(graph, 30)
    stepper = BlockDebugger(graph, view)
    while stepper.step() is not None:  # a unit at a time
        pass
    expected = [v.grad for v in ScopedGraph.from_values(out).values()]
    stepped = [v.grad for v in graph.values()]
    np.testing.assert_allclose(sorted(stepped), sorted(expected), rtol=1e-12, atol=1e-15)
    # node for node: the arrays (backward()'s grads, renumbered with the nodes) and the stepped Values agree
    np.testing.assert_allclose(stepped, graph.grad, rtol=1e-12, atol=1e-15)


def test_the_sum_chain_is_one_block_beside_its_terms():
    rng = random.Random(1)
    terms = [sum((Value(rng.uniform(-1, 1)) * Value(rng.uniform(-1, 1)) for _ in range(10)), Value(0.0)).tanh()
             for _ in range(20)]  # fmt: skip
    total = sum(terms)
    graph = collapsed(total)
    chains = [s for s in range(1, len(graph.scopes)) if graph.title(s) == "the sum: 20 adds"]
    assert len(chains) == 1
    s = chains[0]
    assert graph.total[s] == 20 and all(graph.op_name(i) == "add" for i in range(graph.start[s], graph.end[s]))
    names = scopes_titles(graph)
    assert sum(1 for t in names if t.startswith("neuron (tanh, 10 inputs) #")) == 20


def test_an_mlp_is_named_by_its_neurons_and_layer_shared_values_go_first():
    rng = random.Random(0)
    model = MLP(3, [16, 16, 1], activation="tanh", rng=rng)
    xs = [[rng.uniform(-1, 1) for _ in range(3)] for _ in range(12)]
    out = sum(((model(x) - 1.0) ** 2 for x in xs), Value(0.0))
    graph = collapsed(out)
    names = scopes_titles(graph)
    assert any("· neuron (tanh, 16 inputs) #" in t for t in names)  # w · a neuron of the last hidden layer
    assert sum(1 for t in names if t.startswith("neuron (tanh, 3 inputs) #")) == 16 * 12  # the first layer
    assert "read by every term" in names  # the first layer, read by every neuron of the next
    assert sum(1 for t in names if t.startswith("squared error #")) == 12
    assert "the sum: 12 adds" in names  # the loss terms' sum (Value(0) + 12 terms), one block
    first = ScopeView.first(graph, 48)
    assert len(first.units()) <= 48


def test_a_label_names_its_block():
    rng = random.Random(3)
    hidden = sum((Value(rng.uniform(-1, 1)) * Value(rng.uniform(-1, 1)) for _ in range(30)), Value(0.0))
    hidden.label = "hidden"
    other = sum((Value(rng.uniform(-1, 1)) * Value(rng.uniform(-1, 1)) for _ in range(30)), Value(0.0))
    graph = collapsed(hidden * other)
    assert "hidden" in scopes_titles(graph)


def test_no_block_opens_onto_more_than_a_screenful():
    tok = Tokenizer(load_names())
    model = MicroGPT(Config(vocab_size=tok.vocab_size), random.Random(7))
    out = loss(tok.encode("emma"), model)
    graph = collapsed(out)
    assert is_big(graph.n)
    for s in range(len(graph.scopes)):
        if graph.scopes[s].kind == "inputs":
            continue
        shown = len(graph.children(s)) + len(graph.own_nodes(s))
        assert shown <= 2 * MAX_ITEMS, (graph.title(s), shown)
    assert len(ScopeView.first(graph, 48).units()) <= 48
    titles = [graph.title(s) for s in graph.children(0)]  # the step: a block per position, and their sum
    assert "the sum: 5 adds" in titles  # (BOS + 4 letters: 5 positions, one loss term each)
    assert sum(1 for t in titles if t.startswith("−log p #")) == 5


class Theirs:
    """A learner's micrograd-like class (local-grads style, no _op)."""

    def __init__(self, data, children=(), local_grads=()):
        self.data, self.grad = data, 0.0
        self._children, self._local_grads = children, local_grads

    def __add__(self, other):
        return Theirs(self.data + other.data, (self, other), (1.0, 1.0))

    def __mul__(self, other):
        return Theirs(self.data * other.data, (self, other), (other.data, self.data))

    def backward(self):
        order, seen = [], set()

        def build(v):
            if id(v) not in seen:
                seen.add(id(v))
                for c in v._children:
                    build(c)
                order.append(v)

        build(self)
        self.grad = 1.0
        for v in reversed(order):
            for c, g in zip(v._children, v._local_grads):
                c.grad += g * v.grad


def test_a_learners_class_is_grouped_the_same_and_keeps_their_grads():
    rng = random.Random(5)
    terms = []
    for _ in range(8):
        acc = Theirs(0.0)
        for _ in range(12):
            acc = acc + Theirs(rng.uniform(-1, 1)) * Theirs(rng.uniform(-1, 1))
        terms.append(acc)
    out = Theirs(0.0)
    for t in terms:
        out = out + t
    out.backward()
    graph = collapsed(out)
    assert graph.engine == "Theirs"
    assert graph.grad[graph.root] == 1.0
    assert any(t.startswith("dot product, 12 terms") for t in scopes_titles(graph))
    # stepping runs on the studio's copies: their objects keep their grads
    before = terms[3].grad
    stepper = BlockDebugger(graph, ScopeView.first(graph, 20))
    stepper.run_to_end()
    assert terms[3].grad == before
    assert math.isclose(graph.values()[graph.root].grad, 1.0)
    np.testing.assert_allclose([v.grad for v in graph.values()], graph.grad, rtol=1e-12)  # theirs == the chain rule


def test_recorded_scopes_are_kept_as_they_are():
    from core.scopes.record import recording

    with recording() as rec:
        out = random_graph(random.Random(2), 50)
    graph = ScopedGraph.from_values(out, rec)
    assert infer_scopes(graph) is graph or all(s.kind != "block" for s in infer_scopes(graph).scopes)
