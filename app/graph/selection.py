"""Selection and the right-click menu of the GraphScene.

The scene's selection and the session's current node follow each other; a
collapsed group stands in for its hidden nodes. A right-click:
`menu_provider(menu, target, scene point)` fills the menu (target: ('node', id)
/ ('group', id) / ('edge', Edge) / ('canvas', None)), then the node-menu hooks
add theirs. Functions taking the scene.
"""

from PySide6.QtCore import Qt
from PySide6.QtGui import QPen
from PySide6.QtWidgets import QGraphicsPathItem, QMenu

from app.graph.groups import FRAME_Z, GroupItem
from app.graph.node_geometry import NODE_SELECTED_Z, NODE_Z
from app.graph.node_item import NodeItem
from core.document.graph import Edge


def select_node(scene, nid):
    """Make nid the only selected node (None: clear) and the session's current node."""
    item = scene.node_item(nid) if nid is not None else None   # built now if still missing
    scene._syncing_selection = True
    try:
        scene.clearSelection()
        if item is not None:
            item.setSelected(True)
    finally:
        scene._syncing_selection = False
    scene.session.select(nid if item is not None else None)


def selected_ids(scene):
    return [item.nid for item in scene.selectedItems()
            if isinstance(item, NodeItem) and scene.owns(item)]


def on_selection_changed(scene):
    for item in scene._raised:
        if item.scene() is scene and not item.isSelected():
            item.setZValue(NODE_Z)
    scene._raised = [item for item in scene.selectedItems() if isinstance(item, NodeItem)]
    for item in scene._raised:
        item.setZValue(NODE_SELECTED_Z)
    if scene.selected_edge is not None and scene._raised:
        select_edge(scene, None)   # a node selected: the wire is not any more
    if scene._syncing_selection:
        return
    ids = selected_ids(scene)
    if not ids:   # a collapsed group stands for its outputs
        ids = [nid for gid in selected_group_ids(scene)
               for nid, _label in scene._group_items[gid].outputs]
    current = scene.session.current_id
    scene.session.select(current if current in ids else (ids[0] if ids else None))


def on_current_changed(scene, nid):
    item = scene._nodes.get(nid) if nid is not None else None
    if item is not None and (item.isSelected() or not item.isVisible()):
        return   # already shown as selected, or inside a collapsed group
    scene._syncing_selection = True
    try:
        if item is None or not (selected_ids(scene) and nid in selected_ids(scene)):
            scene.clearSelection()
        if item is not None:
            item.setSelected(True)
    finally:
        scene._syncing_selection = False


def selected_group_ids(scene):
    return [item.gid for item in scene.selectedItems()
            if isinstance(item, GroupItem) and scene.owns(item)]


def edit_selection(scene):
    """The node ids an edit of the selection acts on: selected nodes plus the
    nodes of selected collapsed groups, in document order."""
    chosen = set(selected_ids(scene))
    for gid in selected_group_ids(scene):
        chosen.update(scene._members(gid))
    return [nid for nid in scene.session.doc.nodes if nid in chosen]


def select_ids(scene, ids):
    """Select these nodes (a collapsed group stands in for its hidden nodes)."""
    ids = set(ids)
    scene.finish_build()   # every one of them must have its item
    scene.clearSelection()
    for nid in ids:
        item = scene._nodes.get(nid)
        if item is not None and item.isVisible():
            item.setSelected(True)
    for gid, item in scene._group_items.items():
        if ids & set(scene._members(gid)):
            item.setSelected(True)


def select_edge(scene, edge):
    """Make the wire `edge` the selected one (None: no wire selected); nodes are deselected."""
    edge = Edge(*edge) if edge is not None else None
    item = scene._edges.get(edge) if edge is not None else None
    if item is None:
        edge = None
    scene.selected_edge = edge
    if edge is None:
        if scene._edge_glow is not None and scene._edge_glow.scene() is scene:
            scene.removeItem(scene._edge_glow)
        scene._edge_glow = None
        return
    scene.clearSelection()
    if scene._edge_glow is None:
        scene._edge_glow = QGraphicsPathItem()
        pen = QPen(scene.theme.color("selection"), 4.0 * scene.theme.scale)
        pen.setCapStyle(Qt.RoundCap)
        scene._edge_glow.setPen(pen)
        scene._edge_glow.setZValue(FRAME_Z + 0.6)
        scene.addItem(scene._edge_glow)
    scene._edge_glow.setPath(item.path())


def add_node_menu_hook(scene, hook):
    """hook(menu, nid) is called to fill the right-click menu of node nid."""
    hooks = getattr(scene, "_menu_hooks", None)
    if hooks is None:
        hooks = scene._menu_hooks = []
    hooks.append(hook)


def node_at(scene, scene_pos):
    for item in scene.items(scene_pos):
        if isinstance(item, NodeItem) and scene.owns(item):
            return item
    return None


def target_at(scene, pos):
    """What a click at scene point pos is on: ('group', gid), ('node', nid),
    ('edge', Edge) or ('canvas', None)."""
    for item in scene.items(pos):
        if not scene.owns(item):
            continue   # an item of the graph shown before, still being removed
        if isinstance(item, GroupItem):
            return "group", item.gid
        if isinstance(item, NodeItem):
            return "node", item.nid
    edge = scene.edge_at(pos, scene.hit_radius() * 0.7)
    if edge is not None:
        return "edge", edge
    return "canvas", None


def fill_context_menu(scene, menu, target, pos):
    """The right-click menu for target: the builder's entries, then the hooks'."""
    if scene.menu_provider is not None:
        scene.menu_provider(menu, target, pos)
    kind, key = target
    if kind == "node":
        hooks = getattr(scene, "_menu_hooks", ())
        if hooks and menu.actions():
            menu.addSeparator()
        for hook in hooks:
            hook(menu, key)
    return menu


def context_menu_event(scene, event):
    pos = event.scenePos()
    target = target_at(scene, pos)
    if target[0] == "node" and target[1] not in selected_ids(scene):
        select_node(scene, target[1])
    elif target[0] == "group":
        item = scene._group_items[target[1]]
        if not item.isSelected():
            scene.clearSelection()
            item.setSelected(True)
    menu = fill_context_menu(scene, QMenu(event.widget()), target, pos)
    menu.setAttribute(Qt.WA_DeleteOnClose)
    if menu.actions():
        menu.popup(event.screenPos())   # not exec(): no nested event loop
    else:
        menu.deleteLater()
    event.accept()
