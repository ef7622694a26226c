"""Groups on the canvas (core/document/groups.py, `session.groups`).

An expanded group gets a frame behind its nodes, a collapsed one a `GroupItem`
that stands in for them (app/graph/groups.py): its members and their inner
wires are hidden, and wires crossing its border end on the box's ports.
Functions taking the GraphScene.
"""

from PySide6.QtCore import QRectF

from app.graph.groups import GroupFrameItem, GroupItem
from core.document.commands import describe


def group_members(scene, gid):
    table = getattr(scene.session, "groups", None)
    group = table.get(gid) if table is not None else None
    if group is None:
        return []
    return [nid for nid in group["nodes"] if nid in scene.session.doc.nodes]


def on_groups_changed(scene):
    if scene._dirty or scene.building:
        return   # the sync after the recompile, or the build's last slice, will draw them
    sync_groups(scene)
    refresh_group_numbers(scene)
    scene.structureChanged.emit()


def sync_groups(scene):
    """Frames for expanded groups, one box for each collapsed one."""
    table = getattr(scene.session, "groups", None)
    doc = scene.session.doc
    for item in scene._hidden:
        if item.scene() is scene:
            item.setVisible(True)
    scene._hidden = []
    for edge in scene._anchored:
        edge.src_anchor = edge.dst_anchor = None
        if edge.scene() is scene:
            edge.update_path()
    scene._anchored = []
    collapsed, expanded = {}, {}
    for group in (table if table is not None else ()):
        members = [nid for nid in group["nodes"] if nid in scene._nodes]
        if members:
            (collapsed if group["collapsed"] else expanded)[group["id"]] = (group, members)
    for gid in [g for g in scene._group_items if g not in collapsed]:
        scene.removeItem(scene._group_items.pop(gid))
    for gid in [g for g in scene._frames if g not in expanded]:
        scene.removeItem(scene._frames.pop(gid))
    for gid, (group, _members) in expanded.items():
        frame = scene._frames.get(gid)
        if frame is None or frame.title != group["title"]:
            if frame is not None:
                scene.removeItem(frame)
            frame = scene._frames[gid] = GroupFrameItem(scene.theme, gid, group["title"])
            scene.addItem(frame)
    if collapsed:
        collapse(scene, collapsed, doc)
    place_groups(scene)


def collapse(scene, collapsed, doc):
    owner = {nid: gid for gid, (_g, members) in collapsed.items() for nid in members}
    users = {}
    for edge in scene._edges:
        users.setdefault(edge.src, []).append(edge.dst)
    for gid, (group, members) in collapsed.items():
        item = scene._group_items.get(gid)
        if item is None or item.title != group["title"]:
            if item is not None:
                scene.removeItem(item)
            item = scene._group_items[gid] = GroupItem(scene.theme, gid, group["title"])
            scene.addItem(item)
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
    for nid in owner:
        node_item = scene._nodes[nid]
        if node_item.isSelected():
            node_item.setSelected(False)
        node_item.setVisible(False)
        scene._hidden.append(node_item)
    for edge, edge_item in scene._edges.items():
        g_src, g_dst = owner.get(edge.src), owner.get(edge.dst)
        if g_src is None and g_dst is None:
            continue
        if g_src is not None and g_src == g_dst:
            edge_item.setVisible(False)
            scene._hidden.append(edge_item)
            continue
        edge_item.src_anchor = scene._group_items[g_src] if g_src is not None else None
        edge_item.dst_anchor = scene._group_items[g_dst] if g_dst is not None else None
        for gid in (g_src, g_dst):
            if gid is not None:
                scene._group_items[gid].edges.append(edge_item)
        scene._anchored.append(edge_item)


def place_groups(scene):
    """Collapsed boxes at their nodes' centroid; frames around their nodes."""
    doc = scene.session.doc
    for gid, item in scene._group_items.items():
        members = group_members(scene, gid)
        if not members:
            continue
        x, y = scene.to_scene_xy(sum(doc.nodes[nid].pos[0] for nid in members) / len(members),
                                sum(doc.nodes[nid].pos[1] for nid in members) / len(members))
        if (item.x(), item.y()) != (x, y):
            item.setPos(x, y)
        for edge in item.edges:
            edge.update_path()
    for gid, frame in scene._frames.items():
        rect = QRectF()
        for nid in group_members(scene, gid):
            node_item = scene._nodes.get(nid)
            if node_item is not None:
                rect = rect.united(node_item.box_rect())
        frame.set_rect(rect)


def refresh_group_numbers(scene):
    values = scene.session.values
    for item in scene._group_items.values():
        numbers = {}
        for nid, _label in item.outputs:
            v = values.get(nid)
            numbers[nid] = (v.data, v.grad) if v is not None else (None, None)
        item.set_numbers(numbers)
