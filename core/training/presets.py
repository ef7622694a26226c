"""The panel's vocabulary of configs: ready-made experiments, and the network edits its buttons make.

Plain functions of a frozen `TrainConfig` (no Qt): every button of the NETWORK
column turns into "the changes to the current config", which the panel hands
to `TrainConfig.replace` -- so a refused edit is explained once, in one place,
and the same edits can be tested without a window.

    PRESETS                      name -> TrainConfig (the Preset box)
    for_display(cfg)             cfg with the per-neuron heatmaps switched on
    preset_name(cfg)             the preset cfg is, or "custom"
    layers_changed(cfg, delta)   {hidden_sizes, activation} with a layer more or less, or None
    neurons_changed(cfg, layer, delta)   likewise for one layer's width
    activation_changed(cfg, layer, name)
    feature_toggled(cfg, name)   {features} with one input switched, or None if it is the last one
"""

from core.training.trainer import FEATURES, MICROGRAD_DEMO, TrainConfig

MAX_LAYERS = 6
MAX_NEURONS = 16
NEW_LAYER_SIZE = 4

PRESETS = {
    "micrograd demo (moons, 16-16 ReLU)": MICROGRAD_DEMO,
    "spiral, 2 tanh layers": TrainConfig(
        dataset="spiral", n_samples=200, noise=0.0, test_ratio=0.2, hidden_sizes=(12, 12),
        activation=("tanh", "tanh", "linear"), loss="bce", l2_alpha=0.0, optimizer="adam", lr=0.03,
        lr_decay=0.0, batch_size=None, steps=300),
    "circles, x₁² and x₂² features": TrainConfig(
        dataset="circles", n_samples=200, noise=0.05, test_ratio=0.2, features=("x1^2", "x2^2"),
        hidden_sizes=(2,), activation=("tanh", "linear"), loss="hinge", l2_alpha=0.0, optimizer="sgd",
        lr=0.1, momentum=0.9, lr_decay=0.0, batch_size=10, steps=200),
    "xor, 4 tanh neurons": TrainConfig(
        dataset="xor", n_samples=200, noise=0.05, test_ratio=0.2, hidden_sizes=(4,),
        activation=("tanh", "linear"), loss="bce", l2_alpha=0.0, optimizer="adam", lr=0.05,
        lr_decay=0.0, batch_size=10, steps=300),
    "blobs, one linear neuron": TrainConfig(
        dataset="blobs", n_samples=200, noise=0.1, test_ratio=0.2, hidden_sizes=(1,),
        activation=("linear", "linear"), loss="hinge", l2_alpha=0.0, optimizer="sgd", lr=0.1,
        lr_decay=0.0, batch_size=10, steps=100),
}
DEFAULT_PRESET = "micrograd demo (moons, 16-16 ReLU)"


def activations_of(cfg):
    """The config's activations as one name per layer (hidden layers, then the output)."""
    if isinstance(cfg.activation, str):
        return (cfg.activation,) * len(cfg.hidden_sizes) + ("linear",)
    return tuple(cfg.activation)


def for_display(cfg):
    """cfg with the per-neuron heatmaps the network view needs switched on."""
    return cfg if cfg.neuron_resolution else cfg.replace(neuron_resolution=16)


def preset_name(cfg):
    """The name of the preset cfg is (as shown), else "custom"."""
    return next((name for name, p in PRESETS.items() if for_display(p) == cfg), "custom")


# -----------------------------------------------------------------------------
# the NETWORK column's edits, as changes to the current config

def layers_changed(cfg, delta):
    """One hidden layer more (+1, NEW_LAYER_SIZE neurons, the activation of the layer before)
    or fewer (-1, the last one); None at the limits (1 and MAX_LAYERS layers)."""
    sizes = list(cfg.hidden_sizes)
    acts = list(activations_of(cfg))
    if delta > 0 and len(sizes) < MAX_LAYERS:
        sizes.append(NEW_LAYER_SIZE)
        acts.insert(len(acts) - 1, acts[-2] if len(acts) > 1 else "relu")
    elif delta < 0 and len(sizes) > 1:
        sizes.pop()
        acts.pop(len(acts) - 2)
    else:
        return None
    return {"hidden_sizes": tuple(sizes), "activation": tuple(acts)}


def neurons_changed(cfg, layer, delta):
    """Hidden layer `layer` delta neurons wider; None outside 1..MAX_NEURONS."""
    sizes = list(cfg.hidden_sizes)
    new = sizes[layer] + delta
    if not 1 <= new <= MAX_NEURONS:
        return None
    sizes[layer] = new
    return {"hidden_sizes": tuple(sizes), "activation": activations_of(cfg)}


def activation_changed(cfg, layer, name):
    acts = list(activations_of(cfg))
    acts[layer] = name
    return {"activation": tuple(acts)}


def feature_toggled(cfg, name):
    """The input feature `name` switched on or off, in FEATURES order; None if it is the last one on."""
    on = list(cfg.features)
    if name in on:
        if len(on) == 1:
            return None
        on.remove(name)
    else:
        on.append(name)
    return {"features": tuple(f for f in FEATURES if f in on)}
