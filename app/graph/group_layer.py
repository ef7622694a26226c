"""Groups on the canvas (core/document/groups.py, `session.groups`).

An expanded group gets a frame behind its nodes, a collapsed one a `GroupItem`
that stands in for them (app/graph/groups.py): its members and their inner
wires are hidden, and wires crossing its border end on the box's ports.

`GroupLayer` is held by the GraphScene as `scene.group_layer`. It owns the
frames and boxes, and remembers which node and wire items it hid or anchored
to a box, so the next sync can give them back. It reaches the scene's items
only through `node_items()` and `edge_item_map()`.
"""

from PySide6.QtCore import QRectF

from app.graph.groups import GroupFrameItem, GroupItem
from core.document.commands import describe


class GroupLayer:
    def __init__(self, scene):
        self._scene = scene
        self._boxes = {}  # gid -> GroupItem (collapsed groups)
        self._frames = {}  # gid -> GroupFrameItem (expanded groups)
        self._hidden = []  # NodeItems / EdgeItems hidden by collapsed groups
        self._anchored = []  # EdgeItems ending on a GroupItem

    # -- queries -------------------------------------------------------------------

    def item(self, gid):
        """The GroupItem standing in for collapsed group gid, or None."""
        return self._boxes.get(gid)

    def frame(self, gid):
        """The frame of expanded group gid, or None."""
        return self._frames.get(gid)

    def boxes(self):
        """{gid: GroupItem} of the collapsed groups (read it, do not change it)."""
        return self._boxes

    def owns(self, item):
        """True if item is the GroupItem shown now for its group."""
        return self._boxes.get(item.gid) is item

    def members(self, gid):
        """The node ids of group gid that are in the document."""
        session = self._scene.session
        table = getattr(session, "groups", None)
        group = table.get(gid) if table is not None else None
        if group is None:
            return []
        return [nid for nid in group["nodes"] if nid in session.doc.nodes]

    # -- following the groups ------------------------------------------------------------

    def forget(self):
        """A new graph: drop every frame and box from the books and return them (the
        scene removes them with the rest). Their wire lists are emptied, so no
        cycle keeps an item alive."""
        for box in self._boxes.values():
            box.edges = []
        old = list(self._frames.values()) + list(self._boxes.values())
        self._boxes.clear()
        self._frames.clear()
        self._hidden, self._anchored = [], []
        return old

    def sync(self):
        """Frames for expanded groups, one box for each collapsed one."""
        scene = self._scene
        table = getattr(scene.session, "groups", None)
        doc = scene.session.doc
        for item in self._hidden:
            if item.scene() is scene:
                item.setVisible(True)
        self._hidden = []
        for edge in self._anchored:
            edge.src_anchor = edge.dst_anchor = None
            if edge.scene() is scene:
                edge.update_path()
        self._anchored = []
        nodes = scene.node_items()
        collapsed, expanded = {}, {}
        for group in table if table is not None else ():
            members = [nid for nid in group["nodes"] if nid in nodes]
            if members:
                (collapsed if group["collapsed"] else expanded)[group["id"]] = (group, members)
        for gid in [g for g in self._boxes if g not in collapsed]:
            scene.removeItem(self._boxes.pop(gid))
        for gid in [g for g in self._frames if g not in expanded]:
            scene.removeItem(self._frames.pop(gid))
        for gid, (group, _members) in expanded.items():
            frame = self._frames.get(gid)
            if frame is None or frame.title != group["title"]:
                if frame is not None:
                    scene.removeItem(frame)
                frame = self._frames[gid] = GroupFrameItem(scene.theme, gid, group["title"])
                scene.addItem(frame)
        if collapsed:
            self._collapse(collapsed, doc)
        self.place()

    def _collapse(self, collapsed, doc):
        scene = self._scene
        nodes, edges = scene.node_items(), scene.edge_item_map()
        owner = {nid: gid for gid, (_g, members) in collapsed.items() for nid in members}
        users = {}
        for edge in edges:
            users.setdefault(edge.src, []).append(edge.dst)
        for gid, (group, members) in collapsed.items():
            item = self._boxes.get(gid)
            if item is None or item.title != group["title"]:
                if item is not None:
                    scene.removeItem(item)
                item = self._boxes[gid] = GroupItem(scene.theme, gid, group["title"])
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
            node_item = nodes[nid]
            if node_item.isSelected():
                node_item.setSelected(False)
            node_item.setVisible(False)
            self._hidden.append(node_item)
        for edge, edge_item in edges.items():
            g_src, g_dst = owner.get(edge.src), owner.get(edge.dst)
            if g_src is None and g_dst is None:
                continue
            if g_src is not None and g_src == g_dst:
                edge_item.setVisible(False)
                self._hidden.append(edge_item)
                continue
            edge_item.src_anchor = self._boxes[g_src] if g_src is not None else None
            edge_item.dst_anchor = self._boxes[g_dst] if g_dst is not None else None
            for gid in (g_src, g_dst):
                if gid is not None:
                    self._boxes[gid].edges.append(edge_item)
            self._anchored.append(edge_item)

    def place(self):
        """Collapsed boxes at their nodes' centroid; frames around their nodes."""
        scene = self._scene
        doc = scene.session.doc
        for gid, item in self._boxes.items():
            members = self.members(gid)
            if not members:
                continue
            x, y = scene.to_scene_xy(
                sum(doc.nodes[nid].pos[0] for nid in members) / len(members),
                sum(doc.nodes[nid].pos[1] for nid in members) / len(members),
            )
            if (item.x(), item.y()) != (x, y):
                item.setPos(x, y)
            for edge in item.edges:
                edge.update_path()
        nodes = scene.node_items()
        for gid, frame in self._frames.items():
            rect = QRectF()
            for nid in self.members(gid):
                node_item = nodes.get(nid)
                if node_item is not None:
                    rect = rect.united(node_item.box_rect())
            frame.set_rect(rect)

    def refresh_numbers(self):
        """The numbers on the collapsed boxes' output ports, from the compiled Values."""
        values = self._scene.session.values
        for item in self._boxes.values():
            numbers = {}
            for nid, _label in item.outputs:
                v = values.get(nid)
                numbers[nid] = (v.data, v.grad) if v is not None else (None, None)
            item.set_numbers(numbers)
