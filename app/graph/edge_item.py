"""What one wire of the graph looks like on the canvas.

A smooth left-to-right curve from a node's record into a port of an op
circle; the debugger can highlight it (`EdgeItem.set_highlighted`). Colours
and widths come from the scene's `Theme`.
"""

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem

from app.graph.node_geometry import EDGE_HIGHLIGHT_Z, EDGE_Z

_NO_BUTTON = Qt.NoButton  # looked up once: a 5,000-node graph has 6,500 wires


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
        self.route = route  # [(x, y)] bend points, dropped when an end moves
        self.highlighted = False
        self.setZValue(EDGE_Z)
        self.setAcceptedMouseButtons(_NO_BUTTON)  # not selectable either: the default
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
        if self.src_anchor is not None:  # the source is inside a collapsed group
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
