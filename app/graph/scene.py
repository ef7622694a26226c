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

Groups (core/groups.py, `session.groups`): an expanded group gets a frame
behind its nodes, a collapsed one a `GroupItem` that stands in for them
(app/graph/groups.py).

The scene's other concerns live beside it, as functions taking the scene:
app/graph/scene_gestures.py (drags, wires, double-clicks -- each gesture one
pushed command), scene_selection.py (selection, context menu),
scene_groups.py (group frames and boxes) and scene_marks.py (the debugger's
hooks: highlight, status stripes, marks, masks). The methods below that only
delegate are the scene's public API.
"""

from PySide6.QtCore import QPointF, QRectF, QTimer, Signal
from PySide6.QtWidgets import QGraphicsScene

from app.graph import scene_gestures, scene_groups, scene_marks, scene_selection
from app.graph.edge_item import EdgeItem
from app.graph.node_item import NodeItem
from app.theme import DEFAULT
from core.graphdoc import Edge

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

    # -- debugger hooks (app/graph/scene_marks.py) -----------------------------------------

    def set_highlight(self, nodes=(), edges=()):
        scene_marks.set_highlight(self, nodes, edges)

    def _apply_highlight(self):
        scene_marks.apply_highlight(self)

    def set_node_status(self, statuses):
        scene_marks.set_node_status(self, statuses)

    def clear_node_status(self):
        scene_marks.clear_node_status(self)

    def set_debug_marks(self, marks, edges=()):
        scene_marks.set_debug_marks(self, marks, edges)

    def set_breakpoint_marks(self, nids):
        scene_marks.set_breakpoint_marks(self, nids)

    def update_masks(self, masks):
        scene_marks.update_masks(self, masks)

    def clear_debug(self):
        scene_marks.clear_debug(self)

    # -- selection and context menu (app/graph/scene_selection.py) -------------------------

    def select_node(self, nid):
        scene_selection.select_node(self, nid)

    def selected_ids(self):
        return scene_selection.selected_ids(self)

    def _on_selection_changed(self):
        scene_selection.on_selection_changed(self)

    def _on_current_changed(self, nid):
        scene_selection.on_current_changed(self, nid)

    def selected_group_ids(self):
        return scene_selection.selected_group_ids(self)

    def edit_selection(self):
        return scene_selection.edit_selection(self)

    def select_ids(self, ids):
        scene_selection.select_ids(self, ids)

    def select_edge(self, edge):
        scene_selection.select_edge(self, edge)

    def add_node_menu_hook(self, hook):
        scene_selection.add_node_menu_hook(self, hook)

    def node_at(self, scene_pos):
        return scene_selection.node_at(self, scene_pos)

    def target_at(self, pos):
        return scene_selection.target_at(self, pos)

    def fill_context_menu(self, menu, target, pos):
        return scene_selection.fill_context_menu(self, menu, target, pos)

    def contextMenuEvent(self, event):
        scene_selection.context_menu_event(self, event)

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


    # -- hit tests, wires, mouse (app/graph/scene_gestures.py) -----------------------------

    def hit_radius(self, widget=None):
        return scene_gestures.hit_radius(self, widget)

    def edge_at(self, pos, radius=8.0, exclude_nodes=()):
        return scene_gestures.edge_at(self, pos, radius, exclude_nodes)

    def show_insert_hint(self, edge):
        return scene_gestures.show_insert_hint(self, edge)

    def can_insert(self, nid, edge):
        return scene_gestures.can_insert(self, nid, edge)

    def start_wire(self, ref, widget=None):
        return scene_gestures.start_wire(self, ref, widget)

    def move_wire(self, pos):
        return scene_gestures.move_wire(self, pos)

    def finish_wire(self, pos):
        return scene_gestures.finish_wire(self, pos)

    def cancel_wire(self):
        scene_gestures.cancel_wire(self)

    def mousePressEvent(self, event):
        scene_gestures.mouse_press(self, event)

    def mouseMoveEvent(self, event):
        scene_gestures.mouse_move(self, event)

    def mouseReleaseEvent(self, event):
        scene_gestures.mouse_release(self, event)

    def mouseDoubleClickEvent(self, event):
        scene_gestures.mouse_double_click(self, event)

    @property
    def wiring(self):
        return self._wire is not None

    # -- groups: frames and collapsed boxes (app/graph/scene_groups.py) --------------------

    def group_item(self, gid):
        return self._group_items.get(gid)

    def group_frame(self, gid):
        return self._frames.get(gid)

    def _members(self, gid):
        return scene_groups.group_members(self, gid)

    def _on_groups_changed(self):
        scene_groups.on_groups_changed(self)

    def _sync_groups(self):
        scene_groups.sync_groups(self)

    def _place_groups(self):
        scene_groups.place_groups(self)

    def _refresh_group_numbers(self):
        scene_groups.refresh_group_numbers(self)
