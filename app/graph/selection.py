"""The canvas selection: selected nodes, collapsed groups and the selected wire.

`CanvasSelection` is held by the GraphScene as `scene.selection`. The scene's
selection and the session's current node follow each other; a collapsed group
stands in for its hidden nodes. One wire at a time can be selected
(`selected_edge`, what Del removes): it glows, and selecting a node drops it.
Selected nodes are raised above the others. The selection reaches the scene's
items through `node_item(nid)` / `node_items()` / `edge_item(edge)` and the
groups through `scene.group_layer`.
"""

from PySide6.QtCore import Qt
from PySide6.QtGui import QPen
from PySide6.QtWidgets import QGraphicsPathItem

from app.graph.groups import FRAME_Z, GroupItem
from app.graph.node_geometry import NODE_SELECTED_Z, NODE_Z
from app.graph.node_item import NodeItem
from core.document.graph import Edge


class CanvasSelection:
    def __init__(self, scene):
        self._scene = scene
        self._raised = []  # NodeItems lifted above the others while selected
        self._syncing = False  # True while the selection is set from the session (no echo)
        self.selected_edge = None  # the wire clicked last (Del removes it), or None
        self._edge_glow = None  # its glow

    def _quietly_clear(self):
        self._syncing = True
        try:
            self._scene.clearSelection()
        finally:
            self._syncing = False

    def forget(self):
        """A new graph: nothing of the old one stays selected, no wire glows
        (a removed item must not change the selection later)."""
        self._quietly_clear()
        scene = self._scene
        if self._edge_glow is not None and self._edge_glow.scene() is scene:
            scene.removeItem(self._edge_glow)
        self.selected_edge, self._edge_glow = None, None
        self._raised = []

    # -- queries -------------------------------------------------------------------

    def selected_ids(self):
        scene = self._scene
        return [item.nid for item in scene.selectedItems() if isinstance(item, NodeItem) and scene.owns(item)]

    def selected_group_ids(self):
        scene = self._scene
        return [item.gid for item in scene.selectedItems() if isinstance(item, GroupItem) and scene.owns(item)]

    def edit_selection(self):
        """The node ids an edit of the selection acts on: selected nodes plus the
        nodes of selected collapsed groups, in document order."""
        chosen = set(self.selected_ids())
        for gid in self.selected_group_ids():
            chosen.update(self._scene.group_layer.members(gid))
        return [nid for nid in self._scene.session.doc.nodes if nid in chosen]

    # -- changing it -----------------------------------------------------------------

    def select_node(self, nid):
        """Make nid the only selected node (None: clear) and the session's current node."""
        scene = self._scene
        item = scene.node_item(nid) if nid is not None else None  # built now if still missing
        self._syncing = True
        try:
            scene.clearSelection()
            if item is not None:
                item.setSelected(True)
        finally:
            self._syncing = False
        scene.session.select(nid if item is not None else None)

    def select_ids(self, ids):
        """Select these nodes (a collapsed group stands in for its hidden nodes)."""
        scene = self._scene
        ids = set(ids)
        scene.finish_build()  # every one of them must have its item
        scene.clearSelection()
        nodes = scene.node_items()
        for nid in ids:
            item = nodes.get(nid)
            if item is not None and item.isVisible():
                item.setSelected(True)
        layer = scene.group_layer
        for gid, item in layer.boxes().items():
            if ids & set(layer.members(gid)):
                item.setSelected(True)

    def select_group(self, gid):
        """Make collapsed group gid's box the selection, unless it is selected already."""
        item = self._scene.group_layer.item(gid)
        if item is not None and not item.isSelected():
            self._scene.clearSelection()
            item.setSelected(True)

    def select_edge(self, edge):
        """Make the wire `edge` the selected one (None: no wire selected); nodes are deselected."""
        scene = self._scene
        edge = Edge(*edge) if edge is not None else None
        item = scene.edge_item(edge) if edge is not None else None
        if item is None:
            edge = None
        self.selected_edge = edge
        if edge is None:
            if self._edge_glow is not None and self._edge_glow.scene() is scene:
                scene.removeItem(self._edge_glow)
            self._edge_glow = None
            return
        scene.clearSelection()
        if self._edge_glow is None:
            self._edge_glow = QGraphicsPathItem()
            pen = QPen(scene.theme.color("selection"), 4.0 * scene.theme.scale)
            pen.setCapStyle(Qt.RoundCap)
            self._edge_glow.setPen(pen)
            self._edge_glow.setZValue(FRAME_Z + 0.6)
            scene.addItem(self._edge_glow)
        self._edge_glow.setPath(item.path())

    def follow_current(self):
        """After a build: the session's current node selected, now that it has its item."""
        current = self._scene.session.current_id
        if current is not None:
            self.current_changed(current)

    def keep_edge(self):
        """After a build: the selected wire stays selected (its glow redrawn) if it is still there."""
        if self.selected_edge is not None:
            self.select_edge(self.selected_edge)  # None if its item is gone

    # -- following the scene and the session -------------------------------------------
    # The scene connects the signals to its own slots, which call these: a connection
    # to a plain object would outlive the scene and reach its deleted items.

    def scene_selection_changed(self):
        """The scene's selectionChanged: raise the selected nodes, make the session follow."""
        scene = self._scene
        for item in self._raised:
            if item.scene() is scene and not item.isSelected():
                item.setZValue(NODE_Z)
        self._raised = [item for item in scene.selectedItems() if isinstance(item, NodeItem)]
        for item in self._raised:
            item.setZValue(NODE_SELECTED_Z)
        if self.selected_edge is not None and self._raised:
            self.select_edge(None)  # a node selected: the wire is not any more
        if self._syncing:
            return
        ids = self.selected_ids()
        if not ids:  # a collapsed group stands for its outputs
            ids = [nid for gid in self.selected_group_ids() for nid, _label in scene.group_layer.item(gid).outputs]
        current = scene.session.current_id
        scene.session.select(current if current in ids else (ids[0] if ids else None))

    def current_changed(self, nid):
        """The session's currentChanged: select nid's item (unless shown already)."""
        scene = self._scene
        item = scene.node_items().get(nid) if nid is not None else None
        if item is not None and (item.isSelected() or not item.isVisible()):
            return  # already shown as selected, or inside a collapsed group
        self._syncing = True
        try:
            if item is None or not (self.selected_ids() and nid in self.selected_ids()):
                scene.clearSelection()
            if item is not None:
                item.setSelected(True)
        finally:
            self._syncing = False
