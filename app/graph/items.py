"""What one node and one wire of the graph look like on the canvas.

A document node is drawn as a micrograd-style *record* -- `label | data | grad`
-- and an op node additionally as a small circle holding the op symbol that
feeds its record, so the picture reads like the lecture's `draw_dot`: values in
boxes, operations in circles, wires left to right.

* the grad cell is tinted by the sign and size of the gradient (theme.py);
* inf/nan in data or grad: red border and a '!' badge;
* an op input with no wire: a hollow red port on the circle, dashed outline;
* the output node: a dark border and an `output` tag;
* the debugger can add a status stripe (untouched / partial / final) and a
  highlight glow, and highlight wires (`EdgeItem.set_highlighted`).

Items hold presentation only: the numbers come from the compiled Values the
scene hands them, the position from the document. Every colour, font and
length comes from the scene's `Theme`. A node item's origin is the centre of
its box, which is what the document's `pos` and the layout's positions mean.
"""

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem, QStyleOptionGraphicsItem

from app.graph.ports import paint_ports
from app.theme import format_number
from core.graphdoc import OPS, op_symbol

LOD_TEXT = 0.42     # below this zoom level a node is a coloured block without text
LOD_BLOCK = 0.12    # below this, a flat rectangle without border
PORT_ANGLE = math.radians(38.0)   # where ports 0 and 1 meet a binary op's circle
_ALIGN_LEFT = Qt.AlignLeft | Qt.AlignVCenter
_ALIGN_RIGHT = Qt.AlignRight | Qt.AlignVCenter
_ALIGN_CENTER = Qt.AlignCenter
NODE_Z, EDGE_Z, EDGE_HIGHLIGHT_Z, NODE_SELECTED_Z = 1.0, 0.0, 0.5, 2.0


# -----------------------------------------------------------------------------
# Geometry, shared by the items and by the layout (which needs box sizes first)

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
        pad = theme.length("pad")
        caption = theme.text_width("caption", "data") + 5 * theme.scale
        template = theme.text_width("number", theme.metrics.number_template)
        actual = theme.text_width("number", text) if text else 0.0
        return 2 * pad + caption + max(template, actual)

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


# -----------------------------------------------------------------------------
# Node

class NodeItem(QGraphicsItem):
    """One document node: record (and op circle), numbers from its compiled Value."""

    # Debugger marks (class defaults, so a plain node carries none). Set through
    # the scene's debugger hooks: set_debug_marks, set_breakpoint_marks, update_masks.
    debug_mark = None   # None | 'current' (its _backward runs) | 'target' (its grad changes)
    debug_tag = ""      # a chip above the record, e.g. '+= 3.0000'
    breakpoint = False  # a red dot at the top-left corner
    data_mask = None    # shown instead of the data text ('?' while forward-stepping)
    grad_mask = None    # shown instead of the grad text ('?' in a quiz, '' before backward)
    dimmed = False      # drawn faded: not computed yet in the forward pass

    def __init__(self, theme, node):
        super().__init__()
        self.nid = node.id
        self.theme = theme
        self.kind = node.kind
        self.op = node.op
        self.param = node.param
        self.label = node.label
        self.data = None
        self.grad = None
        self.grad_max = 0.0
        self.data_text = "—"
        self.grad_text = "—"
        self.is_output = False
        self.missing_ports = ()
        self.nonfinite = False
        self.status = None
        self.highlighted = False
        self.edges_in = []
        self.edges_out = []
        self._geometry = None
        self._relayout()
        self.setFlags(QGraphicsItem.ItemIsSelectable | QGraphicsItem.ItemIsMovable)
        self.setCacheMode(QGraphicsItem.DeviceCoordinateCache)
        self.setZValue(NODE_Z)

    # -- state from the document / compiled values ------------------------------

    def signature(self):
        return (self.kind, self.op, self.param, self.label)

    def set_node(self, node):
        """The document node changed kind, op, param or label."""
        self.kind, self.op, self.param, self.label = node.kind, node.op, node.param, node.label
        self._relayout()
        self.update()

    def set_theme(self, theme):
        self.theme = theme
        self._relayout()
        self.update()

    def set_numbers(self, data, grad, grad_max):
        """New data/grad (None when the node could not be computed); True if it changed."""
        data_text, grad_text = format_number(data), format_number(grad)
        nonfinite = (data is not None and not math.isfinite(data)) or \
                    (grad is not None and not math.isfinite(grad))
        if (data_text, grad_text, nonfinite) == (self.data_text, self.grad_text, self.nonfinite) \
                and grad_max == self.grad_max and grad == self.grad:
            return False
        wider = len(data_text) > len(self.data_text) or len(grad_text) > len(self.grad_text)
        self.data, self.grad, self.grad_max = data, grad, grad_max
        self.data_text, self.grad_text, self.nonfinite = data_text, grad_text, nonfinite
        if wider and max(len(data_text), len(grad_text)) > len(self.theme.metrics.number_template):
            self._relayout()
        self.update()
        return True

    def set_flags(self, is_output, missing_ports):
        missing_ports = tuple(missing_ports)
        if (is_output, missing_ports) == (self.is_output, self.missing_ports):
            return False
        relayout = is_output != self.is_output
        self.is_output, self.missing_ports = is_output, missing_ports
        if relayout:
            self._relayout()
        self.update()
        return True

    def set_status(self, status):
        """Debugger status: None, 'untouched', 'partial', 'final', or any QColor."""
        if status != self.status:
            self.status = status
            self.update()

    def set_highlighted(self, on):
        if on != self.highlighted:
            self.highlighted = on
            self.update()

    def set_debug(self, mark=None, tag=""):
        """The debugger's mark: None, 'current' or 'target', with an optional chip text."""
        if (mark, tag) == (self.debug_mark, self.debug_tag):
            return
        if bool(tag) != bool(self.debug_tag):
            self.prepareGeometryChange()   # the chip sits above the usual bounds
        self.debug_mark, self.debug_tag = mark, tag
        self.update()

    def set_breakpoint(self, on):
        if on != self.breakpoint:
            self.breakpoint = on
            self.update()

    def set_masks(self, data=None, grad=None, dimmed=False):
        """Texts shown instead of data / grad (None: the real number), and a faded look."""
        if (data, grad, dimmed) != (self.data_mask, self.grad_mask, self.dimmed):
            self.data_mask, self.grad_mask, self.dimmed = data, grad, dimmed
            self.update()

    def texts(self):
        """(label, data text, grad text) as drawn -- what a test or a screen reader reads."""
        data = self.data_text if self.data_mask is None else self.data_mask
        grad = self.grad_text if self.grad_mask is None else self.grad_mask
        return self.label, data, grad

    def tooltip(self):
        what = self.kind if self.kind != "op" else f"op {self.op}"
        name = self.label or self.nid
        lines = [f"{name}  ({what}, {self.nid})", f"data {self.data_text}", f"grad {self.grad_text}"]
        if self.nonfinite:
            lines.append("! not a finite number (inf or nan)")
        if self.missing_ports:
            lines.append("missing input on port " + ", ".join(str(p) for p in self.missing_ports))
        if self.is_output:
            lines.append("output: its grad is 1 in the backward pass")
        if self.breakpoint:
            lines.append("breakpoint: a debugger run stops before its _backward (F9 toggles)")
        return "\n".join(lines)

    # -- geometry ----------------------------------------------------------------

    def _relayout(self):
        g = geometry_for(self.theme, self.kind, op_symbol(self.op, self.param)
                         if self.kind == "op" else None, self.label, self.data_text,
                         self.grad_text, self.is_output)
        if self._geometry is not None:
            self.prepareGeometryChange()
        self._geometry = g
        for edge in self.edges_in:
            edge.update_path()
        for edge in self.edges_out:
            edge.update_path()

    @property
    def geometry(self):
        return self._geometry

    def boundingRect(self):
        if self.debug_tag:
            return self._geometry.bounds.adjusted(0, -self._tag_room(), 0, 0)
        return self._geometry.bounds

    def _tag_room(self):
        return 24.0 * self.theme.scale

    def shape(self):
        path = QPainterPath()
        g = self._geometry
        path.addRect(g.record)
        if g.circle is not None:
            path.addEllipse(g.circle)
        return path

    def box_rect(self):
        """The node's box (no margins) in scene coordinates."""
        g = self._geometry
        p = self.pos()
        return QRectF(p.x() - g.width / 2, p.y() - g.height / 2, g.width, g.height)

    def out_point(self):
        """Scene point where wires leave: the middle of the record's right side."""
        p = self.pos()
        return QPointF(p.x() + self._geometry.record.right(), p.y())

    def port_point(self, port):
        """Scene point where the wire into input `port` meets the op circle."""
        p = self.pos()
        x, y = self._port_local(port)
        return QPointF(p.x() + x, p.y() + y)

    def _port_local(self, port):
        c = self._geometry.circle
        if c is None:  # not an op: wires end at the record's left side
            return self._geometry.record.left(), 0.0
        r = c.height() / 2
        cx = c.left() + r
        if self.kind == "op" and _arity(self.op) == 2:
            a = -PORT_ANGLE if port == 0 else PORT_ANGLE
            return cx - r * math.cos(a), r * math.sin(a)
        return c.left(), 0.0

    def moved(self):
        """The item was dragged: its wires follow and lose their layout bends."""
        for edge in self.edges_in:
            edge.route = None
            edge.update_path()
        for edge in self.edges_out:
            edge.route = None
            edge.update_path()

    # -- painting ----------------------------------------------------------------

    def paint(self, painter, option, widget=None):
        theme, g = self.theme, self._geometry
        # how large the text really is on screen: the zoom times the theme's scale
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform()) * theme.scale
        selected = self.isSelected()
        if lod < LOD_TEXT:
            self._paint_block(painter, theme, g, selected, lod)
            return
        s = theme.scale

        if self.dimmed:
            painter.setOpacity(0.42)
        # halos first, so borders stay crisp on top of them
        if self.debug_mark == "current":
            self._halo(painter, g, theme.color("highlight"), 12 * s, 210)
        if self.highlighted:
            self._halo(painter, g, theme.color("highlight"), 9 * s, 150)
        if selected:
            self._halo(painter, g, theme.color("selection"), 7 * s, 70)

        if g.circle is not None:
            self._paint_op(painter, theme, g, s)

        # the record
        border = theme.color("node_border")
        width = 1.0 * s
        if self.is_output:
            border, width = theme.color("output"), 2.0 * s
        if self.nonfinite:
            border, width = theme.color("nonfinite"), 2.2 * s
        if selected:
            border, width = theme.color("selection"), 2.2 * s
        record, grad_cell, stripe = g.record_path()
        painter.setPen(Qt.NoPen)
        painter.setBrush(theme.color("node_fill"))
        painter.drawPath(record)

        grad_fill = theme.grad_color(self.grad if self.grad is not None else 0.0, self.grad_max)
        painter.setBrush(grad_fill)
        painter.drawPath(grad_cell)

        if self.status is not None:
            painter.setBrush(theme.status_color(self.status))
            painter.drawPath(stripe)

        painter.setPen(QPen(theme.color("divider"), 1.0 * s))
        dividers = (g.data_rect.left(), g.grad_rect.left()) if g.label_rect.width() > 0 \
            else (g.grad_rect.left(),)
        for x in dividers:
            painter.drawLine(QPointF(x, g.record.top() + 1), QPointF(x, g.record.bottom() - 1))

        painter.setBrush(Qt.NoBrush)
        painter.setPen(QPen(border, width))
        painter.drawPath(record)

        # texts
        pad = theme.length("pad")
        if g.label_text:
            painter.setFont(theme.font("label"))
            painter.setPen(theme.color("label_text"))
            painter.drawText(g.label_rect.adjusted(pad, 0, -pad + 1, 0), _ALIGN_CENTER, g.label_text)
        elif self.kind == "const":
            painter.setFont(theme.font("caption"))
            painter.setPen(theme.color("caption_text"))
            painter.drawText(g.label_rect, _ALIGN_CENTER, "const")
        _label, data_text, grad_text = self.texts()
        self._paint_number(painter, theme, g.data_rect, "data", data_text,
                           theme.color("number_text"), theme.color("caption_text"), pad)
        on_grad = theme.text_on(grad_fill)
        caption = QColor(on_grad)
        caption.setAlpha(170)
        self._paint_number(painter, theme, g.grad_rect, "grad", grad_text, on_grad, caption, pad)
        if self.debug_mark == "target":   # the cell this step's += writes into
            painter.setPen(QPen(theme.color("highlight"), 3.0 * s))
            painter.setBrush(Qt.NoBrush)
            painter.drawRect(g.grad_rect.adjusted(1.5 * s, 1.5 * s, -1.5 * s, -1.5 * s))

        if self.nonfinite:
            self._paint_badge(painter, theme, g, s)
        if g.tag_rect is not None:
            painter.setPen(Qt.NoPen)
            painter.setBrush(theme.color("output"))
            r = g.tag_rect.height() / 2
            painter.drawRoundedRect(g.tag_rect, r, r)
            painter.setPen(theme.color("output_text"))
            painter.setFont(theme.font("caption"))
            painter.drawText(g.tag_rect, _ALIGN_CENTER, "output")
        if self.debug_tag:
            self._paint_debug_tag(painter, theme, g, s)
        if self.breakpoint:
            self._paint_breakpoint(painter, theme, g, s)
        paint_ports(painter, self, theme, s)

    def _paint_debug_tag(self, painter, theme, g, s):
        """A yellow chip above the record: what the debugger step does here."""
        painter.setOpacity(1.0)
        font = theme.font("number")
        painter.setFont(font)
        w = theme.text_width("number", self.debug_tag) + 14 * s
        h = 19 * s
        anchor = g.grad_rect if self.debug_mark == "target" else g.record
        x = min(max(anchor.center().x() - w / 2, g.bounds.left()), g.bounds.right() - w)
        chip = QRectF(x, g.record.top() - h - 3 * s, w, h)
        painter.setPen(QPen(theme.color("node_border"), 1.0 * s))
        painter.setBrush(theme.color("highlight"))
        painter.drawRoundedRect(chip, h / 2, h / 2)
        painter.setPen(theme.text_on(theme.color("highlight")))
        painter.drawText(chip, _ALIGN_CENTER, self.debug_tag)

    def _paint_breakpoint(self, painter, theme, g, s):
        painter.setOpacity(1.0)
        left = g.circle.left() if g.circle is not None else g.record.left()
        r = 6.5 * s
        painter.setPen(QPen(theme.color("node_fill"), 1.5 * s))
        painter.setBrush(theme.color("nonfinite"))
        painter.drawEllipse(QPointF(left + 1.5 * s, g.record.top() + 1.5 * s), r, r)

    def _paint_number(self, painter, theme, rect, caption, text, color, caption_color, pad):
        painter.setFont(theme.font("caption"))
        painter.setPen(caption_color)
        painter.drawText(rect.adjusted(pad, 0, 0, 0), _ALIGN_LEFT, caption)
        painter.setFont(theme.font("number"))
        painter.setPen(color)
        painter.drawText(rect.adjusted(0, 0, -pad, 0), _ALIGN_RIGHT, text)

    def _paint_op(self, painter, theme, g, s):
        c = g.circle
        r = c.height() / 2
        # connector from the circle to its record, with a small arrow head
        painter.setPen(QPen(theme.color("edge"), 1.4 * s))
        y = 0.0
        x1 = g.record.left() - 1.5 * s
        painter.drawLine(QPointF(c.right(), y), QPointF(x1, y))
        a = 4.5 * s
        painter.drawLine(QPointF(x1 - a, y - a * 0.8), QPointF(x1, y))
        painter.drawLine(QPointF(x1 - a, y + a * 0.8), QPointF(x1, y))
        missing = bool(self.missing_ports)
        pen = QPen(theme.color("missing") if missing else theme.color("op_border"),
                   (1.8 if missing else 1.2) * s)
        if missing:
            pen.setStyle(Qt.DashLine)
        if self.isSelected():
            pen = QPen(theme.color("selection"), 2.2 * s)
        painter.setPen(pen)
        painter.setBrush(theme.color("op_fill"))
        painter.drawRoundedRect(c, r, r)
        painter.setFont(theme.font("op"))
        painter.setPen(theme.color("op_text"))
        painter.drawText(c, _ALIGN_CENTER, g.op_text)
        if missing:
            painter.setPen(QPen(theme.color("missing"), 1.8 * s))
            painter.setBrush(theme.color("node_fill"))
            for port in self.missing_ports:
                x, yy = self._port_local(port)
                painter.drawEllipse(QPointF(x, yy), 4.0 * s, 4.0 * s)

    def _paint_badge(self, painter, theme, g, s):
        r = 8.0 * s
        centre = QPointF(g.record.right() - 2 * s, g.record.top() + 1 * s)
        painter.setPen(QPen(theme.color("node_fill"), 1.5 * s))
        painter.setBrush(theme.color("nonfinite"))
        painter.drawEllipse(centre, r, r)
        painter.setPen(QColor("#ffffff"))
        painter.setFont(theme.font("label"))
        painter.drawText(QRectF(centre.x() - r, centre.y() - r, 2 * r, 2 * r), _ALIGN_CENTER, "!")

    def _halo(self, painter, g, color, width, alpha):
        c = QColor(color)
        c.setAlpha(alpha)
        painter.setPen(QPen(c, width, Qt.SolidLine, Qt.RoundCap, Qt.RoundJoin))
        painter.setBrush(Qt.NoBrush)
        corner = self.theme.length("corner")
        painter.drawRoundedRect(g.record, corner, corner)
        if g.circle is not None:
            r = g.circle.height() / 2
            painter.drawRoundedRect(g.circle, r, r)

    def _paint_block(self, painter, theme, g, selected, lod):
        """Far zoom: no text, the record filled with its grad colour (a heat map)."""
        fill = theme.grad_color(self.grad if self.grad is not None else 0.0, self.grad_max)
        if fill == theme.color("grad_zero"):
            fill = theme.color("node_fill")
        if self.nonfinite:
            fill = theme.color("nonfinite")
        if self.highlighted or self.debug_mark is not None:
            fill = theme.color("highlight")
        if self.dimmed:
            painter.setOpacity(0.42)
        if lod < LOD_BLOCK and not selected:
            painter.fillRect(g.record, fill)
            if g.circle is not None:
                painter.fillRect(g.circle, theme.color("op_border"))
            return
        border = theme.color("selection") if selected else (
            theme.color("output") if self.is_output else theme.color("node_border"))
        painter.setPen(QPen(border, (6.0 if selected else 1.5) / max(lod, 0.05) * 0.5))
        painter.setBrush(fill)
        painter.drawRect(g.record)
        if g.circle is not None:
            painter.setBrush(theme.color("op_border") if not self.missing_ports
                             else theme.color("missing"))
            painter.drawEllipse(g.circle)


def _arity(op):
    return OPS[op][0] if op in OPS else 1


# -----------------------------------------------------------------------------
# Wire

class EdgeItem(QGraphicsPathItem):
    """A wire from src's record to input `port` of dst's op circle.

    A smooth left-to-right curve (horizontal tangents at both ends); when the
    layout routed a long wire through bend points, the curve passes through
    them. `a*a` is two EdgeItems, one per port.
    """

    # A GroupItem (app/graph/groups.py) when that end sits inside a collapsed
    # group: the wire then ends at the group box's port instead.
    src_anchor = None
    dst_anchor = None

    def __init__(self, theme, src_item, dst_item, port, route=None):
        super().__init__()
        self.theme = theme
        self.src_item, self.dst_item, self.port = src_item, dst_item, port
        self.route = route          # [(x, y)] bend points, dropped when an end moves
        self.highlighted = False
        self.setZValue(EDGE_Z)
        self.setAcceptedMouseButtons(Qt.NoButton)
        self.setFlag(QGraphicsItem.ItemIsSelectable, False)
        self._apply_pen()
        src_item.edges_out.append(self)
        dst_item.edges_in.append(self)
        self.update_path()

    @property
    def edge(self):
        return (self.src_item.nid, self.dst_item.nid, self.port)

    def detach(self):
        if self in self.src_item.edges_out:
            self.src_item.edges_out.remove(self)
        if self in self.dst_item.edges_in:
            self.dst_item.edges_in.remove(self)

    def set_theme(self, theme):
        self.theme = theme
        self._apply_pen()

    def set_highlighted(self, on):
        if on != self.highlighted:
            self.highlighted = on
            self.setZValue(EDGE_HIGHLIGHT_Z if on else EDGE_Z)
            self._apply_pen()

    def _apply_pen(self):
        pens = self.theme.cache("edge pens")
        if not pens:
            s = self.theme.scale
            for key, role, width in (("plain", "edge", 1.4), ("highlight", "highlight", 3.0)):
                pen = QPen(self.theme.color(role), width * s)
                pen.setCapStyle(Qt.RoundCap)
                pen.setJoinStyle(Qt.RoundJoin)
                pens[key] = pen
        self.setPen(pens["highlight" if self.highlighted else "plain"])

    def update_path(self):
        src, dst = self.src_item, self.dst_item
        if self.src_anchor is not None:   # the source is inside a collapsed group
            p0 = self.src_anchor.out_point_for(src.nid)
            x0, y0 = p0.x(), p0.y()
        else:
            x0 = src.x() + src.geometry.record.right()
            y0 = src.y()
        if self.dst_anchor is not None:
            p1 = self.dst_anchor.in_point(dst.nid, self.port)
            x1, y1 = p1.x(), p1.y()
        else:
            px, py = dst._port_local(self.port)
            x1, y1 = dst.x() + px, dst.y() + py
        points = [(x0, y0)]
        if self.route and self.src_anchor is None and self.dst_anchor is None:
            points.extend(self.route)
        points.append((x1, y1))
        path = QPainterPath(QPointF(x0, y0))
        least = 24.0 * self.theme.scale
        for (ax, ay), (bx, by) in zip(points, points[1:]):
            dx = max(abs(bx - ax) * 0.5, least)
            path.cubicTo(ax + dx, ay, bx - dx, by, bx, by)
        # an open arrow head pointing right, into the port
        a = 5.0 * self.theme.scale
        path.moveTo(x1 - a, y1 - a * 0.75)
        path.lineTo(x1, y1)
        path.lineTo(x1 - a, y1 + a * 0.75)
        self.setPath(path)
