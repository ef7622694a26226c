"""Gestures on the GraphScene: hit tests, wires, drags and double-clicks.

Editing gestures (each becomes one pushed command, never a direct edit):

* a drag of nodes -> one `MoveNodes` on release; a single op dropped onto a
  wire -> `MoveNodes` + `InsertOnEdge` in one Macro;
* a press on a port starts a wire (app/graph/wires.py): `start_wire`,
  `move_wire`, `finish_wire` are the same gesture without a mouse, for tests
  and scripts; refusals are explained through `hint(str)`;
* a double-click: on a node `editRequested(nid)`, on a collapsed group
  expands it, on empty canvas `quickAddRequested(scene point)`;

`CanvasGestures` is held by the GraphScene as `scene.gestures` (the scene's Qt
mouse handlers delegate to it). It owns the state of a gesture in progress: the
wire being drawn, the positions at the press of the nodes and boxes being
dragged, and the wire a dragged op would be inserted on (with its glow). The
hit tests it uses are the scene's own (`hit_radius`, `edge_at`, `node_items()`,
`edge_item(edge)`, `group_layer`).
"""

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsScene, QToolTip

from app.graph.groups import FRAME_Z, GroupItem
from app.graph.node_item import NodeItem
from app.graph.wires import WireGesture, port_at
from core.document.commands import InsertOnEdge, Macro, MoveNodes, describe
from core.document.groups import SetCollapsed


class CanvasGestures:
    def __init__(self, scene):
        self._scene = scene
        self.wire = None  # the WireGesture in progress
        self._press_positions = None  # nodes being dragged: nid -> position at the press
        self._press_groups = None  # collapsed groups being dragged: gid -> position at the press
        self.insert_edge = None  # the wire a dragged node would be inserted on
        self._insert_hint = None  # its glow

    @property
    def wiring(self):
        return self.wire is not None

    def forget(self):
        """A new graph: a wire being drawn and an insert glow go."""
        scene = self._scene
        if self.wire is not None:
            self.wire.cleanup()
            self.wire = None
        if self._insert_hint is not None and self._insert_hint.scene() is scene:
            scene.removeItem(self._insert_hint)
        self._insert_hint = None

    def show_insert_hint(self, edge):
        """Glow on the wire a drop would insert onto (None: no glow)."""
        scene = self._scene
        if edge is None:
            if self._insert_hint is not None and self._insert_hint.scene() is scene:
                scene.removeItem(self._insert_hint)
            self._insert_hint = None
            return
        item = scene.edge_item(edge)
        if item is None:
            return self.show_insert_hint(None)
        if self._insert_hint is None:
            self._insert_hint = QGraphicsPathItem()
            color = QColor(scene.theme.color("selection"))
            color.setAlpha(120)
            pen = QPen(color, 7.0 * scene.theme.scale)
            pen.setCapStyle(Qt.RoundCap)
            self._insert_hint.setPen(pen)
            self._insert_hint.setZValue(FRAME_Z + 0.5)
            scene.addItem(self._insert_hint)
        self._insert_hint.setPath(item.path())

    def can_insert(self, nid, edge):
        """(ok, reason): may existing op nid go onto the wire edge (InsertOnEdge's rules)?"""
        scene = self._scene
        doc = scene.session.doc
        node = doc.nodes.get(nid)
        src, dst, port = edge
        if node is None or node.kind != "op":
            return False, "only an op can sit on a wire"
        if doc.inputs_of(nid)[0] is not None:
            return False, f"input 0 of {describe(node)} is taken"
        for a, b, p, replace in ((src, nid, 0, False), (nid, dst, port, True)):
            ok, reason = doc.can_connect(a, b, p, replace=replace)
            if not ok:
                return False, reason
        return True, ""

    def start_wire(self, ref, widget=None):
        """Begin a wire at PortRef ref (an output, or an input: free or picked up)."""
        scene = self._scene
        if self.wire is not None:
            self.wire.cleanup()
        self.wire = WireGesture(scene, ref, scene.hit_radius(widget))
        return self.wire

    def move_wire(self, pos):
        """(ok, reason) for a release at scene point pos; the rubber wire follows."""
        scene = self._scene
        ok, reason = self.wire.move(pos)
        scene.hint.emit(reason)
        return ok, reason

    def finish_wire(self, pos):
        """Release at pos: push the one command the gesture makes; (done, reason)."""
        scene = self._scene
        wire, self.wire = self.wire, None
        command, reason = wire.finish(pos)
        if command is None:
            if reason and not wire.ok:
                scene.hint.emit(f"Not connected: {reason}")
            return False, reason
        ok, error = scene.session.push(command)
        return ok, reason if ok else str(error)

    def cancel_wire(self):
        scene = self._scene
        if self.wire is not None:
            self.wire.cleanup()
            self.wire = None
            scene.hint.emit("")

    def mouse_press(self, event):
        scene = self._scene
        if event.button() == Qt.LeftButton and not event.modifiers() & (Qt.ControlModifier | Qt.ShiftModifier):
            ref = port_at(scene, event.scenePos(), scene.hit_radius(event.widget()))
            if ref is not None:
                self.start_wire(ref, event.widget())
                event.accept()
                return
            if scene.selection.selected_edge is not None:
                scene.selection.select_edge(None)
            if not any(isinstance(i, (NodeItem, GroupItem)) for i in scene.items(event.scenePos())):
                edge = scene.edge_at(event.scenePos(), scene.hit_radius(event.widget()) * 0.6)
                if edge is not None:  # a click on a wire selects it
                    scene.selection.select_edge(edge)
                    event.accept()
                    return
        QGraphicsScene.mousePressEvent(scene, event)
        self._press_positions = {
            item.nid: (item.pos().x(), item.pos().y())
            for item in scene.selectedItems()
            if isinstance(item, NodeItem) and scene.owns(item)
        }
        self._press_groups = {
            item.gid: QPointF(item.pos())
            for item in scene.selectedItems()
            if isinstance(item, GroupItem) and scene.owns(item)
        }

    def mouse_move(self, event):
        scene = self._scene
        if self.wire is not None:
            ok, reason = self.move_wire(event.scenePos())
            if reason and not ok:
                QToolTip.showText(event.screenPos(), reason)
            else:
                QToolTip.hideText()
            event.accept()
            return
        QGraphicsScene.mouseMoveEvent(scene, event)
        if self._press_positions:
            for nid, old in self._press_positions.items():
                item = scene.node_items().get(nid)
                if item is not None and (item.x(), item.y()) != old:
                    item.moved()
            self.insert_edge = self.insert_candidate()
            self.show_insert_hint(self.insert_edge)

    def insert_candidate(self):
        """The wire under the input of the one op being dragged, if it may go there."""
        scene = self._scene
        if len(self._press_positions) != 1 or self._press_groups:
            return None
        nid = next(iter(self._press_positions))
        item = scene.node_items().get(nid)
        if item is None or item.kind != "op":
            return None
        edge = scene.edge_at(item.port_point(0), scene.hit_radius(), exclude_nodes=(nid,))
        if edge is None or not self.can_insert(nid, edge)[0]:
            return None
        return edge

    def mouse_release(self, event):
        scene = self._scene
        if self.wire is not None:
            self.finish_wire(event.scenePos())
            QToolTip.hideText()
            event.accept()
            return
        QGraphicsScene.mouseReleaseEvent(scene, event)
        before, self._press_positions = self._press_positions, None
        groups, self._press_groups = self._press_groups, None
        insert, self.insert_edge = self.insert_edge, None
        self.show_insert_hint(None)
        doc = scene.session.doc
        moves = {}
        for nid, old in (before or {}).items():
            item = scene.node_items().get(nid)
            if item is None:
                continue
            new = (item.pos().x(), item.pos().y())
            if new != old:
                moves[nid] = (doc.nodes[nid].pos, scene.to_doc(item.pos()))
        for gid, old in (groups or {}).items():
            item = scene.group_layer.item(gid)
            if item is None or item.pos() == old:
                continue
            d = (item.pos() - old) / scene.theme.scale
            for nid in scene.group_layer.members(gid):
                x, y = doc.nodes[nid].pos
                moves[nid] = ((x, y), (x + d.x(), y + d.y()))
        if not moves:
            return
        command = MoveNodes(moves)
        if insert is not None and len(moves) == 1:
            nid = next(iter(moves))
            command = Macro(f"Insert {describe(doc.nodes[nid])} on wire", [command, InsertOnEdge(nid, insert)])
        ok, _error = scene.session.push(command)
        if not ok:  # put the items back where the document has them
            for nid in moves:
                item = scene.node_items().get(nid)
                if item is not None:
                    item.setPos(scene.to_scene(doc.nodes[nid].pos))
                    item.moved()
            scene.group_layer.place()

    def mouse_double_click(self, event):
        scene = self._scene
        pos = event.scenePos()
        if event.button() == Qt.LeftButton:
            kind, key = scene.target_at(pos)
            if kind == "group":
                scene.session.push(SetCollapsed(scene.session.groups, key, False))
                event.accept()
                return
            if kind == "node":
                scene.editRequested.emit(key)
                event.accept()
                return
            if kind == "canvas":
                scene.quickAddRequested.emit(pos)
                event.accept()
                return
        QGraphicsScene.mouseDoubleClickEvent(scene, event)
