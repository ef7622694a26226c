"""The OUTPUT column of the Training panel: how well the network does, and where its boundary runs.

The current loss and accuracy (training and test), their curves over the run
(`MetricsPlot`), and the data with the decision boundary (`DataPlot`), with its
options: show the test points, discretize the colours, and whether a click on
the plot adds a point or picks the sample for the scalar graph.

`OutputBox` keeps the metrics line and the log axis in step with the controller
by itself; when the curves and the boundary are repainted is the panel's
choice (app/training/redraw.py), so it calls `metrics_plot` and `data_plot`.
"""

import math

from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QRadioButton, QVBoxLayout, QWidget

from app.training.plots import DataPlot, MetricsPlot
from app.training.widgets import caption, heading

COLUMN_WIDTH = 400


def metrics_text(loss, acc, test_loss, test_acc):
    """Two aligned lines, training and test ("—" for a value there is none of)."""

    def num(x):
        return "—" if x is None or not math.isfinite(x) else f"{x:.4f}"

    def pct(x):
        return "—" if x is None or not math.isfinite(x) else f"{x:.0%}"

    text = f"training  loss {num(loss)}   accuracy {pct(acc)}"
    if test_loss is not None and not (isinstance(test_loss, float) and math.isnan(test_loss)):
        text += f"\ntest      loss {num(test_loss)}   accuracy {pct(test_acc)}"
    return text


class OutputBox(QWidget):
    """Metrics, the loss/accuracy curves, the data plot with the boundary, and its options."""

    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.setFixedWidth(COLUMN_WIDTH)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(heading("OUTPUT"))
        self.metrics_label = QLabel("")
        self.metrics_label.setStyleSheet("font-family: 'DejaVu Sans Mono'; color: #111827;")
        self.metrics_label.setToolTip("Loss and accuracy of the model as it is now, on the training and test points")
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
        self.data_plot.setFixedSize(COLUMN_WIDTH, 380)
        layout.addWidget(self.data_plot)
        layout.addLayout(self._build_options())
        self.log_check.toggled.connect(self._on_log)
        controller.runStarted.connect(self._on_run_started)
        controller.progressed.connect(self._on_progress)
        controller.idleReached.connect(lambda info: self.show_metrics(*info["metrics"]))

    def _build_options(self):
        options = QVBoxLayout()
        options.setSpacing(2)
        view_row, click_row = QHBoxLayout(), QHBoxLayout()
        options.addLayout(view_row)
        options.addLayout(click_row)
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
        view_row.addWidget(self.show_test_check)
        view_row.addWidget(self.discretize_check)
        view_row.addStretch(1)
        click_row.addWidget(caption("A click on the plot:"))
        click_row.addWidget(self.add_mode)
        click_row.addWidget(self.pick_mode)
        click_row.addStretch(1)
        plot = self.data_plot
        self.show_test_check.toggled.connect(plot.set_show_test)
        self.discretize_check.toggled.connect(plot.set_discretize)
        self.add_mode.toggled.connect(lambda on: setattr(plot, "mode", "add" if on else "pick"))
        return options

    def show_metrics(self, loss, acc, test_loss, test_acc):
        self.metrics_label.setText(metrics_text(loss, acc, test_loss, test_acc))

    def _on_run_started(self):
        history = self.controller.history
        self.metrics_plot.clear_curves()
        if len(history):  # an opened session brings its curves along
            self.metrics_plot.update_from(history)
        self.metrics_label.setText("")

    def _on_progress(self, _steps):
        h = self.controller.history
        if len(h):
            self.show_metrics(
                h.column("loss")[-1], h.column("accuracy")[-1], h.column("test_loss")[-1], h.column("test_accuracy")[-1]
            )

    def _on_log(self, on):
        self.metrics_plot.set_log_y(on)
        self.metrics_plot.update_from(self.controller.history)
