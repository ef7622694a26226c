"""The canvas model: a QGraphicsScene that mirrors the session's GraphDocument.

The scene never owns graph state. It keeps one `NodeItem` per document node
and one `EdgeItem` per document edge, positioned at the document's `pos`, and
shows the numbers of the session's compiled Values. It updates on three cues:

* document events: a moved node or a new label is applied at once (cheap);
  structural events only mark the scene dirty;
* `session.recompiled`: the items are brought in line with the document
  (a diff by node id and edge), then every number is refreshed;
* `session.gradsChanged(ids)`: the grad text of those nodes (or all) is
  refreshed in place -- what the debugger calls after each step.

Editing gestures (each becomes one pushed command, never a direct edit):

* a drag of nodes -> one `MoveNodes` on release; a single op dropped onto a
  wire -> `MoveNodes` + `InsertOnEdge` in one Macro;
* a press on a port starts a wire (app/graph/wires.py): `start_wire`,
  `move_wire`, `finish_wire` are the same gesture without a mouse, for tests
  and scripts; refusals are explained through `hint(str)`;
* a double-click: on a node `editRequested(nid)`, on a collapsed group
  expands it, on empty canvas `quickAddRequested(scene point)`;
* a right-click: `menu_provider(menu, target, scene point)` fills the menu
  (target: ('node', id) / ('group', id) / ('edge', Edge) / ('canvas', None)),
  then the node-menu hooks add theirs.

Groups (core/groups.py, `session.groups`): an expanded group gets a frame
behind its nodes, a collapsed one a `GroupItem` that stands in for them
(app/graph/groups.py).

Hooks for other panels (the debugger):
    node_item(nid) / edge_items(src=None, dst=None)
    set_highlight(nodes=(), edges=())        glow on nodes and wires (replaces the last)
    set_node_status({nid: status})           a stripe: 'untouched' / 'partial' / 'final' / QColor / None
    clear_node_status()
    set_debug_marks({nid: (mark, tag)}, edges)  the debugger step: 'current' / 'target' nodes with a
                                             chip text, and the wires carrying gradient (diffed)
    set_breakpoint_marks(nids)               red dots on these nodes (replaces the last)
    update_masks({nid: (data, grad, dimmed) | None})  texts shown instead of numbers ('?')
    clear_debug()                            every debugger mark off
    set_grad_scale(grad_max)                 pin the grad colour scale while stepping (None: unpin)
    add_node_menu_hook(hook)                 hook(menu, nid) adds entries to a node's context menu
    refresh_values(ids=None)                 re-read data/grad from the Values
    select_node(nid)
"""

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPainterPathStroker, QPen
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsScene, QMenu, QToolTip

from app.graph.groups import FRAME_Z, GroupFrameItem, GroupItem
from app.graph.items import NODE_SELECTED_Z, NODE_Z, EdgeItem, NodeItem
from app.graph.ports import HIT_PIXELS, port_at
from app.graph.wires import WireGesture
from app.theme import DEFAULT
from core.commands import InsertOnEdge, Macro, MoveNodes, describe
from core.graphdoc import Edge
from core.groups import SetCollapsed

SCENE_MARGIN = 400.0


class GraphScene(QGraphicsScene):
    structureChanged = Signal()   # items added/removed/moved (minimap, counts)
    valuesRefreshed = Signal()    # numbers redrawn
    hint = Signal(str)            # what a gesture would do, or why it is refused
    editRequested = Signal(str)   # double-click on a node
    quickAddRequested = Signal(QPointF)   # double-click on empty canvas (scene point)

    def __init__(self, session, theme=DEFAULT, parent=None):
        super().__init__(parent)
        self.session = session
        self.theme = theme
        self.setItemIndexMethod(QGraphicsScene.BspTreeIndex)
        self.setBackgroundBrush(theme.color("background"))
        self._nodes = {}       # nid -> NodeItem
        self._edges = {}       # Edge -> EdgeItem
        self._routes = {}      # (src, dst, src pos, dst pos) -> bend points from the layout
        self._dirty = True
        self._reset = False
        self._grad_max = 0.0
        self._highlight = (set(), set())
        self._press_positions = None
        self._raised = []
        self._syncing_selection = False
        self._items_rect = QRectF()
        self._wire = None            # the WireGesture in progress
        self._press_groups = None    # collapsed groups being dragged: gid -> start pos
        self._insert_edge = None     # the wire a dragged node would be inserted on
        self._insert_hint = None     # its glow
        self.selected_edge = None    # the wire clicked last (Del removes it), or None
        self._edge_glow = None
        self._group_items = {}       # gid -> GroupItem (collapsed groups)
        self._frames = {}            # gid -> GroupFrameItem (expanded groups)
        self._hidden = []            # NodeItems / EdgeItems hidden by collapsed groups
        self._anchored = []          # EdgeItems ending on a GroupItem
        self.menu_provider = None    # callable(menu, target, scene pos), set by the builder
        # many moves in one command (a layout) settle into one rect update
        self._geometry_timer = QTimer(self)
        self._geometry_timer.setSingleShot(True)
        self._geometry_timer.setInterval(0)
        self._geometry_timer.timeout.connect(self._geometry_settled)
        session.doc.changed.connect(self._on_doc_changed)
        session.recompiled.connect(self.sync)
        session.gradsChanged.connect(self.refresh_values)
        session.currentChanged.connect(self._on_current_changed)
        self.selectionChanged.connect(self._on_selection_changed)
        groups = getattr(session, "groups", None)
        if groups is not None:
            groups.changed.connect(self._on_groups_changed)

    # -- queries -------------------------------------------------------------------

    def node_item(self, nid):
        return self._nodes.get(nid)

    def node_items(self):
        return self._nodes

    def edge_items(self, src=None, dst=None):
        """EdgeItems, optionally only those from src and/or into dst (document order)."""
        return [item for edge, item in self._edges.items()
                if (src is None or edge.src == src) and (dst is None or edge.dst == dst)]

    def counts(self):
        return len(self._nodes), len(self._edges)

    def items_rect(self):
        """The rectangle holding every node box (scene coordinates)."""
        return QRectF(self._items_rect)

    def find(self, text):
        """Node ids whose label matches text: exact matches first, then substrings."""
        needle = text.strip().lower()
        if not needle:
            return []
        exact, partial = [], []
        for nid, node in self.session.doc.nodes.items():
            label = node.label.lower()
            if label == needle or nid == needle:
                exact.append(nid)
            elif needle in label:
                partial.append(nid)
        return exact + partial

    # -- following the document ------------------------------------------------------

    def _on_doc_changed(self, event, *details):
        if event == "reset":   # a new graph: debugger marks of the old one go too
            self._reset = True
            self._dirty = True
            self._highlight = (set(), set())
        elif event == "node_changed":
            nid, field = details
            item = self._nodes.get(nid)
            if self._dirty or item is None:
                return
            node = self.session.doc.nodes[nid]
            if field == "pos":
                at = self.to_scene(node.pos)
                if item.pos() != at:
                    item.setPos(at)
                    item.moved()
                self._geometry_timer.start()
            elif field in ("label", "param"):
                item.set_node(node)
        else:
            self._dirty = True

    def set_routes(self, routes, positions):
        """Bend points of long wires from a layout ({(src, dst): [(x, y)]}), valid
        while both ends stay at `positions`. Kept across undo/redo of layouts."""
        if len(self._routes) > 200_000:
            self._routes.clear()
        for (src, dst), points in routes.items():
            if src in positions and dst in positions:
                self._routes[(src, dst, tuple(positions[src]), tuple(positions[dst]))] = points

    def sync(self):
        """Bring the items in line with the document, then refresh every number."""
        if self._dirty:
            self._sync_structure()
        self.refresh_values()

    def _sync_structure(self):
        doc = self.session.doc
        if self._reset:
            self._clear_items()
        self._reset = False
        self._dirty = False
        nodes = doc.nodes
        for nid in [n for n in self._nodes if n not in nodes]:
            self._remove_node(nid)
        edges = doc.edges
        wanted = set(edges)
        for edge in [e for e in self._edges if e not in wanted]:
            self._remove_edge(edge)

        new_nodes = [node for nid, node in nodes.items() if nid not in self._nodes]
        new_edges = [e for e in edges if e not in self._edges]
        theme = self.theme
        for nid, node in nodes.items():
            item = self._nodes.get(nid)
            if item is not None:
                if item.signature() != (node.kind, node.op, node.param, node.label):
                    item.set_node(node)
                at = self.to_scene(node.pos)
                if item.pos() != at:
                    item.setPos(at)
                    item.moved()
        for node in new_nodes:
            item = NodeItem(theme, node)
            item.setPos(self.to_scene(node.pos))
            self.addItem(item)
            self._nodes[node.id] = item
        for edge in new_edges:
            self._add_edge(edge)

        output = doc.effective_output()
        compiled = self.session.compiled
        missing = compiled.missing if compiled is not None else doc.missing_inputs()
        for nid, item in self._nodes.items():
            item.set_flags(nid == output, missing.get(nid, ()))
        self._geometry_timer.stop()
        self._update_items_rect()
        self._apply_highlight()
        if self.session.current_id is not None:
            self._on_current_changed(self.session.current_id)
        self._sync_groups()
        if self.selected_edge is not None:
            self.select_edge(self.selected_edge if self.selected_edge in self._edges else None)
        self.structureChanged.emit()

    def _add_edge(self, edge):
        src, dst = self._nodes[edge.src], self._nodes[edge.dst]
        nodes = self.session.doc.nodes
        key = (edge.src, edge.dst, tuple(nodes[edge.src].pos), tuple(nodes[edge.dst].pos))
        route = self._routes.get(key)
        if route is not None and self.theme.scale != 1.0:
            route = [self.to_scene_xy(x, y) for x, y in route]
        item = EdgeItem(self.theme, src, dst, edge.port, route)
        self.addItem(item)
        self._edges[edge] = item

    def _remove_edge(self, edge):
        item = self._edges.pop(edge)
        item.detach()
        self.removeItem(item)

    def _remove_node(self, nid):
        item = self._nodes.pop(nid)
        for edge_item in item.edges_in + item.edges_out:
            self._remove_edge(Edge(*edge_item.edge))
        self.removeItem(item)

    def _clear_items(self):
        self._raised = []
        self._nodes.clear()
        self._edges.clear()
        self._group_items.clear()
        self._frames.clear()
        self._hidden, self._anchored = [], []
        self._insert_hint = None
        self.selected_edge, self._edge_glow = None, None
        if self._wire is not None:
            self._wire = None
        self.clear()

    def _geometry_settled(self):
        self._update_items_rect()
        self._place_groups()
        self.structureChanged.emit()

    def _update_items_rect(self):
        rect = QRectF()
        if self._nodes:
            xs0, ys0, xs1, ys1 = [], [], [], []
            for item in self._nodes.values():
                r = item.box_rect()
                xs0.append(r.left())
                ys0.append(r.top())
                xs1.append(r.right())
                ys1.append(r.bottom())
            rect = QRectF(min(xs0), min(ys0), max(xs1) - min(xs0), max(ys1) - min(ys0))
        self._items_rect = rect
        m = SCENE_MARGIN
        self.setSceneRect(rect.adjusted(-m, -m, m, m) if not rect.isNull() else QRectF(-m, -m, 2 * m, 2 * m))

    # -- numbers ---------------------------------------------------------------------

    def refresh_values(self, ids=None):
        """Re-read data and grad of the nodes `ids` (None: all) from the compiled Values."""
        values = self.session.values
        grad_max = 0.0
        for v in values.values():
            g = abs(v.grad)
            if g > grad_max and g != float("inf"):
                grad_max = g
        pinned = getattr(self, "_pinned_grad_max", None)
        if pinned is not None and pinned >= grad_max:
            grad_max = pinned
        if ids is None or grad_max != self._grad_max:
            ids = self._nodes.keys()
            self.last_refreshed = None   # every node (the minimap redraws all)
        else:
            self.last_refreshed = ids = list(ids)   # a debugger step: a few nodes
        self._grad_max = grad_max
        nodes = self._nodes
        for nid in list(ids):
            item = nodes.get(nid)
            if item is None:
                continue
            v = values.get(nid)
            if v is None:
                item.set_numbers(None, None, grad_max)
            else:
                item.set_numbers(v.data, v.grad, grad_max)
        self._refresh_group_numbers()
        self.valuesRefreshed.emit()

    @property
    def grad_max(self):
        return self._grad_max

    def set_grad_scale(self, grad_max=None):
        """Pin the grad colour scale to at least grad_max (None: follow the graph).
        The debugger pins the full backward pass's largest |grad|, so a step that
        brings a new largest grad does not re-tint (and repaint) every node."""
        self._pinned_grad_max = grad_max

    # -- debugger hooks ------------------------------------------------------------------

    def set_highlight(self, nodes=(), edges=()):
        """Glow on these node ids and wires ((src, dst, port) triples); replaces the last."""
        self._highlight = (set(nodes), {Edge(*e) for e in edges})
        self._apply_highlight()

    def _apply_highlight(self):
        nodes, edges = self._highlight
        for nid, item in self._nodes.items():
            item.set_highlighted(nid in nodes)
        for edge, item in self._edges.items():
            item.set_highlighted(edge in edges)

    def set_node_status(self, statuses):
        """{nid: 'untouched' | 'partial' | 'final' | QColor | None}; other nodes keep theirs."""
        for nid, status in statuses.items():
            item = self._nodes.get(nid)
            if item is not None:
                item.set_status(status)

    def clear_node_status(self):
        for item in self._nodes.values():
            item.set_status(None)

    # Debugger marks change a handful of nodes per step: each call touches only
    # the items whose look changes, never all of a 5,000-node graph.

    def set_debug_marks(self, marks, edges=()):
        """{nid: (mark, tag)} with mark 'current' or 'target' (others lose theirs),
        and the wires ((src, dst, port)) to highlight as carrying gradient."""
        old_marks, old_edges = getattr(self, "_debug_state", ({}, set()))
        for nid in old_marks:
            if nid not in marks:
                item = self._nodes.get(nid)
                if item is not None:
                    item.set_debug(None, "")
        for nid, (mark, tag) in marks.items():
            item = self._nodes.get(nid)
            if item is not None:
                item.set_debug(mark, tag)
        edges = {Edge(*e) for e in edges}
        for edge in old_edges - edges:
            item = self._edges.get(edge)
            if item is not None:
                item.set_highlighted(edge in self._highlight[1])
        for edge in edges:
            item = self._edges.get(edge)
            if item is not None:
                item.set_highlighted(True)
        self._debug_state = (dict(marks), edges)

    def set_breakpoint_marks(self, nids):
        nids = set(nids)
        old = getattr(self, "_breakpoint_marks", set())
        for nid in old | nids:
            item = self._nodes.get(nid)
            if item is not None:
                item.set_breakpoint(nid in nids)
        self._breakpoint_marks = nids

    def update_masks(self, masks):
        """{nid: (data text, grad text, dimmed) or None (show the real numbers)}."""
        masked = getattr(self, "_masked", None)
        if masked is None:
            masked = self._masked = set()
        for nid, mask in masks.items():
            item = self._nodes.get(nid)
            if item is None:
                continue
            if mask is None:
                item.set_masks()
                masked.discard(nid)
            else:
                item.set_masks(*mask)
                masked.add(nid)

    def clear_debug(self):
        """Every debugger mark, mask and status stripe off (breakpoint dots stay)."""
        self.set_debug_marks({})
        self.update_masks({nid: None for nid in list(getattr(self, "_masked", ()))})
        for item in self._nodes.values():
            if item.debug_mark is not None or item.data_mask is not None or item.grad_mask is not None:
                item.set_debug(None, "")
                item.set_masks()
        self.clear_node_status()

    # -- a node's context menu: other panels add entries -------------------------------

    def add_node_menu_hook(self, hook):
        """hook(menu, nid) is called to fill the right-click menu of node nid."""
        hooks = getattr(self, "_menu_hooks", None)
        if hooks is None:
            hooks = self._menu_hooks = []
        hooks.append(hook)

    def node_at(self, scene_pos):
        for item in self.items(scene_pos):
            if isinstance(item, NodeItem):
                return item
        return None

    def target_at(self, pos):
        """What a click at scene point pos is on: ('group', gid), ('node', nid),
        ('edge', Edge) or ('canvas', None)."""
        for item in self.items(pos):
            if isinstance(item, GroupItem):
                return "group", item.gid
            if isinstance(item, NodeItem):
                return "node", item.nid
        edge = self.edge_at(pos, self.hit_radius() * 0.7)
        if edge is not None:
            return "edge", edge
        return "canvas", None

    def fill_context_menu(self, menu, target, pos):
        """The right-click menu for target: the builder's entries, then the hooks'."""
        if self.menu_provider is not None:
            self.menu_provider(menu, target, pos)
        kind, key = target
        if kind == "node":
            hooks = getattr(self, "_menu_hooks", ())
            if hooks and menu.actions():
                menu.addSeparator()
            for hook in hooks:
                hook(menu, key)
        return menu

    def contextMenuEvent(self, event):
        pos = event.scenePos()
        target = self.target_at(pos)
        if target[0] == "node" and target[1] not in self.selected_ids():
            self.select_node(target[1])
        elif target[0] == "group":
            item = self._group_items[target[1]]
            if not item.isSelected():
                self.clearSelection()
                item.setSelected(True)
        menu = self.fill_context_menu(QMenu(event.widget()), target, pos)
        menu.setAttribute(Qt.WA_DeleteOnClose)
        if menu.actions():
            menu.popup(event.screenPos())   # not exec(): no nested event loop
        else:
            menu.deleteLater()
        event.accept()

    def set_theme(self, theme):
        ratio = theme.scale / self.theme.scale
        self.theme = theme
        self.setBackgroundBrush(theme.color("background"))
        for item in self._nodes.values():
            item.set_theme(theme)
        for item in self._edges.values():
            item.set_theme(theme)
        if ratio != 1.0:   # spread the nodes out as much as they grew
            nodes = self.session.doc.nodes
            for edge in self._edges.values():
                if edge.route:
                    edge.route = [(x * ratio, y * ratio) for x, y in edge.route]
            for nid, item in self._nodes.items():
                if nid in nodes:
                    item.setPos(self.to_scene(nodes[nid].pos))
                    item.moved()
            if hasattr(self, "_place_groups"):
                self._place_groups()
            self._update_items_rect()
            self.structureChanged.emit()
        self.update()

    # -- document units and scene units ----------------------------------------------------
    # A document position is at scale 1. The theme's scale (presenter mode) spreads the
    # nodes out exactly as much as it enlarges them, so nothing overlaps at 2x and a
    # file saved at 2x is the same file. Scene points from the mouse go back with to_doc.

    def to_scene(self, pos):
        s = self.theme.scale
        return QPointF(pos[0] * s, pos[1] * s)

    def to_scene_xy(self, x, y):
        s = self.theme.scale
        return (x * s, y * s)

    def to_doc(self, point):
        """A scene point (QPointF) as a document position (x, y)."""
        s = self.theme.scale
        return (point.x() / s, point.y() / s)

    # -- selection ---------------------------------------------------------------------

    def select_node(self, nid):
        """Make nid the only selected node (None: clear) and the session's current node."""
        self._syncing_selection = True
        try:
            self.clearSelection()
            item = self._nodes.get(nid)
            if item is not None:
                item.setSelected(True)
        finally:
            self._syncing_selection = False
        self.session.select(nid if item is not None else None)

    def selected_ids(self):
        return [item.nid for item in self.selectedItems() if isinstance(item, NodeItem)]

    def _on_selection_changed(self):
        for item in self._raised:
            if item.scene() is self and not item.isSelected():
                item.setZValue(NODE_Z)
        self._raised = [item for item in self.selectedItems() if isinstance(item, NodeItem)]
        for item in self._raised:
            item.setZValue(NODE_SELECTED_Z)
        if self.selected_edge is not None and self._raised:
            self.select_edge(None)   # a node selected: the wire is not any more
        if self._syncing_selection:
            return
        ids = self.selected_ids()
        if not ids:   # a collapsed group stands for its outputs
            ids = [nid for gid in self.selected_group_ids()
                   for nid, _label in self._group_items[gid].outputs]
        current = self.session.current_id
        self.session.select(current if current in ids else (ids[0] if ids else None))

    def _on_current_changed(self, nid):
        item = self._nodes.get(nid) if nid is not None else None
        if item is not None and (item.isSelected() or not item.isVisible()):
            return   # already shown as selected, or inside a collapsed group
        self._syncing_selection = True
        try:
            if item is None or not (self.selected_ids() and nid in self.selected_ids()):
                self.clearSelection()
            if item is not None:
                item.setSelected(True)
        finally:
            self._syncing_selection = False

    # -- hit tests -------------------------------------------------------------------------

    def hit_radius(self, widget=None):
        """HIT_PIXELS view pixels in scene units, so ports stay easy to grab zoomed out."""
        view = widget.parentWidget() if widget is not None else None
        if view is None or not hasattr(view, "transform"):
            views = self.views()
            view = views[0] if views else None
        zoom = view.transform().m11() if view is not None else 1.0
        return HIT_PIXELS / max(zoom, 0.05)

    def edge_at(self, pos, radius=8.0, exclude_nodes=()):
        """The document Edge whose visible wire passes within radius of pos, or None."""
        area = QRectF(pos.x() - radius, pos.y() - radius, 2 * radius, 2 * radius)
        stroker = QPainterPathStroker()
        stroker.setWidth(2 * radius)
        # a wire's shape is the region its curve bounds: a curve through `area` touches it,
        # and the shape test is far cheaper than stroking every long wire's bounding box
        for item in self.items(area, Qt.IntersectsItemShape):
            if not isinstance(item, EdgeItem) or not item.isVisible():
                continue
            edge = Edge(*item.edge)
            if edge.src in exclude_nodes or edge.dst in exclude_nodes:
                continue
            if stroker.createStroke(item.path()).contains(pos):
                return edge
        return None

    def show_insert_hint(self, edge):
        """Glow on the wire a drop would insert onto (None: no glow)."""
        if edge is None:
            if self._insert_hint is not None and self._insert_hint.scene() is self:
                self.removeItem(self._insert_hint)
            self._insert_hint = None
            return
        item = self._edges.get(Edge(*edge))
        if item is None:
            return self.show_insert_hint(None)
        if self._insert_hint is None:
            self._insert_hint = QGraphicsPathItem()
            color = QColor(self.theme.color("selection"))
            color.setAlpha(120)
            pen = QPen(color, 7.0 * self.theme.scale)
            pen.setCapStyle(Qt.RoundCap)
            self._insert_hint.setPen(pen)
            self._insert_hint.setZValue(FRAME_Z + 0.5)
            self.addItem(self._insert_hint)
        self._insert_hint.setPath(item.path())

    def select_edge(self, edge):
        """Make the wire `edge` the selected one (None: no wire selected); nodes are deselected."""
        edge = Edge(*edge) if edge is not None else None
        item = self._edges.get(edge) if edge is not None else None
        if item is None:
            edge = None
        self.selected_edge = edge
        if edge is None:
            if self._edge_glow is not None and self._edge_glow.scene() is self:
                self.removeItem(self._edge_glow)
            self._edge_glow = None
            return
        self.clearSelection()
        if self._edge_glow is None:
            self._edge_glow = QGraphicsPathItem()
            pen = QPen(self.theme.color("selection"), 4.0 * self.theme.scale)
            pen.setCapStyle(Qt.RoundCap)
            self._edge_glow.setPen(pen)
            self._edge_glow.setZValue(FRAME_Z + 0.6)
            self.addItem(self._edge_glow)
        self._edge_glow.setPath(item.path())

    def can_insert(self, nid, edge):
        """(ok, reason): may existing op nid go onto the wire edge (InsertOnEdge's rules)?"""
        doc = self.session.doc
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

    # -- wires: one gesture, one command ------------------------------------------------------

    def start_wire(self, ref, widget=None):
        """Begin a wire at PortRef ref (an output, or an input: free or picked up)."""
        if self._wire is not None:
            self._wire.cleanup()
        self._wire = WireGesture(self, ref, self.hit_radius(widget))
        return self._wire

    def move_wire(self, pos):
        """(ok, reason) for a release at scene point pos; the rubber wire follows."""
        ok, reason = self._wire.move(pos)
        self.hint.emit(reason)
        return ok, reason

    def finish_wire(self, pos):
        """Release at pos: push the one command the gesture makes; (done, reason)."""
        wire, self._wire = self._wire, None
        command, reason = wire.finish(pos)
        if command is None:
            if reason and not wire.ok:
                self.hint.emit(f"Not connected: {reason}")
            return False, reason
        ok, error = self.session.push(command)
        return ok, reason if ok else str(error)

    def cancel_wire(self):
        if self._wire is not None:
            self._wire.cleanup()
            self._wire = None
            self.hint.emit("")

    @property
    def wiring(self):
        return self._wire is not None

    # -- mouse: drags, wires, double-clicks ---------------------------------------------------

    def mousePressEvent(self, event):
        if event.button() == Qt.LeftButton and not event.modifiers() & (Qt.ControlModifier
                                                                       | Qt.ShiftModifier):
            ref = port_at(self, event.scenePos(), self.hit_radius(event.widget()))
            if ref is not None:
                self.start_wire(ref, event.widget())
                event.accept()
                return
            if self.selected_edge is not None:
                self.select_edge(None)
            if not any(isinstance(i, (NodeItem, GroupItem)) for i in self.items(event.scenePos())):
                edge = self.edge_at(event.scenePos(), self.hit_radius(event.widget()) * 0.6)
                if edge is not None:   # a click on a wire selects it
                    self.select_edge(edge)
                    event.accept()
                    return
        super().mousePressEvent(event)
        self._press_positions = {item.nid: (item.pos().x(), item.pos().y())
                                 for item in self.selectedItems() if isinstance(item, NodeItem)}
        self._press_groups = {item.gid: QPointF(item.pos()) for item in self.selectedItems()
                              if isinstance(item, GroupItem)}

    def mouseMoveEvent(self, event):
        if self._wire is not None:
            ok, reason = self.move_wire(event.scenePos())
            if reason and not ok:
                QToolTip.showText(event.screenPos(), reason)
            else:
                QToolTip.hideText()
            event.accept()
            return
        super().mouseMoveEvent(event)
        if self._press_positions:
            for nid, old in self._press_positions.items():
                item = self._nodes.get(nid)
                if item is not None and (item.x(), item.y()) != old:
                    item.moved()
            self._insert_edge = self._insert_candidate()
            self.show_insert_hint(self._insert_edge)

    def _insert_candidate(self):
        """The wire under the input of the one op being dragged, if it may go there."""
        if len(self._press_positions) != 1 or self._press_groups:
            return None
        nid = next(iter(self._press_positions))
        item = self._nodes.get(nid)
        if item is None or item.kind != "op":
            return None
        edge = self.edge_at(item.port_point(0), self.hit_radius(), exclude_nodes=(nid,))
        if edge is None or not self.can_insert(nid, edge)[0]:
            return None
        return edge

    def mouseReleaseEvent(self, event):
        if self._wire is not None:
            self.finish_wire(event.scenePos())
            QToolTip.hideText()
            event.accept()
            return
        super().mouseReleaseEvent(event)
        before, self._press_positions = self._press_positions, None
        groups, self._press_groups = self._press_groups, None
        insert, self._insert_edge = self._insert_edge, None
        self.show_insert_hint(None)
        doc = self.session.doc
        moves = {}
        for nid, old in (before or {}).items():
            item = self._nodes.get(nid)
            if item is None:
                continue
            new = (item.pos().x(), item.pos().y())
            if new != old:
                moves[nid] = (doc.nodes[nid].pos, self.to_doc(item.pos()))
        for gid, old in (groups or {}).items():
            item = self._group_items.get(gid)
            if item is None or item.pos() == old:
                continue
            d = (item.pos() - old) / self.theme.scale
            for nid in self._members(gid):
                x, y = doc.nodes[nid].pos
                moves[nid] = ((x, y), (x + d.x(), y + d.y()))
        if not moves:
            return
        command = MoveNodes(moves)
        if insert is not None and len(moves) == 1:
            nid = next(iter(moves))
            command = Macro(f"Insert {describe(doc.nodes[nid])} on wire",
                            [command, InsertOnEdge(nid, insert)])
        ok, _error = self.session.push(command)
        if not ok:   # put the items back where the document has them
            for nid in moves:
                item = self._nodes.get(nid)
                if item is not None:
                    item.setPos(self.to_scene(doc.nodes[nid].pos))
                    item.moved()
            self._place_groups()

    def mouseDoubleClickEvent(self, event):
        pos = event.scenePos()
        if event.button() == Qt.LeftButton:
            kind, key = self.target_at(pos)
            if kind == "group":
                self.session.push(SetCollapsed(self.session.groups, key, False))
                event.accept()
                return
            if kind == "node":
                self.editRequested.emit(key)
                event.accept()
                return
            if kind == "canvas":
                self.quickAddRequested.emit(pos)
                event.accept()
                return
        super().mouseDoubleClickEvent(event)

    # -- groups: frames and collapsed boxes ---------------------------------------------------

    def group_item(self, gid):
        return self._group_items.get(gid)

    def group_frame(self, gid):
        return self._frames.get(gid)

    def selected_group_ids(self):
        return [item.gid for item in self.selectedItems() if isinstance(item, GroupItem)]

    def edit_selection(self):
        """The node ids an edit of the selection acts on: selected nodes plus the
        nodes of selected collapsed groups, in document order."""
        chosen = set(self.selected_ids())
        for gid in self.selected_group_ids():
            chosen.update(self._members(gid))
        return [nid for nid in self.session.doc.nodes if nid in chosen]

    def select_ids(self, ids):
        """Select these nodes (a collapsed group stands in for its hidden nodes)."""
        ids = set(ids)
        self.clearSelection()
        for nid in ids:
            item = self._nodes.get(nid)
            if item is not None and item.isVisible():
                item.setSelected(True)
        for gid, item in self._group_items.items():
            if ids & set(self._members(gid)):
                item.setSelected(True)

    def _members(self, gid):
        table = getattr(self.session, "groups", None)
        group = table.get(gid) if table is not None else None
        if group is None:
            return []
        return [nid for nid in group["nodes"] if nid in self.session.doc.nodes]

    def _on_groups_changed(self):
        if self._dirty:
            return   # the sync after the recompile will draw them
        self._sync_groups()
        self._refresh_group_numbers()
        self.structureChanged.emit()

    def _sync_groups(self):
        """Frames for expanded groups, one box for each collapsed one."""
        table = getattr(self.session, "groups", None)
        doc = self.session.doc
        for item in self._hidden:
            if item.scene() is self:
                item.setVisible(True)
        self._hidden = []
        for edge in self._anchored:
            edge.src_anchor = edge.dst_anchor = None
            if edge.scene() is self:
                edge.update_path()
        self._anchored = []
        collapsed, expanded = {}, {}
        for group in (table if table is not None else ()):
            members = [nid for nid in group["nodes"] if nid in self._nodes]
            if members:
                (collapsed if group["collapsed"] else expanded)[group["id"]] = (group, members)
        for gid in [g for g in self._group_items if g not in collapsed]:
            self.removeItem(self._group_items.pop(gid))
        for gid in [g for g in self._frames if g not in expanded]:
            self.removeItem(self._frames.pop(gid))
        for gid, (group, _members) in expanded.items():
            frame = self._frames.get(gid)
            if frame is None or frame.title != group["title"]:
                if frame is not None:
                    self.removeItem(frame)
                frame = self._frames[gid] = GroupFrameItem(self.theme, gid, group["title"])
                self.addItem(frame)
        if collapsed:
            self._collapse(collapsed, doc)
        self._place_groups()

    def _collapse(self, collapsed, doc):
        owner = {nid: gid for gid, (_g, members) in collapsed.items() for nid in members}
        users = {}
        for edge in self._edges:
            users.setdefault(edge.src, []).append(edge.dst)
        for gid, (group, members) in collapsed.items():
            item = self._group_items.get(gid)
            if item is None or item.title != group["title"]:
                if item is not None:
                    self.removeItem(item)
                item = self._group_items[gid] = GroupItem(self.theme, gid, group["title"])
                self.addItem(item)
            inside = set(members)
            inputs, outputs = [], []
            for nid in members:
                for port, src in enumerate(doc.inputs_of(nid)):
                    if src is None or src not in inside:
                        inputs.append((nid, port, None if src is None else describe(doc.nodes[src])))
                feeds = users.get(nid, ())
                if (not feeds and doc.nodes[nid].kind == "op") or any(d not in inside for d in feeds):
                    outputs.append((nid, describe(doc.nodes[nid])))
            item.set_ports(inputs, outputs)
            item.edges = []
        for nid, gid in owner.items():
            node_item = self._nodes[nid]
            if node_item.isSelected():
                node_item.setSelected(False)
            node_item.setVisible(False)
            self._hidden.append(node_item)
        for edge, edge_item in self._edges.items():
            g_src, g_dst = owner.get(edge.src), owner.get(edge.dst)
            if g_src is None and g_dst is None:
                continue
            if g_src is not None and g_src == g_dst:
                edge_item.setVisible(False)
                self._hidden.append(edge_item)
                continue
            edge_item.src_anchor = self._group_items[g_src] if g_src is not None else None
            edge_item.dst_anchor = self._group_items[g_dst] if g_dst is not None else None
            for gid in (g_src, g_dst):
                if gid is not None:
                    self._group_items[gid].edges.append(edge_item)
            self._anchored.append(edge_item)

    def _place_groups(self):
        """Collapsed boxes at their nodes' centroid; frames around their nodes."""
        doc = self.session.doc
        for gid, item in self._group_items.items():
            members = self._members(gid)
            if not members:
                continue
            x, y = self.to_scene_xy(sum(doc.nodes[nid].pos[0] for nid in members) / len(members),
                                    sum(doc.nodes[nid].pos[1] for nid in members) / len(members))
            if (item.x(), item.y()) != (x, y):
                item.setPos(x, y)
            for edge in item.edges:
                edge.update_path()
        for gid, frame in self._frames.items():
            rect = QRectF()
            for nid in self._members(gid):
                node_item = self._nodes.get(nid)
                if node_item is not None:
                    rect = rect.united(node_item.box_rect())
            frame.set_rect(rect)

    def _refresh_group_numbers(self):
        values = self.session.values
        for item in self._group_items.values():
            numbers = {}
            for nid, _label in item.outputs:
                v = values.get(nid)
                numbers[nid] = (v.data, v.grad) if v is not None else (None, None)
            item.set_numbers(numbers)
