"""The network diagram: inputs, hidden layers and the output, as in TensorFlow Playground.

Columns left to right: the seven input features (the enabled ones solid, the
others faded -- click one to switch it), each hidden layer, then the output.
Every neuron is a circle showing its own output over the input plane (from the
worker's `Boundary.neurons`), so one can watch the first layer draw lines and
the later ones combine them. Every weight is a curve, blue when positive and
orange when negative, thicker the larger |w|; the bias is the small square at
a neuron's lower left. Hovering a weight shows its value and the gradient of
the last step; clicking one selects it (for the panel's editor); clicking a
neuron asks for its scalar graph. Above each hidden layer, + and - add and
remove neurons and the activation name opens a menu.

The view holds no state that matters: it is redrawn from the config's shape,
the latest `Weights` and the latest `Boundary`, and every click is a signal.
"""

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QImage, QPainter, QPainterPath, QPainterPathStroker, QPen, QPixmap
from PySide6.QtWidgets import (QGraphicsItem, QGraphicsObject, QGraphicsPathItem, QGraphicsScene,
                               QGraphicsSimpleTextItem, QGraphicsView, QMenu)

from app.training.plots import NEGATIVE, POSITIVE, SCORE_LEVELS, diverging_lut
from core.nn import ACTIVATIONS
from core.training import FEATURES, feature_array

NODE = 34.0  # neuron diameter
ROW = 46.0  # vertical distance between neurons
COLUMN = 118.0  # horizontal distance between layers
HEADER = 72.0  # room above the neurons for the layer controls
FEATURE_LABELS = {"x1": "x₁", "x2": "x₂", "x1^2": "x₁²", "x2^2": "x₂²", "x1*x2": "x₁x₂",
                  "sin_x1": "sin(x₁)", "sin_x2": "sin(x₂)"}
SELECTION = "#5b5bd6"
TEXT = "#374151"
FAINT = "#c3c9d2"
_LUT = diverging_lut()


def heatmap_pixmap(values, levels=None):
    """A small QPixmap of an (r, r) array (row j = y ascending), diverging colours.

    With `levels` the colours span that fixed range; without, each map is scaled
    by its own largest |value| so its shape shows whatever its size.
    """
    v = np.nan_to_num(np.asarray(values, dtype=float), nan=0.0, posinf=0.0, neginf=0.0)
    if levels is None:
        scale = float(np.max(np.abs(v))) or 1.0
        lo, hi = -scale, scale
    else:
        lo, hi = levels
    idx = np.clip(((v - lo) / (hi - lo) * 255.0).round(), 0, 255).astype(np.intp)
    rgb = np.ascontiguousarray(_LUT[idx[::-1]])  # images run top-down, y runs up
    h, w = rgb.shape[:2]
    image = QImage(rgb.data, w, h, 3 * w, QImage.Format_RGB888).copy()
    return QPixmap.fromImage(image)


def _edge_pen(w, selected=False):
    a = min(abs(w), 4.0)
    colour = QColor(POSITIVE if w > 0 else NEGATIVE)
    colour.setAlphaF(0.3 + 0.7 * min(a / 2.0, 1.0))
    pen = QPen(QColor(SELECTION) if selected else colour, 0.6 + 1.5 * a + (2.0 if selected else 0.0))
    pen.setCapStyle(Qt.RoundCap)
    return pen


# -----------------------------------------------------------------------------
# items

class NeuronItem(QGraphicsItem):
    """A circle showing a heatmap; `key` is ('feature', name) or ('neuron', layer, index)."""

    def __init__(self, view, key, enabled=True):
        super().__init__()
        self.view = view
        self.key = key
        self.enabled = enabled
        self.selected = False
        self.pixmap = None
        self.setAcceptHoverEvents(True)
        self.setCursor(Qt.PointingHandCursor)
        self.setZValue(2)

    def boundingRect(self):
        return QRectF(-NODE / 2 - 3, -NODE / 2 - 3, NODE + 6, NODE + 6)

    def shape(self):
        path = QPainterPath()
        path.addEllipse(QRectF(-NODE / 2, -NODE / 2, NODE, NODE))
        return path

    def paint(self, painter, option, widget=None):
        painter.setRenderHint(QPainter.Antialiasing)
        painter.setRenderHint(QPainter.SmoothPixmapTransform)
        rect = QRectF(-NODE / 2, -NODE / 2, NODE, NODE)
        painter.save()
        painter.setClipPath(self.shape())
        if self.pixmap is not None and self.enabled:
            painter.drawPixmap(rect, self.pixmap, QRectF(self.pixmap.rect()))
        else:
            painter.fillRect(rect, QColor("#f3f4f6"))
        painter.restore()
        if self.selected:
            painter.setPen(QPen(QColor(SELECTION), 3))
        else:
            painter.setPen(QPen(QColor("#6b7280" if self.enabled else FAINT), 1.2,
                                Qt.SolidLine if self.enabled else Qt.DashLine))
        painter.setBrush(Qt.NoBrush)
        painter.drawEllipse(rect)

    def set_pixmap(self, pixmap):
        self.pixmap = pixmap
        self.update()

    def hoverEnterEvent(self, event):
        self.setToolTip(self.view.tooltip_for(self.key))
        super().hoverEnterEvent(event)

    def mousePressEvent(self, event):
        event.accept()

    def mouseReleaseEvent(self, event):
        if event.button() == Qt.LeftButton:
            self.view.item_clicked(self.key)


class WeightItem(QGraphicsPathItem):
    """One weight: a curve from a neuron of one layer to a neuron of the next."""

    def __init__(self, view, key, start, end):
        super().__init__()
        self.view = view
        self.key = key  # ('weight', layer, neuron, input index)
        path = QPainterPath(start)
        mid = (start.x() + end.x()) / 2
        path.cubicTo(QPointF(mid, start.y()), QPointF(mid, end.y()), end)
        self.setPath(path)
        self.setAcceptHoverEvents(True)
        self.setCursor(Qt.PointingHandCursor)
        self.setZValue(0)
        self.value = 0.0
        self.selected = False
        self._hover = False
        self.setPen(_edge_pen(0.0))

    def shape(self):
        stroker = QPainterPathStroker()
        stroker.setWidth(7.0)  # easier to hover and click than the drawn line
        return stroker.createStroke(self.path())

    def set_value(self, w):
        self.value = w
        self._restyle()

    def set_selected(self, on):
        self.selected = on
        self.setZValue(1 if on else 0)
        self._restyle()

    def _restyle(self):
        pen = _edge_pen(self.value, self.selected)
        if self._hover and not self.selected:
            pen.setColor(pen.color().darker(140))
            pen.setWidthF(pen.widthF() + 1.5)
        self.setPen(pen)

    def hoverEnterEvent(self, event):
        self._hover = True
        self._restyle()
        self.setToolTip(self.view.tooltip_for(self.key))
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event):
        self._hover = False
        self._restyle()
        super().hoverLeaveEvent(event)

    def mousePressEvent(self, event):
        event.accept()

    def mouseReleaseEvent(self, event):
        if event.button() == Qt.LeftButton:
            self.view.item_clicked(self.key)


class BiasItem(QGraphicsItem):
    """The bias of a neuron: a small square at its lower left, coloured by sign."""

    SIZE = 9.0

    def __init__(self, view, key):
        super().__init__()
        self.view = view
        self.key = key  # ('weight', layer, neuron, nin): the bias is the last parameter
        self.value = 0.0
        self.selected = False
        self.setAcceptHoverEvents(True)
        self.setCursor(Qt.PointingHandCursor)
        self.setZValue(3)

    def boundingRect(self):
        s = self.SIZE + 2
        return QRectF(-s / 2, -s / 2, s, s)

    def paint(self, painter, option, widget=None):
        s = self.SIZE
        colour = QColor(POSITIVE if self.value > 0 else NEGATIVE if self.value < 0 else "#d1d5db")
        painter.setPen(QPen(QColor(SELECTION), 2) if self.selected else QPen(QColor("#ffffff"), 1))
        painter.setBrush(colour)
        painter.drawRect(QRectF(-s / 2, -s / 2, s, s))

    def set_value(self, b):
        self.value = b
        self.update()

    def set_selected(self, on):
        self.selected = on
        self.update()

    def hoverEnterEvent(self, event):
        self.setToolTip(self.view.tooltip_for(self.key))
        super().hoverEnterEvent(event)

    def mousePressEvent(self, event):
        event.accept()

    def mouseReleaseEvent(self, event):
        if event.button() == Qt.LeftButton:
            self.view.item_clicked(self.key)


class ButtonItem(QGraphicsObject):
    """A small round +/- button drawn in the scene."""

    clicked = Signal()

    def __init__(self, text, tooltip, enabled=True):
        super().__init__()
        self.text = text
        self.enabled = enabled
        self._hover = False
        self.setToolTip(tooltip)
        self.setAcceptHoverEvents(True)
        if enabled:
            self.setCursor(Qt.PointingHandCursor)

    def boundingRect(self):
        return QRectF(-10, -10, 20, 20)

    def paint(self, painter, option, widget=None):
        painter.setRenderHint(QPainter.Antialiasing)
        fill = QColor("#e5e7eb" if self._hover and self.enabled else "#f3f4f6")
        painter.setBrush(fill)
        painter.setPen(QPen(QColor("#9ca3af" if self.enabled else "#e5e7eb"), 1))
        painter.drawEllipse(QRectF(-9, -9, 18, 18))
        painter.setPen(QPen(QColor(TEXT if self.enabled else FAINT), 2))
        painter.drawLine(QPointF(-4.5, 0), QPointF(4.5, 0))
        if self.text == "+":
            painter.drawLine(QPointF(0, -4.5), QPointF(0, 4.5))

    def hoverEnterEvent(self, event):
        self._hover = True
        self.update()

    def hoverLeaveEvent(self, event):
        self._hover = False
        self.update()

    def mousePressEvent(self, event):
        event.accept()

    def mouseReleaseEvent(self, event):
        if self.enabled and event.button() == Qt.LeftButton:
            self.clicked.emit()


class TextButtonItem(QGraphicsSimpleTextItem):
    """A clickable caption (the activation name, opening a menu)."""

    def __init__(self, text, tooltip, on_click):
        super().__init__(text)
        self.on_click = on_click
        self.setToolTip(tooltip)
        self.setBrush(QColor(SELECTION))
        self.setCursor(Qt.PointingHandCursor)

    def mousePressEvent(self, event):
        event.accept()

    def mouseReleaseEvent(self, event):
        if event.button() == Qt.LeftButton:
            self.on_click(event.screenPos())


# -----------------------------------------------------------------------------
# the view

class NetworkView(QGraphicsView):
    """The network as a diagram. Clicks come out as signals; nothing is edited here."""

    neuronClicked = Signal(int, int)  # layer, neuron (layer = index into the model's layers)
    weightClicked = Signal(int, int, int)  # layer, neuron, input index (== nin: the bias)
    featureToggled = Signal(str)
    neuronsChangeRequested = Signal(int, int)  # hidden layer, +1 or -1
    activationChangeRequested = Signal(int, str)  # layer, activation name

    MAX_NEURONS = 16

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.Antialiasing | QPainter.SmoothPixmapTransform)
        self.setBackgroundBrush(QColor("#ffffff"))
        self.setFrameShape(QGraphicsView.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setViewportUpdateMode(QGraphicsView.BoundingRectViewportUpdate)
        self.features = ()
        self.sizes = ()  # hidden sizes
        self.activations = ()
        self.weights = None
        self.grads = None
        self.neurons = {}  # key -> NeuronItem
        self.edges = {}  # ('weight', l, j, i) -> WeightItem or BiasItem
        self.selected = None  # the key of the selected neuron or weight
        self._feature_grid = None
        self.setToolTip("")

    # -- structure ---------------------------------------------------------------

    def set_structure(self, features, hidden_sizes, activations):
        """Rebuild the diagram for this network shape (weights and heatmaps come later)."""
        features, hidden_sizes, activations = tuple(features), tuple(hidden_sizes), tuple(activations)
        if (features, hidden_sizes, activations) == (self.features, self.sizes, self.activations):
            return
        self.features, self.sizes, self.activations = features, hidden_sizes, activations
        self.weights = self.grads = None
        scene = self.scene()
        scene.clear()
        self.neurons.clear()
        self.edges.clear()
        if self.selected and self.selected[0] != "feature":
            self.selected = None

        caption = QFont("DejaVu Sans")
        caption.setPixelSize(11)
        bold = QFont("DejaVu Sans")
        bold.setPixelSize(11)
        bold.setBold(True)

        def text(s, x, y, font=caption, colour=TEXT, centre=True):
            item = scene.addSimpleText(s, font)
            item.setBrush(QColor(colour))
            r = item.boundingRect()
            item.setPos(x - (r.width() / 2 if centre else 0), y - r.height() / 2)
            return item

        # 1. input features: all seven, the enabled ones solid
        in_pos = {}
        text("FEATURES", 0, -HEADER + 31, bold, "#6b7280")
        for r, name in enumerate(FEATURES):
            y = r * ROW
            on = name in features
            item = NeuronItem(self, ("feature", name), on)
            item.setPos(0, y)
            scene.addItem(item)
            self.neurons[("feature", name)] = item
            label = text(FEATURE_LABELS[name], -NODE / 2 - 8, y, caption, TEXT if on else FAINT, centre=False)
            label.setPos(-NODE / 2 - 6 - label.boundingRect().width(), label.pos().y())
            in_pos[name] = QPointF(0, y)
        previous = [in_pos[name] for name in features]

        # 2. hidden layers and the output layer
        layer_sizes = list(hidden_sizes) + [1]
        for layer, size in enumerate(layer_sizes):
            x = (layer + 1) * COLUMN
            is_output = layer == len(hidden_sizes)
            if is_output:
                text("OUTPUT", x, -HEADER + 31, bold, "#6b7280")
            else:
                minus = ButtonItem("-", f"Remove a neuron from hidden layer {layer + 1}", size > 1)
                plus = ButtonItem("+", f"Add a neuron to hidden layer {layer + 1}", size < self.MAX_NEURONS)
                minus.setPos(x - 12, -HEADER + 10)
                plus.setPos(x + 12, -HEADER + 10)
                minus.clicked.connect(lambda l=layer: self.neuronsChangeRequested.emit(l, -1))
                plus.clicked.connect(lambda l=layer: self.neuronsChangeRequested.emit(l, +1))
                scene.addItem(minus)
                scene.addItem(plus)
                text(f"{size} neuron{'s' if size != 1 else ''}", x, -HEADER + 31)
            act = TextButtonItem(f"{activations[layer]} ▾",
                                 f"Activation of {'the output' if is_output else f'hidden layer {layer + 1}'}"
                                 " -- click to change", lambda pos, l=layer: self._activation_menu(l, pos))
            act.setFont(caption)
            r = act.boundingRect()
            act.setPos(x - r.width() / 2, -HEADER + 40)
            scene.addItem(act)
            positions = []
            for j in range(size):
                y = j * ROW
                item = NeuronItem(self, ("neuron", layer, j))
                item.setPos(x, y)
                scene.addItem(item)
                self.neurons[("neuron", layer, j)] = item
                positions.append(QPointF(x, y))
                for i, start in enumerate(previous):
                    edge = WeightItem(self, ("weight", layer, j, i),
                                      QPointF(start.x() + NODE / 2, start.y()), QPointF(x - NODE / 2, y))
                    scene.addItem(edge)
                    self.edges[edge.key] = edge
                bias = BiasItem(self, ("weight", layer, j, len(previous)))
                bias.setPos(x - NODE / 2 + 2, y + NODE / 2 - 2)
                scene.addItem(bias)
                self.edges[bias.key] = bias
            previous = positions
        self._apply_selection()
        self._update_feature_maps()
        rect = scene.itemsBoundingRect().adjusted(-8, -8, 8, 8)
        scene.setSceneRect(rect)
        self.fit()

    def _activation_menu(self, layer, screen_pos):
        menu = QMenu(self)
        for name in ACTIVATIONS:
            action = menu.addAction(name)
            action.setCheckable(True)
            action.setChecked(name == self.activations[layer])
        chosen = menu.exec(screen_pos)
        if chosen is not None and chosen.text() != self.activations[layer]:
            self.activationChangeRequested.emit(layer, chosen.text())

    # -- data --------------------------------------------------------------------

    def set_bounds(self, bounds, resolution=16):
        """The input plane's box: the input-feature heatmaps are computed from it here."""
        x_min, x_max, y_min, y_max = bounds
        gx, gy = np.meshgrid(np.linspace(x_min, x_max, resolution), np.linspace(y_min, y_max, resolution))
        values = feature_array(gx.ravel(), gy.ravel(), FEATURES)
        self._feature_grid = {name: values[:, k].reshape(resolution, resolution) for k, name in enumerate(FEATURES)}
        self._update_feature_maps()

    def _update_feature_maps(self):
        if self._feature_grid is None:
            return
        for name in FEATURES:
            item = self.neurons.get(("feature", name))
            if item is not None:
                item.set_pixmap(heatmap_pixmap(self._feature_grid[name]))

    def set_boundary(self, boundary):
        """Every neuron's heatmap from Boundary.neurons (the output's with the fixed score levels)."""
        last = len(self.sizes)
        for layer, maps in enumerate(boundary.neurons):
            for j, values in enumerate(maps):
                item = self.neurons.get(("neuron", layer, j))
                if item is not None:
                    item.set_pixmap(heatmap_pixmap(values, SCORE_LEVELS if layer == last else None))

    def set_weights(self, weights):
        """Edge colours and widths from a Weights snapshot (weights[l][j] = [w0, ..., b])."""
        self.weights, self.grads = weights.weights, weights.grads
        for key, item in self.edges.items():
            _, l, j, i = key
            try:
                item.set_value(self.weights[l][j][i])
            except IndexError:
                continue  # a snapshot of another shape, about to be replaced

    # -- selection and clicks ------------------------------------------------------

    def set_selected(self, key):
        self.selected = key
        self._apply_selection()

    def _apply_selection(self):
        for key, item in self.neurons.items():
            item.selected = key == self.selected
            item.update()
        for key, item in self.edges.items():
            item.set_selected(key == self.selected)

    def item_clicked(self, key):
        kind = key[0]
        if kind == "feature":
            self.featureToggled.emit(key[1])
        elif kind == "neuron":
            self.set_selected(key)
            self.neuronClicked.emit(key[1], key[2])
        elif kind == "weight":
            self.set_selected(key)
            self.weightClicked.emit(key[1], key[2], key[3])

    def parameter_name(self, layer, neuron, index):
        nin = len(self.features) if layer == 0 else self.sizes[layer - 1]
        return f"L{layer}.n{neuron}." + ("b" if index == nin else f"w{index}")

    def tooltip_for(self, key):
        kind = key[0]
        if kind == "feature":
            name = key[1]
            state = "on -- click to switch it off" if name in self.features else "off -- click to use it"
            return f"input feature {FEATURE_LABELS[name]} ({name}): {state}"
        if kind == "neuron":
            _, l, j = key
            where = "the output" if l == len(self.sizes) else f"neuron {j} of hidden layer {l + 1}"
            text = (f"L{l}.n{j}: {where}, {self.activations[l]}\n"
                    "the picture: its output over the input plane")
            if l < len(self.sizes):
                text += " (scaled to its own largest value)"
            if self.weights is not None:
                try:
                    text += f"\nbias {self.weights[l][j][-1]:+.4f}"
                except IndexError:
                    pass
            return text + "\nclick: open its scalar graph for the chosen sample"
        _, l, j, i = key
        name = self.parameter_name(l, j, i)
        lines = [name]
        if self.weights is not None:
            try:
                lines.append(f"value {self.weights[l][j][i]:+.6f}")
                lines.append(f"grad  {self.grads[l][j][i]:+.6f}  (last step)")
            except IndexError:
                pass
        lines.append("click to select it; edit it in the panel while paused")
        return "\n".join(lines)

    # -- sizing --------------------------------------------------------------------

    def fit(self):
        rect = self.sceneRect()
        if rect.isEmpty():
            return
        self.resetTransform()
        view = self.viewport().rect()
        scale = min(view.width() / rect.width(), view.height() / rect.height(), 1.6)
        if scale > 0:
            self.scale(scale, scale)
        self.centerOn(rect.center())

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self.fit()

    def item_pos(self, key):
        """Where an item is, in viewport coordinates (for tests)."""
        item = self.neurons.get(key) or self.edges.get(key)
        if isinstance(item, WeightItem):
            return self.mapFromScene(item.path().pointAtPercent(0.5))
        return self.mapFromScene(item.scenePos())
