"""Building the canvas items: at once for a small graph, in slices for a large one.

`sync_structure(scene)` brings the GraphScene's items in line with the
session's document, a diff by node id and edge. The items of nodes and wires
that are gone are removed and the remaining ones updated at once (that touches
only items that exist); then the missing items are created. Fewer than
BUILD_AT_ONCE of them are created there and then, so a small graph is complete
as soon as it is shown. A large one -- a traced MLP of 5,000 nodes is ~12,000
items, a third of a second of work -- is built by a `SlicedJob`
(app/slices.py), one slice per event-loop turn: the window paints what is built
so far and answers input in between. The graph appears from left to right, in
the order its values flow. `scene.building` is True until the last item is
there; `buildingChanged(False)` says so.

A new graph (a reset) replaces every item. A large old graph's items are
removed by the same slices, before the new ones come (taking 12,000 items out
of a scene takes a tenth of a second too); meanwhile the views do not repaint,
and the scene no longer counts those items as its own (`scene.owns`), so a
click cannot reach them.

What holds while a build runs:

* the scene rect is the finished graph's from the start (the node sizes are
  measured up front), so the view can be fitted to all of it at once;
* every item is born looking as it should: its numbers, the output and
  missing-port flags, the debugger's marks and the lesson's glow (the scene
  keeps those, app/graph/marks.py);
* a structural edit of the document (a delete, an undo, another open) stops
  the slices; the sync that follows its recompile plans again from what is
  built, so the items end up exactly as a build from scratch would make them;
* whatever needs every item (select all, an export, an item asked for by id)
  calls `finish_build`, which does the rest at once;
* group frames and boxes, the selection and `structureChanged` come with the
  last item.

Functions taking the scene, like the scene's other modules.
"""

import math

from PySide6.QtCore import QRectF

from app.graph.node_geometry import node_size
from app.slices import SlicedJob
from core.document.names import naming_steps, node_names

BUILD_AT_ONCE = 600  # items still to create (nodes + wires) below which there are no slices


def sync_structure(scene):
    """Bring the items in line with the document: update now, create the missing ones."""
    was_building = scene._build is not None
    if was_building:
        scene._build.cancel()
        scene._build.deleteLater()
        scene._build = None
    doc = scene.session.doc
    if scene._reset:  # a new graph: the old one's items go, a large one's in slices
        old = scene._forget_items()
        if len(old) + len(scene._retired) < BUILD_AT_ONCE:
            scene._retired = []
            scene.clear()
        else:
            scene._retired = old + scene._retired
    pause_views(scene, bool(scene._retired))
    scene._reset = False
    scene._dirty = False
    nodes = doc.nodes
    for nid in [n for n in scene._nodes if n not in nodes]:
        scene._remove_node(nid)
    edges = doc.edges
    wanted = set(edges)
    for edge in [e for e in scene._edges if e not in wanted]:
        scene._remove_edge(edge)

    output = doc.effective_output()
    compiled = scene.session.compiled
    missing = compiled.missing if compiled is not None else doc.missing_inputs()
    new_nodes = [nid for nid in nodes if nid not in scene._nodes]
    new_edges = [e for e in edges if e not in scene._edges]
    sliced = len(new_nodes) + len(new_edges) >= BUILD_AT_ONCE or bool(scene._retired)
    name_in_slices = sliced and not scene._nodes  # a new large graph: its names come slice by slice
    if name_in_slices:
        scene._names = {}
    else:
        rename(scene)
    for nid, item in scene._nodes.items():
        node = nodes[nid]
        at = scene.to_scene(node.pos)
        if item.pos() != at:
            item.setPos(at)
            item.moved()
        item.set_flags(nid == output, missing.get(nid, ()))

    steps = _create_items(scene, new_nodes, new_edges, output, missing, name_in_slices)
    if not sliced:
        for _ in steps:
            pass
        _finish(scene, was_building)
        return
    scene._planned_rect = planned_rect(scene, new_nodes, output)
    scene._build = SlicedJob(steps, scene)
    scene._build.finished.connect(scene._build_done)
    scene._update_items_rect()
    scene._build.start()
    scene.structureChanged.emit()  # the new extent: the minimap and the overlays follow
    if not was_building:
        scene.buildingChanged.emit(True)


def rename(scene):
    """Give every item the name core/document/names.py makes for its node now (a
    label edit renames the nodes its value flows into); returns the names."""
    doc = scene.session.doc
    names = scene._names = node_names(doc)
    for nid, item in scene._nodes.items():
        node = doc.nodes.get(nid)
        if node is not None and item.signature() != (node.kind, node.op, node.param, node.label, names[nid]):
            item.set_node(node, names[nid])
    return names


def _create_items(scene, node_ids, edges, output, missing, name_first=False):
    """One item per step: first a replaced graph's items go (`scene._retired`:
    removing 12,000 items takes ~0.1 s too), then the missing ones come, the nodes from
    left to right and each wire as soon as both its ends are there. So the
    graph appears in the order its values flow, and each slice's new items lie
    in a narrow band of the view -- the band is all the next paint redraws.

    The plan is only valid for the document it was made from: a structural edit
    cancels the job before the next step runs (GraphScene._on_doc_changed)."""
    retired = scene._retired  # kept on the scene: a job cancelled halfway leaves the rest to the next
    if retired:
        while retired:
            item = retired.pop()  # the last reference: the item is deleted once removed
            if item.scene() is scene:
                scene.removeItem(item)
            del item
            yield
        pause_views(scene, False)
    if name_first:  # ~40 ms at 5,000 nodes: named a slice at a time too
        yield from naming_steps(scene.session.doc, scene._names)
    built = scene._nodes
    waiting = {}  # nid -> wires waiting for that node's item
    for edge in edges:
        unbuilt = [end for end in (edge.src, edge.dst) if end not in built]
        if unbuilt:
            for end in unbuilt:
                waiting.setdefault(end, []).append(edge)
        else:
            scene._add_edge(edge)
            yield
    doc_nodes = scene.session.doc.nodes
    for nid in sorted(node_ids, key=lambda n: doc_nodes[n].pos):
        scene._add_node(doc_nodes[nid], nid == output, missing.get(nid, ()))
        yield
        for edge in waiting.pop(nid, ()):
            if edge.src in built and edge.dst in built:
                scene._add_edge(edge)
                yield


def build_done(scene):
    """The job created the last item."""
    job, scene._build = scene._build, None
    if job is not None:
        job.deleteLater()
    _finish(scene, True)


def _finish(scene, was_building):
    pause_views(scene, False)
    scene._planned_rect = QRectF()
    scene._geometry_timer.stop()
    scene._update_items_rect()
    scene.selection.follow_current()
    scene.group_layer.sync()
    scene.selection.keep_edge()
    scene.structureChanged.emit()
    if was_building:
        scene.buildingChanged.emit(False)


def finish_build(scene):
    """Create every item still missing now (for callers that need them all)."""
    if scene._build is None:
        return
    if scene._dirty:  # an edit is waiting for its recompile: plan after it
        scene.session.flush()
        if scene._dirty:
            scene.sync()
    if scene._build is not None:
        scene._build.run_to_end()


def planned_rect(scene, node_ids, output):
    """The rectangle the boxes will fill once the nodes node_ids are built too."""
    theme, nodes, s = scene.theme, scene.session.doc.nodes, scene.theme.scale
    boxes = []
    for nid in node_ids:
        node = nodes[nid]
        w, h = node_size(theme, node, nid == output, scene._names.get(nid))  # the geometry the item will share
        boxes.append((node.pos[0] * s, node.pos[1] * s, w / 2, h / 2))
    boxes.extend(_item_boxes(scene._nodes.values()))
    return _union(boxes)


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
