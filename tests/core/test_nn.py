"""Neuron, Layer, MLP: the Value forward, the float forwards, reprs, state."""

import json
import math
import random
import time

import numpy as np
import pytest

from core.engine import Value
from core.nn import ACTIVATIONS, MLP, Layer, Module, Neuron


def random_mlp(rng):
    nin = rng.randint(1, 4)
    nouts = [rng.randint(1, 5) for _ in range(rng.randint(1, 3))]
    activations = [rng.choice(ACTIVATIONS) for _ in nouts]
    model = MLP(nin, nouts, activations, rng)
    for p in model.parameters():  # biases start at 0; make them matter too
        p.data = rng.uniform(-2.0, 2.0)
    return model


# -----------------------------------------------------------------------------
# construction


def test_parameter_count_of_micrograds_demo_network():
    model = MLP(2, [16, 16, 1])
    # (2 weights + 1 bias) * 16 + (16 + 1) * 16 + (16 + 1) * 1
    assert len(model.parameters()) == 3 * 16 + 17 * 16 + 17 == 337


def test_micrograd_defaults_uniform_weights_zero_bias():
    model = MLP(3, [8, 4, 1])
    for layer in model.layers:
        for n in layer.neurons:
            assert n.b.data == 0.0
            assert all(-1.0 <= w.data <= 1.0 for w in n.w)
    assert model.activations == ["relu", "relu", "linear"]


def test_default_rng_is_reproducible_and_neurons_differ():
    a, b = MLP(2, [4, 1]), MLP(2, [4, 1])
    assert a.state() == b.state()
    weights = [tuple(w.data for w in n.w) for n in a.layers[0].neurons]
    assert len(set(weights)) == 4  # one shared rng, not a fresh Random(0) per neuron
    assert MLP(2, [4, 1], rng=random.Random(1)).state() != a.state()


def test_rng_is_used_and_global_random_untouched():
    before = random.getstate()
    MLP(2, [16, 16, 1], rng=random.Random(5))
    MLP(2, [3, 1])
    assert random.getstate() == before


def test_per_layer_activation_list():
    model = MLP(2, [3, 3, 1], activation=["tanh", "sigmoid", "linear"])
    assert [layer.neurons[0].activation for layer in model.layers] == ["tanh", "sigmoid", "linear"]


def test_bad_activations_are_refused_clearly():
    with pytest.raises(ValueError, match="unknown activation 'sigmoidal'"):
        Neuron(2, "sigmoidal")
    with pytest.raises(ValueError, match="2 activations given for 3 layers"):
        MLP(2, [3, 3, 1], activation=["tanh", "linear"])
    with pytest.raises(ValueError, match="at least one layer"):
        MLP(2, [])


def test_reprs_look_like_micrograds():
    assert repr(Neuron(3)) == "ReLUNeuron(3)"
    assert repr(Neuron(2, "tanh")) == "TanhNeuron(2)"
    assert repr(Neuron(2, "sigmoid")) == "SigmoidNeuron(2)"
    assert repr(Layer(2, 2, "linear")) == "Layer of [LinearNeuron(2), LinearNeuron(2)]"
    assert repr(MLP(2, [2, 1])) == "MLP of [Layer of [ReLUNeuron(2), ReLUNeuron(2)], Layer of [LinearNeuron(2)]]"


def test_repr_equals_micrograds_own():
    micrograd_nn = pytest.importorskip("micrograd.nn")
    assert repr(MLP(2, [16, 16, 1])) == repr(micrograd_nn.MLP(2, [16, 16, 1]))


def test_parameters_are_labelled_by_their_path():
    model = MLP(2, [3, 1])
    assert model.layers[1].neurons[0].w[2].label == "L1.n0.w2"
    assert model.layers[0].neurons[2].b.label == "L0.n2.b"
    assert [p.label for p in Neuron(2).parameters()] == ["w0", "w1", "b"]
    labels = [p.label for p in model.parameters()]
    assert len(set(labels)) == len(labels)


def test_module_base_has_no_parameters():
    assert Module().parameters() == []


# -----------------------------------------------------------------------------
# forward passes


def test_neuron_computes_activation_of_weighted_sum():
    n = Neuron(2, "tanh")
    n.w[0].data, n.w[1].data, n.b.data = 0.5, -2.0, 0.25
    out = n([Value(1.0), Value(3.0)])
    assert out.data == pytest.approx(math.tanh(0.25 + 0.5 - 6.0))


def test_one_output_layer_returns_a_value_like_micrograd():
    assert isinstance(MLP(2, [3, 1])([1.0, 2.0]), Value)
    out = MLP(2, [3, 2])([1.0, 2.0])
    assert isinstance(out, list) and len(out) == 2


def test_value_forward_equals_float_forward_on_random_mlps():
    rng = random.Random(42)
    for _ in range(50):
        model = random_mlp(rng)
        x = [rng.uniform(-3, 3) for _ in range(model.sizes[0])]
        value_out = model([Value(v) for v in x])
        float_out = model.forward_floats(x)
        if isinstance(value_out, Value):
            assert float_out == value_out.data  # the same arithmetic: bit for bit
        else:
            assert float_out == [v.data for v in value_out]


def test_vectorised_forward_matches_value_forward():
    rng = random.Random(7)
    for _ in range(30):
        model = random_mlp(rng)
        points = [[rng.uniform(-3, 3) for _ in range(model.sizes[0])] for _ in range(20)]
        predicted = model.predict_floats(points)
        for x, row in zip(points, predicted):
            expected = model.forward_floats(x)
            np.testing.assert_allclose(row, expected, rtol=1e-12, atol=1e-12)


def test_activations_floats_gives_every_neurons_output():
    rng = random.Random(3)
    model = MLP(2, [4, 3, 1], activation=["tanh", "relu", "linear"], rng=rng)
    points = [[rng.uniform(-2, 2), rng.uniform(-2, 2)] for _ in range(10)]
    outputs = model.activations_floats(points)
    assert [o.shape for o in outputs] == [(10, 4), (10, 3), (10, 1)]
    for p, x in enumerate(points):
        hidden = model.layers[0].forward_floats(x)
        np.testing.assert_allclose(outputs[0][p], hidden, rtol=1e-12, atol=1e-12)


def test_sigmoid_float_path_does_not_overflow():
    model = MLP(1, [1], activation=["sigmoid"])
    model.layers[0].neurons[0].w[0].data = 1.0
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        out = model.predict_floats([[-1000.0], [0.0], [1000.0]])
    assert out.tolist() == [0.0, 0.5, 1.0]


def test_float_grid_is_fast_enough_for_a_decision_boundary():
    model = MLP(2, [16, 16, 1])
    xs = np.linspace(-2, 2, 50)
    grid = np.array([(x, y) for y in xs for x in xs])
    best = math.inf
    for _ in range(5):
        start = time.perf_counter()
        out = model.predict_floats(grid)
        best = min(best, time.perf_counter() - start)
    assert out.shape == (2500,)
    assert best < 0.05  # typically ~1 ms


def test_same_numbers_as_micrograd_with_the_same_weights():
    micrograd_nn = pytest.importorskip("micrograd.nn")
    from micrograd.engine import Value as MicroValue

    ours = MLP(2, [4, 4, 1], rng=random.Random(11))
    theirs = micrograd_nn.MLP(2, [4, 4, 1])
    for p, q in zip(ours.parameters(), theirs.parameters()):
        q.data = p.data
    x = [0.3, -1.2]
    a = ours([Value(v) for v in x])
    b = theirs([MicroValue(v) for v in x])
    assert a.data == pytest.approx(b.data, abs=1e-15)
    a.backward()
    b.backward()
    for p, q in zip(ours.parameters(), theirs.parameters()):
        assert p.grad == pytest.approx(q.grad, abs=1e-15)


# -----------------------------------------------------------------------------
# gradients and zero_grad


def test_zero_grad_resets_every_parameter():
    model = MLP(2, [3, 1])
    for p in model.parameters():
        p.data = 0.5
    model([1.0, 2.0]).backward()
    assert any(p.grad != 0.0 for p in model.parameters())
    model.zero_grad()
    assert all(p.grad == 0.0 for p in model.parameters())


# -----------------------------------------------------------------------------
# state


def test_state_round_trips_through_json():
    a = MLP(2, [3, 2, 1], rng=random.Random(1))
    b = MLP(2, [3, 2, 1], rng=random.Random(2))
    state = json.loads(json.dumps(a.state()))
    assert len(state) == 3 and len(state[0]) == 3 and len(state[0][0]) == 3  # [w0, w1, b]
    b.load_state(state)
    assert b.state() == a.state()
    assert b.forward_floats([0.1, 0.2]) == a.forward_floats([0.1, 0.2])


def test_load_state_checks_everything_before_changing_anything():
    model = MLP(2, [3, 1])
    before = model.state()
    bad = model.state()
    bad[1][0] = bad[1][0][:-1]  # the output neuron's bias is missing
    with pytest.raises(ValueError, match="layer 1 neuron 0 needs 4 numbers"):
        model.load_state([[[9.0, 9.0, 9.0]] * 3, bad[1]])
    assert model.state() == before
    with pytest.raises(ValueError, match="2 layers, the state has 1"):
        model.load_state(before[:1])
    with pytest.raises(ValueError, match="must be a number"):
        model.load_state([before[0], [["a", 1.0, 2.0, 3.0]]])
