"""Gestures on the GraphScene: hit tests, wires, drags and double-clicks.

Editing gestures (each becomes one pushed command, never a direct edit):

* a drag of nodes -> one `MoveNodes` on release; a single op dropped onto a
  wire -> `MoveNodes` + `InsertOnEdge` in one Macro;
* a press on a port starts a wire (app/graph/wires.py): `start_wire`,
  `move_wire`, `finish_wire` are the same gesture without a mouse, for tests
  and scripts; refusals are explained through `hint(str)`;
* a double-click: on a node `editRequested(nid)`, on a collapsed group
  expands it, on empty canvas `quickAddRequested(scene point)`;

Functions taking the scene (its Qt event handlers delegate here).
"""

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainterPathStroker, QPen
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsScene, QToolTip

from app.graph.edge_item import EdgeItem
from app.graph.groups import FRAME_Z, GroupItem
from app.graph.node_item import NodeItem
from app.graph.ports import HIT_PIXELS
from app.graph.wires import WireGesture, port_at
from core.document.commands import InsertOnEdge, Macro, MoveNodes, describe
from core.document.graph import Edge
from core.document.groups import SetCollapsed


def hit_radius(scene, widget=None):
    """HIT_PIXELS view pixels in scene units, so ports stay easy to grab zoomed out."""
    view = widget.parentWidget() if widget is not None else None
    if view is None or not hasattr(view, "transform"):
        views = scene.views()
        view = views[0] if views else None
    zoom = view.transform().m11() if view is not None else 1.0
    return HIT_PIXELS / max(zoom, 0.05)


def edge_at(scene, pos, radius=8.0, exclude_nodes=()):
    """The document Edge whose visible wire passes within radius of pos, or None."""
    area = QRectF(pos.x() - radius, pos.y() - radius, 2 * radius, 2 * radius)
    stroker = QPainterPathStroker()
    stroker.setWidth(2 * radius)
    # a wire's shape is the region its curve bounds: a curve through `area` touches it,
    # and the shape test is far cheaper than stroking every long wire's bounding box
    for item in scene.items(area, Qt.IntersectsItemShape):
        if not isinstance(item, EdgeItem) or not item.isVisible():
            continue
        edge = Edge(*item.edge)
        if edge.src in exclude_nodes or edge.dst in exclude_nodes:
            continue
        if stroker.createStroke(item.path()).contains(pos):
            return edge
    return None


def show_insert_hint(scene, edge):
    """Glow on the wire a drop would insert onto (None: no glow)."""
    if edge is None:
        if scene._insert_hint is not None and scene._insert_hint.scene() is scene:
            scene.removeItem(scene._insert_hint)
        scene._insert_hint = None
        return
    item = scene._edges.get(Edge(*edge))
    if item is None:
        return show_insert_hint(scene, None)
    if scene._insert_hint is None:
        scene._insert_hint = QGraphicsPathItem()
        color = QColor(scene.theme.color("selection"))
        color.setAlpha(120)
        pen = QPen(color, 7.0 * scene.theme.scale)
        pen.setCapStyle(Qt.RoundCap)
        scene._insert_hint.setPen(pen)
        scene._insert_hint.setZValue(FRAME_Z + 0.5)
        scene.addItem(scene._insert_hint)
    scene._insert_hint.setPath(item.path())


def can_insert(scene, nid, edge):
    """(ok, reason): may existing op nid go onto the wire edge (InsertOnEdge's rules)?"""
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


def start_wire(scene, ref, widget=None):
    """Begin a wire at PortRef ref (an output, or an input: free or picked up)."""
    if scene._wire is not None:
        scene._wire.cleanup()
    scene._wire = WireGesture(scene, ref, hit_radius(scene, widget))
    return scene._wire


def move_wire(scene, pos):
    """(ok, reason) for a release at scene point pos; the rubber wire follows."""
    ok, reason = scene._wire.move(pos)
    scene.hint.emit(reason)
    return ok, reason


def finish_wire(scene, pos):
    """Release at pos: push the one command the gesture makes; (done, reason)."""
    wire, scene._wire = scene._wire, None
    command, reason = wire.finish(pos)
    if command is None:
        if reason and not wire.ok:
            scene.hint.emit(f"Not connected: {reason}")
        return False, reason
    ok, error = scene.session.push(command)
    return ok, reason if ok else str(error)


def cancel_wire(scene):
    if scene._wire is not None:
        scene._wire.cleanup()
        scene._wire = None
        scene.hint.emit("")


def mouse_press(scene, event):
    if event.button() == Qt.LeftButton and not event.modifiers() & (Qt.ControlModifier
                                                                   | Qt.ShiftModifier):
        ref = port_at(scene, event.scenePos(), hit_radius(scene, event.widget()))
        if ref is not None:
            start_wire(scene, ref, event.widget())
            event.accept()
            return
        if scene.selection.selected_edge is not None:
            scene.selection.select_edge(None)
        if not any(isinstance(i, (NodeItem, GroupItem)) for i in scene.items(event.scenePos())):
            edge = edge_at(scene, event.scenePos(), hit_radius(scene, event.widget()) * 0.6)
            if edge is not None:   # a click on a wire selects it
                scene.selection.select_edge(edge)
                event.accept()
                return
    QGraphicsScene.mousePressEvent(scene, event)
    scene._press_positions = {item.nid: (item.pos().x(), item.pos().y())
                             for item in scene.selectedItems()
                             if isinstance(item, NodeItem) and scene.owns(item)}
    scene._press_groups = {item.gid: QPointF(item.pos()) for item in scene.selectedItems()
                          if isinstance(item, GroupItem) and scene.owns(item)}


def mouse_move(scene, event):
    if scene._wire is not None:
        ok, reason = move_wire(scene, event.scenePos())
        if reason and not ok:
            QToolTip.showText(event.screenPos(), reason)
        else:
            QToolTip.hideText()
        event.accept()
        return
    QGraphicsScene.mouseMoveEvent(scene, event)
    if scene._press_positions:
        for nid, old in scene._press_positions.items():
            item = scene._nodes.get(nid)
            if item is not None and (item.x(), item.y()) != old:
                item.moved()
        scene._insert_edge = insert_candidate(scene)
        show_insert_hint(scene, scene._insert_edge)


def insert_candidate(scene):
    """The wire under the input of the one op being dragged, if it may go there."""
    if len(scene._press_positions) != 1 or scene._press_groups:
        return None
    nid = next(iter(scene._press_positions))
    item = scene._nodes.get(nid)
    if item is None or item.kind != "op":
        return None
    edge = edge_at(scene, item.port_point(0), hit_radius(scene), exclude_nodes=(nid,))
    if edge is None or not can_insert(scene, nid, edge)[0]:
        return None
    return edge


def mouse_release(scene, event):
    if scene._wire is not None:
        finish_wire(scene, event.scenePos())
        QToolTip.hideText()
        event.accept()
        return
    QGraphicsScene.mouseReleaseEvent(scene, event)
    before, scene._press_positions = scene._press_positions, None
    groups, scene._press_groups = scene._press_groups, None
    insert, scene._insert_edge = scene._insert_edge, None
    show_insert_hint(scene, None)
    doc = scene.session.doc
    moves = {}
    for nid, old in (before or {}).items():
        item = scene._nodes.get(nid)
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
        command = Macro(f"Insert {describe(doc.nodes[nid])} on wire",
                        [command, InsertOnEdge(nid, insert)])
    ok, _error = scene.session.push(command)
    if not ok:   # put the items back where the document has them
        for nid in moves:
            item = scene._nodes.get(nid)
            if item is not None:
                item.setPos(scene.to_scene(doc.nodes[nid].pos))
                item.moved()
        scene.group_layer.place()


def mouse_double_click(scene, event):
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
