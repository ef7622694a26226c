"""Ports: where wires plug into a node, found by geometry rather than by items.

Every node has one output port, the middle of its record's right side; an op
has one input port per operand on its circle (port 0 above port 1, as in
`a - b`). Ports are not QGraphicsItems of their own -- a 5,000-node graph
would carry 15,000 more items for the index to sort -- but points computed
from the node's geometry (`NodeItem.out_point` / `port_point`). A press is
"on a port" when it falls within a few screen pixels of one; the hit radius
is given in view pixels, so a port stays as easy to grab when zoomed out.

`PortRef(nid, side, port)`: side is 'out' (port None) or 'in' (port 0, 1).
"""

from typing import NamedTuple

from PySide6.QtCore import QPointF
from PySide6.QtGui import QPen

from core.document.graph import OPS

PORT_RADIUS = 4.0  # drawn, in scene units at scale 1
HIT_PIXELS = 11.0  # how close a press must be to a port, in view pixels


class PortRef(NamedTuple):
    nid: str
    side: str  # 'in' or 'out'
    port: int | None = None

    def __str__(self):
        return f"{self.nid}:{'out' if self.side == 'out' else self.port}"


def arity(item):
    return OPS[item.op][0] if item.kind == "op" and item.op in OPS else 0


def ports_of(item):
    """[(PortRef, scene point)] of a NodeItem: inputs first, then the output."""
    ports = [(PortRef(item.nid, "in", p), item.port_point(p)) for p in range(arity(item))]
    ports.append((PortRef(item.nid, "out"), item.out_point()))
    return ports


def port_point(item, ref):
    return item.out_point() if ref.side == "out" else item.port_point(ref.port)


def nearest_input(item, pos, free=None):
    """The input port of an op item to use when a wire is dropped on its body:
    the nearest free one, else the nearest one (its wire gets replaced)."""
    n = arity(item)
    if n == 0:
        return None
    ports = list(range(n))
    if free is not None:
        open_ports = [p for p in ports if p in free]
        ports = open_ports or ports
    return min(ports, key=lambda p: (item.port_point(p) - pos).manhattanLength())


def paint_ports(painter, item, theme, scale):
    """Small dots where wires plug in: inputs on the op circle, the output on the right.

    A missing input is drawn by the item itself (a hollow red ring); the dots
    here show where a wire can be dragged from or dropped on."""
    r = PORT_RADIUS * scale
    pen = QPen(theme.color("node_fill"), 1.2 * scale)
    painter.setPen(pen)
    painter.setBrush(theme.color("op_border"))
    missing = set(item.missing_ports)
    for p in range(arity(item)):
        if p in missing:
            continue
        x, y = item._port_local(p)
        painter.drawEllipse(QPointF(x, y), r * 0.7, r * 0.7)
    g = item.geometry
    painter.setBrush(theme.color("edge"))
    painter.drawEllipse(QPointF(g.record.right(), 0.0), r, r)
