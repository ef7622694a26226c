"""The Training panel's live plots (pyqtgraph): the data with the decision boundary, and the curves.

Both follow pyqtgraph's advice for live data: the plot items are made once
and then only fed new arrays with `setData`/`setImage`; the controller's timer
decides when (at most ~30 times a second), never the arrival of a step.

`DataPlot` draws the model's score over the input plane as an image under the
points -- a diverging map, orange for class -1 through a pale neutral at the
decision boundary (score 0) to blue for class +1, with *fixed* levels so the
colours mean the same from frame to frame -- and turns clicks into requests:
add a point, remove the nearest one, or pick the sample whose graph to show.

`MetricsPlot` draws training and test loss and accuracy per step.
"""

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics
from PySide6.QtWidgets import QGraphicsItem, QLabel

# TensorFlow Playground's class colours
NEGATIVE = "#f59322"  # class -1
POSITIVE = "#0877bd"  # class +1
NEUTRAL = "#e8eaeb"
SCORE_LEVELS = (-2.0, 2.0)  # the score range the colours span; beyond it they saturate
REGRESSION_LEVELS = (-1.0, 1.0)  # a regression problem's targets and predictions (plane, multi-gaussian)
# the curves: dark blue-grey and orange, apart in hue and in lightness, on the plots' white
# background in every theme (the plots keep it in dark and high-contrast too)
TRAIN_COLOUR = "#1f3a5f"
TEST_COLOUR = "#e8710a"


def diverging_lut(n=256, light=0.0):
    """An (n, 3) uint8 lookup table: NEGATIVE -> NEUTRAL -> POSITIVE, optionally lightened."""
    stops = np.array([QColor(c).getRgb()[:3] for c in (NEGATIVE, NEUTRAL, POSITIVE)], dtype=float)
    t = np.linspace(0.0, 1.0, n)
    lut = np.empty((n, 3))
    for k in range(3):
        lut[:, k] = np.interp(t, [0.0, 0.5, 1.0], stops[:, k])
    lut = lut + (255.0 - lut) * light
    return lut.round().astype(np.uint8)


def _cached(item):
    """Keep what `item` painted as a pixmap until it changes. While training, the
    curves and the boundary image are redrawn several times a second, and each
    redraw used to repaint the axes and the data points above and beside them
    too, unchanged -- a fifth of the GUI thread's time, taken from the worker
    (they share one interpreter)."""
    item.setCacheMode(QGraphicsItem.DeviceCoordinateCache)


def _plot_style(plot):
    plot.setBackground("w")
    item = plot.getPlotItem()
    item.hideButtons()
    item.setMenuEnabled(False)
    for name in ("left", "bottom"):
        axis = item.getAxis(name)
        axis.setPen(pg.mkPen("#9aa3b2"))
        axis.setTextPen(pg.mkPen("#4b5563"))
        _cached(axis)
    return item


# -----------------------------------------------------------------------------
# the data and the decision boundary


def _target_colours(targets, hollow=False):
    """Per-point colours of a regression problem's targets, on the same map and levels as its
    predictions (a point matches the background where the prediction is right): a filled dot,
    or for test points a ring."""
    lut = diverging_lut()
    lo, hi = REGRESSION_LEVELS
    index = np.clip(np.round((targets - lo) / (hi - lo) * (len(lut) - 1)), 0, len(lut) - 1).astype(int)
    colours = [tuple(int(c) for c in lut[i]) for i in index]
    if hollow:
        return {"pen": [pg.mkPen(c, width=2) for c in colours], "brush": pg.mkBrush(255, 255, 255, 160)}
    return {"brush": [pg.mkBrush(*c) for c in colours]}


class DataPlot(pg.PlotWidget):
    """Points over the decision-boundary heatmap; clicks become signals, never edits."""

    score_levels = SCORE_LEVELS  # REGRESSION_LEVELS while the data is a regression problem

    pointAdded = Signal(float, float, int)  # x1, x2, label (+1 or -1)
    removeRequested = Signal(float, float)
    samplePicked = Signal(float, float)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.mode = "add"  # or "pick": what a left click does
        self.discretize = False
        self.show_test = True
        self._grid = None
        self.shown_map = None  # (values, levels) of a hovered neuron, shown instead of the score
        item = _plot_style(self)
        item.setMouseEnabled(x=False, y=False)
        item.showGrid(x=False, y=False)
        item.getAxis("left").setWidth(36)  # room for "-0.5": a label that does not fit is not drawn
        self.image = pg.ImageItem(axisOrder="row-major")
        self.image.setLookupTable(diverging_lut(light=0.15))
        self.image.setLevels(SCORE_LEVELS)
        self.image.setZValue(-10)
        self.addItem(self.image)
        white = pg.mkPen("w", width=1)
        self.train_pos = pg.ScatterPlotItem(size=8, pen=white, brush=pg.mkBrush(POSITIVE), name="train +1")
        self.train_neg = pg.ScatterPlotItem(size=8, pen=white, brush=pg.mkBrush(NEGATIVE), name="train -1")
        self.test_pos = pg.ScatterPlotItem(
            size=8, pen=pg.mkPen(POSITIVE, width=2), brush=pg.mkBrush(255, 255, 255, 160)
        )
        self.test_neg = pg.ScatterPlotItem(
            size=8, pen=pg.mkPen(NEGATIVE, width=2), brush=pg.mkBrush(255, 255, 255, 160)
        )
        self.selected = pg.ScatterPlotItem(size=18, pen=pg.mkPen("#111827", width=2), brush=None, symbol="o")
        for scatter in (self.train_pos, self.train_neg, self.test_pos, self.test_neg, self.selected):
            _cached(scatter)
            self.addItem(scatter)
        self.scene().sigMouseClicked.connect(self._on_scene_click)
        # what the picture is while a hovered neuron's map stands in for the score: said on
        # the plot, where the eye is (a tooltip at the mouse covered the network's captions)
        self.map_caption = QLabel(self)
        self.map_caption.setStyleSheet(
            "QLabel { background: rgba(255, 255, 255, 225); color: #111827; border: 1px solid #9ca3af;"
            " border-radius: 3px; padding: 2px 6px; }"
        )
        self.map_caption.setAttribute(Qt.WA_TransparentForMouseEvents)
        self.map_caption.hide()
        self.setToolTip(
            "The data and the network's decision over the input plane.\n"
            "Colour: the score, orange (class -1) to blue (class +1); pale at the boundary.\n"
            "Left click: add a blue point   Right or Shift+click: add an orange point\n"
            "Ctrl+click: remove the nearest point   (in 'pick sample' mode a click picks the sample)"
        )

    # -- feeding ---------------------------------------------------------------

    def set_data(self, data):
        """data: the controller's data snapshot (train/test points and labels, bounds)."""
        self.score_levels = REGRESSION_LEVELS if data.get("regression") else SCORE_LEVELS
        for (points, labels), pos, neg in (
            ((data["train_points"], data["train_labels"]), self.train_pos, self.train_neg),
            ((data["test_points"], data["test_labels"]), self.test_pos, self.test_neg),
        ):
            p = np.asarray(points, dtype=float).reshape(-1, 2)
            y = np.asarray(labels, dtype=float)
            if data.get("regression"):  # a number per point: its target, on the predictions' colour map
                pos.setData(pos=p, **_target_colours(y, hollow=pos is self.test_pos))
                neg.setData(pos=np.empty((0, 2)))
            else:
                pos.setData(pos=p[y > 0])
                neg.setData(pos=p[y <= 0])
        self.test_pos.setVisible(self.show_test)
        self.test_neg.setVisible(self.show_test)
        x_min, x_max, y_min, y_max = data["bounds"]
        self.getPlotItem().setRange(xRange=(x_min, x_max), yRange=(y_min, y_max), padding=0)

    def set_boundary(self, boundary, values=None, levels=None):
        """The model's score over the plane (a Boundary); with `values`, a hovered neuron's
        map is shown over it instead (see show_map) -- one image either way."""
        self._grid = boundary
        self.show_map(values, levels)

    def _draw_image(self):
        b = self._grid
        if b is None:
            return
        grid, levels = (np.sign(b.grid) if self.discretize else b.grid), self.score_levels
        xs, ys = b.xs, b.ys
        if self.shown_map is not None:  # a hovered neuron's own map, over the same plane
            grid, levels = self.shown_map
        rows, cols = grid.shape
        dx = (xs[-1] - xs[0]) / (cols - 1 if cols > 1 else 1)
        dy = (ys[-1] - ys[0]) / (rows - 1 if rows > 1 else 1)
        self.image.setImage(np.nan_to_num(grid, nan=0.0, posinf=0.0, neginf=0.0), autoLevels=False, levels=levels)
        # pixel centres on the grid points
        self.image.setRect(xs[0] - dx / 2, ys[0] - dy / 2, dx * cols, dy * rows)

    def show_map(self, values, levels=None, caption=""):
        """Show `values` (r x r over the same plane, row j = y ascending) instead of the
        model's score -- a hovered neuron's output, as large as the plot -- coloured over
        `levels` (default: symmetric about 0 at its own largest |value|), with `caption`
        (what it is) in the plot's top-left corner; None: the score again."""
        self.map_caption.setText(caption)
        self.map_caption.setVisible(bool(caption) and values is not None)
        self.map_caption.adjustSize()
        self.map_caption.move(44, 6)  # right of the left axis (36 px) inside the frame
        if values is None:
            self.shown_map = None
        else:
            values = np.asarray(values, dtype=float)
            if levels is None:
                finite = values[np.isfinite(values)]
                top = float(np.max(np.abs(finite))) if finite.size else 0.0
                levels = (-top, top) if top > 0 else (-1.0, 1.0)
            self.shown_map = (values, levels)
        self._draw_image()

    def set_discretize(self, on):
        self.discretize = bool(on)
        self._draw_image()

    def set_show_test(self, on):
        self.show_test = bool(on)
        self.test_pos.setVisible(self.show_test)
        self.test_neg.setVisible(self.show_test)

    def set_selected(self, point):
        self.selected.setData(pos=np.empty((0, 2)) if point is None else np.array([point], dtype=float))

    # -- clicks ----------------------------------------------------------------

    def _on_scene_click(self, event):
        vb = self.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(event.scenePos()):
            return
        p = vb.mapSceneToView(event.scenePos())
        self.handle_click(p.x(), p.y(), event.button(), event.modifiers())
        event.accept()

    def handle_click(self, x, y, button, modifiers=Qt.NoModifier):
        """A click at data coordinates (x, y): emits the matching request."""
        if modifiers & Qt.ControlModifier:
            self.removeRequested.emit(x, y)
        elif self.mode == "pick" and button == Qt.LeftButton and not modifiers & Qt.ShiftModifier:
            self.samplePicked.emit(x, y)
        elif button == Qt.RightButton or modifiers & Qt.ShiftModifier:
            self.pointAdded.emit(x, y, -1)
        elif button == Qt.LeftButton:
            self.pointAdded.emit(x, y, 1)

    def scene_pos_of(self, x, y):
        """Where data point (x, y) is in widget coordinates (for tests and tools)."""
        vb = self.getPlotItem().getViewBox()
        return self.mapFromScene(vb.mapViewToScene(QPointF(x, y)))


# -----------------------------------------------------------------------------
# loss and accuracy curves


def nice_ceiling(x):
    """The smallest of 1, 2, 5 times a power of ten that is >= x (x > 0)."""
    if not x > 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(x))
    for m in (1.0, 2.0, 5.0, 10.0):
        if m * power >= x * (1 - 1e-12):
            return m * power
    return 10.0 * power


def _finite_or_nan(column):
    """A copy with inf and -inf as nan: a diverged step is a gap, not a point at infinity
    (on a log axis a line to inf ran off past the last step)."""
    values = np.array(column, dtype=float)
    values[~np.isfinite(values)] = np.nan
    return values


class LossAxis(pg.AxisItem):
    """The loss axis: real numbers at every size ("2e+06", not "2" under a "(x1e+06)" title,
    which a narrow plot cut to "loss (x1e..."), and powers of ten on the log scale."""

    def tickStrings(self, values, scale, spacing):
        if self.logMode:
            return [f"1e{int(round(v))}" if abs(v) >= 4 else f"{10.0**v:g}" for v in values]
        return [f"{v:.3g}" for v in values]


class MetricsPlot(pg.GraphicsLayoutWidget):
    """Training (solid, dark) and test (dashed, orange) loss over steps, and accuracy below it.

    One GraphicsLayoutWidget (one paint for both plots) with ranges set by hand
    in 1-2-5 steps, so the axes re-tick only when the data outgrow them rather
    than on every update -- an axis re-tick is the costliest part of a redraw.
    Both left axes have one width, from the widget's font, so the two plots stay
    aligned and the titles never touch the tick labels; the font follows the
    application's (the presenter scale), so ticks, titles and legend grow with it.
    A loss that became inf or nan is not drawn (the curve stops at the last finite
    step) and never stretches the axis.
    """

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setBackground("w")
        self.ci.layout.setSpacing(8)  # the accuracy's "100%" clear of the loss's "0"
        self.ci.setContentsMargins(0, 0, 4, 0)
        self.loss_item = self.addPlot(row=0, col=0, axisItems={"left": LossAxis("left")})
        self.acc_item = self.addPlot(row=1, col=0)
        # the accuracy plot also holds the step axis: a larger share, so both data areas are alike
        self.ci.layout.setRowStretchFactor(0, 10)
        self.ci.layout.setRowStretchFactor(1, 13)
        for item, title in ((self.loss_item, "loss"), (self.acc_item, "accuracy")):
            item.hideButtons()
            item.setMenuEnabled(False)
            item.setMouseEnabled(x=False, y=False)
            item.disableAutoRange()
            for name in ("left", "bottom"):
                axis = item.getAxis(name)
                axis.setPen(pg.mkPen("#9aa3b2"))
                axis.setTextPen(pg.mkPen("#374151"))
                axis.enableAutoSIPrefix(False)
                _cached(axis)
            item.setLabel("left", title, color="#374151")
        self.acc_item.setYRange(0.0, 1.0, padding=0.05)
        self.acc_item.getAxis("left").setTicks([[(0.0, "0"), (0.5, "50%"), (1.0, "100%")]])
        self.acc_item.setLabel("bottom", "step", color="#374151")
        self.loss_item.getAxis("bottom").setStyle(showValues=False)
        self.loss_item.getAxis("left").setStyle(maxTickLevel=0)  # labelled ticks only, no crowd
        solid = pg.mkPen(TRAIN_COLOUR, width=2)
        dashed = pg.mkPen(TEST_COLOUR, width=2, style=Qt.DashLine)
        self.legend = self.loss_item.addLegend(offset=(-6, 4), labelTextColor="#111827", brush=(255, 255, 255, 220))
        self.train_loss = self.loss_item.plot(pen=solid, name="training")
        self.test_loss = self.loss_item.plot(pen=dashed, name="test")
        self.train_acc = self.acc_item.plot(pen=solid)
        self.test_acc = self.acc_item.plot(pen=dashed)
        for curve in (self.train_loss, self.test_loss, self.train_acc, self.test_acc):
            curve.setDownsampling(auto=True, method="peak")
            curve.setClipToView(True)
            curve.opts["connect"] = "finite"  # a gap at nan, never a line to infinity
        self.log_y = False
        self._x_max = None
        self._y_range = None
        self._set_x(10.0)
        self._set_y(0.0, 1.0)
        self._apply_font()
        self.setToolTip(
            "Loss (top) and accuracy (bottom) per step: training solid, test dashed orange.\n"
            "The training loss includes the regularization term."
        )

    def sizeHint(self):
        line = self.fontMetrics().height()
        return QSize(18 * line, 22 * line)

    # -- the font (the presenter scale) ------------------------------------------------

    def changeEvent(self, event):
        super().changeEvent(event)
        if event.type() == QEvent.FontChange:
            self._apply_font()

    def _apply_font(self):
        """Ticks, titles and legend in the widget's font; both left axes one width."""
        font = QFont(self.font())
        metrics = QFontMetrics(font)
        size = f"{font.pixelSize()}px" if font.pixelSize() > 0 else f"{font.pointSizeF():g}pt"
        for item in (self.loss_item, self.acc_item):
            for name in ("left", "bottom"):
                axis = item.getAxis(name)
                axis.setStyle(tickFont=font, tickTextOffset=max(3, metrics.height() // 4))
                axis.label.setFont(font)
            item.getAxis("bottom").setHeight(None)
        widest = max(metrics.horizontalAdvance(t) for t in ("100%", "-2e+06", "1e-12", "0.005"))
        width = widest + metrics.height() + metrics.height() // 2 + 8  # ticks + rotated title + gaps
        for item in (self.loss_item, self.acc_item):
            item.getAxis("left").setWidth(width)
        self._tick_steps()
        self.legend.setLabelTextSize(size)
        for _sample, label in self.legend.items:
            label.setText(label.text, size=size)
        self.left_axis_width = width

    # -- ranges ------------------------------------------------------------------

    def _set_x(self, x_max):
        if x_max != self._x_max:
            self._x_max = x_max
            for item in (self.loss_item, self.acc_item):
                item.setXRange(0.0, x_max, padding=0.0)
            self._tick_steps()

    def _tick_steps(self):
        """Step-axis ticks 1-2-5 apart, as many as fit their labels side by side (pyqtgraph's
        own ran '20406080' together in the narrow curves column)."""
        if getattr(self, "_x_max", None) is None:
            return  # a resize before __init__ has set the range
        metrics = QFontMetrics(self.font())
        label = metrics.horizontalAdvance(f"{self._x_max:g}") + 2 * metrics.horizontalAdvance("0")
        width = self.width() - getattr(self, "left_axis_width", 0) - 8  # the data area, laid out or not
        most = max(1, int(width // max(1, label)))
        spacing = nice_ceiling(self._x_max / most)
        count = int(self._x_max / spacing + 1e-9)
        ticks = [(k * spacing, f"{k * spacing:g}") for k in range(count + 1)]
        self.acc_item.getAxis("bottom").setTicks([ticks])
        self.loss_item.getAxis("bottom").setTicks([ticks])  # its grid lines, no labels

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._tick_steps()

    def _set_y(self, lo, hi):
        if (lo, hi) != self._y_range:
            self._y_range = (lo, hi)
            self.loss_item.setYRange(lo, hi, padding=0.02)

    def _fit_y(self, *columns):
        finite = [c[np.isfinite(c)] for c in columns]
        finite = [c for c in finite if len(c)]
        if not finite:
            return
        top = max(float(c.max()) for c in finite)
        if self.log_y:
            positive = [c[c > 0] for c in finite]
            positive = [c for c in positive if len(c)]
            if not positive:
                return
            low = min(float(c.min()) for c in positive)
            lo, hi = math.floor(math.log10(low)), math.ceil(math.log10(top))
            self._set_y(float(lo), float(max(hi, lo + 1)))
            return
        current = self._y_range[1] if self._y_range else 0.0
        if top > current or top < current / 4:  # grow at once, shrink only when far too tall
            self._set_y(0.0, nice_ceiling(top * 1.05))

    # -- data --------------------------------------------------------------------

    def set_log_y(self, on):
        self.log_y = bool(on)
        self._y_range = None
        self.loss_item.setLogMode(x=False, y=self.log_y)

    def update_from(self, history):
        """setData from views of the history's preallocated columns."""
        steps = history.column("step")
        loss = _finite_or_nan(history.column("loss"))
        test_loss = _finite_or_nan(history.column("test_loss"))
        if self.log_y:  # a hinge loss can reach 0 exactly; log10(0) is -inf
            loss = np.maximum(loss, 1e-12)
            test_loss = np.maximum(test_loss, 1e-12)
        self._set_x(nice_ceiling(max(float(steps[-1]) + 1.0, 10.0)) if len(steps) else 10.0)
        has_test = bool(len(steps)) and not np.all(np.isnan(history.column("test_loss")))
        if has_test:
            self._fit_y(loss, test_loss)
        else:
            self._fit_y(loss)
        self.train_loss.setData(steps, loss)
        self.train_acc.setData(steps, history.column("accuracy"))
        if has_test:
            self.test_loss.setData(steps, test_loss)
            self.test_acc.setData(steps, history.column("test_accuracy"))
        else:
            self.test_loss.setData([], [])
            self.test_acc.setData([], [])
        self._legend_shows_test(has_test or not len(steps))

    def _legend_shows_test(self, on):
        """The legend names the test curve only while there is one (no test points: no "test" entry)."""
        listed = any(label.text == "test" for _sample, label in self.legend.items)
        if on and not listed:
            self.legend.addItem(self.test_loss, "test")
            self._apply_font()
        elif listed and not on:
            self.legend.removeItem(self.test_loss)

    def set_regression(self, on):
        """A regression problem has no classes, so no accuracy: only the loss plot shows,
        and it carries the step axis (its accuracy curve was a meaningless sign count)."""
        on = bool(on)
        if self.acc_item.isVisible() != on:
            return
        self.acc_item.setVisible(not on)
        self.ci.layout.setRowStretchFactor(1, 0 if on else 13)
        self.ci.layout.setRowMaximumHeight(1, 0 if on else 1e6)
        self.loss_item.getAxis("bottom").setStyle(showValues=on)
        self.loss_item.setLabel("bottom", "step" if on else None, color="#374151")
        self.setToolTip(
            ("Loss (mean squared error) per step" if on else "Loss (top) and accuracy (bottom) per step")
            + ": training solid, test dashed orange.\nThe training loss includes the regularization term."
        )

    @property
    def shows_accuracy(self):
        return self.acc_item.isVisible()

    def clear_curves(self):
        # not `clear`: GraphicsLayoutWidget binds its layout's clear() (remove every plot) under that name
        for curve in (self.train_loss, self.test_loss, self.train_acc, self.test_acc):
            curve.setData([], [])
        self._set_x(10.0)
