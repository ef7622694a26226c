"""The OUTPUT column of the Training panel: how well the network does, and where its boundary runs.

The current loss and accuracy (training and test), their curves over the run
(`MetricsPlot`), and the data with the decision boundary (`DataPlot`), with its
options: show the test points, discretize the colours, and whether a click on
the plot adds a point or picks the sample for the scalar graph.

`OutputBox` keeps the metrics line and the log axis in step with the controller
by itself; when the curves and the boundary are repainted is the panel's
choice (app/training/redraw.py), so it calls `metrics_plot` and `data_plot`.

Two columns side by side, so both fit a 1280 x 720 window (and presenter 2x on
1920 x 1080) without scrolling: the metrics and the curves, which take the
width they are given, and the data plot, kept square at the height there is.
"""

import math

from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QRadioButton, QSizePolicy, QVBoxLayout, QWidget

from app.look.theme import set_base_font
from app.training.plots import DataPlot, MetricsPlot
from app.training.widgets import FlowLayout, LiveText, caption, heading
from core.format import format_number

CURVES_MIN_WIDTH = 170  # at 1x; the presenter scale multiplies it


def metrics_text(loss, acc, test_loss, test_acc, regression=False):
    """Two aligned lines, training and test ("—" for a value there is none of), the loss in
    the studio's one number format (4.429e+06, not 4429407.7772). A regression problem has
    no classes, so no accuracy."""

    def num(x):
        return "—" if x is None or not math.isfinite(x) else format_number(x)

    def pct(x):
        return "—" if x is None or not math.isfinite(x) else f"{x:.0%}"

    def line(name, loss, acc):
        return f"{name}  loss {num(loss)}" + ("" if regression else f"   accuracy {pct(acc)}")

    text = line("training", loss, acc)
    if test_loss is not None and not (isinstance(test_loss, float) and math.isnan(test_loss)):
        text += "\n" + line("test    ", test_loss, test_acc)
    return text


class PlotColumn(QWidget):
    """The data plot as the largest square that fits, its options right under it.

    It asks for a width equal to the side its height allows (at most `MAX_SHARE` of the
    window's width, so a large window leaves the curves room too), and the OUTPUT row
    serves the square first and the curves take the rest.
    Height the square cannot use (the width ran out first: presenter 2x on 1920 x 1080) is
    left under the options, not between the plot and them."""

    MAX_SHARE = 0.4
    GAP = 4

    def __init__(self, plot, options, parent=None):
        super().__init__(parent)
        self.plot, self.options = plot, options
        plot.setParent(self)
        options.setParent(self)
        self._side = 380
        self.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Expanding)
        options.installEventFilter(self)

    def eventFilter(self, obj, event):
        if obj is self.options and event.type() == QEvent.LayoutRequest:  # new fonts (presenter)
            self.updateGeometry()
            self._place()
        return False

    def _floor(self):
        return 9 * self.fontMetrics().height()  # ~150 px at 1x; follows the presenter scale

    def _options_height(self, width):
        return self.options.heightForWidth(max(width, self.options.minimumSizeHint().width()))

    def sizeHint(self):
        return QSize(self._side, self._side + self.GAP + self._options_height(self._side))

    def minimumSizeHint(self):
        width = max(self._floor(), self.options.minimumSizeHint().width())
        return QSize(width, self._floor() + self.GAP + self._options_height(width))

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._place()

    def _place(self):
        width, height = self.width(), self.height()
        below = self._options_height(width)
        room = height - self.GAP - below  # the height the square may have
        side = max(1, min(width, room))
        self.plot.setGeometry((width - side) // 2, 0, side, side)
        self.options.setGeometry(0, side + self.GAP, width, below)
        wanted = max(self._floor(), min(room, int(self.MAX_SHARE * self.window().width())))
        if wanted != self._side:  # the width it should have follows the height it got
            self._side = wanted
            self.updateGeometry()


class LeanColumn(QWidget):
    """A column that asks for no more width than its contents need (the curves would like 18
    lines of it): the OUTPUT row gives the square plot its side first, then this column the
    rest by its stretch."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.box = QVBoxLayout(self)
        self.box.setContentsMargins(0, 0, 0, 0)
        self.box.setSpacing(4)

    def sizeHint(self):
        return QSize(self.minimumSizeHint().width(), super().sizeHint().height())


class OutputBox(QWidget):
    """Metrics, the loss/accuracy curves, the data plot with the boundary, and its options."""

    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.controller = controller
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(10)
        curves = LeanColumn()
        curves.box.addWidget(heading("OUTPUT"))
        # changes with every step: a LiveText, so that it repaints without laying the panel out again;
        # its room is that of the widest text, wrapped in a narrow column (presenter 2x), never clipped
        self.metrics_label = LiveText(metrics_text(-100.0, 1.0, -100.0, 1.0))
        set_base_font(self.metrics_label, mono=True)
        self.metrics_label.setToolTip("Loss and accuracy of the model as it is now, on the training and test points")
        curves.box.addWidget(self.metrics_label)
        self.metrics_plot = MetricsPlot()
        self.metrics_plot.setMinimumWidth(CURVES_MIN_WIDTH)
        self.metrics_plot.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Expanding)
        curves.box.addWidget(self.metrics_plot, 1)
        self.log_check = QCheckBox("log-scale loss")
        self.log_check.setToolTip("Show the loss on a logarithmic axis")
        curves.box.addWidget(self.log_check)
        row.addWidget(curves, 1)
        self.data_plot = DataPlot()
        options = QWidget()
        options.setLayout(self._build_options())
        self.plot_column = PlotColumn(self.data_plot, options)
        row.addWidget(self.plot_column, 0)
        self.curves_column = curves
        self.log_check.toggled.connect(self._on_log)
        controller.runStarted.connect(self._on_run_started)
        controller.progressed.connect(self._on_progress)
        controller.dataChanged.connect(self._on_data)
        controller.idleReached.connect(lambda info: self.show_metrics(*info["metrics"]))

    def _build_options(self):
        options = FlowLayout()  # wraps to the width of the plot above it
        options.setContentsMargins(0, 0, 0, 0)
        options.setSpacing(6)
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
        options.addWidget(caption("Click to:"))
        options.addWidget(self.add_mode)
        options.addWidget(self.pick_mode)
        plot = self.data_plot
        self.show_test_check.toggled.connect(plot.set_show_test)
        self.discretize_check.toggled.connect(plot.set_discretize)
        self.add_mode.toggled.connect(lambda on: setattr(plot, "mode", "add" if on else "pick"))
        return options

    def show_metrics(self, loss, acc, test_loss, test_acc):
        regression = self.controller.config.regression
        self.metrics_label.setText(metrics_text(loss, acc, test_loss, test_acc, regression))

    def _on_run_started(self):
        history = self.controller.history
        self.metrics_plot.clear_curves()
        if len(history):  # an opened session brings its curves along
            self.metrics_plot.update_from(history)
        self.metrics_label.setText("")

    def _on_data(self, data):
        """Room for the lines the metrics will have: no test line without test points, no accuracy
        on a regression problem (room for a test line that never comes was a blank band above the
        curves). Set when the data changes, not per step, so a step still lays nothing out."""
        has_test = len(data["test_points"]) > 0
        self.metrics_plot.set_regression(bool(data.get("regression")))  # a number to predict: no accuracy curve
        template = metrics_text(-100.0, 1.0, -100.0 if has_test else None, 1.0, bool(data.get("regression")))
        if template != self.metrics_label.template:
            self.metrics_label.template = template
            self.metrics_label.updateGeometry()

    def _on_progress(self, _steps):
        h = self.controller.history
        if len(h):
            self.show_metrics(
                h.column("loss")[-1], h.column("accuracy")[-1], h.column("test_loss")[-1], h.column("test_accuracy")[-1]
            )

    def _on_log(self, on):
        self.metrics_plot.set_log_y(on)
        self.metrics_plot.update_from(self.controller.history)
