"""One sample's scalar graph, built from a weights snapshot, equals the float forward pass."""

import pytest

from core.training.config import TrainConfig
from core.training.sample_graph import model_from_weights, sample_graph
from core.training.trainer import Trainer


def test_sample_graph_data_equal_the_float_forward():
    cfg = TrainConfig(hidden_sizes=(3, 2), activation=("tanh", "relu", "linear"), features=("x1", "x2", "x1*x2"))
    weights = Trainer(cfg).model.state()
    model = model_from_weights(cfg, weights)
    x = [0.3, -0.7, 0.3 * -0.7]
    root, _ = sample_graph(cfg, weights, (0.3, -0.7), 1.0, 2, 0)
    assert root.data == model.forward_floats(x)
    hidden = model.layers[0].forward_floats(x)
    root, _ = sample_graph(cfg, weights, (0.3, -0.7), 1.0, 1, 1)
    assert root.data == model.layers[1].forward_floats(hidden)[1]
    loss, _ = sample_graph(cfg, weights, (0.3, -0.7), -1.0, 2, 0, through_loss=True)
    s = model.forward_floats(x)
    assert loss.data == pytest.approx(max(0.0, 1.0 + s))
    assert loss.grad == 1.0
