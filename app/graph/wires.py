"""Drawing a wire with the mouse: one gesture, one command, refusals explained.

A wire gesture starts on a port and ends on release:

* from an **output** port: a rubber wire follows the mouse; dropped on an input
  port (or on the body of an op: its nearest free input) it becomes `Connect`.
  An occupied input is rewired in the same single step (Connect replaces).
* from a **free input** port: the same, backwards -- drop it on any node and
  that node feeds the input.
* from a **wired input** port: the wire is picked up from its input. Dropped
  on another input it moves there (Disconnect + Connect, one Macro); dropped on
  empty canvas it is removed (Disconnect); dropped back where it was, nothing.

While the mouse moves, the target under it is checked with the document's own
rule, `doc.can_connect` (no self loop, no cycle, a port that exists), so the
editor and the file loader agree on what a valid wire is. The rubber wire and
a ring on the target turn red for a refused target and the reason is shown
(`hint`); a valid target is drawn in the selection colour. Nothing changes the
document before the release, and then only through one pushed command.
"""

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsEllipseItem, QGraphicsPathItem

from app.graph.node_item import NodeItem
from app.graph.ports import PortRef, nearest_input, port_point, ports_of
from core.document.commands import Connect, Disconnect, Macro, describe

WIRE_Z = 5.0


def port_at(scene, pos, radius, side=None):
    """The PortRef nearest to scene point pos within radius (None if none).

    `side` ('in' / 'out') restricts the search. Hidden nodes (inside a
    collapsed group) have no ports to grab."""
    area = QRectF(pos.x() - radius - 40, pos.y() - radius - 40, 2 * radius + 80, 2 * radius + 80)
    best, best_d = None, radius
    for item in scene.items(area, Qt.IntersectsItemBoundingRect):
        if not isinstance(item, NodeItem) or not item.isVisible() or not scene.owns(item):
            continue  # (not owned: an item of a replaced graph, still being removed)
        for ref, point in ports_of(item):
            if side is not None and ref.side != side:
                continue
            d = math.hypot(point.x() - pos.x(), point.y() - pos.y())
            if d <= best_d:
                best, best_d = ref, d
    return best


class WireGesture:
    """One wire being drawn; `scene` is the GraphScene, `start` a PortRef."""

    def __init__(self, scene, start, radius):
        self.scene = scene
        self.doc = scene.session.doc
        self.start = start
        self.radius = radius
        self.picked = None  # the Edge lifted off its input, if any
        if start.side == "in":
            src = self.doc.inputs_of(start.nid)[start.port]
            if src is not None:
                self.picked = (src, start.nid, start.port)
        # the fixed end is an output (dragging towards an input) or an input
        self.towards = "out" if start.side == "in" and self.picked is None else "in"
        self.target = None  # (src, dst, port) the release would make, or None
        self.ok = False
        self.reason = ""
        theme = scene.theme
        s = theme.scale
        self.path_item = QGraphicsPathItem()
        self.path_item.setZValue(WIRE_Z)
        self._pen = QPen(theme.color("edge"), 2.0 * s, Qt.DashLine)
        self._pen.setCapStyle(Qt.RoundCap)
        self.path_item.setPen(self._pen)
        self.ring = QGraphicsEllipseItem(-8 * s, -8 * s, 16 * s, 16 * s)
        self.ring.setZValue(WIRE_Z)
        self.ring.setVisible(False)
        scene.addItem(self.path_item)
        scene.addItem(self.ring)
        if self.picked is not None:
            edge_item = next((e for e in scene.edge_items(self.picked[0], start.nid) if e.port == start.port), None)
            if edge_item is not None:
                edge_item.setVisible(False)  # lifted: the rubber wire stands for it
            self._lifted = edge_item
        else:
            self._lifted = None

    # -- the fixed end -----------------------------------------------------------------

    def _anchor(self):
        if self.picked is not None:
            return self.scene.node_item(self.picked[0]).out_point()
        item = self.scene.node_item(self.start.nid)
        return port_point(item, self.start)

    # -- following the mouse --------------------------------------------------------------

    def move(self, pos):
        """Update the rubber wire and the verdict for a release at scene point pos."""
        self.target, self.ok, self.reason, spot = self._evaluate(pos)
        a = self._anchor()
        b = spot if spot is not None else pos
        if self.towards == "out":
            a, b = b, a  # wires are drawn from output (left) to input (right)
        path = QPainterPath(a)
        dx = max(abs(b.x() - a.x()) * 0.5, 24.0)
        path.cubicTo(QPointF(a.x() + dx, a.y()), QPointF(b.x() - dx, b.y()), b)
        self.path_item.setPath(path)
        theme = self.scene.theme
        if self.target is None and not self.reason:
            color = theme.color("edge")
        else:
            color = theme.color("selection") if self.ok else theme.color("missing")
        pen = QPen(self._pen)
        pen.setColor(color)
        self.path_item.setPen(pen)
        if spot is not None:
            self.ring.setPos(spot)
            ring_pen = QPen(color, 2.2 * theme.scale)
            self.ring.setPen(ring_pen)
            fill = QColor(color)
            fill.setAlpha(60)
            self.ring.setBrush(fill)
            self.ring.setVisible(True)
        else:
            self.ring.setVisible(False)
        return self.ok, self.reason

    def _evaluate(self, pos):
        """(edge to make, ok, reason, scene point of the target port)."""
        scene, doc = self.scene, self.doc
        if self.towards == "in":
            src = self.picked[0] if self.picked is not None else self.start.nid
            ref = port_at(scene, pos, self.radius, side="in")
            item = scene.node_item(ref.nid) if ref is not None else None
            if ref is None:
                item = scene.node_at(pos)
                if item is None:
                    if self.picked is not None:
                        return None, True, "release to remove this wire", None
                    return None, False, "", None
                if item.kind != "op":
                    return (
                        None,
                        False,
                        (
                            f"{describe(doc.nodes[item.nid])} is a {item.kind}: "
                            "it has no inputs; drop on an op's input port"
                        ),
                        item.out_point(),
                    )
                free = [p for p, s in enumerate(doc.inputs_of(item.nid)) if s is None]
                ref = PortRef(item.nid, "in", nearest_input(item, pos, free))
            if self.picked is not None and (ref.nid, ref.port) == (self.picked[1], self.picked[2]):
                return None, True, "release here to leave the wire as it was", item.port_point(ref.port)
            edge = (src, ref.nid, ref.port)
            ok, reason = doc.can_connect(src, ref.nid, ref.port, replace=True)
            if ok:
                occupant = doc.inputs_of(ref.nid)[ref.port]
                reason = f"connect {describe(doc.nodes[src])} → input {ref.port} of {describe(doc.nodes[ref.nid])}"
                if occupant is not None:
                    reason += f" (replaces the wire from {describe(doc.nodes[occupant])})"
            return edge, ok, reason, item.port_point(ref.port)
        # towards an output: any node can feed the input we started from
        ref = port_at(scene, pos, self.radius, side="out")
        item = scene.node_item(ref.nid) if ref is not None else scene.node_at(pos)
        if item is None:
            return None, False, "", None
        dst, port = self.start.nid, self.start.port
        ok, reason = doc.can_connect(item.nid, dst, port)
        if ok:
            reason = f"connect {describe(doc.nodes[item.nid])} → input {port} of {describe(doc.nodes[dst])}"
        return (item.nid, dst, port), ok, reason, item.out_point()

    # -- the end of the gesture -----------------------------------------------------------

    def finish(self, pos):
        """The command a release at pos makes (None: nothing to do), and the reason."""
        self.move(pos)
        self.cleanup()
        if self.picked is not None:
            src, dst, port = self.picked
            if self.target is None:
                if self.ok and self.reason.startswith("release to remove"):
                    return Disconnect(dst, port), "wire removed"
                return None, self.reason
            if not self.ok:
                return None, self.reason
            _src, new_dst, new_port = self.target
            return Macro("Move wire", [Disconnect(dst, port), Connect(src, new_dst, new_port)]), self.reason
        if self.target is None or not self.ok:
            return None, self.reason
        return Connect(*self.target), self.reason

    def cleanup(self):
        if self._lifted is not None and self._lifted.scene() is self.scene:
            self._lifted.setVisible(True)
        for item in (self.path_item, self.ring):
            if item.scene() is self.scene:
                self.scene.removeItem(item)
