"""Where every part of a node's picture goes, shared by the items and the layout.

A document node is drawn as a micrograd-style *record* -- `label | data | grad`
-- and an op node additionally as a small circle holding the op symbol that
feeds its record. A node's origin is the centre of its box, which is what the
document's `pos` and the layout's positions mean; the layout needs the box
sizes (`node_size`) before any item exists.
"""

import math

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainterPath

from core.document.graph import op_symbol

LOD_TEXT = 0.42     # below this zoom level a node is a coloured block without text
LOD_BLOCK = 0.12    # below this, a flat rectangle without border
PORT_ANGLE = math.radians(38.0)   # where ports 0 and 1 meet a binary op's circle
NODE_Z, EDGE_Z, EDGE_HIGHLIGHT_Z, NODE_SELECTED_Z = 1.0, 0.0, 0.5, 2.0


class NodeGeometry:
    """Where every part of a node's picture goes, in item coordinates (centre 0, 0)."""

    __slots__ = ("width", "height", "circle", "record", "label_rect", "data_rect", "grad_rect",
                 "tag_rect", "label_text", "op_text", "bounds", "corner", "scale", "_paths")

    def __init__(self, theme, kind, op_text, label, data_text="", grad_text="",
                 is_output=False):
        pad = theme.length("pad")
        h = theme.length("record_height")
        label_w = 0.0
        label_text = label
        if label:
            fm = theme.font_metrics("label")
            max_text = theme.length("label_max") - 2 * pad
            label_text = fm.elidedText(label, Qt.ElideRight, max_text)
            label_w = fm.horizontalAdvance(label_text) + 2 * pad
            label_w = max(label_w, theme.length("label_min"))
        elif kind == "const":
            label_w = theme.text_width("caption", "const") + 2 * pad
        data_w = self._number_cell(theme, data_text)
        grad_w = self._number_cell(theme, grad_text)
        record_w = label_w + data_w + grad_w

        left = 0.0
        self.op_text = op_text
        circle_w = 0.0
        if op_text is not None:
            d = theme.length("op_diameter")
            text_w = theme.text_width("op", op_text)
            circle_w = max(d, text_w + 16 * theme.scale)
            left = circle_w + theme.length("op_gap")
        tag_w = 0.0
        if is_output:
            tag_w = theme.text_width("caption", "output") + 14 * theme.scale
            tag_gap = 7 * theme.scale
        total_w = left + record_w + (tag_w + tag_gap if is_output else 0.0)

        x0 = -total_w / 2
        self.width, self.height = total_w, h
        if op_text is not None:
            d = theme.length("op_diameter")
            self.circle = QRectF(x0, -d / 2, circle_w, d)
        else:
            self.circle = None
        rx = x0 + left
        self.record = QRectF(rx, -h / 2, record_w, h)
        self.label_rect = QRectF(rx, -h / 2, label_w, h)
        self.data_rect = QRectF(rx + label_w, -h / 2, data_w, h)
        self.grad_rect = QRectF(rx + label_w + data_w, -h / 2, grad_w, h)
        self.tag_rect = None
        if is_output:
            th = 18 * theme.scale
            self.tag_rect = QRectF(self.record.right() + tag_gap, -th / 2, tag_w, th)
        self.label_text = label_text
        self.corner = theme.length("corner")
        self.scale = theme.scale
        self._paths = None
        m = theme.length("margin")
        self.bounds = QRectF(x0 - m, -h / 2 - m, total_w + 2 * m, h + 2 * m)

    @staticmethod
    def _number_cell(theme, text):
        cells = theme.cache("number cells")   # most cells hold short numbers: text is ""
        width = cells.get(text)
        if width is None:
            pad = theme.length("pad")
            caption = theme.text_width("caption", "data") + 5 * theme.scale
            template = theme.text_width("number", theme.metrics.number_template)
            actual = theme.text_width("number", text) if text else 0.0
            width = cells[text] = 2 * pad + caption + max(template, actual)
        return width

    def record_path(self):
        """The record's rounded outline and its grad cell clipped to it (made once)."""
        paths = getattr(self, "_paths", None)
        if paths is None:
            corner = self.corner
            record = QPainterPath()
            record.addRoundedRect(self.record, corner, corner)
            cell = QPainterPath()
            cell.addRect(self.grad_rect)
            stripe = QPainterPath()
            stripe.addRect(QRectF(self.record.left(), self.record.top(), 5 * self.scale,
                                  self.record.height()))
            paths = self._paths = (record, record.intersected(cell), record.intersected(stripe))
        return paths


def geometry_for(theme, kind, op_text, label, data_text="", grad_text="", is_output=False):
    """A shared NodeGeometry: nodes that look alike (most of a traced MLP) share one."""
    n = len(theme.metrics.number_template)
    key = (kind, op_text, label, data_text if len(data_text) > n else "",
           grad_text if len(grad_text) > n else "", is_output)
    cache = theme.cache("geometry")
    g = cache.get(key)
    if g is None:
        g = cache[key] = NodeGeometry(theme, kind, op_text, label, key[3], key[4], is_output)
    return g


def node_size(theme, node, is_output=False):
    """(width, height) of a document node's box, for the layout."""
    g = geometry_for(theme, node.kind, _op_text(node), node.label, is_output=is_output)
    return g.width, g.height


def _op_text(node):
    return op_symbol(node.op, node.param) if node.kind == "op" else None
