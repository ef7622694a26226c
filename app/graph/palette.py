"""The palette dock: every part a graph can be built from, to drag onto the canvas.

Three shelves -- Leaves (Input, Constant), Operations (one tile per primitive
op of the engine) and Blocks (Neuron, Layer) -- of tiles drawn like the canvas
draws them (an op as a circle with its symbol, a leaf as a record). Drag a
tile onto the canvas to add it where it is dropped, onto a wire to insert it
there; double-click a tile (or press Enter) to add it in the middle of the
view. A search box filters the shelves. Below them, the options of the parts
that take any: the exponent k of pow; the inputs, neurons and activation of a
block, and whether a block reads the selected nodes.

A drag carries `PALETTE_MIME`: JSON of the entry's key and the options at the
time of the drag ({"key": "neuron", "nin": 2, "activation": "tanh", ...}). The
palette itself never touches the document; the builder does, with commands.
"""

import json

from PySide6.QtCore import QMimeData, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QListWidgetItem,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.graph.view import PALETTE_MIME
from core.document.blocks import CATALOGUE, MAX_BLOCK_INPUTS, MAX_LAYER_NEURONS, search
from core.nn import ACTIVATIONS

SECTIONS = ("Leaves", "Operations", "Blocks")
TILE = QSize(78, 58)


def entry_icon(entry, theme):
    """A small picture of the part, drawn with the canvas's colours."""
    w, h, dpr = 60, 34, 2
    pix = QPixmap(w * dpr, h * dpr)
    pix.setDevicePixelRatio(dpr)
    pix.fill(Qt.transparent)
    p = QPainter(pix)
    p.setRenderHint(QPainter.Antialiasing)
    font = theme.font("op")
    p.setFont(font)
    if entry.section == "Operations":
        d = 30
        rect = QRectF((w - max(d, len(entry.symbol) * 8 + 10)) / 2, 2, max(d, len(entry.symbol) * 8 + 10), d)
        p.setPen(QPen(theme.color("op_border"), 1.3))
        p.setBrush(theme.color("op_fill"))
        p.drawRoundedRect(rect, d / 2, d / 2)
        p.setPen(theme.color("op_text"))
        p.drawText(rect, Qt.AlignCenter, entry.symbol)
    else:
        rect = QRectF(3, 5, w - 6, h - 10)
        fill = theme.color("node_fill") if entry.section == "Leaves" else QColor(theme.color("selection"))
        if entry.section == "Blocks":
            fill.setAlpha(40)
        p.setPen(
            QPen(
                theme.color("node_border") if entry.section == "Leaves" else theme.color("selection"),
                1.3,
                Qt.SolidLine if entry.section == "Leaves" else Qt.DashLine,
            )
        )
        p.setBrush(fill)
        p.drawRoundedRect(rect, 5, 5)
        p.setPen(theme.color("label_text"))
        p.drawText(rect, Qt.AlignCenter, entry.symbol)
    p.end()
    return QIcon(pix)


class PaletteShelf(QListWidget):
    """One shelf of tiles; a drag carries the entry and the panel's current options."""

    def __init__(self, panel):
        super().__init__()
        self._panel = panel
        self.setViewMode(QListView.IconMode)
        self.setMovement(QListView.Static)
        self.setResizeMode(QListView.Adjust)
        self.setWrapping(True)
        self.setGridSize(TILE)
        self.setIconSize(QSize(60, 34))
        self.setWordWrap(True)
        self.setSpacing(0)
        self.setUniformItemSizes(True)
        self.setDragEnabled(True)
        self.setDragDropMode(QAbstractItemView.DragOnly)
        self.setSelectionMode(QAbstractItemView.SingleSelection)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setFrameShape(QListWidget.NoFrame)
        self.setStyleSheet("QListWidget { background: transparent; }")

    def mimeTypes(self):
        return [PALETTE_MIME]

    def mimeData(self, items):
        return self._panel.mime_for(items[0].data(Qt.UserRole)) if items else QMimeData()

    def fit_height(self):
        """As tall as its visible tiles need (the panel scrolls, not the shelf)."""
        visible = sum(1 for i in range(self.count()) if not self.item(i).isHidden())
        per_row = max(1, (self.viewport().width() or 240) // TILE.width())
        rows = (visible + per_row - 1) // per_row
        self.setFixedHeight(max(1, rows) * TILE.height() + 6 if visible else 0)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self.fit_height()


class PalettePanel(QWidget):
    """The dock's widget. `activated(spec)`: add this entry in the middle of the view."""

    activated = Signal(object)

    def __init__(self, theme, options, parent=None):
        super().__init__(parent)
        self.options = options  # shared with the builder (a plain dict)
        scroll = QScrollArea(self)  # the dock may be short: the shelves scroll
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        body = QWidget()
        scroll.setWidget(body)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(4)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Filter parts…")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self.filter)
        layout.addWidget(self.search)
        hint = QLabel("Drag a part onto the canvas (onto a wire to insert it). Tab on the canvas searches.")
        hint.setWordWrap(True)
        hint.setStyleSheet("color: palette(mid); font-size: 11px;")
        layout.addWidget(hint)

        self.shelves, self._headers = {}, {}
        for section in SECTIONS:
            header = QLabel(section.upper())
            header.setStyleSheet(
                "color: palette(mid); font-size: 10px; font-weight: bold; letter-spacing: 1px; margin-top: 4px;"
            )
            shelf = PaletteShelf(self)
            shelf.itemActivated.connect(self._activated)
            for entry in (e for e in CATALOGUE if e.section == section):
                item = QListWidgetItem(entry_icon(entry, theme), entry.title)
                item.setData(Qt.UserRole, entry.key)
                item.setToolTip(f"<b>{entry.title}</b><br>{entry.tip}")
                item.setTextAlignment(Qt.AlignHCenter | Qt.AlignTop)
                shelf.addItem(item)
            layout.addWidget(header)
            layout.addWidget(shelf)
            self.shelves[section], self._headers[section] = shelf, header

        box = QGroupBox("Options")
        form = QFormLayout(box)
        form.setContentsMargins(8, 6, 8, 6)
        self.k_spin = QDoubleSpinBox()
        self.k_spin.setRange(-100, 100)
        self.k_spin.setDecimals(3)
        self.k_spin.setValue(options["k"])
        self.k_spin.valueChanged.connect(lambda v: options.__setitem__("k", float(v)))
        self.nin_spin = QSpinBox()
        self.nin_spin.setRange(1, MAX_BLOCK_INPUTS)
        self.nin_spin.setValue(options["nin"])
        self.nin_spin.valueChanged.connect(lambda v: options.__setitem__("nin", int(v)))
        self.nout_spin = QSpinBox()
        self.nout_spin.setRange(1, MAX_LAYER_NEURONS)
        self.nout_spin.setValue(options["nout"])
        self.nout_spin.valueChanged.connect(lambda v: options.__setitem__("nout", int(v)))
        self.activation = QComboBox()
        self.activation.addItems(ACTIVATIONS)
        self.activation.setCurrentText(options["activation"])
        self.activation.currentTextChanged.connect(lambda t: options.__setitem__("activation", t))
        self.feed = QCheckBox("read the selected nodes")
        self.feed.setToolTip(
            "A block dropped while exactly n nodes are selected reads them (top to bottom) instead of making new inputs"
        )
        self.feed.setChecked(options["feed_selection"])
        self.feed.toggled.connect(lambda on: options.__setitem__("feed_selection", bool(on)))
        form.addRow("pow: k", self.k_spin)
        form.addRow("block inputs n", self.nin_spin)
        form.addRow("layer neurons m", self.nout_spin)
        form.addRow("activation", self.activation)
        form.addRow(self.feed)
        layout.addWidget(box)
        layout.addStretch(1)

    def sizeHint(self):
        return QSize(270, 600)

    def spec_for(self, key):
        spec = {"key": key}
        if key in ("pow", "rpow"):
            spec["k"] = self.options["k"]
        if key in ("neuron", "layer"):
            spec.update(nin=self.options["nin"], activation=self.options["activation"])
            if key == "layer":
                spec["nout"] = self.options["nout"]
        return spec

    def mime_for(self, key):
        """What dragging entry `key` carries."""
        mime = QMimeData()
        mime.setData(PALETTE_MIME, json.dumps(self.spec_for(key)).encode("utf-8"))
        mime.setText(key)
        return mime

    def filter(self, text):
        keys = {entry.key for entry in search(text)}
        for section, shelf in self.shelves.items():
            shown = 0
            for i in range(shelf.count()):
                item = shelf.item(i)
                hidden = item.data(Qt.UserRole) not in keys
                item.setHidden(hidden)
                shown += not hidden
            shelf.setVisible(shown > 0)
            self._headers[section].setVisible(shown > 0)
            shelf.fit_height()

    def visible_keys(self):
        return [
            shelf.item(i).data(Qt.UserRole)
            for shelf in self.shelves.values()
            for i in range(shelf.count())
            if not shelf.item(i).isHidden()
        ]

    def _activated(self, item):
        self.activated.emit(self.spec_for(item.data(Qt.UserRole)))
