"""The canvas model: a QGraphicsScene that mirrors the session's GraphDocument.

The scene never owns graph state. It keeps one `NodeItem` per document node
and one `EdgeItem` per document edge, positioned at the document's `pos`, and
shows the numbers of the session's compiled Values. It updates on three cues:

* document events: a moved node or a new label is applied at once (cheap);
  structural events only mark the scene dirty;
* `session.recompiled`: the items are brought in line with the document
  (a diff by node id and edge), then every number is refreshed; a large
  graph's missing items are built in slices from the event loop, so the
  window never freezes (app/graph/scene_build.py, `building`);
* `session.gradsChanged(ids)`: the grad text of those nodes (or all) is
  refreshed in place -- what the debugger calls after each step.

Groups (core/document/groups.py, `session.groups`): an expanded group gets a frame
behind its nodes, a collapsed one a `GroupItem` that stands in for them
(app/graph/groups.py).

The scene keeps what is its own: the items by node id and by edge, the theme,
the session link, the numbers' colour scale and the hit tests. Its other
concerns are objects it holds, each owning its state and reaching the items
only through the public lookups below (`node_items()`, `node_item(nid)`,
`edge_item(edge)`, `edge_item_map()`):

    scene.marks         app/graph/marks.py         the debugger's and lessons' glow, stripes,
                                                   marks, masks, breakpoint dots
    scene.selection     app/graph/selection.py     selected nodes, groups and wire
    scene.context_menu  app/graph/context_menu.py  the right-click menu
    scene.group_layer   app/graph/group_layer.py   group frames and collapsed boxes
    scene.gestures      app/graph/gestures.py      drags, wires, double-clicks (one command each)

    scene.canvas_build  app/graph/scene_build.py   the items brought in line with the document,
                                                   in slices for a large graph

tests/app/graph/test_scene_privates.py checks that no other module reaches into
the scene's private attributes.
"""

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QPainterPathStroker
from PySide6.QtWidgets import QGraphicsScene

from app.graph.context_menu import CanvasMenu
from app.graph.edge_item import EdgeItem
from app.graph.gestures import CanvasGestures
from app.graph.group_layer import GroupLayer
from app.graph.groups import GroupItem
from app.graph.marks import CanvasMarks
from app.graph.node_item import NodeItem
from app.graph.ports import HIT_PIXELS
from app.graph.scene_build import CanvasBuild, boxes_rect
from app.graph.selection import CanvasSelection
from app.look.theme import DEFAULT
from core.document.graph import Edge
from core.document.navigate import find_nodes

SCENE_MARGIN = 400.0


class GraphScene(QGraphicsScene):
    structureChanged = Signal()  # items added/removed/moved (minimap, counts)
    valuesRefreshed = Signal()  # numbers redrawn
    masksChanged = Signal()  # numbers hidden or shown again (CanvasMarks.update_masks)
    hint = Signal(str)  # what a gesture would do, or why it is refused
    editRequested = Signal(str)  # double-click on a node
    quickAddRequested = Signal(QPointF)  # double-click on empty canvas (scene point)
    buildingChanged = Signal(bool)  # a sliced build of the items began (True) / ended (False)

    def __init__(self, session, theme=DEFAULT, parent=None):
        super().__init__(parent)
        self.session = session
        self.theme = theme
        self.setItemIndexMethod(QGraphicsScene.BspTreeIndex)
        self.setBackgroundBrush(theme.color("background"))
        self._nodes = {}  # nid -> NodeItem
        self._edges = {}  # Edge -> EdgeItem
        self._routes = {}  # (src, dst, src pos, dst pos) -> bend points from the layout
        self._dirty = True
        self._reset = False
        # the items brought in line with the document, a large graph's in slices
        self.canvas_build = CanvasBuild(self, self._build_began, self._build_planned, self._build_complete)
        self._grad_max = 0.0
        self.marks = CanvasMarks(self)  # the debugger's and lessons' marks (app/graph/marks.py)
        self._items_rect = QRectF()
        # the part of the scene the view showed at a drop: kept inside the scene's rect, so
        # that a scene smaller than the view is not centred again under the new node
        self.held_rect = QRectF()
        self.gestures = CanvasGestures(self)  # drags, wires, double-clicks (app/graph/gestures.py)
        self.group_layer = GroupLayer(self)  # group frames and boxes (app/graph/group_layer.py)
        # many moves in one command (a layout) settle into one rect update
        self._geometry_timer = QTimer(self)
        self._geometry_timer.setSingleShot(True)
        self._geometry_timer.setInterval(0)
        self._geometry_timer.timeout.connect(self._geometry_settled)
        session.doc.changed.connect(self._on_doc_changed)
        session.recompiled.connect(self.sync)
        session.gradsChanged.connect(self.refresh_values)
        self.selection = CanvasSelection(self)
        self.context_menu = CanvasMenu(self)
        session.currentChanged.connect(self._on_current_changed)
        self.selectionChanged.connect(self._on_selection_changed)
        groups = getattr(session, "groups", None)
        if groups is not None:
            groups.changed.connect(self._on_groups_changed)

    # -- queries -------------------------------------------------------------------

    def node_item(self, nid):
        """The NodeItem of node nid (None if there is no such node). One not built yet
        is built now, with the rest of a build in progress."""
        item = self._nodes.get(nid)
        if item is None and self.canvas_build.active and nid in self.session.doc.nodes:
            self.finish_build()
            item = self._nodes.get(nid)
        return item

    def node_items(self):
        """{nid: NodeItem} of the nodes built so far (read it, do not change it)."""
        return self._nodes

    def edge_item(self, edge):
        """The EdgeItem of the wire edge ((src, dst, port)) built so far, or None."""
        return self._edges.get(Edge(*edge))

    def edge_item_map(self):
        """{Edge: EdgeItem} of the wires built so far (read it, do not change it)."""
        return self._edges

    def edge_items(self, src=None, dst=None):
        """EdgeItems, optionally only those from src and/or into dst (document order)."""
        return [
            item
            for edge, item in self._edges.items()
            if (src is None or edge.src == src) and (dst is None or edge.dst == dst)
        ]

    def counts(self):
        """(node items, edge items) built so far."""
        return len(self._nodes), len(self._edges)

    @property
    def building(self):
        """True while a large graph's items are still being created in slices."""
        return self.canvas_build.active

    def finish_build(self):
        """Create every item still missing now, without returning to the event loop."""
        if not self.canvas_build.active:
            return
        if self._dirty:  # an edit is waiting for its recompile: plan after it
            self.session.flush()
            if self._dirty:
                self.sync()
        self.canvas_build.run_to_end()

    def cancel_build(self):
        """Stop building (the window is closing); a later sync plans again."""
        if self.canvas_build.cancel():
            self._dirty = True

    def index_new_items(self):
        """Let the scene's index take in the items added since its last query (any
        query does that): a build does it every hundred items, so that no single
        query -- a paint, the overlays' placement -- takes in thousands at once."""
        self.items(QRectF(0.0, 0.0, 1.0, 1.0))

    def items_rect(self):
        """The rectangle holding every node box (scene coordinates)."""
        return QRectF(self._items_rect)

    def find(self, text):
        """Node ids whose label or canvas name (the formula of an unlabelled node: type
        x1*w1 to find x1·w1) matches text: whole matches first, then parts
        (core.document.navigate.find_nodes)."""
        return find_nodes(self.session.doc, text)

    # -- following the document ------------------------------------------------------

    def _on_doc_changed(self, event, *details):
        if event == "reset":  # a new graph: debugger marks of the old one go too
            self.held_rect = QRectF()
            self._reset = True
            self._dirty = True
            self.marks.forget()
            self.canvas_build.stop()  # its plan was for the old graph; the next sync makes one
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
            elif field in ("label", "param"):  # the names of its consumers change too
                self.canvas_build.rename()
        else:
            self._dirty = True
            self.canvas_build.stop()

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
        reset, self._reset, self._dirty = self._reset, False, False
        self.canvas_build.sync(reset)

    def _build_began(self, was_building):
        """The build's slices start: the scene spans the finished graph (a new graph's
        once its first steps planned it, `_build_planned`)."""
        self._update_items_rect()
        self.structureChanged.emit()  # the new extent: the minimap and the overlays follow
        if not was_building:
            self.buildingChanged.emit(True)

    def _build_planned(self):
        """A new graph's extent is known: the scene spans it (a fit waiting for it follows)."""
        self._update_items_rect()
        self.structureChanged.emit()

    def _build_complete(self, was_building):
        """Every item is there: the parts that need them all follow."""
        self._geometry_timer.stop()
        self._update_items_rect()
        self.selection.follow_current()
        self.group_layer.sync()
        self.selection.keep_edge()
        self.structureChanged.emit()
        if was_building:
            self.buildingChanged.emit(False)

    # -- the items, made and dropped by the build (app/graph/scene_build.py) ----------

    def add_node_item(self, node, is_output, missing_ports, name=None):
        """A NodeItem for node, looking as it should from the start (numbers, marks);
        `name` is what its name row shows (core/document/names.py)."""
        item = NodeItem(self.theme, node, is_output, missing_ports, name)
        v = self.session.values.get(node.id)
        if v is not None:
            item.set_numbers(v.data, v.grad, self._grad_max)
        self.marks.decorate_node(item)
        item.setPos(self.to_scene(node.pos))
        self.addItem(item)
        self._nodes[node.id] = item

    def add_edge_item(self, edge):
        """An EdgeItem for the document's wire edge (both its ends' items are built)."""
        src, dst = self._nodes[edge.src], self._nodes[edge.dst]
        nodes = self.session.doc.nodes
        key = (edge.src, edge.dst, tuple(nodes[edge.src].pos), tuple(nodes[edge.dst].pos))
        route = self._routes.get(key)
        if route is not None and self.theme.scale != 1.0:
            route = [self.to_scene_xy(x, y) for x, y in route]
        item = EdgeItem(self.theme, src, dst, edge.port, route)
        self.marks.decorate_edge(edge, item)
        self.addItem(item)
        self._edges[edge] = item

    def remove_edge_item(self, edge):
        item = self._edges.pop(edge)
        item.detach()
        self.removeItem(item)

    def remove_node_item(self, nid):
        """Drop the items of node nid and of its wires."""
        item = self._nodes.pop(nid)
        for edge_item in item.edges_in + item.edges_out:
            self.remove_edge_item(Edge(*edge_item.edge))
        self.removeItem(item)

    def forget_items(self):
        """Drop every item of the graph shown from the scene's books (a new graph
        comes) and return them, wires last. They stay in the QGraphicsScene until
        removed (app/graph/scene_build.py). Emptying the nodes' wire lists leaves no
        cycle between the items: each is freed once removed, without waiting for
        the garbage collector."""
        self.selection.forget()
        self.gestures.forget()
        for item in self._nodes.values():
            item.edges_in.clear()
            item.edges_out.clear()
        old = self.group_layer.forget() + list(self._nodes.values()) + list(self._edges.values())
        self._nodes.clear()
        self._edges.clear()
        return old

    def owns(self, item):
        """True for the NodeItem / GroupItem the scene shows for its id; False for one
        of a replaced graph that is still being removed."""
        if isinstance(item, NodeItem):
            return self._nodes.get(item.nid) is item
        if isinstance(item, GroupItem):
            return self.group_layer.owns(item)
        return True

    def _geometry_settled(self):
        self._update_items_rect()
        self.group_layer.place()
        self.structureChanged.emit()

    def hold(self, rect):
        """Keep `rect` (what the view shows) inside the scene's rect until the next graph."""
        self.held_rect = QRectF(rect)
        self._update_items_rect()

    def _update_items_rect(self):
        rect = boxes_rect(self._nodes.values())
        if self.canvas_build.active:  # the finished graph's extent, not just what is built
            rect = rect.united(self.canvas_build.planned_rect)
        self._items_rect = rect
        m = SCENE_MARGIN
        scene_rect = rect.adjusted(-m, -m, m, m) if not rect.isNull() else QRectF(-m, -m, 2 * m, 2 * m)
        if not self.held_rect.isNull():  # what the view showed when a node was dropped stays
            scene_rect = scene_rect.united(self.held_rect)
        self.setSceneRect(scene_rect)

    # -- numbers ---------------------------------------------------------------------

    def refresh_values(self, ids=None):
        """Re-read data and grad of the nodes `ids` (None: all) from the compiled Values."""
        values = self.session.values
        grad_max = 0.0
        hidden = self.marks.grad_masked()  # a hidden grad must not show as the scale's end
        for nid, v in values.items():
            if nid in hidden:
                continue
            g = abs(v.grad)
            if g > grad_max and g != float("inf"):
                grad_max = g
        pinned = getattr(self, "_pinned_grad_max", None)  # the pass's final largest |grad|: not in a quiz
        if pinned is not None and pinned >= grad_max and not hidden:
            grad_max = pinned
        if ids is None or grad_max != self._grad_max:
            ids = self._nodes.keys()
            self.last_refreshed = None  # every node (the minimap redraws all)
        else:
            self.last_refreshed = ids = list(ids)  # a debugger step: a few nodes
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
        self.group_layer.refresh_numbers()
        self.valuesRefreshed.emit()

    @property
    def grad_max(self):
        return self._grad_max

    def set_grad_scale(self, grad_max=None):
        """Pin the grad colour scale to at least grad_max (None: follow the graph).
        The debugger pins the full backward pass's largest |grad|, so a step that
        brings a new largest grad does not re-tint (and repaint) every node."""
        self._pinned_grad_max = grad_max

    # -- hit tests -----------------------------------------------------------------------

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

    def node_at(self, scene_pos):
        """The NodeItem under scene point scene_pos, or None."""
        for item in self.items(scene_pos):
            if isinstance(item, NodeItem) and self.owns(item):
                return item
        return None

    def target_at(self, pos):
        """What a click at scene point pos is on: ('group', gid), ('node', nid),
        ('edge', Edge) or ('canvas', None)."""
        for item in self.items(pos):
            if not self.owns(item):
                continue  # an item of the graph shown before, still being removed
            if isinstance(item, GroupItem):
                return "group", item.gid
            if isinstance(item, NodeItem):
                return "node", item.nid
        edge = self.edge_at(pos, self.hit_radius() * 0.7)
        if edge is not None:
            return "edge", edge
        return "canvas", None

    def _on_selection_changed(self):
        self.selection.scene_selection_changed()

    def _on_current_changed(self, nid):
        self.selection.current_changed(nid)

    def contextMenuEvent(self, event):
        self.context_menu.show(event)

    def set_theme(self, theme):
        self.finish_build()  # rare: every item in the old look first, then all restyled
        ratio = theme.scale / self.theme.scale
        self.theme = theme
        self.setBackgroundBrush(theme.color("background"))
        for item in self._nodes.values():
            item.set_theme(theme)
        for item in self._edges.values():
            item.set_theme(theme)
        if ratio != 1.0:  # spread the nodes out as much as they grew
            nodes = self.session.doc.nodes
            for edge in self._edges.values():
                if edge.route:
                    edge.route = [(x * ratio, y * ratio) for x, y in edge.route]
            for nid, item in self._nodes.items():
                if nid in nodes:
                    item.setPos(self.to_scene(nodes[nid].pos))
                    item.moved()
            self.group_layer.place()
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

    # -- mouse (app/graph/gestures.py) -----------------------------------------------------

    def mousePressEvent(self, event):
        self.gestures.mouse_press(event)

    def mouseMoveEvent(self, event):
        self.gestures.mouse_move(event)

    def mouseReleaseEvent(self, event):
        self.gestures.mouse_release(event)

    def mouseDoubleClickEvent(self, event):
        self.gestures.mouse_double_click(event)

    # -- groups: frames and collapsed boxes (app/graph/group_layer.py) ---------------------

    def _on_groups_changed(self):
        if self._dirty or self.canvas_build.active:
            return  # the sync after the recompile, or the build's last slice, will draw them
        self.group_layer.sync()
        self.group_layer.refresh_numbers()
        self.structureChanged.emit()
