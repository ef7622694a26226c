"""What one node of the graph looks like on the canvas.

A document node is drawn as a micrograd-style *record* -- `label | data | grad`
-- and an op node additionally as a small circle holding the op symbol that
feeds its record, so the picture reads like the lecture's `draw_dot`: values in
boxes, operations in circles, wires left to right.

* the grad cell is tinted by the sign and size of the gradient (theme.py);
* inf/nan in data or grad: red border and a '!' badge;
* an op input with no wire: a hollow red port on the circle, dashed outline;
* the output node: a dark border and an `output` tag;
* the debugger can add a status stripe (untouched / partial / final) and a
  highlight glow (wires: app/graph/edge_item.py).

Items hold presentation only: the numbers come from the compiled Values the
scene hands them, the position from the document. Every colour, font and
length comes from the scene's `Theme`. A node item's origin is the centre of
its box, which is what the document's `pos` and the layout's positions mean.

Geometry: app/graph/node_geometry.py; painting: app/graph/node_paint.py.
"""

import math

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QPainterPath
from PySide6.QtWidgets import QGraphicsItem

from app.graph import node_paint
from app.graph.node_geometry import NODE_Z, PORT_ANGLE, geometry_for
from core.document.graph import OPS, op_symbol
from core.format import format_number, full_number

# Qt's enum values looked up once: each lookup (and each `|`) costs microseconds,
# which a 5,000-node graph pays 5,000 times over
_NODE_FLAGS = QGraphicsItem.ItemIsSelectable | QGraphicsItem.ItemIsMovable
_NODE_CACHE = QGraphicsItem.DeviceCoordinateCache


# -----------------------------------------------------------------------------
# Node


class NodeItem(QGraphicsItem):
    """One document node: record (and op circle), numbers from its compiled Value."""

    # Debugger marks (class defaults, so a plain node carries none). Set through
    # the canvas marks' hooks (app/graph/marks.py): set_debug_marks, set_breakpoint_marks, update_masks.
    debug_mark = None  # None | 'current' (its _backward runs) | 'target' (its grad changes)
    debug_tag = ""  # a chip above the record, e.g. '+= 3.0000'
    breakpoint = False  # a red dot at the top-left corner
    data_mask = None  # shown instead of the data text ('?' while forward-stepping)
    grad_mask = None  # shown instead of the grad text ('?' in a quiz, '' before backward)
    dimmed = False  # drawn faded: not computed yet in the forward pass

    def __init__(self, theme, node, is_output=False, missing_ports=(), name=None):
        super().__init__()
        self.nid = node.id
        self.theme = theme
        self.kind = node.kind
        self.op = node.op
        self.param = node.param
        self.label = node.label
        self.name = node.label if name is None else name  # core/document/names.py
        self.data = None
        self.grad = None
        self.grad_max = 0.0
        self.data_text = "—"
        self.grad_text = "—"
        self.is_output = is_output
        self.missing_ports = tuple(missing_ports)
        self.nonfinite = False
        self.status = None
        self.highlighted = False
        self.edges_in = []
        self.edges_out = []
        self._geometry = None
        self._relayout()
        self.setFlags(_NODE_FLAGS)
        self.setCacheMode(_NODE_CACHE)
        self.setZValue(NODE_Z)

    # -- state from the document / compiled values ------------------------------

    def signature(self):
        return (self.kind, self.op, self.param, self.label, self.name)

    def set_node(self, node, name=None):
        """The document node changed kind, op, param, label or name."""
        self.kind, self.op, self.param, self.label = node.kind, node.op, node.param, node.label
        self.name = node.label if name is None else name
        self._relayout()
        self.update()

    def set_theme(self, theme):
        self.theme = theme
        self._relayout()
        self.update()

    def set_numbers(self, data, grad, grad_max):
        """New data/grad (None when the node could not be computed); True if it changed."""
        data_text, grad_text = format_number(data), format_number(grad)
        nonfinite = (data is not None and not math.isfinite(data)) or (grad is not None and not math.isfinite(grad))
        if (
            (data_text, grad_text, nonfinite) == (self.data_text, self.grad_text, self.nonfinite)
            and grad_max == self.grad_max
            and grad == self.grad
        ):
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
            self.prepareGeometryChange()  # the chip sits above the usual bounds
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
        """(name, data text, grad text) as drawn -- what a test or a screen reader reads."""
        data = self.data_text if self.data_mask is None else self.data_mask
        grad = self.grad_text if self.grad_mask is None else self.grad_mask
        return self.name, data, grad

    def tooltip(self):
        what = self.kind if self.kind != "op" else f"op {self.op}"
        data = full_number(self.data) if self.data_mask is None else self.data_mask or "?"
        grad = full_number(self.grad) if self.grad_mask is None else self.grad_mask or "?"
        lines = [f"{self.name}  ({what})", f"data {data}", f"grad {grad}"]  # a hidden number stays hidden
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
        g = geometry_for(
            self.theme,
            self.kind,
            op_symbol(self.op, self.param) if self.kind == "op" else None,
            self.name,
            self.data_text,
            self.grad_text,
            self.is_output,
        )
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

    def paint(self, painter, option, widget=None):
        node_paint.paint_node(self, painter)


def _arity(op):
    return OPS[op][0] if op in OPS else 1
