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

A drag of nodes becomes one `MoveNodes` command when the mouse is released.

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
    add_node_menu_hook(hook)                 hook(menu, nid) adds entries to a node's context menu
    refresh_values(ids=None)                 re-read data/grad from the Values
    select_node(nid)
"""

from PySide6.QtCore import QRectF, QTimer, Signal
from PySide6.QtWidgets import QGraphicsScene, QMenu

from app.graph.items import NODE_SELECTED_Z, NODE_Z, EdgeItem, NodeItem
from app.theme import DEFAULT
from core.commands import MoveNodes
from core.graphdoc import Edge

SCENE_MARGIN = 400.0


class GraphScene(QGraphicsScene):
    structureChanged = Signal()   # items added/removed/moved (minimap, counts)
    valuesRefreshed = Signal()    # numbers redrawn

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
                if (item.x(), item.y()) != node.pos:
                    item.setPos(*node.pos)
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
                if (item.x(), item.y()) != node.pos:
                    item.setPos(*node.pos)
                    item.moved()
        for node in new_nodes:
            item = NodeItem(theme, node)
            item.setPos(*node.pos)
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
        self.structureChanged.emit()

    def _add_edge(self, edge):
        src, dst = self._nodes[edge.src], self._nodes[edge.dst]
        key = (edge.src, edge.dst, (src.pos().x(), src.pos().y()), (dst.pos().x(), dst.pos().y()))
        item = EdgeItem(self.theme, src, dst, edge.port, self._routes.get(key))
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
        self.clear()

    def _geometry_settled(self):
        self._update_items_rect()
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
        if ids is None or grad_max != self._grad_max:
            ids = self._nodes.keys()
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
        self.valuesRefreshed.emit()

    @property
    def grad_max(self):
        return self._grad_max

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

    def contextMenuEvent(self, event):
        hooks = getattr(self, "_menu_hooks", ())
        item = self.node_at(event.scenePos()) if hooks else None
        if item is None:
            super().contextMenuEvent(event)
            return
        menu = QMenu(event.widget())
        for hook in hooks:
            hook(menu, item.nid)
        if menu.actions():
            menu.exec(event.screenPos())
        event.accept()

    def set_theme(self, theme):
        self.theme = theme
        self.setBackgroundBrush(theme.color("background"))
        for item in self._nodes.values():
            item.set_theme(theme)
        for item in self._edges.values():
            item.set_theme(theme)
        self.update()

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
        if self._syncing_selection:
            return
        ids = self.selected_ids()
        current = self.session.current_id
        self.session.select(current if current in ids else (ids[0] if ids else None))

    def _on_current_changed(self, nid):
        item = self._nodes.get(nid) if nid is not None else None
        if item is not None and item.isSelected():
            return
        self._syncing_selection = True
        try:
            if item is None or not (self.selected_ids() and nid in self.selected_ids()):
                self.clearSelection()
            if item is not None:
                item.setSelected(True)
        finally:
            self._syncing_selection = False

    # -- dragging nodes: one MoveNodes per drag ---------------------------------------------

    def mousePressEvent(self, event):
        super().mousePressEvent(event)
        self._press_positions = {item.nid: (item.pos().x(), item.pos().y())
                                 for item in self.selectedItems() if isinstance(item, NodeItem)}

    def mouseMoveEvent(self, event):
        super().mouseMoveEvent(event)
        if self._press_positions:
            for nid, old in self._press_positions.items():
                item = self._nodes.get(nid)
                if item is not None and (item.x(), item.y()) != old:
                    item.moved()

    def mouseReleaseEvent(self, event):
        super().mouseReleaseEvent(event)
        before, self._press_positions = self._press_positions, None
        if not before:
            return
        moves = {}
        for nid, old in before.items():
            item = self._nodes.get(nid)
            if item is None:
                continue
            new = (item.pos().x(), item.pos().y())
            if new != old:
                moves[nid] = (self.session.doc.nodes[nid].pos, new)
        if moves:
            self.session.push(MoveNodes(moves))
