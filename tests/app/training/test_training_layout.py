"""The Training workspace fits the window, its plots read right, and hovering a neuron shows its map large
(issue 17 item 4)."""

import math

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QFontInfo, QMouseEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLabel,
    QWidget,
)

from app.main_window import MainWindow
from app.training.panel import TrainingPanel
from app.training.plots import TEST_COLOUR, TRAIN_COLOUR, MetricsPlot
from core.training.config import TrainConfig

WAIT = 20000
FAST = TrainConfig(dataset="moons", n_samples=40, hidden_sizes=(4, 3), steps=100_000, lr=0.1, lr_decay=0.0)


def shown_workspace(qtbot, width, height, presenter=None):
    """As `main.py --screenshot` builds it: the look first, the panel trained, then sized and shown."""
    window = MainWindow()
    qtbot.addWidget(window)
    if presenter:
        window.appearance.set_presenter(True, presenter, full_screen=False)
    window.training.show("training")
    panel = window.training.panel
    qtbot.waitUntil(lambda: panel.controller.idle and panel.controller.weights is not None, timeout=WAIT)
    assert window.training.start(steps=3, wait=True, timeout_s=WAIT / 1000) == ""  # the sample line is filled in
    window.resize(width, height)
    window.show()
    page = window.training.training_page
    qtbot.waitUntil(lambda: page.widget().size() == page.viewport().size(), timeout=WAIT)
    return window, panel


def controls(panel):
    kinds = (QAbstractButton, QAbstractSpinBox, QComboBox, QAbstractSlider)
    found = [w for kind in kinds for w in panel.findChildren(kind)]
    return [w for w in found if w.isVisibleTo(panel) and w.window() is panel.window()]


@pytest.mark.parametrize("width, height, presenter", [(1280, 720, None), (1920, 1080, 2.0)])
def test_the_workspace_fits_with_no_scroll_bar_and_every_control_inside(qtbot, width, height, presenter):
    window, panel = shown_workspace(qtbot, width, height, presenter)
    page = window.training.training_page
    assert not page.horizontalScrollBar().isVisible() and not page.verticalScrollBar().isVisible()
    room = page.viewport().rect()
    for w in controls(panel) + [panel.metrics_plot, panel.data_plot, panel.network_view, panel.status_label]:
        box = w.rect().translated(w.mapTo(page.viewport(), QPoint(0, 0)))
        assert room.contains(box), f"{type(w).__name__} {getattr(w, 'text', lambda: '')()!r} at {box} outside {room}"
    window.appearance.set_presenter(False)
    window.close()


def test_plots_are_tall_enough_at_1280x720(qtbot):
    window, panel = shown_workspace(qtbot, 1280, 720)
    plot = panel.metrics_plot
    for item in (plot.loss_item, plot.acc_item):
        assert item.getViewBox().sceneBoundingRect().height() >= 140
    data = panel.data_plot
    assert min(data.width(), data.height()) >= 250
    window.close()


def test_presenter_2x_scales_the_labels_and_the_plot_ticks(qtbot):
    window, panel = shown_workspace(qtbot, 1920, 1080, 2.0)
    base = QFontInfo(QApplication.font()).pixelSize()
    assert base >= 20  # the application font at 2x
    for label in panel.findChildren(QLabel):
        if label.isVisibleTo(panel) and label.text():
            assert QFontInfo(label.font()).pixelSize() >= 0.8 * base, label.text()
    tick = panel.metrics_plot.loss_item.getAxis("left").style["tickFont"]
    assert QFontInfo(tick).pixelSize() >= 0.8 * base
    window.appearance.set_presenter(False)
    tick = panel.metrics_plot.loss_item.getAxis("left").style["tickFont"]
    assert QFontInfo(tick).pixelSize() < 0.8 * base
    window.close()


# -----------------------------------------------------------------------------
# the curves


class History:
    def __init__(self, **columns):
        self.columns = {k: np.asarray(v, dtype=float) for k, v in columns.items()}

    def column(self, name):
        return self.columns[name]

    def __len__(self):
        return len(self.columns["step"])


def test_train_and_test_curves_have_distinct_colours_and_a_legend(qtbot):
    plot = MetricsPlot()
    qtbot.addWidget(plot)
    train, test = QColor(TRAIN_COLOUR), QColor(TEST_COLOUR)
    assert abs(train.hueF() - test.hueF()) > 0.25 and abs(train.lightnessF() - test.lightnessF()) > 0.2
    assert plot.train_loss.opts["pen"].color() == train and plot.test_loss.opts["pen"].color() == test
    names = [label.text for _sample, label in plot.legend.items]
    assert names == ["training", "test"]
    assert plot.legend.parentItem() is not None  # on the plot, not beside it


def test_the_legend_names_the_test_curve_only_when_there_is_one(qtbot):
    # repro: with no test points (Test data 0%) the legend still said "test" beside one curve
    plot = MetricsPlot()
    qtbot.addWidget(plot)
    nan = float("nan")
    no_test = History(step=[0, 1], loss=[1, 0.5], accuracy=[0.5, 0.7], test_loss=[nan, nan], test_accuracy=[nan, nan])
    plot.update_from(no_test)
    assert [label.text for _sample, label in plot.legend.items] == ["training"]
    with_test = History(step=[0, 1], loss=[1, 0.5], accuracy=[0.5, 0.7], test_loss=[1, 0.6], test_accuracy=[0.5, 0.6])
    plot.update_from(with_test)
    assert [label.text for _sample, label in plot.legend.items] == ["training", "test"]
    plot.update_from(with_test)
    assert len(plot.legend.items) == 2


def test_the_loss_and_accuracy_axes_line_up_and_titles_clear_the_ticks(qtbot):
    plot = MetricsPlot()
    qtbot.addWidget(plot)
    plot.resize(300, 400)
    plot.show()
    left_loss, left_acc = plot.loss_item.getAxis("left"), plot.acc_item.getAxis("left")
    assert left_loss.width() == left_acc.width()
    metrics = plot.fontMetrics()
    assert left_acc.width() >= metrics.horizontalAdvance("100%") + metrics.height()


def test_the_step_axis_labels_never_run_together(qtbot):
    """The curves column is narrow (170 px at 1280x720): pyqtgraph's own ticks at 20, 40, 60,
    80 read "20406080"."""
    plot = MetricsPlot()
    qtbot.addWidget(plot)
    metrics = plot.fontMetrics()
    for width, x_max in ((170, 100.0), (300, 100.0), (170, 5000.0), (600, 2000.0)):
        plot.resize(width, 400)
        plot._set_x(x_max)
        plot._tick_steps()
        (ticks,) = plot.acc_item.getAxis("bottom")._tickLevels
        labels = [text for _value, text in ticks]
        room = width - plot.left_axis_width
        assert sum(metrics.horizontalAdvance(t) for t in labels) + metrics.horizontalAdvance("0") * len(labels) <= room
        assert 2 <= len(labels) and labels[0] == "0"


def test_a_diverged_run_keeps_a_readable_loss_axis(qtbot):
    """lr 10 took the loss to 4.4 M and then inf: the axis showed only "0" under "loss (x1e...",
    and on the log scale the curve ran past the last step."""
    plot = MetricsPlot()
    qtbot.addWidget(plot)
    plot.resize(300, 400)
    plot.show()
    steps = np.arange(6)
    loss = [1.2, 30.0, 5e4, 4.4e6, math.inf, math.nan]
    history = History(step=steps, loss=loss, test_loss=[math.nan] * 6, accuracy=[0.5] * 6, test_accuracy=[math.nan] * 6)
    plot.update_from(history)
    axis = plot.loss_item.getAxis("left")
    lo, hi = plot.loss_item.getViewBox().viewRange()[1]
    assert math.isfinite(hi) and hi >= 4.4e6
    strings = axis.tickStrings([0.0, 2e6, 4e6], 1.0, 2e6)
    assert strings == ["0", "2e+06", "4e+06"]
    assert "x1e" not in axis.labelString()
    x, y = plot.train_loss.getData()
    assert x.max() <= 5 and not np.isinf(y).any()
    plot.set_log_y(True)
    plot.update_from(history)
    x, y = plot.train_loss.getData()
    assert not np.isinf(y[np.isfinite(y)]).any() and x.max() <= 5
    finite_x = x[np.isfinite(y)]
    assert finite_x.max() == 3  # the curve stops at the last finite step


# -----------------------------------------------------------------------------
# hovering a neuron


def move(widget, pos):
    event = QMouseEvent(
        QMouseEvent.MouseMove, QPointF(pos), QPointF(widget.mapToGlobal(pos)), Qt.NoButton, Qt.NoButton, Qt.NoModifier
    )
    QApplication.sendEvent(widget, event)


def test_hovering_a_neuron_shows_its_heatmap_large_and_leaving_brings_the_output_back(qtbot):
    panel = TrainingPanel(FAST)
    qtbot.addWidget(panel)
    panel.resize(1400, 860)
    panel.show()
    c = panel.controller
    qtbot.waitUntil(lambda: bool(c.idle and c.boundary is not None and c.boundary.neurons), timeout=WAIT)
    view, plot = panel.network_view, panel.data_plot
    output_image = plot.image.image.copy()
    pos = view.item_pos(("neuron", 0, 1))
    qtbot.mouseMove(view.viewport(), pos)
    move(view.viewport(), pos)
    qtbot.waitUntil(lambda: view.hovered_neuron == ("neuron", 0, 1), timeout=WAIT)
    neuron = np.asarray(c.boundary.neurons[0][1], dtype=float)
    assert plot.image.image.shape == neuron.shape
    assert np.allclose(plot.image.image, neuron)
    # the plot says what it shows now, on the plot (not a tooltip over the network's captions)
    assert plot.map_caption.isVisible() and "neuron 1 of hidden layer 1" in plot.map_caption.text()
    assert not np.array_equal(plot.image.image.shape, output_image.shape) or not np.allclose(
        plot.image.image, output_image
    )
    away = QPoint(2, 2)
    qtbot.mouseMove(view.viewport(), away)
    move(view.viewport(), away)
    qtbot.waitUntil(lambda: view.hovered_neuron is None, timeout=WAIT)
    assert np.allclose(plot.image.image, np.nan_to_num(c.boundary.grid))
    assert not plot.map_caption.isVisible()
    panel.shutdown()


def test_the_network_keeps_its_text_size_and_shrinks_its_circles_for_sixteen_neurons(qtbot):
    """The diagram's labels are drawn at the widget's font size (the presenter scale reaches them);
    a 16-neuron layer fits the view whole by smaller circles and gaps, not smaller text."""
    from app.training.network_view import NODE, NetworkView

    view = NetworkView()
    qtbot.addWidget(view)
    view.resize(360, 420)
    view.show()
    view.set_structure(("x1", "x2"), (16, 16), ("relu", "relu", "linear"))
    assert view.transform().m11() == 1.0  # not scaled down as a whole
    assert view.node_size < NODE
    room = view.viewport().rect()
    for item in view.neurons.values():
        assert room.contains(view.mapFromScene(item.sceneBoundingRect()).boundingRect())
    texts = [i for i in view.scene().items() if hasattr(i, "font") and hasattr(i, "text")]
    sizes = {QFontInfo(i.font()).pixelSize() for i in texts}
    base = QFontInfo(view.font()).pixelSize()
    assert sizes and min(sizes) >= 0.85 * base
    big = view.font()
    big.setPixelSize(2 * base)
    view.setFont(big)  # presenter 2x: the labels double
    texts = [i for i in view.scene().items() if hasattr(i, "font") and hasattr(i, "text")]
    assert min(QFontInfo(i.font()).pixelSize() for i in texts) >= 1.7 * base


@pytest.mark.parametrize("width, height, neurons", [(393, 560, 12), (393, 400, 16), (360, 700, 4), (500, 900, 2)])
def test_no_circle_covers_a_layer_heading(qtbot, width, height, neurons):
    """repro: at 1440x880 a 12-neuron layer's first circles covered its "tanh ▾" (the headings sat at
    fixed heights above y = 0, where the circles are centred, whatever the circles' size)."""
    from app.training.network_view import NetworkView

    view = NetworkView()
    qtbot.addWidget(view)
    view.resize(width, height)
    view.show()
    view.set_structure(("x1", "x2"), (neurons, neurons), ("tanh", "tanh", "linear"))
    circles = [item.sceneBoundingRect() for item in view.neurons.values()]
    headings = [i for i in view.scene().items() if hasattr(i, "text") and i.text().endswith(("▾", "neurons", "OUTPUT"))]
    assert len(headings) == 6  # three activations, two neuron counts, OUTPUT
    for heading in headings:
        box = heading.sceneBoundingRect()
        assert not any(box.intersects(circle) for circle in circles), f"{heading.text()!r} at {box} under a circle"


def test_the_feature_labels_never_overlap_in_presenter_2x(qtbot):
    """repro: with 16 neurons a layer in presenter 2x the seven feature labels sat one neuron row
    apart (~17 px) in text ~26 px tall, each over the next; they now spread over the layer's height."""
    from app.training.network_view import NetworkView

    view = NetworkView()
    qtbot.addWidget(view)
    big = view.font()
    big.setPixelSize(2 * QFontInfo(view.font()).pixelSize())
    view.setFont(big)
    view.resize(500, 410)  # the diagram's room in presenter 2x at 1920x1080
    view.show()
    view.set_structure(("x1", "x2"), (16, 16), ("relu", "relu", "linear"))
    labels = [i for i in view.scene().items() if hasattr(i, "text") and i.data(0) and i.data(0)[0] == "feature"]
    assert len(labels) == 7
    boxes = sorted((i.sceneBoundingRect() for i in labels), key=lambda r: r.top())
    for upper, lower in zip(boxes, boxes[1:]):
        assert upper.bottom() <= lower.top() + 1, f"{upper} overlaps {lower}"


def test_a_new_step_count_or_metrics_line_does_not_lay_the_panel_out_again(qtbot):
    """Every step changed two labels, and each setText laid the whole panel (and its wrapping
    bars, Python code) out again, ~30 times a second while training: GUI time the worker lost."""
    from PySide6.QtCore import QEvent, QObject

    panel = TrainingPanel(FAST)
    qtbot.addWidget(panel)
    panel.resize(1280, 640)
    panel.show()
    c = panel.controller
    qtbot.waitUntil(lambda: bool(c.idle and c.weights is not None), timeout=WAIT)
    panel.run_bar.show_steps(1)
    panel.output_box.show_metrics(1.0, 0.5, 2.0, 0.5)
    qtbot.wait(200)  # whatever the start still had to lay out

    class Count(QObject):
        requests = 0

        def eventFilter(self, obj, event):
            if event.type() == QEvent.LayoutRequest:
                Count.requests += 1
                Count.where = (type(obj).__name__, obj.objectName())
            return False

    counter = Count()
    for w in [panel] + panel.findChildren(QWidget):
        w.installEventFilter(counter)
    for k in range(1, 30):
        panel.run_bar.show_steps(k * 997)
        panel.output_box.show_metrics(1.0 / k, 0.5 + k / 100, 2.0 / k, 0.5)
        QApplication.processEvents()
    assert Count.requests == 0, Count.where
    assert panel.output_box.metrics_label.text().startswith("training  loss 0.0345")
    panel.shutdown()


def started_app(probe, tmp_path, size, presenter):
    """Start the real app (`main.py --workspace training`, 20 steps, a screenshot) in its own process
    with `probe` patched into the window's grab; return the JSON the probe printed last."""
    import json
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    args = ["--no-welcome", "--workspace", "training", "--train-steps", "20", "--size", size]
    args += ["--screenshot", str(tmp_path / "shot.png")] + presenter
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=root)
    done = subprocess.run(
        [sys.executable, "-c", probe, *args], cwd=root, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


SCREENSHOT_PROBE = """
import json, sys
from app.main_window import MainWindow
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QAbstractButton, QAbstractSlider, QAbstractSpinBox, QComboBox
grab = MainWindow.grab
found = {}
def probe(self, *args):
    page, panel = self.training.training_page, self.training.panel
    room = page.viewport().rect()
    outside = []
    for kind in (QAbstractButton, QAbstractSpinBox, QComboBox, QAbstractSlider):
        for w in panel.findChildren(kind):
            if w.isVisibleTo(panel) and w.window() is self:
                box = w.rect().translated(w.mapTo(page.viewport(), QPoint(0, 0)))
                if not room.contains(box):
                    outside.append(w.text() if hasattr(w, "text") else type(w).__name__)
    found.update(bars=[page.horizontalScrollBar().isVisible(), page.verticalScrollBar().isVisible()], outside=outside)
    return grab(self, *args)
MainWindow.grab = probe
from app.startup import main
code = main(sys.argv[1:])
print(json.dumps(found))
"""


@pytest.mark.parametrize("size, presenter", [("1280x720", []), ("1920x1080", ["--presenter", "2"])])
def test_the_app_as_started_fits_without_scroll_bars(tmp_path, size, presenter):
    """The real start (its own QApplication: Fusion, DejaVu Sans 13 px -- the test session's font
    is smaller, so only a separate process shows what a user sees) of `main.py --workspace training`."""
    found = started_app(SCREENSHOT_PROBE, tmp_path, size, presenter)
    assert found["bars"] == [False, False] and found["outside"] == [], found


GEOMETRY_PROBE = """
import json, sys
from app.main_window import MainWindow
from PySide6.QtCore import QPoint
grab = MainWindow.grab
found = {}
def probe(self, *args):
    panel = self.training.panel
    box = panel.output_box
    def rect(w):
        p = w.mapTo(box, QPoint(0, 0))
        return [p.x(), p.y(), w.width(), w.height()]
    options = [box.show_test_check, box.discretize_check, box.add_mode, box.pick_mode]
    found.update(box=rect(box), plot=rect(box.data_plot), options=[rect(w) for w in options],
                 network=rect(panel.network_box), view=rect(panel.network_view))
    return grab(self, *args)
MainWindow.grab = probe
from app.startup import main
code = main(sys.argv[1:])
print(json.dumps(found))
"""


@pytest.mark.parametrize("size, presenter", [("1280x720", []), ("1440x880", []), ("1920x1080", ["--presenter", "2"])])
def test_the_data_plot_fills_its_column_with_its_options_right_under_it(tmp_path, size, presenter):
    """Presenter 2x on 1920 x 1080 (as the app really starts): the NETWORK column's rows did not
    wrap, so it kept 742 px and the data plot got 294 px of a 567 px tall column, a blank band
    of 273 px between the plot and its options. The plot's side is now most of its column's free
    height (the column's height less the options under the plot), and the options follow it."""
    found = started_app(GEOMETRY_PROBE, tmp_path, size, presenter)
    box, plot, options = found["box"], found["plot"], found["options"]
    x, y, side, height = plot
    assert side == height  # square
    below = max(o[1] + o[3] for o in options) - min(o[1] for o in options)  # the options' rows
    free = box[3] - y - below  # the column's height less the options under the plot
    # most of that height, or all of the column's width when that is less (presenter mode
    # without the menu and status bars: the column is 801 px tall and 535 px wide)
    assert side >= min(0.75 * free, box[2] - x), found
    gap = min(o[1] for o in options) - (y + side)
    assert 0 <= gap <= 12, found  # the options right under the plot, no blank band between
    assert found["view"][2] >= 0.45 * side and found["view"][3] >= 0.45 * side, found  # the diagram keeps its room


def test_the_metrics_line_keeps_room_for_a_test_line_only_when_there_are_test_points(qtbot):
    """Room for a test line that never came (no test points) was a blank band above the curves
    (one to three lines, more in presenter 2x's narrow column)."""
    panel = TrainingPanel(FAST)  # no test points
    qtbot.addWidget(panel)
    panel.resize(1280, 640)
    panel.show()
    c = panel.controller
    qtbot.waitUntil(lambda: bool(c.idle and c.weights is not None), timeout=WAIT)
    label = panel.output_box.metrics_label
    assert "test" not in label.template
    without = label.heightForWidth(label.width())
    panel.apply_config(FAST.replace(test_ratio=0.3), reset=True)
    qtbot.waitUntil(lambda: "test" in label.template, timeout=WAIT)
    assert label.heightForWidth(label.width()) > without
    panel.shutdown()
