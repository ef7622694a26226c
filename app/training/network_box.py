"""The NETWORK column of the Training panel: the diagram, and what a click in it selects.

Above the `NetworkView` diagram: + and − for hidden layers, and the init seed.
Below it: the weight picked in the diagram (name, an editor, its gradient) and
the scalar-graph row -- up to the neuron or through the loss, Open graph,
Follow live, and which sample the graph pushes through the network.

`NetworkBox` shows (`show_config`, `show_weight`, `show_sample`) and reports
`layersChangeRequested(+1 | -1)`, `edited({"init_seed": k})` and
`weightEdited(value)`; the diagram's own signals (`network_view.neuronClicked`,
...) and Open graph are wired by the panel.
"""

import math

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QHBoxLayout, QLabel, QPushButton, QSpinBox,
                               QToolButton, QVBoxLayout, QWidget)

from app.training.configs import MAX_LAYERS, activations_of
from app.training.network_view import NetworkView
from app.training.widgets import caption, heading, set_silently

NO_WEIGHT = "weight: click one in the diagram"


class NetworkBox(QWidget):
    """Layers and init seed, the network diagram, the selected weight, the one-sample graph."""

    layersChangeRequested = Signal(int)  # +1 or -1
    edited = Signal(dict)  # changes to the config: {"init_seed": k}
    weightEdited = Signal(float)

    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addLayout(self._build_head())
        self.network_view = NetworkView()
        self.network_view.setMinimumSize(360, 300)
        self.network_view.setToolTip("")
        layout.addWidget(self.network_view, 1)
        layout.addLayout(self._build_weight_row())
        layout.addLayout(self._build_graph_row())
        self.sample_label = QLabel("sample: —")
        self.sample_label.setToolTip("The data point pushed through the network: pick one with "
                                     "'Pick sample' on the data plot")
        layout.addWidget(self.sample_label)

        self.add_layer_button.clicked.connect(lambda: self.layersChangeRequested.emit(+1))
        self.remove_layer_button.clicked.connect(lambda: self.layersChangeRequested.emit(-1))
        self.init_seed_spin.valueChanged.connect(lambda v: self.edited.emit({"init_seed": v}))
        self.weight_spin.valueChanged.connect(self.weightEdited)

    def _build_head(self):
        head = QHBoxLayout()
        self.add_layer_button = QToolButton()
        self.add_layer_button.setText("+")
        self.add_layer_button.setToolTip(f"Add a hidden layer (at most {MAX_LAYERS})")
        self.remove_layer_button = QToolButton()
        self.remove_layer_button.setText("−")
        self.remove_layer_button.setToolTip("Remove the last hidden layer (at least 1 stays)")
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
        self.init_seed_spin.setToolTip("The seed of the initial weights (and of the mini-batch draws); "
                                       "changing it starts a new run")
        head.addWidget(self.init_seed_spin)
        return head

    def _build_weight_row(self):
        row = QHBoxLayout()
        self.weight_name = QLabel(NO_WEIGHT)
        self.weight_name.setStyleSheet("font-family: 'DejaVu Sans Mono';")
        self.weight_name.setToolTip("The weight (or bias) selected in the diagram")
        self.weight_spin = QDoubleSpinBox()
        self.weight_spin.setDecimals(4)
        self.weight_spin.setRange(-1e6, 1e6)
        self.weight_spin.setSingleStep(0.1)
        self.weight_spin.setKeyboardTracking(False)
        self.weight_spin.setEnabled(False)
        self.weight_spin.setToolTip("Edit the selected weight while training is paused; the boundary updates")
        self.weight_grad = QLabel("")
        self.weight_grad.setStyleSheet("font-family: 'DejaVu Sans Mono'; color: #4b5563;")
        self.weight_grad.setToolTip("The gradient of the loss with respect to this weight at the last step")
        row.addWidget(self.weight_name)
        row.addWidget(self.weight_spin)
        row.addWidget(self.weight_grad)
        row.addStretch(1)
        return row

    def _build_graph_row(self):
        row = QHBoxLayout()
        self.graph_target = QComboBox()
        self.graph_target.addItem("up to the neuron", "neuron")
        self.graph_target.addItem("through the loss", "loss")
        self.graph_target.setToolTip("The one-sample graph ends at the neuron's output, or (for the output "
                                     "neuron) goes on through this sample's loss")
        self.open_graph_button = QPushButton("Open graph")
        self.open_graph_button.setToolTip("Open the scalar graph of the selected neuron for the chosen sample: "
                                          "one forward pass, then backward")
        self.follow_check = QCheckBox("Follow live")
        self.follow_check.setToolTip("While training, rebuild that graph from the newest weights a few times "
                                     "a second (graphs under 2,000 nodes)")
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
        self.remove_layer_button.setEnabled(n > 1)
        self.network_view.set_structure(cfg.features, cfg.hidden_sizes, activations_of(cfg))

    def show_weight(self, name, value, grad, editable):
        self.weight_name.setText(name)
        set_silently([self.weight_spin], lambda: self.weight_spin.setValue(value if math.isfinite(value) else 0.0))
        self.weight_spin.setEnabled(editable and math.isfinite(value))
        self.weight_grad.setText(f"grad {grad:+.5f}")

    def clear_weight(self):
        self.weight_name.setText(NO_WEIGHT)
        self.weight_spin.setEnabled(False)

    def show_sample(self, point, label, index):
        where = f"training point #{index}" if index is not None else "test point"
        self.sample_label.setText(f"sample: {where} ({point[0]:.3f}, {point[1]:.3f}), label {label:+g}")
