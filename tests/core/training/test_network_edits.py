"""The NETWORK column's edits as config changes: limits, order, and always a valid config."""

from core.training import network_edits
from core.training.config import TrainConfig

CFG = TrainConfig(hidden_sizes=(4, 3), activation=("tanh", "relu", "linear"))


def test_adding_a_layer_repeats_the_last_hidden_activation():
    assert network_edits.layers_changed(CFG, +1) == {
        "hidden_sizes": (4, 3, 4),
        "activation": ("tanh", "relu", "relu", "linear"),
    }
    assert network_edits.layers_changed(CFG, -1) == {"hidden_sizes": (4,), "activation": ("tanh", "linear")}


def test_layer_edits_stop_at_the_limits():
    # issue 17: "−" goes down to 0 hidden layers (a linear model), then stops
    one = CFG.replace(hidden_sizes=(4,), activation=("tanh", "linear"))
    assert network_edits.layers_changed(one, -1) == {"hidden_sizes": (), "activation": ("linear",)}
    none = CFG.replace(hidden_sizes=(), activation=("linear",))
    assert network_edits.layers_changed(none, -1) is None
    assert network_edits.layers_changed(none, +1) == {"hidden_sizes": (4,), "activation": ("relu", "linear")}
    full = CFG.replace(hidden_sizes=(2,) * network_edits.MAX_LAYERS, activation="tanh")
    assert network_edits.layers_changed(full, +1) is None


def test_neurons_between_one_and_the_maximum():
    assert network_edits.neurons_changed(CFG, 1, -2)["hidden_sizes"] == (4, 1)
    assert network_edits.neurons_changed(CFG, 1, -3) is None
    widest = network_edits.neurons_changed(CFG, 0, network_edits.MAX_NEURONS - 4)
    assert widest["hidden_sizes"] == (network_edits.MAX_NEURONS, 3)
    assert network_edits.neurons_changed(CFG, 0, network_edits.MAX_NEURONS - 3) is None


def test_features_keep_their_order_and_the_last_one_stays():
    assert network_edits.feature_toggled(CFG, "x1*x2") == {"features": ("x1", "x2", "x1*x2")}
    assert network_edits.feature_toggled(CFG, "x1") == {"features": ("x2",)}
    assert network_edits.feature_toggled(CFG.replace(features=("x2",)), "x2") is None
    assert network_edits.activation_changed(CFG, 1, "sigmoid") == {"activation": ("tanh", "sigmoid", "linear")}


def test_every_change_is_a_valid_config():
    for changes in (
        network_edits.layers_changed(CFG, +1),
        network_edits.neurons_changed(CFG, 0, 1),
        network_edits.feature_toggled(CFG, "sin_x1"),
        network_edits.activation_changed(CFG, 0, "relu"),
    ):
        CFG.replace(**changes)


def test_choosing_a_regression_dataset_switches_to_mse_and_back():
    to_plane = network_edits.dataset_chosen(CFG, "plane")
    lr = {"lr": 0.1} if CFG.optimizer == "sgd" and CFG.lr > 0.1 else {}  # plain SGD, gentler for mse
    assert to_plane == {"dataset": "plane", "points": None, "labels": None, "loss": "mse", **lr}
    plane = CFG.replace(**to_plane)
    assert plane.regression
    assert network_edits.dataset_chosen(plane, "moons")["loss"] == "hinge"
    bce = CFG.replace(loss="bce")
    assert network_edits.dataset_chosen(bce, "xor")["loss"] == "bce"  # a classification keeps its loss
