"""The OUTPUT column of the Training panel: how well the network does, and where its boundary runs.

The current loss and accuracy (training and test), their curves over the run
(`MetricsPlot`), and the data with the decision boundary (`DataPlot`), with its
options: show the test points, discretize the colours, and whether a click on
the plot adds a point or picks the sample for the scalar graph.
"""

import math

from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QRadioButton, QVBoxLayout, QWidget

from app.training.plots import DataPlot, MetricsPlot
from app.training.widgets import heading

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

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setFixedWidth(COLUMN_WIDTH)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(heading("OUTPUT"))
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
        self.data_plot.setFixedSize(COLUMN_WIDTH, 380)
        layout.addWidget(self.data_plot)
        layout.addLayout(self._build_options())

    def _build_options(self):
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
        plot = self.data_plot
        self.show_test_check.toggled.connect(plot.set_show_test)
        self.discretize_check.toggled.connect(plot.set_discretize)
        self.add_mode.toggled.connect(lambda on: setattr(plot, "mode", "add" if on else "pick"))
        return options

    def show_metrics(self, loss, acc, test_loss, test_acc):
        self.metrics_label.setText(metrics_text(loss, acc, test_loss, test_acc))

    def clear_metrics(self):
        self.metrics_label.setText("")
