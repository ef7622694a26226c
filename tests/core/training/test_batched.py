"""BatchedGraph: one sample's graph replayed over a batch equals the scalar engine run on
every sample, node for node, data and grad."""

import random

import numpy as np
import pytest

from core.engine import Value, topological_order
from core.recorded import reader as _reader
from core.training.batched import BatchedGraph


def every_op(x, y, w, v):
    """A small graph with every op of the table, parameters read twice in one level,
    a node used by itself (t * t) and a constant."""
    a = w * x + v * y  # mul, add
    b = (a - 0.5).tanh() * (w * y)  # sub with a constant, tanh
    c = (b * b + 1.0).log()  # a node read twice by one op, log
    d = (-c).exp() / (1.0 + a.sigmoid())  # neg, exp, div, sigmoid
    e = (a**2 + 2.0**b).relu()  # pow, rpow, relu
    return d + e + c * w


def mlp_like(x, y, w, v):
    h = [(w * x + v * y).tanh(), (v * x - w * y).relu(), (w * x * y).sigmoid()]
    return sum(hi * wi for hi, wi in zip(h, (w, v, w * v)))


def samples(n, seed=1):
    rng = random.Random(seed)
    return [(rng.uniform(-2, 2), rng.uniform(-2, 2)) for _ in range(n)]


def close(got, want, rel=1e-12):
    """Equal to `rel` relative, on the scale of the row (a sum that cancels to ~0 keeps
    only the absolute precision of its terms)."""
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    scale = np.max(np.abs(want)) if want.size else 0.0
    return np.allclose(got, want, rtol=rel, atol=rel * scale, equal_nan=True)


@pytest.mark.parametrize("build", [every_op, mlp_like])
def test_replay_equals_the_scalar_engine_sample_by_sample(build):
    w, v = Value(0.7, label="w"), Value(-1.3, label="v")
    x, y = Value(0.0, label="x"), Value(0.0, label="y")
    root = build(x, y, w, v)
    graph = BatchedGraph([root], inputs=[x, y], params=[w, v])
    recorded = topological_order(root)

    points = samples(7)
    X = np.array(points).T
    D = graph.forward(X, [w.data, v.data])
    seed = np.linspace(0.5, 2.0, len(points))
    G = graph.backward({graph.root_rows[0]: seed})

    total = [0.0, 0.0]
    for i, (px, py) in enumerate(points):
        x.data, y.data = px, py
        fresh = build(Value(px), Value(py), w, v)  # the same construction: the same order of nodes
        w.grad = v.grad = 0.0
        order = topological_order(fresh)
        assert len(order) == len(recorded)
        for node in order:
            node.grad = 0.0
        fresh.grad = seed[i]
        for node in reversed(order):
            node._backward(node)
        for scalar, rec in zip(order, recorded):
            if scalar is w or scalar is v:
                continue
            assert close(D[graph.row[rec], i], scalar.data), rec
            assert close(G[graph.row[rec], i], scalar.grad), rec
        total[0] += w.grad
        total[1] += v.grad
    assert close(graph.param_grads(), total)


def test_a_parameter_grad_is_first_plus_the_samples_shares():
    w = Value(2.0)
    x = Value(0.0)
    graph = BatchedGraph([w * x], inputs=[x], params=[w])
    graph.forward(np.array([[1.0, 0.5, -4.0]]), [w.data])
    graph.backward({graph.root_rows[0]: np.array([1.0, 2.0, 0.25])})
    assert graph.param_grads().tolist() == [1.0 + 1.0 - 1.0]
    assert graph.param_grads(first=[0.5]).tolist() == [1.5]


def test_evaluate_in_chunks_equals_one_forward_and_keeps_the_batch_tables():
    w, v = Value(0.7), Value(-1.3)
    x, y = Value(0.0), Value(0.0)
    root = mlp_like(x, y, w, v)
    graph = BatchedGraph([root], inputs=[x, y], params=[w, v])
    X = np.array(samples(10)).T
    whole = graph.forward(X, [0.7, -1.3])[graph.root_rows[0]].copy()
    D = graph.D
    assert np.array_equal(graph.evaluate(X, [0.7, -1.3], chunk=3)[0], whole)
    assert graph.D is D


def test_rows_are_read_as_slices_when_evenly_spaced():
    assert _reader([4]) == slice(4, 5)
    assert _reader([3, 5, 7]) == slice(3, 8, 2)
    assert _reader([3, 3, 5]).tolist() == [3, 3, 5]
    assert _reader([5, 4]).tolist() == [5, 4]


def test_the_mlp_layers_run_as_few_numpy_calls():
    """2-8-8-1: all the products of a layer are one block, and each step of the sums one more."""
    from core.nn import MLP

    model = MLP(2, [8, 8, 1], "tanh", random.Random(0))
    inputs = [Value(0.0), Value(0.0)]
    graph = BatchedGraph([model(inputs)], inputs, model.parameters())
    nodes = len(graph) - 2 - len(model.parameters())
    assert nodes == 8 * 5 + 8 * 17 + 16
    assert len(graph.blocks) < nodes / 8


def test_inputs_and_parameters_must_be_in_the_graph():
    x, w, stray = Value(1.0), Value(2.0), Value(3.0, label="stray")
    with pytest.raises(ValueError, match="not in the graph.*stray"):
        BatchedGraph([x * w], inputs=[x], params=[w, stray])


def test_backward_before_any_forward_says_so():
    # was AttributeError: 'NoneType' object has no attribute 'fill' (mypy: D and G are None until a forward)
    x, w = Value(1.0), Value(2.0)
    graph = BatchedGraph([x * w], inputs=[x], params=[w])
    with pytest.raises(RuntimeError, match=r"backward\(\) needs a forward\(\) first"):
        graph.backward({0: 1.0})
    with pytest.raises(RuntimeError, match=r"param_grads\(\) needs a forward\(\) first"):
        graph.param_grads()
    graph.forward([[1.0, 2.0]], [2.0])
    graph.backward({graph.root_rows[0]: 1.0})
    assert graph.param_grads().tolist() == [3.0]
