"""Building the canvas items: at once for a small graph, in slices for a large one.

`CanvasBuild.sync(reset)` brings the GraphScene's items in line with the
session's document, a diff by node id and edge. The items of nodes and wires
that are gone are removed and the remaining ones updated at once (that touches
only items that exist); then the missing items are created. Fewer than
BUILD_AT_ONCE of them are created there and then, so a small graph is complete
as soon as it is shown. A large one -- a traced MLP of 5,000 nodes is ~12,000
items, a third of a second of work -- is built by a `SlicedJob`
(app/slices.py), one slice per event-loop turn: the window paints what is built
so far and answers input in between. The graph appears from left to right, in
the order its values flow. `scene.building` is True until the last item is
there; `buildingChanged(False)` says so. A graph opened through a command
(core/document/commands.py ReplaceDocument) comes with its names made on the
worker that checked it (core/document/names.py); only a graph whose names are
not known yet is named in the slices too.

A new graph (a reset) replaces every item. A large old graph's items are
removed by the same slices, before the new ones come (taking 12,000 items out
of a scene takes a tenth of a second too); meanwhile the views do not repaint,
and the scene no longer counts those items as its own (`scene.owns`), so a
click cannot reach them.

What holds while a build runs:

* the scene rect is the finished graph's from the start (the node sizes are
  measured up front), so the view can be fitted to all of it at once; for a
  new graph "the start" is the build's first steps, which measure the boxes
  (~10 ms at 5,000 nodes, too much for the turn that swaps the graph in): until
  then the scene is empty, and a fit asked for meanwhile waits for them;
* every item is born looking as it should: its numbers, the output and
  missing-port flags, the debugger's marks and the lesson's glow (the scene
  keeps those, app/graph/marks.py);
* a structural edit of the document (a delete, an undo, another open) stops
  the slices; the sync that follows its recompile plans again from what is
  built, so the items end up exactly as a build from scratch would make them;
* whatever needs every item (select all, an export, an item asked for by id)
  calls the scene's `finish_build`, which does the rest at once;
* group frames and boxes, the selection and `structureChanged` come with the
  last item.

The build is an object the scene holds (`CanvasBuild`, `scene.canvas_build`): it
owns the slices' job, the replaced graph's items still to remove, the rectangle
the finished graph will fill and the names the items show, and it reaches the
items only through the scene's public surface (`add_node_item`, `remove_edge_item`,
`forget_items`, ...). Two callbacks tell the scene when slices begin and when
the last item is there.
"""

import math

from PySide6.QtCore import QRectF

from app.graph.node_geometry import geometry_for, name_text
from app.slices import SlicedJob
from core.document.graph import Edge, op_symbol
from core.document.names import known_names, naming_steps, node_names

BUILD_AT_ONCE = 600  # items still to create (nodes + wires) below which there are no slices
WAITING_PER_STEP = 500  # wires set aside for their ends' items between two steps
INDEX_EVERY = 100  # items created between two updates of the scene's index
PLAN_PER_STEP = 500  # nodes whose boxes one step of a new graph's plan measures


class CanvasBuild:
    """The scene's items brought in line with its document, in slices for a large graph."""

    def __init__(self, scene, began, planned, complete):
        self.scene = scene
        self._began = began  # began(was_building): slices start (the planned extent may come later)
        self._planned = planned  # planned(): a new graph's extent is known (planned_rect)
        self._complete = complete  # complete(was_building): every item is there
        self._job = None  # the SlicedJob creating missing items, or None
        self._retired = []  # items of a replaced graph still to remove
        self._planned_rect = QRectF()  # the finished graph's boxes while a build runs
        self.names = {}  # nid -> the name its item shows (core/document/names.py)

    @property
    def active(self):
        """True from the start of a sliced build until its last item (or the sync
        after an edit stopped it)."""
        return self._job is not None

    @property
    def planned_rect(self):
        """The rectangle the boxes will fill once every item is built (null when none is due)."""
        return QRectF(self._planned_rect)

    def stop(self):
        """A structural edit: the plan was for the old document, so no slice runs
        again; the build stays active until the sync after the recompile plans anew."""
        if self._job is not None:
            self._job.cancel()

    def cancel(self):
        """Drop the build (the window is closing); True if one was active."""
        job, self._job = self._job, None
        if job is not None:
            job.cancel()
            job.deleteLater()
        pause_views(self.scene, False)
        return job is not None

    def run_to_end(self):
        """Create every item still missing now, without returning to the event loop."""
        if self._job is not None:
            self._job.run_to_end()

    # -- planning --------------------------------------------------------------------

    def sync(self, reset):
        """Bring the items in line with the document: update now, create the missing
        ones (at once, or in slices). `reset`: a new graph, every old item goes."""
        scene = self.scene
        was_building = self._job is not None
        if was_building:
            self._job.cancel()
            self._job.deleteLater()
            self._job = None
        doc = scene.session.doc
        if reset:  # a new graph: the old one's items go, a large one's in slices
            old = scene.forget_items()
            if len(old) + len(self._retired) < BUILD_AT_ONCE:
                self._retired = []
                scene.clear()
            else:
                self._retired = old + self._retired
        pause_views(scene, bool(self._retired))
        nodes = doc.nodes
        built = scene.node_items()
        for nid in [n for n in built if n not in nodes]:
            scene.remove_node_item(nid)
        built_edges = scene.edge_item_map()
        new_nodes = [nid for nid in nodes if nid not in built]
        if built or built_edges or len(new_nodes) < BUILD_AT_ONCE:
            edges = doc.edges
            wanted = set(edges)
            for edge in [e for e in built_edges if e not in wanted]:
                scene.remove_edge_item(edge)
            new_edges = [e for e in edges if e not in built_edges]
        else:  # a new large graph: every wire is new, read by the build's first step (7 ms at 5,000 nodes)
            new_edges = None

        compiled = scene.session.compiled
        # the node backward runs from: the session's (it keeps one while the document names none)
        output = (compiled.output_id if compiled is not None else None) or doc.effective_output()
        missing = compiled.missing if compiled is not None else doc.missing_inputs()
        sliced = new_edges is None or len(new_nodes) + len(new_edges) >= BUILD_AT_ONCE or bool(self._retired)
        # a new large graph whose names are not known yet: they come slice by slice
        name_in_slices = sliced and not built and known_names(doc) is None
        if name_in_slices:
            self.names = {}
        else:
            self.rename()
        for nid, item in built.items():
            node = nodes[nid]
            at = scene.to_scene(node.pos)
            if item.pos() != at:
                item.setPos(at)
                item.moved()
            item.set_flags(nid == output, missing.get(nid, ()))

        steps = self._create_items(new_nodes, new_edges, output, missing, name_in_slices)
        if not sliced:
            for _ in steps:
                pass
            self._finish(was_building)
            return
        if built:
            self._planned_rect = self._plan_rect(new_nodes, output, name_in_slices)
        else:  # a new graph: the build's first steps plan its extent (~10 ms at 5,000 nodes)
            self._planned_rect = QRectF()
            steps = self._planning_steps(new_nodes, output, name_in_slices, steps)
        self._job = SlicedJob(steps, scene)
        self._job.finished.connect(self._done)
        self._job.start()
        self._began(was_building)

    def rename(self):
        """Give every item the name core/document/names.py makes for its node now (a
        label edit renames the nodes its value flows into); returns the names."""
        scene = self.scene
        doc = scene.session.doc
        names = self.names = node_names(doc)
        for nid, item in scene.node_items().items():
            node = doc.nodes.get(nid)
            if node is not None and item.signature() != (node.kind, node.op, node.param, node.label, names[nid]):
                item.set_node(node, names[nid])
        return names

    def _create_items(self, node_ids, edges, output, missing, name_first=False):
        """One item per step: first a replaced graph's items go (`_retired`:
        removing 12,000 items takes ~0.1 s too), then the missing ones come, the nodes from
        left to right and each wire as soon as both its ends are there. So the
        graph appears in the order its values flow, and each slice's new items lie
        in a narrow band of the view -- the band is all the next paint redraws.

        The plan is only valid for the document it was made from: a structural edit
        stops the job before the next step runs (GraphScene._on_doc_changed).
        `edges` None: every wire of the document (a new graph), read here.

        Every INDEX_EVERY items the scene's index takes in the new ones
        (`scene.index_new_items`): left to the first query after the build, the
        12,000 items of a 5,000-node graph cost that query ~15 ms."""
        scene = self.scene
        retired = self._retired  # kept here: a job cancelled halfway leaves the rest to the next
        if retired:
            while retired:
                item = retired.pop()  # the last reference: the item is deleted once removed
                if item.scene() is scene:
                    scene.removeItem(item)
                del item
                yield
            pause_views(scene, False)
        if name_first:  # ~40 ms at 5,000 nodes: named a slice at a time too
            yield from naming_steps(scene.session.doc, self.names)
        if edges is None:
            edges = []
            yield from edges_in_steps(scene.session.doc, edges)
        built = scene.node_items()
        waiting = {}  # nid -> wires waiting for that node's item
        for i, edge in enumerate(edges):
            unbuilt = [end for end in (edge.src, edge.dst) if end not in built]
            if unbuilt:
                for end in unbuilt:
                    waiting.setdefault(end, []).append(edge)
                if i % WAITING_PER_STEP == 0:
                    yield
            else:
                scene.add_edge_item(edge)
                yield
        doc_nodes = scene.session.doc.nodes
        order = sorted(node_ids, key=lambda n: doc_nodes[n].pos)
        yield
        names = self.names
        made = 0
        for nid in order:
            scene.add_node_item(doc_nodes[nid], nid == output, missing.get(nid, ()), names.get(nid))
            made += 1
            yield
            for edge in waiting.pop(nid, ()):
                if edge.src in built and edge.dst in built:
                    scene.add_edge_item(edge)
                    made += 1
                    yield
            if made >= INDEX_EVERY:
                scene.index_new_items()
                made = 0

    def _done(self):
        """The job created the last item."""
        job, self._job = self._job, None
        if job is not None:
            job.deleteLater()
        self._finish(True)

    def _finish(self, was_building):
        pause_views(self.scene, False)
        self._planned_rect = QRectF()
        self._complete(was_building)

    def _planning_steps(self, node_ids, output, unnamed, then):
        """A new graph's extent, PLAN_PER_STEP nodes a step; once it is known the scene
        spans it (`planned`: the view fits it), then the steps `then` run."""
        boxes, memo = [], ({}, {})
        for start in range(0, len(node_ids), PLAN_PER_STEP):
            boxes.extend(self._plan_boxes(node_ids[start : start + PLAN_PER_STEP], output, unnamed, memo))
            yield
        self._planned_rect = _union(boxes)
        self._planned()  # the view fits the extent: a step of its own
        yield
        yield from then

    def _plan_rect(self, node_ids, output, unnamed):
        """The rectangle the boxes will fill once the nodes node_ids are built too."""
        boxes = self._plan_boxes(node_ids, output, unnamed, ({}, {}))
        boxes.extend(_item_boxes(self.scene.node_items().values()))
        return _union(boxes)

    def _plan_boxes(self, node_ids, output, unnamed, memo):
        """The boxes (centre x, centre y, half width, half height) the nodes node_ids
        will have. Each is the geometry its item will share (node_geometry.geometry_for,
        as node_size asks it), written as one loop: at 5,000 nodes every call counts.
        `memo`: two dicts carried from one call to the next."""
        scene = self.scene
        theme, nodes, s = scene.theme, scene.session.doc.nodes, scene.theme.scale
        names = {} if unnamed else self.names  # the label stands in until the name is known
        # (op, param) -> the op's symbol in the box; and as a box's size follows from its
        # kind, op, name width and output flag (few distinct ones):
        # (kind, op text, name width, is output) -> (half width, half height)
        symbols, halves = memo
        boxes = []
        for nid in node_ids:
            node = nodes[nid]
            kind = node.kind
            op_text = None
            if kind == "op":
                op_text = symbols.get((node.op, node.param))
                if op_text is None:
                    op_text = symbols[(node.op, node.param)] = op_symbol(node.op, node.param)
            name = names.get(nid)
            if name is None:
                name = node.label
            key = (kind, op_text, name_text(theme, kind, name)[1], nid == output)
            half = halves.get(key)
            if half is None:
                g = geometry_for(theme, kind, op_text, name, is_output=key[3])
                half = halves[key] = (g.width / 2, g.height / 2)
            x, y = node.pos
            boxes.append((x * s, y * s, half[0], half[1]))
        return boxes


def edges_in_steps(doc, edges):
    """Append doc.edges to `edges`, in its order, a few hundred nodes' wires a step
    (doc.edges in one go is 7 ms at 5,000 nodes)."""
    for i, nid in enumerate(doc.nodes):
        edges.extend(Edge(src, nid, port) for port, src in enumerate(doc.inputs_of(nid)) if src is not None)
        if i % WAITING_PER_STEP == 0:
            yield


def boxes_rect(items):
    """The rectangle holding the boxes of these NodeItems (a null QRectF for none)."""
    return _union(_item_boxes(items))


def _item_boxes(items):
    for item in items:
        g = item.geometry
        yield item.x(), item.y(), g.width / 2, g.height / 2


def _union(boxes):
    """The QRectF around (centre x, centre y, half width, half height) boxes, in
    plain floats: at 5,000 nodes a QRectF per box costs ten times as much."""
    left = top = math.inf
    right = bottom = -math.inf
    for x, y, hw, hh in boxes:
        if x - hw < left:
            left = x - hw
        if x + hw > right:
            right = x + hw
        if y - hh < top:
            top = y - hh
        if y + hh > bottom:
            bottom = y + hh
    if left > right:
        return QRectF()
    return QRectF(left, top, right - left, bottom - top)


def pause_views(scene, paused):
    """While a replaced graph's items are being removed, the views do not repaint:
    a view fitted to the new graph would draw all the old items again, uncached,
    at the new zoom (a tenth of a second at 5,000 nodes) only to lose them."""
    for view in scene.views():
        view.viewport().setUpdatesEnabled(not paused)
