"""What the canvas shows of a network too big to draw: one live neuron on one point.

A network lesson's loss graph over a whole training set has thousands of nodes;
the canvas shows instead one neuron of the first layer on one training point, with
the network's own weights and inputs. It must be **alive** there (a ReLU whose input
is above 0), or its grads would contradict the chain rule the course teaches: a dead
neuron's intermediate grads are 0 while its weights carry the batch's gradient.

The picture's grads are d(out)/d(node) for that one point, from a backward pass
seeded at the neuron's output, on copies of the weights (the network's own grads
stay as training left them); the note says where the network's dLoss/dw comes from:
that point's share summed over the batch, plus the L2 term when there is one.
"""

from __future__ import annotations

from core.engine import Value
from core.format import format_number as fmt


def live_neuron(neurons, inputs) -> tuple[int, int]:
    """(neuron index, point index): the first neuron of a layer and training point where
    the neuron passes gradient (a ReLU's input above 0; any other activation always
    does), or (0, 0) when every ReLU is dead on every point."""
    for i, neuron in enumerate(neurons):
        if neuron.activation != "relu":
            return i, 0
        for j, x in enumerate(inputs):
            act = neuron.b.data + sum(w.data * xi for w, xi in zip(neuron.w, x))
            if act > 0.0:
                return i, j
    return 0, 0


def neuron_view(trainer) -> tuple[Value, list[Value], str]:
    """(the neuron's output Value, its weight copies and bias, the canvas note)."""
    neurons = trainer.model.layers[0].neurons
    which, point_index = live_neuron(neurons, trainer.train_inputs)
    neuron = neurons[which]
    name = f"L0.n{which}"
    weights = [Value(w.data, label=w.label) for w in neuron.w]
    bias = Value(neuron.b.data, label=neuron.b.label)
    point = [Value(x, label=f) for x, f in zip(trainer.train_inputs[point_index], trainer.cfg.features)]
    act = bias
    for wi, xi in zip(weights, point):
        act = act + wi * xi
    out = {"relu": act.relu, "tanh": act.tanh, "sigmoid": act.sigmoid}.get(neuron.activation, lambda: act)()
    out.label = f"{name} out"
    out.backward()
    w0 = neuron.w[0]
    n = len(trainer.train_inputs)
    size = trainer.cfg.batch_size
    batch = f"all {n} training points" if size is None or size >= n else f"the {size} points of the last mini-batch"
    l2 = trainer.cfg.l2_alpha
    penalty = f", plus 2·α·w = {2 * l2 * w0.data:.3g} from the L2 term α·Σw² (α = {l2:g})" if l2 > 0 else ""
    if neuron.activation != "relu":
        live = ""
    elif act.data > 0:
        live = ", where its ReLU passes gradient"
    else:
        live = " (every first-layer ReLU is dead on every point: no gradient passes)"
    total = "" if trainer.diverged else "The whole loss graph is too big to draw: "
    note = (
        f"{total}the canvas shows neuron {name} on training point {point_index + 1}{live}; "
        f"its grads are d(out)/d(node) for that point. The network's dLoss/d{w0.label} = "
        f"{fmt(w0.grad)} sums such shares, times dLoss/d(out), over {batch}{penalty}."
    )
    return out, weights + [bias], note[:1].upper() + note[1:]
