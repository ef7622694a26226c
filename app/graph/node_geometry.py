"""Where every part of a node's picture goes, shared by the items and the layout.

A document node is drawn as a compact *record* that reads from the back of a
classroom: its name on top, then its data, then its grad in a cell tinted by
the gradient -- micrograd's `label | data | grad`, stacked so a node is narrow
and its numbers can be large. An op node has a small circle holding the op
symbol in front of its record, so the picture reads like the lecture's
`draw_dot`: operations in circles, values in boxes, wires left to right.

    (×)->+-------------+
         | x·y         |   name: the label, else the formula (core/document/names.py)
         | data 6.0000 |
         | grad 1.0000 |   tinted by the grad
         +-------------+

A node's origin is the centre of its box, which is what the document's `pos`
and the layout's positions mean; the layout needs the box sizes (`node_size`)
before any item exists.

Semantic zoom (app/graph/node_paint.py) keeps the numbers legible as the view
zooms out: below LOD_FULL the captions go and the text grows to fill its row;
below LOD_NUMBERS the name shrinks to a thin strip on top (`compact_rows`) and
data and grad share the rest of the record, each row taller than at full size;
below LOD_TEXT a node is a block tinted by its grad.
"""

import math

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainterPath

from core.document.graph import op_symbol

LOD_FULL = 0.75  # zoom x scale from which a node shows everything at its own size
LOD_NUMBERS = 0.62  # below this, a thin name strip, data and grad filling the rest of the record
LOD_FIT = 0.6  # fit() never zooms out further: compact nodes keep their digits >= 11 px there
NAME_STRIP = 0.26  # of the record's height, the name's share in a compact node (numbers: 0.37 each)
LOD_TEXT = 0.3  # below this zoom level a node is a coloured block without text
LOD_BLOCK = 0.12  # below this, a flat rectangle without border
PORT_ANGLE = math.radians(38.0)  # where ports 0 and 1 meet a binary op's circle
NODE_Z, EDGE_Z, EDGE_HIGHLIGHT_Z, NODE_SELECTED_Z = 1.0, 0.0, 0.5, 2.0
# Saved in a file's meta as "canvas": the node boxes its positions were made for. A file
# without it (older, or from another tool) whose boxes now overlap is arranged again on
# open; one with it keeps its positions as its author saw them, overlaps and all.
CANVAS_VERSION = 2


class NodeGeometry:
    """Where every part of a node's picture goes, in item coordinates (centre 0, 0)."""

    __slots__ = (
        "width",
        "height",
        "circle",
        "record",
        "label_rect",
        "data_rect",
        "grad_rect",
        "tag_rect",
        "op_text",
        "bounds",
        "corner",
        "scale",
        "_paths",
    )

    def __init__(self, theme, kind, op_text, name_w, data_text="", grad_text="", is_output=False):
        """name_w: the width the name row's text needs (`name_text`); nodes whose
        names need the same width share one geometry (most of a traced MLP)."""
        pad = theme.length("pad")
        name_h, number_h = theme.length("name_row"), theme.length("number_row")
        h = name_h + 2 * number_h
        number_w = self._number_width(theme, data_text, grad_text)
        record_w = 2 * pad + max(name_w, number_w)

        left = 0.0
        self.op_text = op_text
        circle_w = 0.0
        if op_text is not None:
            d = theme.length("op_diameter")
            text_w = theme.text_width("op", op_text)
            circle_w = max(d, text_w + 16 * theme.scale)
            left = circle_w + theme.length("op_gap")
        tag_w = tag_gap = 0.0
        if is_output:
            tag_w = theme.text_width("caption", "output") + 14 * theme.scale
            tag_gap = 7 * theme.scale
        total_w = left + record_w + tag_w + tag_gap

        x0 = -total_w / 2
        self.width, self.height = total_w, h
        if op_text is not None:
            d = theme.length("op_diameter")
            self.circle = QRectF(x0, -d / 2, circle_w, d)
        else:
            self.circle = None
        rx, top = x0 + left, -h / 2
        self.record = QRectF(rx, top, record_w, h)
        self.label_rect = QRectF(rx, top, record_w, name_h)
        self.data_rect = QRectF(rx, top + name_h, record_w, number_h)
        self.grad_rect = QRectF(rx, top + name_h + number_h, record_w, number_h)
        self.tag_rect = None
        if is_output:
            th = 18 * theme.scale
            self.tag_rect = QRectF(self.record.right() + tag_gap, -th / 2, tag_w, th)
        self.corner = theme.length("corner")
        self.scale = theme.scale
        self._paths = None
        m = theme.length("margin")
        self.bounds = QRectF(x0 - m, top - m, total_w + 2 * m, h + 2 * m)

    @staticmethod
    def _number_width(theme, data_text, grad_text):
        """Caption plus the wider number (at least the template's width)."""
        cells = theme.cache("number widths")  # most nodes hold short numbers: texts are ""
        key = (data_text, grad_text)
        width = cells.get(key)
        if width is None:
            # a number as wide as the template fits beside 'data' with 6 px to spare; a
            # longer one (2.850e-07) also needs the grad row's coloured edge (node_paint's
            # _before_edge) and a gap: without them it ran into its caption, 'grad2.850e-07'
            caption = theme.text_width("caption", "data") + 6 * theme.scale
            width = caption + theme.text_width("number", theme.metrics.number_template)
            longest = max((theme.text_width("number", t) for t in key if t), default=0.0)
            if longest:
                captions = max(theme.text_width("caption", "data"), theme.text_width("caption", "grad"))
                width = max(width, captions + 10 * theme.scale + longest)
            cells[key] = width
        return width

    def record_path(self):
        """The record's rounded outline, and clipped to it: its grad cell, its status
        stripe and its lower half (made once)."""
        paths = getattr(self, "_paths", None)
        if paths is None:
            corner = self.corner
            record = QPainterPath()
            record.addRoundedRect(self.record, corner, corner)
            cell = QPainterPath()
            cell.addRect(self.grad_rect)
            stripe = QPainterPath()
            stripe.addRect(QRectF(self.record.left(), self.record.top(), 5 * self.scale, self.record.height()))
            half = QPainterPath()  # where the grad goes in a compact node (zoomed out)
            half.addRect(self.compact_rows()[2])
            paths = self._paths = (
                record,
                record.intersected(cell),
                record.intersected(stripe),
                record.intersected(half),
            )
        return paths

    def compact_rows(self):
        """(name, data, grad) rows of a compact node (below LOD_NUMBERS): the name in a thin
        strip on top, so a zoomed-out graph still says which node is which, and the
        numbers in two rows a little taller than at full size, where their digits grow."""
        r = self.record
        strip = r.height() * NAME_STRIP
        row = (r.height() - strip) / 2
        return (
            QRectF(r.left(), r.top(), r.width(), strip),
            QRectF(r.left(), r.top() + strip, r.width(), row),
            QRectF(r.left(), r.top() + strip + row, r.width(), row),
        )


def name_text(theme, kind, name):
    """(text drawn in the name row, the width it needs): the name, elided to
    label_max; a constant without a label shows the caption 'const'."""
    texts = theme.cache("name texts")
    found = texts.get((kind, name))
    if found is None:
        pad = theme.length("pad")
        if name:
            fm = theme.font_metrics("label")
            # the middle goes: a long path (n.layers[2].neurons[0].w[1]) keeps its ends, which tell nodes apart
            text = fm.elidedText(name, Qt.ElideMiddle, theme.length("label_max") - 2 * pad)
            width = max(fm.horizontalAdvance(text), theme.length("label_min"))
        else:
            text, width = "", (theme.text_width("caption", "const") if kind == "const" else 0.0)
        found = texts[(kind, name)] = (text, math.ceil(width))
    return found


def geometry_for(theme, kind, op_text, label, data_text="", grad_text="", is_output=False):
    """A shared NodeGeometry: nodes that look alike (most of a traced MLP) share one.
    `label` is the name the node shows; only the width it needs enters the geometry."""
    n = len(theme.metrics.number_template)
    name_w = name_text(theme, kind, label)[1]
    key = (
        kind,
        op_text,
        name_w,
        data_text if len(data_text) >= n else "",
        grad_text if len(grad_text) >= n else "",
        is_output,
    )
    cache = theme.cache("geometry")
    g = cache.get(key)
    if g is None:
        g = cache[key] = NodeGeometry(theme, kind, op_text, name_w, key[3], key[4], is_output)
    return g


def node_size(theme, node, is_output=False, name=None):
    """(width, height) of a document node's box, for the layout; `name` is what its
    name row shows (core/document/names.py), the label when not given."""
    g = geometry_for(theme, node.kind, _op_text(node), node.label if name is None else name, is_output=is_output)
    return g.width, g.height


def _op_text(node):
    return op_symbol(node.op, node.param) if node.kind == "op" else None
