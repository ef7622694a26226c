"""The Training panel: TensorFlow Playground's controls, linked to the scalar graph.

Laid out as the Playground is -- DATA | NETWORK | OUTPUT under a bar of run
controls and training settings -- and, unlike it, every neuron opens the
micrograd-style scalar graph of one sample flowing through the network.

The panel is a thin shell: the `TrainingController` holds the config, the run
and its history; the widgets show them and turn gestures into controller
calls (`apply_config`, `play`, `set_weight`, ...). The panel's own state is
presentation only: which neuron and which sample the graph is about.

Signals for the main window:

    openGraph(object root, str title)         a neuron's one-sample graph (a core Value,
                                              data and grads filled in) -- show it
    liveGraphUpdated(object root, str title)  the same graph rebuilt from newer weights
                                              while training ("Follow live")
"""

import math
import os
import time

import numpy as np
from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QIcon, QKeySequence, QPainter, QPixmap, QShortcut
from PySide6.QtWidgets import (QAbstractSpinBox, QButtonGroup, QCheckBox, QComboBox, QDoubleSpinBox,
                               QFileDialog, QFrame, QGridLayout, QHBoxLayout, QLabel, QPushButton,
                               QRadioButton, QSlider, QSpinBox, QToolButton, QVBoxLayout,
                               QWidget)

from app.training.controller import (LIVE_GRAPH_MAX_NODES, TrainingController, graph_size, sample_graph)
from app.training.network_view import NetworkView
from app.training.plots import NEGATIVE, POSITIVE, DataPlot, MetricsPlot
from core import training_session
from core.datasets import DATASETS, make_dataset, parse_csv
from core.losses import LOSSES
from core.training import FEATURES, MICROGRAD_DEMO, TrainConfig

MAX_LAYERS = 6
MAX_NEURONS = 16
NEW_LAYER_SIZE = 4
LIVE_GRAPH_INTERVAL = 0.3  # seconds between live graph rebuilds
# While playing, each part of the picture is redrawn at most this often (seconds),
# and at most one part per controller tick (~30 Hz), so no tick paints everything.
REDRAW_INTERVALS = {"curves": 0.1, "image": 0.125, "network": 0.35}
MAX_SPEED = 60  # the slider's last notch means "max"

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

LOSS_TIPS = {
    "hinge": "hinge: mean(relu(1 - y·score)) -- micrograd's demo; zero once a point is right by a margin of 1",
    "mse": "mse: mean((score - y)²) with y = ±1",
    "bce": "bce: binary cross-entropy on the score as a logit, mean(log(1 + e^(-y·score)))",
}


def activations_of(cfg):
    """The config's activations as one name per layer (hidden layers, then the output)."""
    if isinstance(cfg.activation, str):
        return (cfg.activation,) * len(cfg.hidden_sizes) + ("linear",)
    return tuple(cfg.activation)


def for_display(cfg):
    """cfg with the per-neuron heatmaps the network view needs switched on."""
    return cfg if cfg.neuron_resolution else cfg.replace(neuron_resolution=16)


def dataset_icon(name, size=52):
    """A thumbnail of a dataset: its points on white, in the class colours."""
    points, labels = make_dataset(name, 160, 0.08, 3)
    pixmap = QPixmap(size, size)
    pixmap.fill(QColor("#ffffff"))
    xs = np.array([p[0] for p in points])
    ys = np.array([p[1] for p in points])
    lo_x, hi_x, lo_y, hi_y = xs.min(), xs.max(), ys.min(), ys.max()
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.Antialiasing)
    painter.setPen(Qt.NoPen)
    for x, y, label in zip(xs, ys, labels):
        painter.setBrush(QColor(POSITIVE if label > 0 else NEGATIVE))
        px = 4 + (x - lo_x) / (hi_x - lo_x) * (size - 8)
        py = size - 4 - (y - lo_y) / (hi_y - lo_y) * (size - 8)
        painter.drawEllipse(int(px) - 2, int(py) - 2, 4, 4)
    painter.end()
    return QIcon(pixmap)


def _heading(text):
    label = QLabel(text)
    label.setStyleSheet("color: #6b7280; font-weight: bold; font-size: 11px; letter-spacing: 1px;")
    return label


def _caption(text):
    label = QLabel(text)
    label.setStyleSheet("color: #4b5563;")
    return label


class _WindowCloseWatcher(QObject):
    """Stops the run when the window that holds the panel closes (a dock gets no closeEvent)."""

    def __init__(self, panel):
        super().__init__(panel)
        self.panel = panel

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Close:
            QTimer.singleShot(0, self._check)
        return False

    def _check(self):
        window = self.panel.window()
        if window is not self.panel and not window.isVisible():
            self.panel.shutdown()


class TrainingPanel(QWidget):
    """Train an MLP on 2-D data, watch it learn, and open any neuron's scalar graph."""

    openGraph = Signal(object, str)
    liveGraphUpdated = Signal(object, str)
    sessionSaved = Signal(str)  # path
    sessionOpened = Signal(str)

    def __init__(self, cfg=None, parent=None):
        super().__init__(parent)
        self.setObjectName("TrainingPanel")
        cfg = for_display(cfg or PRESETS[DEFAULT_PRESET])
        self.controller = TrainingController(cfg, self)
        # presentation state only: what the scalar graph is about
        self.graph_neuron = None  # (layer, neuron)
        self.sample = None  # (x1, x2, label, index in the training set or None)
        self._selected_weight = None  # (layer, neuron, index) shown in the weight editor
        self.last_message = ""
        self._last_live = 0.0
        self._dirty = set()  # parts of the picture waiting for a redraw: 'curves' 'image' 'network'
        self._drawn_at = dict.fromkeys(REDRAW_INTERVALS, 0.0)
        self._watcher = None
        self._build()
        self._connect()
        self._sync_widgets(cfg)
        self.controller.start_run(cfg)

    # =========================================================================
    # building the widgets

    def _build(self):
        root = QVBoxLayout(self)
        root.setContentsMargins(8, 8, 8, 6)
        root.setSpacing(6)
        root.addWidget(self._build_run_bar())
        root.addWidget(self._build_settings_bar())
        columns = QHBoxLayout()
        columns.setSpacing(10)
        columns.addWidget(self._build_data_column(), 0)
        columns.addWidget(self._vline())
        columns.addWidget(self._build_network_column(), 1)
        columns.addWidget(self._vline())
        columns.addWidget(self._build_output_column(), 0)
        root.addLayout(columns, 1)
        self.status_label = QLabel("")
        self.status_label.setWordWrap(True)
        self.status_label.setToolTip("What the run is doing; problems and how to fix them show here")
        self.status_label.setMinimumHeight(24)
        root.addWidget(self.status_label)
        self.setStyleSheet("QToolButton#dataset { border: 2px solid transparent; border-radius: 4px; }"
                           "QToolButton#dataset:checked { border: 2px solid #374151; }")

    def _vline(self):
        line = QFrame()
        line.setFrameShape(QFrame.VLine)
        line.setStyleSheet("color: #e5e7eb;")
        return line

    def _build_run_bar(self):
        bar = QFrame()
        bar.setStyleSheet("QFrame#runbar { background: #f3f4f6; border-radius: 6px; }")
        bar.setObjectName("runbar")
        row = QHBoxLayout(bar)
        row.setContentsMargins(10, 6, 10, 6)
        row.setSpacing(8)

        self.reset_button = QPushButton("⟲ Reset")
        self.reset_button.setToolTip("Start again from the same initial weights (same seed) and the same data")
        self.play_button = QPushButton("▶ Play")
        self.play_button.setToolTip("Train continuously (Space while the panel has focus); press again to pause")
        self.play_button.setMinimumWidth(96)
        self.play_button.setStyleSheet("QPushButton { font-weight: bold; }")
        self.step_button = QPushButton("Step ▸|")
        self.step_button.setToolTip("Pause and take exactly one training step: forward, zero_grad, backward, update")
        self.reinit_button = QPushButton("⚄ Re-initialise")
        self.reinit_button.setToolTip("Start again from NEW random initial weights (the init seed goes up by one)")
        for b in (self.reset_button, self.play_button, self.step_button, self.reinit_button):
            row.addWidget(b)

        self.step_label = QLabel("step 0")
        self.step_label.setToolTip("Training steps taken: updates of every weight since the start of the run")
        self.step_label.setStyleSheet("font-family: 'DejaVu Sans Mono'; font-size: 18px; font-weight: bold; "
                                      "color: #111827; padding: 0 10px;")
        self.step_label.setMinimumWidth(150)
        row.addWidget(self.step_label)

        row.addWidget(_caption("Speed"))
        self.speed_slider = QSlider(Qt.Horizontal)
        self.speed_slider.setRange(1, MAX_SPEED)
        self.speed_slider.setValue(MAX_SPEED)
        self.speed_slider.setFixedWidth(110)
        self.speed_slider.setToolTip("Speed limit in steps per second; far right: as fast as possible")
        self.speed_label = QLabel("max")
        self.speed_label.setMinimumWidth(56)
        self.speed_label.setToolTip(self.speed_slider.toolTip())
        row.addWidget(self.speed_slider)
        row.addWidget(self.speed_label)

        self.live_check = QCheckBox("Live plots")
        self.live_check.setChecked(True)
        self.live_check.setToolTip("Redraw the boundary and the network while training (off: only the curves "
                                   "and the step counter; training runs a little faster)")
        row.addWidget(self.live_check)
        row.addStretch(1)

        row.addWidget(_caption("Preset"))
        self.preset_combo = QComboBox()
        self.preset_combo.addItems(list(PRESETS))
        self.preset_combo.addItem("custom")
        self.preset_combo.setToolTip("Ready-made experiments; choosing one starts a new run")
        row.addWidget(self.preset_combo)
        self.open_button = QPushButton("Open…")
        self.open_button.setToolTip("Open a saved training session (.json): its data, network, weights and curves")
        self.save_button = QPushButton("Save…")
        self.save_button.setToolTip("Save this training session (config, seeds, weights, curves) as JSON")
        row.addWidget(self.open_button)
        row.addWidget(self.save_button)
        return bar

    def _build_settings_bar(self):
        bar = QWidget()
        row = QHBoxLayout(bar)
        row.setContentsMargins(4, 0, 4, 0)
        row.setSpacing(6)

        def add(label, widget, tip):
            caption = _caption(label)
            caption.setToolTip(tip)
            widget.setToolTip(tip)
            row.addWidget(caption)
            row.addWidget(widget)
            row.addSpacing(8)

        self.loss_combo = QComboBox()
        self.loss_combo.addItems(list(LOSSES))
        add("Loss", self.loss_combo, "\n".join(LOSS_TIPS.values()))
        self.optimizer_combo = QComboBox()
        self.optimizer_combo.addItem("SGD", "sgd")
        self.optimizer_combo.addItem("Adam", "adam")
        add("Optimizer", self.optimizer_combo,
            "SGD: p -= lr·v with v = momentum·v + grad\nAdam: per-weight step sizes from running averages of the "
            "gradient and its square")
        self.lr_spin = QDoubleSpinBox()
        self.lr_spin.setDecimals(5)
        self.lr_spin.setRange(0.00001, 1e6)
        self.lr_spin.setStepType(QAbstractSpinBox.AdaptiveDecimalStepType)
        self.lr_spin.setKeyboardTracking(False)
        add("Learning rate", self.lr_spin, "How far each step moves the weights against their gradient")
        self.momentum_spin = QDoubleSpinBox()
        self.momentum_spin.setRange(0.0, 0.99)
        self.momentum_spin.setSingleStep(0.1)
        self.momentum_spin.setKeyboardTracking(False)
        add("Momentum", self.momentum_spin, "SGD momentum in [0, 1): how much of the last step's velocity carries over")
        self.decay_check = QCheckBox("decay")
        self.decay_check.setToolTip("Lower the learning rate linearly over the run: lr·(1 - d·k/steps)")
        row.addWidget(self.decay_check)
        self.decay_spin = QDoubleSpinBox()
        self.decay_spin.setRange(0.0, 1.0)
        self.decay_spin.setSingleStep(0.1)
        self.decay_spin.setKeyboardTracking(False)
        self.decay_spin.setToolTip("d: the fraction of the learning rate gone by the last step (micrograd: 0.9)")
        row.addWidget(self.decay_spin)
        row.addSpacing(8)
        self.steps_spin = QSpinBox()
        self.steps_spin.setRange(1, 1_000_000)
        self.steps_spin.setKeyboardTracking(False)
        add("Steps", self.steps_spin, "Play pauses after this many steps (the decay runs over them); Play again "
            "to continue")
        self.l2_spin = QDoubleSpinBox()
        self.l2_spin.setDecimals(5)
        self.l2_spin.setRange(0.0, 10.0)
        self.l2_spin.setStepType(QAbstractSpinBox.AdaptiveDecimalStepType)
        self.l2_spin.setKeyboardTracking(False)
        add("L2 α", self.l2_spin, "Regularisation: adds α·Σw² to the loss, preferring small weights")
        self.full_batch_check = QCheckBox("full batch")
        self.full_batch_check.setToolTip("Each step uses every training point (else a random mini-batch)")
        row.addWidget(self.full_batch_check)
        self.batch_spin = QSpinBox()
        self.batch_spin.setRange(1, 1000)
        self.batch_spin.setKeyboardTracking(False)
        self.batch_spin.setToolTip("Mini-batch size: the points drawn at random for each step")
        row.addWidget(self.batch_spin)
        row.addStretch(1)
        return bar

    def _build_data_column(self):
        column = QWidget()
        column.setFixedWidth(238)
        layout = QVBoxLayout(column)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(_heading("DATA"))
        layout.addWidget(_caption("Which dataset do you want to use?"))
        grid = QGridLayout()
        grid.setSpacing(4)
        self.dataset_buttons = {}
        self.dataset_group = QButtonGroup(self)
        self.dataset_group.setExclusive(True)
        for k, name in enumerate(DATASETS):
            button = QToolButton()
            button.setObjectName("dataset")
            button.setCheckable(True)
            button.setIcon(dataset_icon(name))
            button.setIconSize(QSize(52, 52))
            button.setText(name)
            button.setToolButtonStyle(Qt.ToolButtonTextUnderIcon)
            button.setToolTip(f"Generate the '{name}' dataset (starts a new run)")
            self.dataset_group.addButton(button)
            self.dataset_buttons[name] = button
            grid.addWidget(button, k // 3, k % 3)
        layout.addLayout(grid)

        form = QGridLayout()
        form.setHorizontalSpacing(6)
        form.setVerticalSpacing(4)
        self.ratio_slider = QSlider(Qt.Horizontal)
        self.ratio_slider.setRange(0, 90)
        self.ratio_slider.setSingleStep(5)
        self.ratio_slider.setPageStep(10)
        self.ratio_label = QLabel("0%")
        self.ratio_slider.setToolTip("The share of the points held out as test data (hollow on the plot); "
                                     "they are never trained on")
        self.ratio_label.setToolTip(self.ratio_slider.toolTip())
        form.addWidget(_caption("Test data"), 0, 0)
        form.addWidget(self.ratio_slider, 0, 1)
        form.addWidget(self.ratio_label, 0, 2)
        self.noise_spin = QDoubleSpinBox()
        self.noise_spin.setRange(0.0, 2.0)
        self.noise_spin.setSingleStep(0.05)
        self.noise_spin.setKeyboardTracking(False)
        self.noise_spin.setToolTip("Noise: the standard deviation of the jitter added to each coordinate")
        form.addWidget(_caption("Noise"), 1, 0)
        form.addWidget(self.noise_spin, 1, 1, 1, 2)
        self.samples_spin = QSpinBox()
        self.samples_spin.setRange(2, 2000)
        self.samples_spin.setSingleStep(10)
        self.samples_spin.setKeyboardTracking(False)
        self.samples_spin.setToolTip("How many points to generate (more points: slower full-batch steps)")
        form.addWidget(_caption("Points"), 2, 0)
        form.addWidget(self.samples_spin, 2, 1, 1, 2)
        self.data_seed_spin = QSpinBox()
        self.data_seed_spin.setRange(0, 2_000_000_000)
        self.data_seed_spin.setKeyboardTracking(False)
        self.data_seed_spin.setToolTip("The seed of the data generator and of the train/test split")
        form.addWidget(_caption("Data seed"), 3, 0)
        form.addWidget(self.data_seed_spin, 3, 1, 1, 2)
        layout.addLayout(form)
        buttons = QHBoxLayout()
        self.regenerate_button = QPushButton("Regenerate")
        self.regenerate_button.setToolTip("New points from the next data seed (starts a new run)")
        self.import_button = QPushButton("Import CSV…")
        self.import_button.setToolTip("Load points from a CSV file of x1,x2,label lines (labels 0/1 or -1/1); "
                                      "a bad line is named and nothing is imported")
        buttons.addWidget(self.regenerate_button)
        buttons.addWidget(self.import_button)
        layout.addLayout(buttons)
        self.data_summary = QLabel("")
        self.data_summary.setStyleSheet("color: #111827;")
        self.data_summary.setToolTip("How many points the network trains on, and how many are held out")
        layout.addWidget(self.data_summary)
        self.data_message = QLabel("")
        self.data_message.setWordWrap(True)
        self.data_message.setToolTip("Messages about the data (e.g. why a CSV was refused)")
        layout.addWidget(self.data_message)
        hint = QLabel("<b>Click the plot</b> to draw data:<br>left click: <span style='color:%s'>●</span> blue "
                      "(+1)<br>right or Shift+click: <span style='color:%s'>●</span> orange (−1)<br>"
                      "Ctrl+click: remove the nearest" % (POSITIVE, NEGATIVE))
        hint.setStyleSheet("color: #4b5563;")
        hint.setWordWrap(True)
        hint.setToolTip("Drawn points are added to the run without resetting the weights")
        layout.addWidget(hint)
        layout.addStretch(1)
        return column

    def _build_network_column(self):
        column = QWidget()
        layout = QVBoxLayout(column)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        head = QHBoxLayout()
        self.add_layer_button = QToolButton()
        self.add_layer_button.setText("+")
        self.add_layer_button.setToolTip("Add a hidden layer (at most 6)")
        self.remove_layer_button = QToolButton()
        self.remove_layer_button.setText("−")
        self.remove_layer_button.setToolTip("Remove the last hidden layer (at least 1 stays)")
        self.layers_label = _heading("2 HIDDEN LAYERS")
        self.layers_label.setToolTip("The network between the input features and the output")
        head.addWidget(self.add_layer_button)
        head.addWidget(self.remove_layer_button)
        head.addWidget(self.layers_label)
        head.addStretch(1)
        head.addWidget(_caption("Init seed"))
        self.init_seed_spin = QSpinBox()
        self.init_seed_spin.setRange(0, 2_000_000_000)
        self.init_seed_spin.setKeyboardTracking(False)
        self.init_seed_spin.setToolTip("The seed of the initial weights (and of the mini-batch draws); "
                                       "changing it starts a new run")
        head.addWidget(self.init_seed_spin)
        layout.addLayout(head)

        self.network_view = NetworkView()
        self.network_view.setMinimumSize(360, 300)
        self.network_view.setToolTip("")
        layout.addWidget(self.network_view, 1)

        # the selected weight
        weight_row = QHBoxLayout()
        self.weight_name = QLabel("weight: click one in the diagram")
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
        weight_row.addWidget(self.weight_name)
        weight_row.addWidget(self.weight_spin)
        weight_row.addWidget(self.weight_grad)
        weight_row.addStretch(1)
        layout.addLayout(weight_row)

        # the scalar graph
        graph_row = QHBoxLayout()
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
        self.sample_label = QLabel("sample: —")
        self.sample_label.setToolTip("The data point pushed through the network: pick one with "
                                     "'Pick sample' on the data plot")
        graph_row.addWidget(_caption("Graph"))
        graph_row.addWidget(self.graph_target)
        graph_row.addWidget(self.open_graph_button)
        graph_row.addWidget(self.follow_check)
        graph_row.addStretch(1)
        layout.addLayout(graph_row)
        layout.addWidget(self.sample_label)
        return column

    def _build_output_column(self):
        column = QWidget()
        column.setFixedWidth(400)
        layout = QVBoxLayout(column)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(_heading("OUTPUT"))
        self.metrics_label = QLabel("")
        self.metrics_label.setStyleSheet("font-family: 'DejaVu Sans Mono'; color: #111827;")
        self.metrics_label.setToolTip("Loss and accuracy of the model as it is now, on the training and "
                                      "test points")
        layout.addWidget(self.metrics_label)
        self.metrics_plot = MetricsPlot()
        self.metrics_plot.setMinimumHeight(150)
        layout.addWidget(self.metrics_plot, 1)
        legend = QHBoxLayout()
        key = QLabel("━━ training   ╍╍ test")
        key.setStyleSheet("color: #4b5563;")
        key.setToolTip("Solid curves: the training set; dashed: the held-out test set")
        self.log_check = QCheckBox("log-scale loss")
        self.log_check.setToolTip("Show the loss on a logarithmic axis")
        legend.addWidget(key)
        legend.addStretch(1)
        legend.addWidget(self.log_check)
        layout.addLayout(legend)
        self.data_plot = DataPlot()
        self.data_plot.setFixedSize(400, 380)
        layout.addWidget(self.data_plot)
        options = QHBoxLayout()
        self.show_test_check = QCheckBox("Show test data")
        self.show_test_check.setChecked(True)
        self.show_test_check.setToolTip("Draw the held-out test points (hollow)")
        self.discretize_check = QCheckBox("Discretize")
        self.discretize_check.setToolTip("Colour by the predicted class only (the sign of the score)")
        self.add_mode = QRadioButton("Add points")
        self.add_mode.setChecked(True)
        self.add_mode.setToolTip("A click on the plot adds a point (see the DATA column)")
        self.pick_mode = QRadioButton("Pick sample")
        self.pick_mode.setToolTip("A click on the plot picks the nearest point as the sample for the graph")
        options.addWidget(self.show_test_check)
        options.addWidget(self.discretize_check)
        options.addStretch(1)
        options.addWidget(self.add_mode)
        options.addWidget(self.pick_mode)
        layout.addLayout(options)
        return column

    # =========================================================================
    # wiring

    def _connect(self):
        c = self.controller
        c.configChanged.connect(self._sync_widgets)
        c.runStarted.connect(self._on_run_started)
        c.progressed.connect(self._on_progress)
        c.dataChanged.connect(self._on_data)
        c.boundaryChanged.connect(self._on_boundary)
        c.weightsChanged.connect(self._on_weights)
        c.statusChanged.connect(self._on_status)
        c.idleReached.connect(self._on_idle)
        c.ticked.connect(self._redraw)

        self.play_button.clicked.connect(self.toggle_play)
        # only while the focus is inside the panel: Space means other things in the graph editor
        space = QShortcut(QKeySequence(Qt.Key_Space), self, context=Qt.WidgetWithChildrenShortcut)
        space.activated.connect(self.toggle_play)
        self.step_button.clicked.connect(self.step)
        self.reset_button.clicked.connect(self.reset)
        self.reinit_button.clicked.connect(self.reinitialise)
        self.speed_slider.valueChanged.connect(self._on_speed)
        self.live_check.toggled.connect(self.set_live)
        self.preset_combo.activated.connect(lambda i: self.apply_preset(self.preset_combo.itemText(i)))
        self.open_button.clicked.connect(self._open_dialog)
        self.save_button.clicked.connect(self._save_dialog)

        self.loss_combo.activated.connect(lambda i: self._edit(loss=self.loss_combo.itemText(i)))
        self.optimizer_combo.activated.connect(lambda i: self._edit(optimizer=self.optimizer_combo.itemData(i)))
        self.lr_spin.valueChanged.connect(lambda v: self._edit(lr=v))
        self.momentum_spin.valueChanged.connect(lambda v: self._edit(momentum=v))
        self.decay_check.toggled.connect(
            lambda on: self._edit(lr_decay=(self.decay_spin.value() or 0.9) if on else 0.0))
        self.decay_spin.valueChanged.connect(lambda v: self._edit(lr_decay=v))
        self.steps_spin.valueChanged.connect(lambda v: self._edit(steps=v))
        self.l2_spin.valueChanged.connect(lambda v: self._edit(l2_alpha=v))
        self.full_batch_check.toggled.connect(
            lambda on: self._edit(batch_size=None if on else self.batch_spin.value()))
        self.batch_spin.valueChanged.connect(lambda v: self._edit(batch_size=v))

        for name, button in self.dataset_buttons.items():
            button.clicked.connect(lambda _=False, n=name: self.set_dataset(n))
        self.ratio_slider.valueChanged.connect(lambda v: self.ratio_label.setText(f"{v}%"))
        self.ratio_slider.sliderReleased.connect(lambda: self._edit(test_ratio=self.ratio_slider.value() / 100))
        self.ratio_slider.valueChanged.connect(
            lambda v: None if self.ratio_slider.isSliderDown() else self._edit(test_ratio=v / 100))
        self.noise_spin.valueChanged.connect(lambda v: self._edit(noise=v))
        self.samples_spin.valueChanged.connect(lambda v: self._edit(n_samples=v))
        self.data_seed_spin.valueChanged.connect(lambda v: self._edit(data_seed=v))
        self.regenerate_button.clicked.connect(self.regenerate)
        self.import_button.clicked.connect(self._import_dialog)

        self.add_layer_button.clicked.connect(lambda: self.change_layers(+1))
        self.remove_layer_button.clicked.connect(lambda: self.change_layers(-1))
        self.init_seed_spin.valueChanged.connect(lambda v: self._edit(init_seed=v))
        v = self.network_view
        v.featureToggled.connect(self.toggle_feature)
        v.neuronsChangeRequested.connect(self.change_neurons)
        v.activationChangeRequested.connect(self.set_activation)
        v.neuronClicked.connect(self.open_neuron_graph)
        v.weightClicked.connect(self.select_weight)
        self.weight_spin.valueChanged.connect(self._on_weight_edited)
        self.open_graph_button.clicked.connect(self._open_selected_graph)

        self.log_check.toggled.connect(self._on_log)
        self.show_test_check.toggled.connect(self.data_plot.set_show_test)
        self.discretize_check.toggled.connect(self.data_plot.set_discretize)
        self.add_mode.toggled.connect(lambda on: setattr(self.data_plot, "mode", "add" if on else "pick"))
        p = self.data_plot
        p.pointAdded.connect(self.add_point)
        p.removeRequested.connect(self.remove_point)
        p.samplePicked.connect(self.pick_sample)

    # =========================================================================
    # the public API (what the buttons do; tests and the main window call these too)

    @property
    def config(self):
        return self.controller.config

    @property
    def steps(self):
        return self.controller.steps

    @property
    def history(self):
        return self.controller.history

    def toggle_play(self):
        if self.controller.playing:
            self.pause()
        else:
            self.play()

    def play(self):
        return self.controller.play()

    def pause(self):
        self.controller.pause()

    def step(self):
        return self.controller.step_once()

    def reset(self):
        self.controller.reset()

    def reinitialise(self):
        self.controller.reinitialise()

    def set_speed(self, steps_per_second):
        """None (or 0) for as fast as possible."""
        self.speed_slider.setValue(MAX_SPEED if not steps_per_second else
                                   max(1, min(MAX_SPEED - 1, int(steps_per_second))))

    def set_live(self, on):
        self.controller.set_live(on)
        if self.live_check.isChecked() != bool(on):
            self.live_check.setChecked(bool(on))

    def apply_preset(self, name):
        if name not in PRESETS:
            return
        self.controller.start_run(for_display(PRESETS[name]))

    def apply_config(self, cfg, reset=None):
        self.controller.apply_config(for_display(cfg), reset)

    def _edit(self, reset=None, **changes):
        """Build the next config from the current one; an invalid one is explained, not applied."""
        try:
            cfg = self.config.replace(**changes)
        except ValueError as e:
            self._message(str(e), error=True)
            self._sync_widgets(self.config)
            return False
        self.controller.apply_config(cfg, reset)
        return True

    # -- data ------------------------------------------------------------------

    def set_dataset(self, name):
        self._edit(dataset=name, points=None, labels=None, reset=True)

    def regenerate(self):
        if self.config.points is not None:
            self._edit(points=None, labels=None, reset=True)
        else:
            self._edit(data_seed=self.config.data_seed + 1)

    def import_csv(self, path):
        """Load x1,x2,label points from a file; on any error nothing changes. Returns (ok, message)."""
        try:
            with open(path, encoding="utf-8-sig") as f:
                text = f.read()
            points, labels = parse_csv(text)
        except (OSError, UnicodeDecodeError) as e:
            return self._data_error(f"{os.path.basename(path)}: cannot read it ({e})")
        except ValueError as e:
            return self._data_error(f"{os.path.basename(path)}: {e}. Nothing was imported")
        if len(points) < 2:
            return self._data_error(f"{os.path.basename(path)}: at least 2 points are needed")
        self._edit(points=tuple(points), labels=tuple(labels), reset=True)
        message = f"imported {len(points)} points from {os.path.basename(path)}"
        self.data_message.setStyleSheet("color: #047857;")
        self.data_message.setText(message)
        return True, message

    def _data_error(self, message):
        self.data_message.setStyleSheet("color: #b91c1c;")
        self.data_message.setText(message)
        return False, message

    def add_point(self, x, y, label):
        self.controller.add_point(x, y, label)

    def remove_point(self, x, y):
        if not self.controller.remove_nearest_point(x, y):
            self._data_error("at least 2 points must stay")

    def pick_sample(self, x, y):
        """Make the data point nearest to (x, y) the sample of the scalar graph."""
        data = self.controller.data
        if data is None:
            return
        points = list(data["train_points"]) + list(data["test_points"])
        labels = list(data["train_labels"]) + list(data["test_labels"])
        k = min(range(len(points)), key=lambda i: (points[i][0] - x) ** 2 + (points[i][1] - y) ** 2)
        n_train = len(data["train_points"])
        self._set_sample(points[k], labels[k], k if k < n_train else None)
        if self.graph_neuron is not None:
            self.open_neuron_graph(*self.graph_neuron)

    def _set_sample(self, point, label, index):
        self.sample = (float(point[0]), float(point[1]), float(label), index)
        where = f"training point #{index}" if index is not None else "test point"
        self.sample_label.setText(f"sample: {where} ({point[0]:.3f}, {point[1]:.3f}), label {label:+g}")
        self.data_plot.set_selected(point)

    # -- network ---------------------------------------------------------------

    def change_layers(self, delta):
        sizes = list(self.config.hidden_sizes)
        acts = list(activations_of(self.config))
        if delta > 0 and len(sizes) < MAX_LAYERS:
            sizes.append(NEW_LAYER_SIZE)
            acts.insert(len(acts) - 1, acts[-2] if len(acts) > 1 else "relu")
        elif delta < 0 and len(sizes) > 1:
            sizes.pop()
            acts.pop(len(acts) - 2)
        else:
            return
        self._edit(hidden_sizes=tuple(sizes), activation=tuple(acts))

    def change_neurons(self, layer, delta):
        sizes = list(self.config.hidden_sizes)
        new = sizes[layer] + delta
        if 1 <= new <= MAX_NEURONS:
            sizes[layer] = new
            self._edit(hidden_sizes=tuple(sizes), activation=activations_of(self.config))

    def set_activation(self, layer, name):
        acts = list(activations_of(self.config))
        acts[layer] = name
        self._edit(activation=tuple(acts))

    def toggle_feature(self, name):
        on = list(self.config.features)
        if name in on:
            if len(on) == 1:
                self._message("the network needs at least one input feature", error=True)
                return
            on.remove(name)
        else:
            on.append(name)
        self._edit(features=tuple(f for f in FEATURES if f in on))

    def select_weight(self, layer, neuron, index):
        self._selected_weight = (layer, neuron, index)
        self._show_weight()

    def _show_weight(self):
        key = self._selected_weight
        weights = self.controller.weights
        if key is None or weights is None:
            return
        layer, neuron, index = key
        try:
            value = weights.weights[layer][neuron][index]
            grad = weights.grads[layer][neuron][index]
        except IndexError:
            self._selected_weight = None
            self.weight_name.setText("weight: click one in the diagram")
            self.weight_spin.setEnabled(False)
            return
        self.weight_name.setText(self.network_view.parameter_name(layer, neuron, index))
        self.weight_spin.blockSignals(True)
        self.weight_spin.setValue(value if math.isfinite(value) else 0.0)
        self.weight_spin.blockSignals(False)
        self.weight_spin.setEnabled(not self.controller.playing and math.isfinite(value))
        self.weight_grad.setText(f"grad {grad:+.5f}")

    def set_weight(self, layer, neuron, index, value):
        """Edit one weight (index == nin: the bias) through the controller; only while paused."""
        ok = self.controller.set_weight(layer, neuron, index, value)
        if not ok:
            self._message("pause training to edit a weight", error=True)
        return ok

    def _on_weight_edited(self, value):
        key = self._selected_weight
        if key is not None:
            self.set_weight(*key, value)

    # -- the scalar graph --------------------------------------------------------

    def build_graph(self, layer, neuron, through_loss=None):
        """(root Value, title) of the chosen sample up to neuron (layer, neuron), from the latest weights."""
        c = self.controller
        if c.weights is None or c.data is None:
            return None, "the network is still being built; try again in a moment"
        if self.sample is None:
            self._default_sample()
        x1, x2, label, index = self.sample
        if through_loss is None:
            through_loss = self.graph_target.currentData() == "loss"
        last = len(self.config.hidden_sizes)
        through_loss = through_loss and layer == last
        try:
            root, _model = sample_graph(self.config, c.weights.weights, (x1, x2), label, layer, neuron,
                                        through_loss)
        except ValueError as e:  # a snapshot of another shape: a new run is starting
            return None, f"the network is changing; try again ({e})"
        what = f"{self.config.loss} loss of" if through_loss else ("output" if layer == last else
                                                                   f"neuron L{layer}.n{neuron}")
        where = f"training point #{index}" if index is not None else "test point"
        title = (f"{what} — {where} ({x1:.2f}, {x2:.2f}), label {label:+g}, after step {c.weights.step}")
        return root, title

    def open_neuron_graph(self, layer, neuron):
        self.graph_neuron = (layer, neuron)
        self.network_view.set_selected(("neuron", layer, neuron))
        root, title = self.build_graph(layer, neuron)
        if root is None:
            self._message(title, error=True)
            return None
        self.openGraph.emit(root, title)
        return root

    def _open_selected_graph(self):
        if self.graph_neuron is None:
            self._message("click a neuron in the network diagram first", error=True)
            return
        self.open_neuron_graph(*self.graph_neuron)

    def _default_sample(self):
        data = self.controller.data
        if data and data["train_points"]:
            self._set_sample(data["train_points"][0], data["train_labels"][0], 0)

    def _follow_live(self, force=False):
        if not self.follow_check.isChecked() or self.graph_neuron is None:
            return
        now = time.perf_counter()
        if not force and now - self._last_live < LIVE_GRAPH_INTERVAL:
            return
        self._last_live = now
        root, title = self.build_graph(*self.graph_neuron)
        if root is None:
            return
        if graph_size(root) > LIVE_GRAPH_MAX_NODES:
            self._message(f"'Follow live' is for graphs under {LIVE_GRAPH_MAX_NODES:,} nodes; this one is "
                          "larger -- pick a neuron of an earlier layer or a smaller network")
            return
        self.liveGraphUpdated.emit(root, title)

    # -- sessions ----------------------------------------------------------------

    def save_session(self, path):
        """Pause, then write the session once the worker's state is current (sessionSaved(path) says when)."""
        def write():
            try:
                session = self.controller.session({"app": "Backprop Studio", "title": self._title()})
                training_session.save(session, path)
            except (training_session.SessionError, OSError) as e:
                self._message(f"not saved: {e}", error=True)
                return
            self._message(f"saved {os.path.basename(path)} at step {self.steps}")
            self.sessionSaved.emit(path)
        self.controller.call_when_idle(write)

    def open_session(self, path):
        """Load a session file; a bad file is explained and the current run is kept. Returns ok."""
        try:
            session = training_session.load(path)
        except training_session.SessionError as e:
            self._message(f"not opened: {e}", error=True)
            return False
        self.controller.load_session(session)
        self._message(f"opened {os.path.basename(path)} at step {session.state['step']}")
        self.sessionOpened.emit(path)
        return True

    def _title(self):
        name = self.preset_combo.currentText()
        return f"{name}, step {self.steps}"

    def _save_dialog(self):
        path, _ = QFileDialog.getSaveFileName(self, "Save training session", "training-session.json",
                                              "Training sessions (*.json)")
        if path:
            self.save_session(path)

    def _open_dialog(self):
        path, _ = QFileDialog.getOpenFileName(self, "Open training session", "", "Training sessions (*.json)")
        if path:
            self.open_session(path)

    def _import_dialog(self):
        path, _ = QFileDialog.getOpenFileName(self, "Import points", "", "CSV files (*.csv *.txt);;All files (*)")
        if path:
            self.import_csv(path)

    # =========================================================================
    # controller -> widgets

    def _sync_widgets(self, cfg):
        """Show cfg in every control, without the controls reacting."""
        widgets = [self.loss_combo, self.optimizer_combo, self.lr_spin, self.momentum_spin, self.decay_check,
                   self.decay_spin, self.steps_spin, self.l2_spin, self.full_batch_check, self.batch_spin,
                   self.ratio_slider, self.noise_spin, self.samples_spin, self.data_seed_spin,
                   self.init_seed_spin, self.preset_combo, *self.dataset_buttons.values()]
        for w in widgets:
            w.blockSignals(True)
        try:
            self.loss_combo.setCurrentText(cfg.loss)
            self.optimizer_combo.setCurrentIndex(self.optimizer_combo.findData(cfg.optimizer))
            self.lr_spin.setValue(cfg.lr)
            self.momentum_spin.setValue(cfg.momentum)
            self.momentum_spin.setEnabled(cfg.optimizer == "sgd")
            self.decay_check.setChecked(cfg.lr_decay > 0)
            self.decay_spin.setValue(cfg.lr_decay)
            self.decay_spin.setEnabled(cfg.lr_decay > 0)
            self.steps_spin.setValue(cfg.steps)
            self.l2_spin.setValue(cfg.l2_alpha)
            self.full_batch_check.setChecked(cfg.batch_size is None)
            self.batch_spin.setValue(cfg.batch_size or 10)
            self.batch_spin.setEnabled(cfg.batch_size is not None)
            self.ratio_slider.setValue(round(cfg.test_ratio * 100))
            self.ratio_label.setText(f"{round(cfg.test_ratio * 100)}%")
            self.noise_spin.setValue(cfg.noise)
            self.samples_spin.setValue(cfg.n_samples)
            self.data_seed_spin.setValue(cfg.data_seed)
            self.init_seed_spin.setValue(cfg.init_seed)
            custom = cfg.points is not None
            self.dataset_group.setExclusive(False)
            for name, button in self.dataset_buttons.items():
                button.setChecked(not custom and name == cfg.dataset)
            self.dataset_group.setExclusive(True)
            for w in (self.noise_spin, self.samples_spin, self.data_seed_spin):
                w.setEnabled(not custom)
            preset = next((name for name, p in PRESETS.items() if for_display(p) == cfg), "custom")
            self.preset_combo.setCurrentText(preset)
        finally:
            for w in widgets:
                w.blockSignals(False)
        n = len(cfg.hidden_sizes)
        self.layers_label.setText(f"{n} HIDDEN LAYER{'S' if n != 1 else ''}")
        self.add_layer_button.setEnabled(n < MAX_LAYERS)
        self.remove_layer_button.setEnabled(n > 1)
        self.network_view.set_structure(cfg.features, cfg.hidden_sizes, activations_of(cfg))
        if self.graph_neuron is not None:
            layer, neuron = self.graph_neuron
            sizes = list(cfg.hidden_sizes) + [1]
            if layer >= len(sizes) or neuron >= sizes[layer]:
                self.graph_neuron = None
            else:
                self.network_view.set_selected(("neuron", layer, neuron))

    def _on_run_started(self):
        self._dirty.clear()
        self.metrics_plot.clear_curves()
        if len(self.history):
            self.metrics_plot.update_from(self.history)
        self.step_label.setText(f"step {self.steps:,}")
        self.metrics_label.setText("")

    def _on_progress(self, steps):
        self.step_label.setText(f"step {steps:,}")
        self._dirty.add("curves")
        h = self.history
        if len(h):
            loss, acc = h.column("loss")[-1], h.column("accuracy")[-1]
            test_loss, test_acc = h.column("test_loss")[-1], h.column("test_accuracy")[-1]
            self._show_metrics(loss, acc, test_loss, test_acc)

    def _show_metrics(self, loss, acc, test_loss, test_acc):
        def num(x):
            return "—" if x is None or not math.isfinite(x) else f"{x:.4f}"

        def pct(x):
            return "—" if x is None or not math.isfinite(x) else f"{x:.0%}"
        text = f"training  loss {num(loss)}   accuracy {pct(acc)}"
        if test_loss is not None and not (isinstance(test_loss, float) and math.isnan(test_loss)):
            text += f"\ntest      loss {num(test_loss)}   accuracy {pct(test_acc)}"
        self.metrics_label.setText(text)

    def _on_data(self, data):
        self.data_plot.set_data(data)
        source = "drawn or imported" if self.config.points is not None else self.config.dataset
        self.data_summary.setText(f"{len(data['train_points'])} training · {len(data['test_points'])} test points "
                                  f"({source})")
        self.network_view.set_bounds(data["bounds"])
        points = list(data["train_points"]) + list(data["test_points"])
        keep = self.sample is not None and any(
            (p[0], p[1]) == (self.sample[0], self.sample[1]) for p in points)
        if keep:
            x1, x2, label, _ = self.sample
            train = data["train_points"]
            index = next((i for i, p in enumerate(train) if (p[0], p[1]) == (x1, x2)), None)
            self._set_sample((x1, x2), label, index)
        else:
            self.sample = None
            self._default_sample()

    def _on_boundary(self, boundary):
        self._dirty.update(("image", "network"))

    def _on_weights(self, weights):
        self._dirty.add("network")
        self._show_weight()
        if self.controller.playing:
            self._follow_live()

    def _redraw(self, everything=False):
        """Redraw what changed: everything when not playing, else the most overdue part that is due."""
        if not self._dirty:
            return
        now = time.perf_counter()
        if everything or not self.controller.playing:
            parts = list(self._dirty)
        elif not self.controller.live:
            return  # live plots off: only the step counter moves until the run pauses
        else:
            due = [p for p in self._dirty if now - self._drawn_at[p] >= REDRAW_INTERVALS[p]]
            parts = [min(due, key=self._drawn_at.get)] if due else []
        c = self.controller
        for part in parts:
            self._dirty.discard(part)
            self._drawn_at[part] = now
            if part == "curves":
                self.metrics_plot.update_from(self.history)
            elif part == "image" and c.boundary is not None:
                self.data_plot.set_boundary(c.boundary)
            elif part == "network":
                if c.boundary is not None:
                    self.network_view.set_boundary(c.boundary)
                if c.weights is not None:
                    self.network_view.set_weights(c.weights)

    def _on_idle(self, info):
        self._redraw(everything=True)
        self._show_metrics(*info["metrics"])
        self.step_label.setText(f"step {info['steps']:,}")
        self._show_weight()
        if info["reason"] in ("edited", "stepped", "reconfigured"):
            self._follow_live(force=True)

    def _on_status(self, status, message):
        playing = status == "playing"
        self.play_button.setText("❚❚ Pause" if playing else "▶ Play")
        self.weight_spin.setEnabled(not playing and self._selected_weight is not None)
        self.step_button.setEnabled(status not in ("diverged", "error"))
        self.play_button.setEnabled(status not in ("diverged", "error"))
        if status in ("diverged", "error"):
            self._message(message, error=True)
        elif message:
            self._message(message)
        elif status == "playing":
            self._message("training…")
        elif self.steps:
            self._message(f"paused at step {self.steps:,}: Play continues, Step takes one step; "
                          "click a neuron to open its scalar graph, a weight to edit it")
        else:
            self._message("ready: press Play to train, or Step to take one step and watch what it changes")

    def _message(self, text, error=False):
        self.last_message = text
        self.status_label.setText(text)
        self.status_label.setStyleSheet(
            "background: #fdecea; color: #b91c1c; padding: 4px 8px; border-radius: 4px;" if error else
            "color: #374151; padding: 4px 8px;")

    def _on_speed(self, value):
        if value >= MAX_SPEED:
            self.speed_label.setText("max")
            self.controller.set_speed(None)
        else:
            self.speed_label.setText(f"{value}/s")
            self.controller.set_speed(value)

    def _on_log(self, on):
        self.metrics_plot.set_log_y(on)
        self.metrics_plot.update_from(self.history)

    # =========================================================================
    # lifetime

    def shutdown(self):
        """Stop training and join the worker thread; the main window calls this when it closes."""
        self.controller.shutdown()

    def showEvent(self, event):
        super().showEvent(event)
        window = self.window()
        if window is not self and self._watcher is None:
            self._watcher = _WindowCloseWatcher(self)
            window.installEventFilter(self._watcher)

    def closeEvent(self, event):
        self.shutdown()
        super().closeEvent(event)
