"""The NETWORK column of the Training panel: the diagram, and what a click in it selects.

Above the `NetworkView` diagram: + and − for hidden layers, and the init seed.
Below it: the weight picked in the diagram (name, an editor, its gradient) and
the scalar-graph row -- up to the neuron or through the loss, Open graph,
Follow live, and which sample the graph pushes through the network.

`NetworkBox` shows a config (`show_config`) and the sample (`show_sample`).
Every gesture that changes the network -- + and − layers and neurons, an
activation, an input feature, the init seed -- becomes `edited(changes)`, the
changes to the current config (core/training/network_edits.py), for the panel to apply.
The weight editor is the box's own: a weight clicked in the diagram is shown
with its last gradient, follows the controller's snapshots, and is edited
through `controller.set_weight` -- only while paused (else `message` says so).
A click on a neuron and Open graph are the panel's to wire.
"""

import math

from PySide6.QtCore import QSize, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QLabel,
    QPushButton,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.look.ui_scale import ui_font
from app.training.network_view import NetworkView
from app.training.number_field import NumberField
from app.training.widgets import FlowLayout, caption, heading, set_silently
from core.format import format_number
from core.training import network_edits
from core.training.network_edits import MAX_LAYERS, activations_of

NO_WEIGHT = "weight: click one in the diagram"


class NetworkBox(QWidget):
    """Layers and init seed, the network diagram, the selected weight, the one-sample graph."""

    edited = Signal(dict)  # changes to the config, e.g. {"init_seed": k}
    message = Signal(str, bool)  # text, is it an error

    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.selected_weight = None  # (layer, neuron, index) shown in the weight editor
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.rows = (self._build_head(), self._build_weight_row(), self._build_graph_row())
        layout.addLayout(self.rows[0])
        self.network_view = NetworkView()
        self.network_view.setMinimumSize(360, 300)
        self.network_view.setToolTip("")
        layout.addWidget(self.network_view, 1)
        layout.addLayout(self.rows[1])
        layout.addLayout(self.rows[2])
        self.sample_label = QLabel("sample: —")
        self.sample_label.setToolTip(
            "The data point pushed through the network: pick one with 'Pick sample' on the data plot"
        )
        layout.addWidget(self.sample_label)

        self.add_layer_button.clicked.connect(lambda: self.change_layers(+1))
        self.remove_layer_button.clicked.connect(lambda: self.change_layers(-1))
        self.init_seed_spin.valueChanged.connect(lambda v: self.edited.emit({"init_seed": v}))
        view = self.network_view
        view.featureToggled.connect(self.toggle_feature)
        view.neuronsChangeRequested.connect(self.change_neurons)
        view.activationChangeRequested.connect(self.set_activation)
        view.weightClicked.connect(self.select_weight)
        self.weight_spin.edited.connect(self._on_weight_edited)
        self.weight_spin.problem.connect(lambda text: self.message.emit(text, True))
        controller.weightsChanged.connect(lambda _weights: self.show_weight())
        controller.idleReached.connect(lambda _info: self.show_weight())
        controller.statusChanged.connect(
            lambda status, _message: self.weight_spin.setEnabled(
                status != "playing" and self.selected_weight is not None
            )
        )

    # -- size --------------------------------------------------------------------------

    def minimumSizeHint(self):
        """Wide enough for each row of controls on one line at 1x; at a presenter scale the rows
        wrap first (the width goes to the square data plot: presenter 2x on 1920 x 1080)."""
        hint = super().minimumSizeHint()
        scale = self.fontMetrics().height() / QFontMetrics(ui_font()).height()
        one_line = max(row.sizeHint().width() for row in self.rows)
        return QSize(max(hint.width(), int(one_line / scale)), hint.height())

    def sizeHint(self):
        """No wider than the minimum: the panel gives this column what the others leave (its stretch)."""
        return QSize(self.minimumSizeHint().width(), super().sizeHint().height())

    def _build_head(self):
        head = FlowLayout()
        head.setSpacing(6)
        self.add_layer_button = QToolButton()
        self.add_layer_button.setText("+")
        self.add_layer_button.setToolTip(f"Add a hidden layer (at most {MAX_LAYERS})")
        self.remove_layer_button = QToolButton()
        self.remove_layer_button.setText("−")
        self.remove_layer_button.setToolTip(
            "Remove the last hidden layer (down to 0: then the network is one neuron on the features, a linear model)"
        )
        self.layers_label = heading("2 HIDDEN LAYERS")
        self.layers_label.setToolTip("The network between the input features and the output")
        head.addWidget(self.add_layer_button)
        head.addWidget(self.remove_layer_button)
        head.addWidget(self.layers_label)
        head.addStretch(1)
        head.addWidget(caption("Init seed"))
        self.init_seed_spin = QSpinBox()
        self.init_seed_spin.setRange(0, 2_000_000_000)
        self.init_seed_spin.setKeyboardTracking(False)
        self.init_seed_spin.setToolTip(
            "The seed of the initial weights (and of the mini-batch draws); changing it starts a new run"
        )
        head.addWidget(self.init_seed_spin)
        return head

    def _build_weight_row(self):
        row = FlowLayout()
        row.setSpacing(6)
        self.weight_name = QLabel(NO_WEIGHT)
        self.weight_name.setStyleSheet("font-family: 'DejaVu Sans Mono';")
        self.weight_name.setToolTip("The weight (or bias) selected in the diagram")
        self.weight_spin = NumberField(
            "Weight", "Edit the selected weight while training is paused (any number, e.g. -0.5 or 1e-3)"
        )
        self.weight_spin.setEnabled(False)
        self.weight_grad = QLabel("")
        self.weight_grad.setStyleSheet("font-family: 'DejaVu Sans Mono'; color: #4b5563;")
        self.weight_grad.setToolTip("The gradient of the loss with respect to this weight at the last step")
        self.weight_grad.hide()  # until a weight is picked: an empty label would still take a row of its own
        row.addWidget(self.weight_name)
        row.addSpacing(0)  # not a caption that drags its editor along: in a narrow column the editor goes below
        row.addWidget(self.weight_spin)
        row.addWidget(self.weight_grad)
        row.addStretch(1)
        return row

    def _build_graph_row(self):
        row = FlowLayout()
        row.setSpacing(6)
        self.graph_target = QComboBox()
        self.graph_target.addItem("up to the neuron", "neuron")
        self.graph_target.addItem("through the loss", "loss")
        self.graph_target.setToolTip(
            "The one-sample graph ends at the neuron's output, or (for the output "
            "neuron) goes on through this sample's loss"
        )
        self.open_graph_button = QPushButton("Open graph")
        self.open_graph_button.setToolTip(
            "Open the scalar graph of the selected neuron for the chosen sample: one forward pass, then backward"
        )
        self.follow_check = QCheckBox("Follow live")
        self.follow_check.setToolTip(
            "While training, rebuild that graph from the newest weights a few times a second (graphs under 2,000 nodes)"
        )
        row.addWidget(caption("Graph"))
        row.addWidget(self.graph_target)
        row.addWidget(self.open_graph_button)
        row.addWidget(self.follow_check)
        row.addStretch(1)
        return row

    # -- showing ----------------------------------------------------------------

    @property
    def through_loss(self):
        return self.graph_target.currentData() == "loss"

    def show_config(self, cfg):
        set_silently([self.init_seed_spin], lambda: self.init_seed_spin.setValue(cfg.init_seed))
        n = len(cfg.hidden_sizes)
        self.layers_label.setText(f"{n} HIDDEN LAYER{'S' if n != 1 else ''}")
        self.add_layer_button.setEnabled(n < MAX_LAYERS)
        self.remove_layer_button.setEnabled(n > 0)
        self.network_view.set_structure(cfg.features, cfg.hidden_sizes, activations_of(cfg))

    def show_sample(self, point, label, index):
        where = f"training point #{index}" if index is not None else "test point"
        self.sample_label.setText(f"sample: {where} ({point[0]:.3f}, {point[1]:.3f}), label {label:+g}")

    # -- editing the network ---------------------------------------------------------

    def change_layers(self, delta):
        self._propose(network_edits.layers_changed(self.controller.config, delta))

    def change_neurons(self, layer, delta):
        self._propose(network_edits.neurons_changed(self.controller.config, layer, delta))

    def set_activation(self, layer, name):
        self._propose(network_edits.activation_changed(self.controller.config, layer, name))

    def toggle_feature(self, name):
        changes = network_edits.feature_toggled(self.controller.config, name)
        if changes is None:
            self.message.emit("the network needs at least one input feature", True)
        self._propose(changes)

    def _propose(self, changes):
        if changes:  # None: at a limit, nothing to change
            self.edited.emit(changes)

    # -- the weight editor ----------------------------------------------------------

    def select_weight(self, layer, neuron, index):
        self.selected_weight = (layer, neuron, index)
        self.show_weight()

    def show_weight(self):
        """The selected weight's value and last gradient, from the latest snapshot."""
        key = self.selected_weight
        weights = self.controller.weights
        if key is None or weights is None:
            return
        layer, neuron, index = key
        try:
            value = weights.weights[layer][neuron][index]
            grad = weights.grads[layer][neuron][index]
        except IndexError:  # the network shrank under it
            self.selected_weight = None
            self.weight_name.setText(NO_WEIGHT)
            self.weight_spin.setEnabled(False)
            return
        self.weight_name.setText(self.network_view.parameter_name(layer, neuron, index))
        self.weight_spin.show_value(value if math.isfinite(value) else 0.0)
        self.weight_spin.setEnabled(not self.controller.playing and math.isfinite(value))
        self.weight_grad.setText(f"grad {format_number(grad)}")
        self.weight_grad.show()

    def set_weight(self, layer, neuron, index, value):
        """Edit one weight (index == nin: the bias) through the controller; only while paused."""
        ok = self.controller.set_weight(layer, neuron, index, value)
        if not ok:
            self.message.emit("pause training to edit a weight", True)
        return ok

    def _on_weight_edited(self, value):
        if self.selected_weight is not None:
            self.set_weight(*self.selected_weight, value)
