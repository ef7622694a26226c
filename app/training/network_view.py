"""The network diagram: inputs, hidden layers and the output, as in TensorFlow Playground.

Columns left to right: the seven input features (the enabled ones solid, the
others faded -- click one to switch it), each hidden layer, then the output.
Every neuron is a circle showing its own output over the input plane (from the
worker's `Boundary.neurons`), so one can watch the first layer draw lines and
the later ones combine them. Every weight is a curve, blue when positive and
orange when negative, thicker the larger |w|; the bias is the small square at
a neuron's lower left. Hovering a weight shows its value and the gradient of
the last step; hovering a neuron (or an input feature) says so (`neuronHovered`),
and the panel shows that neuron's heatmap large on the data plot, as the
Playground does; clicking one selects it (for the panel's editor); clicking a
neuron asks for its scalar graph. Above each hidden layer, + and - add and
remove neurons and the activation name opens a menu.

The view holds no state that matters: it is redrawn from the config's shape,
the latest `Weights` and the latest `Boundary`, and every click is a signal.

Speed. The diagram repaints while a worker thread trains in pure Python, and
every call from C++ into Python (a `paint()` override, a virtual call on a
Python subclass) must first win the GIL from that worker. So every item here
is a plain Qt item that paints itself in C++ -- circles filled with a texture
brush cut from one shared heatmap atlas, paths with cached opaque pens -- and
the view alone handles hovering, tooltips and clicks by looking up the item
under the mouse (`item.data(KEY)`).
"""

import numpy as np
from PySide6.QtCore import QEvent, QPointF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontInfo,
    QFontMetricsF,
    QImage,
    QPainter,
    QPainterPath,
    QPen,
    QPixmap,
    QTransform,
)
from PySide6.QtWidgets import (
    QGraphicsEllipseItem,
    QGraphicsLineItem,
    QGraphicsPathItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsView,
    QMenu,
    QToolTip,
)

from app.training.plots import NEGATIVE, POSITIVE, SCORE_LEVELS, diverging_lut
from core.format import format_number, full_number
from core.nn import ACTIVATIONS
from core.training.features import FEATURES, feature_array

# the largest sizes at 1x (pixels); the diagram shrinks from them to the room it has
NODE = 34.0  # neuron diameter
ROW = 46.0  # vertical distance between neurons
COLUMN = 118.0  # horizontal distance between layers
MIN_NODE = 12.0  # below this a circle's heatmap says nothing
HEADER_LINES = 3.6  # text lines above the first circles: the +/- buttons, "16 neurons", "relu ▾"
FEATURE_LABELS = {
    "x1": "x₁",
    "x2": "x₂",
    "x1^2": "x₁²",
    "x2^2": "x₂²",
    "x1*x2": "x₁x₂",
    "sin_x1": "sin(x₁)",
    "sin_x2": "sin(x₂)",
}
SELECTION = "#5b5bd6"
TEXT = "#374151"
FAINT = "#c3c9d2"
_LUT = diverging_lut()
KEY = 0  # the item data slot holding an item's key


def heatmap_rgb(values, levels=None):
    """(..., r, r, 3) uint8 images of (..., r, r) arrays (row j = y ascending), in diverging colours.

    With `levels` the colours span that fixed range; without, each map is scaled
    by its own largest |value| so its shape shows whatever its size.
    """
    v = np.nan_to_num(np.asarray(values, dtype=float), nan=0.0, posinf=0.0, neginf=0.0)
    if levels is None:
        scale = np.max(np.abs(v), axis=(-2, -1), keepdims=True)
        scale[scale == 0.0] = 1.0
        lo, hi = -scale, scale
    else:
        lo, hi = levels
    idx = np.clip(((v - lo) / (hi - lo) * 255.0).round(), 0, 255).astype(np.intp)
    return _LUT[idx[..., ::-1, :]]  # images run top-down, y runs up


def _circle_mask(size):
    """Alpha 0..255 of a disc filling a size x size square, with a soft one-pixel rim."""
    c = (size - 1) / 2.0
    y, x = np.mgrid[0:size, 0:size]
    r = np.hypot(x - c, y - c)
    return (np.clip(size / 2.0 - r, 0.0, 1.0) * 255).astype(np.uint8)


class HeatmapAtlas:
    """Many small heatmaps in ONE pixmap, each a disc (transparent outside).

    All the maps are coloured, scaled and cut into discs by a few numpy
    operations, and become one QImage: three Qt calls per refresh instead of
    three per neuron -- it matters while a worker thread competes for the GIL.
    """

    CELL = 32

    def __init__(self):
        self.pixmap = None
        self.index = {}  # key -> cell number
        self._mask = _circle_mask(self.CELL)

    def build(self, keys, rgb):
        """keys: one per image; rgb: (n, r, r, 3) uint8, each scaled up to CELL x CELL."""
        keys = list(keys)
        if not keys:
            self.pixmap, self.index = None, {}
            return
        cell = self.CELL
        r = rgb.shape[1]
        pick = (np.arange(cell) * r) // cell  # nearest-neighbour upscaling
        big = rgb[:, pick][:, :, pick].astype(np.uint16)  # (n, cell, cell, 3)
        alpha = self._mask.astype(np.uint16)[None, :, :]
        cells = np.empty(big.shape[:3] + (4,), dtype=np.uint8)
        # premultiplied ARGB, as QImage.Format_ARGB32_Premultiplied stores it (B, G, R, A in memory)
        cells[..., 0] = big[..., 2] * alpha // 255
        cells[..., 1] = big[..., 1] * alpha // 255
        cells[..., 2] = big[..., 0] * alpha // 255
        cells[..., 3] = alpha
        atlas = np.ascontiguousarray(cells.transpose(1, 0, 2, 3).reshape(cell, len(keys) * cell, 4))
        h, w = atlas.shape[:2]
        image = QImage(atlas.data, w, h, 4 * w, QImage.Format_ARGB32_Premultiplied)
        self.pixmap = QPixmap.fromImage(image)  # fromImage copies the pixels
        self.index = {key: n for n, key in enumerate(keys)}

    def brush(self, key, diameter=NODE):
        """A texture brush that paints `key`'s cell onto a circle of `diameter` centred at 0."""
        n = self.index.get(key)
        if n is None or self.pixmap is None:
            return None
        brush = QBrush(self.pixmap)
        s = diameter / self.CELL
        brush.setTransform(
            QTransform().translate(-diameter / 2, -diameter / 2).scale(s, s).translate(-n * self.CELL, 0)
        )
        return brush


_PENS: dict = {}


def _edge_pen(w, selected=False):
    """A cached pen for weight w: blue > 0, orange < 0, wider and deeper for larger |w|.

    |w| is quantised into a few dozen steps, and the colour is mixed with white
    instead of drawn translucent: opaque strokes paint about twice as fast.
    """
    a = min(abs(w), 4.0)
    level = int(round(a * 6))  # 0 .. 24
    key = (w > 0, level, selected)
    pen = _PENS.get(key)
    if pen is None:
        a = level / 6.0
        strength = 0.3 + 0.7 * min(a / 2.0, 1.0)
        base = QColor(POSITIVE if w > 0 else NEGATIVE)
        colour = (
            QColor(SELECTION)
            if selected
            else QColor(
                round(255 - (255 - base.red()) * strength),
                round(255 - (255 - base.green()) * strength),
                round(255 - (255 - base.blue()) * strength),
            )
        )
        pen = QPen(colour, 0.6 + 1.5 * a + (2.0 if selected else 0.0))
        pen.setCapStyle(Qt.RoundCap)
        _PENS[key] = pen
    return pen


# -----------------------------------------------------------------------------
# the view


class NetworkView(QGraphicsView):
    """The network as a diagram. Clicks come out as signals; nothing is edited here."""

    neuronClicked = Signal(int, int)  # layer, neuron (layer = index into the model's layers)
    weightClicked = Signal(int, int, int)  # layer, neuron, input index (== nin: the bias)
    featureToggled = Signal(str)
    neuronsChangeRequested = Signal(int, int)  # hidden layer, +1 or -1
    activationChangeRequested = Signal(int, str)  # layer, activation name
    neuronHovered = Signal(object)  # ('neuron', layer, j) or ('feature', name) under the mouse; None when it leaves

    MAX_NEURONS = 16

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.scene().setItemIndexMethod(QGraphicsScene.NoIndex)  # items restyle often; a BSP index would churn
        self.setRenderHints(QPainter.Antialiasing | QPainter.SmoothPixmapTransform)
        self.setBackgroundBrush(QColor("#ffffff"))
        self.setFrameShape(QGraphicsView.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setMouseTracking(True)
        self.features = ()
        self.sizes = ()  # hidden sizes
        self.activations = ()
        self.weights = None
        self.grads = None
        self.neurons = {}  # ('feature', name) / ('neuron', l, j) -> QGraphicsEllipseItem
        self.edges = {}  # ('weight', l, j, i) -> QGraphicsPathItem (i < nin) or QGraphicsRectItem (the bias)
        self.values = {}  # ('weight', l, j, i) -> the value its pen shows
        self.selected = None  # the key of the selected neuron or weight
        self.hovered = None
        self.hovered_neuron = None  # the neuron or input feature under the mouse (its heatmap shows large)
        self._pressed = None
        self._feature_grid = None
        self.feature_atlas = HeatmapAtlas()
        self.neuron_atlas = HeatmapAtlas()
        self.node_size = NODE  # the circles' diameter as last laid out
        self._geometry = None  # what the scene was last built for (sizes, font, shape)
        self.viewport().installEventFilter(self)

    # -- structure ---------------------------------------------------------------

    def set_structure(self, features, hidden_sizes, activations):
        """Rebuild the diagram for this network shape (weights and heatmaps come later)."""
        features, hidden_sizes, activations = tuple(features), tuple(hidden_sizes), tuple(activations)
        if (features, hidden_sizes, activations) == (self.features, self.sizes, self.activations):
            return
        self.features, self.sizes, self.activations = features, hidden_sizes, activations
        self.weights = self.grads = None
        self.values.clear()
        self.neuron_atlas.build([], None)
        if self.selected and self.selected[0] != "feature":
            self.selected = None
        self._geometry = None
        self._build()

    def _sizes(self):
        """(caption font, bold font, node, row, column, header, left) for the room the view has.

        Text is drawn at the widget's font size -- the application's, so the presenter
        scale reaches it -- and the view is not scaled, so labels keep that size
        whatever the network's. The circles and the gaps between them shrink instead,
        down to MIN_NODE, when a layer has many neurons or the view is small; only a
        view too small even for that is scaled down as a whole (fit())."""
        caption = QFont(self.font())
        caption.setPixelSize(max(9, round(QFontInfo(self.font()).pixelSize() * 0.9)))
        bold = QFont(caption)
        bold.setBold(True)
        line = QFontMetricsF(caption).height()
        k = line / 13.0  # the 1x sizes follow the text (presenter 2x: twice as large)
        room = self.viewport().rect()
        header = HEADER_LINES * line + 3  # above the first circles: the +/- buttons, "16 neurons", "relu ▾"
        rows = max(len(FEATURES), max(self.sizes, default=1), 1)
        # height: the header, the top half of a circle (0.37 row), rows - 1 gaps, then half a circle
        # and its bias square (0.5 row), and the margins
        row = max(MIN_NODE * 1.25, min(ROW * k, (room.height() - header - 16) / (rows - 0.13)))
        node = max(MIN_NODE, min(NODE * k, 0.74 * row))
        labels = [FEATURE_LABELS[name] for name in FEATURES]
        left = max(QFontMetricsF(caption).horizontalAdvance(t) for t in labels) + 8
        words = ["FEATURES", "OUTPUT", "16 neurons", "linear ▾", "sigmoid ▾"]
        widest = max(QFontMetricsF(bold).horizontalAdvance(t) for t in words) + 6
        layers = len(self.sizes) + 1
        # width: the feature labels and half a circle, the layers, half the last heading, the margins
        spare = (room.width() - left - node / 2 - max(node, widest) / 2 - 14) / layers
        column = max(widest, node * 1.6, min(COLUMN * k, spare))
        return caption, bold, node, row, column, header, left

    def _build(self):
        """The scene for the current shape at the current size: every item made again, then
        restyled from the heatmaps, weights and selection the view keeps."""
        sizes = self._sizes()
        key_now = (sizes[2:], sizes[0].pixelSize(), self.features, self.sizes, self.activations)
        if key_now == self._geometry:
            return
        self._geometry = key_now
        caption, bold, node, row, column, _header, _left = sizes
        self.node_size = node
        features, hidden_sizes, activations = self.features, self.sizes, self.activations
        scene = self.scene()
        scene.clear()
        self.neurons.clear()
        self.edges.clear()
        self.hovered = None
        line = QFontMetricsF(caption).height()
        # the header stacks up from the top of the first row's circles (a circle is centred at y = 0),
        # so a large circle never covers its layer's "relu ▾" (12 neurons at 1440x880 did)
        activation_y = -node / 2 - 0.55 * line - 3
        count_y = activation_y - 1.1 * line
        button_y = count_y - 1.35 * line
        bias_side = max(4.0, node * 0.26)

        def text(s, x, y, font=caption, colour=TEXT, key=None, align="centre"):
            item = scene.addSimpleText(s, font)
            item.setBrush(QColor(colour))
            r = item.boundingRect()
            dx = {"centre": r.width() / 2, "right": r.width(), "left": 0}[align]
            item.setPos(x - dx, y - r.height() / 2)
            if key is not None:
                item.setData(KEY, key)
                item.setCursor(Qt.PointingHandCursor)
            return item

        def neuron(key, x, y, atlas, enabled=True):
            item = QGraphicsEllipseItem(-node / 2, -node / 2, node, node)
            item.setPos(x, y)
            item.setZValue(2)
            item.setData(KEY, key)
            item.setCursor(Qt.PointingHandCursor)
            item.setData(KEY + 1, (atlas, enabled))
            scene.addItem(item)
            self.neurons[key] = item
            return item

        # 1. input features: all seven, the enabled ones solid, spread over the height of the tallest
        #    layer (16 neurons' rows are too close for seven labels one above the other in presenter 2x)
        in_pos = {}
        text("FEATURES", 0, count_y, bold, "#6b7280")
        tallest = max(max(hidden_sizes, default=1), len(FEATURES))
        feature_row = row * (tallest - 1) / (len(FEATURES) - 1)
        for r, name in enumerate(FEATURES):
            y = r * feature_row
            on = name in features
            neuron(("feature", name), 0, y, self.feature_atlas, on)
            text(
                FEATURE_LABELS[name],
                -node / 2 - 4,
                y,
                caption,
                TEXT if on else FAINT,
                key=("feature", name),
                align="right",
            )
            in_pos[name] = QPointF(0, y)
        previous = [in_pos[name] for name in features]

        # 2. hidden layers and the output layer
        for layer, size in enumerate(list(hidden_sizes) + [1]):
            x = (layer + 1) * column
            is_output = layer == len(hidden_sizes)
            if is_output:
                text("OUTPUT", x, count_y, bold, "#6b7280")
            else:
                radius = line * 0.6
                self._button("-", x - radius * 1.3, button_y, ("neurons", layer, -1), size > 1, radius)
                self._button("+", x + radius * 1.3, button_y, ("neurons", layer, +1), size < self.MAX_NEURONS, radius)
                text(f"{size} neuron{'s' if size != 1 else ''}", x, count_y)
            text(f"{activations[layer]} ▾", x, activation_y, caption, SELECTION, key=("activation", layer))
            positions = []
            for j in range(size):
                y = j * row
                neuron(("neuron", layer, j), x, y, self.neuron_atlas)
                positions.append(QPointF(x, y))
                for i, start in enumerate(previous):
                    a, b = QPointF(start.x() + node / 2, start.y()), QPointF(x - node / 2, y)
                    path = QPainterPath(a)
                    mid = (a.x() + b.x()) / 2
                    path.cubicTo(QPointF(mid, a.y()), QPointF(mid, b.y()), b)
                    edge = QGraphicsPathItem(path)
                    edge.setData(KEY, ("weight", layer, j, i))
                    scene.addItem(edge)
                    self.edges[("weight", layer, j, i)] = edge
                key = ("weight", layer, j, len(previous))
                bias = QGraphicsRectItem(-bias_side / 2, -bias_side / 2, bias_side, bias_side)
                bias.setPos(x - node / 2 + 2, y + node / 2 - 2)
                bias.setZValue(3)
                bias.setData(KEY, key)
                bias.setCursor(Qt.PointingHandCursor)
                scene.addItem(bias)
                self.edges[key] = bias
            previous = positions
        for key in self.neurons:
            self._style_neuron(key)
        for key in self.edges:
            self._style_edge(key)
        self._update_feature_maps()
        scene.setSceneRect(scene.itemsBoundingRect().adjusted(-6, -6, 6, 6))
        self.fit()

    def _button(self, glyph, x, y, key, enabled, radius=9.0):
        circle = QGraphicsEllipseItem(-radius, -radius, 2 * radius, 2 * radius)
        circle.setPos(x, y)
        circle.setBrush(QColor("#f3f4f6"))
        circle.setPen(QPen(QColor("#9ca3af" if enabled else "#e5e7eb"), 1))
        if enabled:
            circle.setData(KEY, key)
            circle.setCursor(Qt.PointingHandCursor)
        pen = QPen(QColor(TEXT if enabled else FAINT), max(1.5, radius / 4.5))
        arm = radius / 2
        QGraphicsLineItem(-arm, 0, arm, 0, circle).setPen(pen)
        if glyph == "+":
            QGraphicsLineItem(0, -arm, 0, arm, circle).setPen(pen)
        self.scene().addItem(circle)

    def _style_neuron(self, key):
        item = self.neurons[key]
        atlas, enabled = item.data(KEY + 1)
        brush = atlas.brush(key, self.node_size) if enabled else None
        item.setBrush(brush if brush is not None else QBrush(QColor("#f3f4f6")))
        if key == self.selected:
            item.setPen(QPen(QColor(SELECTION), 3))
        elif enabled:
            item.setPen(QPen(QColor("#6b7280"), 1.2))
        else:
            item.setPen(QPen(QColor(FAINT), 1.2, Qt.DashLine))

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
        self.feature_atlas.build(
            [("feature", name) for name in FEATURES],
            heatmap_rgb(np.stack([self._feature_grid[name] for name in FEATURES])),
        )
        for name in FEATURES:
            if ("feature", name) in self.neurons:
                self._style_neuron(("feature", name))

    def set_boundary(self, boundary):
        """Every neuron's heatmap from Boundary.neurons (the output's with the fixed score levels)."""
        last = len(self.sizes)
        sizes = [len(maps) for maps in boundary.neurons]
        if sizes != list(self.sizes) + [1]:
            return  # a snapshot of another shape, about to be replaced
        rgb = np.concatenate(
            [heatmap_rgb(maps, SCORE_LEVELS if layer == last else None) for layer, maps in enumerate(boundary.neurons)]
        )
        keys = [("neuron", layer, j) for layer, n in enumerate(sizes) for j in range(n)]
        self.neuron_atlas.build(keys, rgb)
        for key in keys:
            self._style_neuron(key)

    def set_weights(self, weights):
        """Edge colours and widths from a Weights snapshot (weights[l][j] = [w0, ..., b])."""
        try:
            values = {key: weights.weights[key[1]][key[2]][key[3]] for key in self.edges}
        except IndexError:
            return  # a snapshot of another shape, about to be replaced
        self.weights, self.grads = weights.weights, weights.grads
        # restyle only the edges whose look changed: their style keys compared all at once (numpy),
        # not two Python calls per edge (670 edges at 16-16: 27 ms a snapshot, now ~2)
        keys = list(values)
        new = np.array([values[k] for k in keys], dtype=float)
        old = np.array([self.values.get(k, np.nan) for k in keys], dtype=float)
        self.values.update(values)
        for index in np.flatnonzero(_style_keys(old) != _style_keys(new)):
            self._style_edge(keys[index])

    def _style_edge(self, key):
        item = self.edges[key]
        w = self.values.get(key, 0.0)
        selected = key == self.selected
        if isinstance(item, QGraphicsRectItem):  # the bias
            item.setBrush(QColor(POSITIVE if w > 0 else NEGATIVE if w < 0 else "#d1d5db"))
            item.setPen(
                QPen(QColor(SELECTION), 2)
                if selected
                else QPen(QColor("#374151" if key == self.hovered else "#ffffff"), 1)
            )
            return
        pen = _edge_pen(w, selected)
        if key == self.hovered and not selected:
            pen = QPen(pen)
            pen.setColor(pen.color().darker(150))
            pen.setWidthF(pen.widthF() + 1.5)
        item.setPen(pen)
        item.setZValue(1 if selected or key == self.hovered else 0)

    # -- selection, hover and clicks -----------------------------------------------

    def set_selected(self, key):
        old, self.selected = self.selected, key
        for k in (old, key):
            if k in self.neurons:
                self._style_neuron(k)
            elif k in self.edges:
                self._style_edge(k)

    def _apply_selection(self):
        if self.selected in self.neurons:
            self._style_neuron(self.selected)
        elif self.selected in self.edges:
            self._style_edge(self.selected)

    def key_at(self, pos):
        """The key of the item under viewport position pos (weights within a few pixels count)."""
        item = self.itemAt(pos)
        key = item.data(KEY) if item is not None else None
        if key is None and item is not None and item.parentItem() is not None:
            key = item.parentItem().data(KEY)
        if key is not None:
            return key
        # thin curves are hard to hit: look in growing boxes around the pointer
        for half in (1, 4):
            box = self.mapToScene(pos.x() - half, pos.y() - half, 2 * half + 1, 2 * half + 1).boundingRect()
            for item in self.scene().items(box, Qt.IntersectsItemShape):
                key = item.data(KEY)
                if key is not None and key[0] == "weight":
                    return key
        return None

    def mouseMoveEvent(self, event):
        super().mouseMoveEvent(event)
        under = self.key_at(event.position().toPoint())
        key = under if under is not None and under[0] == "weight" else None
        if key != self.hovered:
            old, self.hovered = self.hovered, key
            for k in (old, key):
                if k in self.edges:
                    self._style_edge(k)
        self._hover_neuron(under if under is not None and under[0] in ("neuron", "feature") else None)

    def _hover_neuron(self, key):
        if key != self.hovered_neuron:
            self.hovered_neuron = key
            self.neuronHovered.emit(key)

    def leaveEvent(self, event):
        old, self.hovered = self.hovered, None
        if old in self.edges:
            self._style_edge(old)
        self._hover_neuron(None)
        super().leaveEvent(event)

    def feature_map(self, name):
        """The input feature's values over the input plane (r x r, row j = y ascending), or None."""
        return None if self._feature_grid is None else self._feature_grid.get(name)

    def mousePressEvent(self, event):
        self._pressed = self.key_at(event.position().toPoint()) if event.button() == Qt.LeftButton else None
        if self._pressed is None:
            super().mousePressEvent(event)

    def mouseReleaseEvent(self, event):
        key = self.key_at(event.position().toPoint()) if event.button() == Qt.LeftButton else None
        pressed, self._pressed = self._pressed, None
        if key is None or key != pressed:
            super().mouseReleaseEvent(event)
            return
        self.item_clicked(key, event.globalPosition().toPoint())

    def eventFilter(self, obj, event):
        # a filter, not a viewportEvent() override: paint events then never pass
        # through Python, so the C++ repaint needs no GIL from the busy worker
        if obj is self.viewport() and event.type() == QEvent.ToolTip:
            key = self.key_at(event.pos())
            if key is not None:
                QToolTip.showText(event.globalPos(), self.tooltip_for(key), self.viewport())
            else:
                QToolTip.hideText()
            return True
        return super().eventFilter(obj, event)

    def item_clicked(self, key, screen_pos=None):
        kind = key[0]
        if kind == "feature":
            self.featureToggled.emit(key[1])
        elif kind == "neuron":
            self.set_selected(key)
            self.neuronClicked.emit(key[1], key[2])
        elif kind == "weight":
            self.set_selected(key)
            self.weightClicked.emit(key[1], key[2], key[3])
        elif kind == "neurons":
            self.neuronsChangeRequested.emit(key[1], key[2])
        elif kind == "activation":
            self._activation_menu(key[1], screen_pos if screen_pos is not None else self.cursor().pos())

    def parameter_name(self, layer, neuron, index):
        nin = len(self.features) if layer == 0 else self.sizes[layer - 1]
        return f"L{layer}.n{neuron}." + ("b" if index == nin else f"w{index}")

    def hover_caption(self, key):
        """What the data plot shows while `key` is hovered, in one line."""
        if key[0] == "feature":
            return f"input feature {FEATURE_LABELS[key[1]]}: its value over the plane"
        _, layer, j = key
        if layer == len(self.sizes):
            return "the output neuron: its score over the plane"
        return f"L{layer}.n{j}, neuron {j} of hidden layer {layer + 1} ({self.activations[layer]}): its output"

    def tooltip_for(self, key):
        kind = key[0]
        if kind == "feature":
            name = key[1]
            state = "on -- click to switch it off" if name in self.features else "off -- click to use it"
            return f"input feature {FEATURE_LABELS[name]} ({name}): {state}"
        if kind == "neurons":
            return f"{'Add a neuron to' if key[2] > 0 else 'Remove a neuron from'} hidden layer {key[1] + 1}"
        if kind == "activation":
            where = "the output" if key[1] == len(self.sizes) else f"hidden layer {key[1] + 1}"
            return f"activation of {where}: {self.activations[key[1]]} -- click to change"
        if kind == "neuron":
            _, layer, j = key
            where = "the output" if layer == len(self.sizes) else f"neuron {j} of hidden layer {layer + 1}"
            text = f"L{layer}.n{j}: {where}, {self.activations[layer]}\nthe picture: its output over the input plane"
            if layer < len(self.sizes):
                text += " (scaled to its own largest value)"
            if self.weights is not None:
                text += f"\nbias {format_number(self.weights[layer][j][-1])}"
            return text + "\nclick: open its scalar graph for the chosen sample"
        _, layer, j, i = key
        lines = [self.parameter_name(layer, j, i)]
        if self.weights is not None:
            lines.append(f"value {full_number(self.weights[layer][j][i])}")
            lines.append(f"grad  {full_number(self.grads[layer][j][i])}  (last step)")
        lines.append("click to select it; edit it in the panel while paused")
        return "\n".join(lines)

    # -- sizing --------------------------------------------------------------------

    def fit(self):
        """Centre the diagram; scale it down only if even its smallest layout does not fit."""
        rect = self.sceneRect()
        if rect.isEmpty():
            return
        self.resetTransform()
        view = self.viewport().rect()
        scale = min(view.width() / rect.width(), view.height() / rect.height(), 1.0)
        if 0 < scale < 1.0:
            self.scale(scale, scale)
        self.centerOn(rect.center())

    def resizeEvent(self, event):
        super().resizeEvent(event)
        if self.features or self.sizes:
            self._build()  # the circles and gaps follow the room; the text keeps its size
        self.fit()

    def changeEvent(self, event):
        super().changeEvent(event)
        if event.type() == QEvent.FontChange and (self.features or self.sizes):
            self._build()  # the presenter scale changed the text size

    def item_pos(self, key):
        """Where an item is, in viewport coordinates (for tests)."""
        item = self.neurons.get(key) or self.edges.get(key)
        if isinstance(item, QGraphicsPathItem):
            return self.mapFromScene(item.path().pointAtPercent(0.3))
        return self.mapFromScene(item.scenePos())


def _style_keys(w):
    """What each edge's look depends on, as one integer per weight: the sign and the quantised
    size (the levels of _edge_pen); nan (no value yet) differs from every weight."""
    w = np.asarray(w, dtype=float)
    level = np.round(np.minimum(np.abs(np.nan_to_num(w, nan=0.0)), 4.0) * 6)
    key = np.sign(np.nan_to_num(w, nan=0.0)) * 100 + level
    return np.where(np.isnan(w), -1000.0, key)
