"""The link from the Training panel to the scalar graph: which neuron, which sample, which weights.

Clicking a neuron in the diagram asks for the micrograd graph of ONE sample
flowing through the network up to that neuron (or, for the output neuron,
through that sample's loss), built by `controller.sample_graph` from the
latest weights snapshot and already backpropagated. `GraphLink` keeps the
choice -- the neuron, the sample (the first training point until one is picked
on the plot), the parameters of the graph it built last -- and says what to
show through two signals:

    openGraph(root, title)         the user asked for a graph: show it
    liveGraphUpdated(root, title)  "Follow live": the same graph from newer weights,
                                   at most every LIVE_GRAPH_INTERVAL seconds while training

It is presentation state only; the run is the controller's. The panel calls it
when the data, the config or the weights change (`data_changed`,
`config_changed`, `follow_live`), so the order of redraws stays in one place.
"""

import time

from PySide6.QtCore import QObject, Signal

from core.training.sample_graph import LIVE_GRAPH_MAX_NODES, graph_size, sample_graph

LIVE_GRAPH_INTERVAL = 0.3  # seconds between live graph rebuilds


class GraphLink(QObject):
    """Which neuron and which sample the scalar graph is about; building it; following the training."""

    openGraph = Signal(object, str)
    liveGraphUpdated = Signal(object, str)
    message = Signal(str, bool)  # text, is it an error

    def __init__(self, controller, network_box, data_plot, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.box = network_box
        self.plot = data_plot
        self.neuron = None  # (layer, neuron)
        self.sample = None  # (x1, x2, label, index in the training set or None)
        self.parameters = []  # the parameters (Values) of the graph built last
        self._last_live = 0.0

    @property
    def config(self):
        return self.controller.config

    # -- building ------------------------------------------------------------------

    def build(self, layer, neuron, through_loss=None):
        """(root Value, title) of the sample up to neuron (layer, neuron), from the latest weights;
        (None, why not) while there is no such graph."""
        c = self.controller
        if c.weights is None or c.data is None:
            return None, "the network is still being built; try again in a moment"
        if self.sample is None:
            self._default_sample()
        x1, x2, label, index = self.sample
        if through_loss is None:
            through_loss = self.box.through_loss
        last = len(self.config.hidden_sizes)
        through_loss = through_loss and layer == last
        try:
            root, model = sample_graph(self.config, c.weights.weights, (x1, x2), label, layer, neuron, through_loss)
        except ValueError as e:  # a snapshot of another shape: a new run is starting
            return None, f"the network is changing; try again ({e})"
        self.parameters = model.parameters()
        what = (
            f"{self.config.loss} loss of"
            if through_loss
            else ("output" if layer == last else f"neuron L{layer}.n{neuron}")
        )
        where = f"training point #{index}" if index is not None else "test point"
        title = f"{what} — {where} ({x1:.2f}, {x2:.2f}), label {label:+g}, after step {c.weights.step}"
        return root, title

    def open(self, layer, neuron):
        """Select the neuron and emit openGraph with its graph; returns the root (None if there is none yet)."""
        self.neuron = (layer, neuron)
        self.box.network_view.set_selected(("neuron", layer, neuron))
        root, title = self.build(layer, neuron)
        if root is None:
            self.message.emit(title, True)
            return None
        self.openGraph.emit(root, title)
        return root

    def open_selected(self):
        if self.neuron is None:
            self.message.emit("click a neuron in the network diagram first", True)
            return
        self.open(*self.neuron)

    def follow_live(self, force=False):
        """With Follow live on, emit liveGraphUpdated from the newest weights (not more often than
        LIVE_GRAPH_INTERVAL unless forced, and only for graphs a repaint can keep up with)."""
        if not self.box.follow_check.isChecked() or self.neuron is None:
            return
        now = time.perf_counter()
        if not force and now - self._last_live < LIVE_GRAPH_INTERVAL:
            return
        self._last_live = now
        root, title = self.build(*self.neuron)
        if root is None:
            return
        if graph_size(root) > LIVE_GRAPH_MAX_NODES:
            self.message.emit(
                f"'Follow live' is for graphs under {LIVE_GRAPH_MAX_NODES:,} nodes; this one is "
                "larger -- pick a neuron of an earlier layer or a smaller network",
                False,
            )
            return
        self.liveGraphUpdated.emit(root, title)

    # -- the sample ------------------------------------------------------------------

    def pick_sample(self, x, y):
        """Make the data point nearest to (x, y) the sample; a graph already open follows it."""
        data = self.controller.data
        if data is None:
            return
        points = list(data["train_points"]) + list(data["test_points"])
        labels = list(data["train_labels"]) + list(data["test_labels"])
        k = min(range(len(points)), key=lambda i: (points[i][0] - x) ** 2 + (points[i][1] - y) ** 2)
        n_train = len(data["train_points"])
        self._set_sample(points[k], labels[k], k if k < n_train else None)
        if self.neuron is not None:
            self.open(*self.neuron)

    def _set_sample(self, point, label, index):
        self.sample = (float(point[0]), float(point[1]), float(label), index)
        self.box.show_sample(point, label, index)
        self.plot.set_selected(point)

    def _default_sample(self):
        data = self.controller.data
        if data and data["train_points"]:
            self._set_sample(data["train_points"][0], data["train_labels"][0], 0)

    # -- news from the run --------------------------------------------------------------

    def data_changed(self, data):
        """New points: keep the sample if it is still there (its index may have moved), else the first one."""
        points = list(data["train_points"]) + list(data["test_points"])
        keep = self.sample is not None and any((p[0], p[1]) == (self.sample[0], self.sample[1]) for p in points)
        if keep:
            x1, x2, label, _ = self.sample
            train = data["train_points"]
            index = next((i for i, p in enumerate(train) if (p[0], p[1]) == (x1, x2)), None)
            self._set_sample((x1, x2), label, index)
        else:
            self.sample = None
            self._default_sample()

    def config_changed(self, cfg):
        """A new shape: forget the neuron if it is gone, else select it again in the new diagram."""
        if self.neuron is None:
            return
        layer, neuron = self.neuron
        sizes = list(cfg.hidden_sizes) + [1]
        if layer >= len(sizes) or neuron >= sizes[layer]:
            self.neuron = None
        else:
            self.box.network_view.set_selected(("neuron", layer, neuron))
