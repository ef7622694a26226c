"""The debugger's and lessons' marks on the canvas: glow, status stripes, marks, masks.

`CanvasMarks` is held by the GraphScene as `scene.marks`:
    set_highlight(nodes=(), edges=())        glow on nodes and wires (replaces the last)
    set_node_status({nid: status})           a stripe: 'untouched' / 'partial' / 'final' / QColor / None
    clear_node_status()
    set_debug_marks({nid: (mark, tag)}, edges)  the debugger step: 'current' / 'target' nodes with a
                                             chip text, and the wires carrying gradient (diffed)
    set_breakpoint_marks(nids)               red dots on these nodes (replaces the last)
    update_masks({nid: (data, grad, dimmed) | None})  texts shown instead of numbers ('?')
    clear_debug()                            every debugger mark off
The scene's own hooks the debugger uses beside these: `set_grad_scale(grad_max)`
(pin the grad colour scale while stepping), `refresh_values(ids)`,
`selection.select_node(nid)`, `selection.add_node_menu_hook(hook)`.

Debugger marks change a handful of nodes per step: each call touches only the
items whose look changes, never all of a 5,000-node graph.

The marks object keeps every mark it was given, not just the items' looks: a
large graph's items are built in slices (app/graph/scene_build.py), and an item
built after a call gets its marks from `decorate_node` / `decorate_edge`. A new
graph (`forget`) starts without any. It reaches the items only through the
scene's public lookups of what is built so far (`node_items()`,
`edge_item_map()`), so a mark never forces a sliced build to finish.
"""

from core.document.graph import Edge


class CanvasMarks:
    def __init__(self, scene):
        self._scene = scene
        self.forget()

    def forget(self):
        """A new graph: the marks of the old one's ids go (ids like n1 come back)."""
        self._highlight = (set(), set())  # (node ids, Edges) that glow
        self._statuses = {}  # nid -> status stripe
        self._debug_state = ({}, set())  # ({nid: (mark, tag)}, Edges carrying gradient)
        self._breakpoints = set()  # nids with a red dot
        self._masked = {}  # nid -> (data text, grad text, dimmed)

    # -- queries -------------------------------------------------------------------

    def highlighted_nodes(self):
        """The node ids that glow (a copy)."""
        return set(self._highlight[0])

    def highlighted_edges(self):
        """The wires (Edges) that glow (a copy)."""
        return set(self._highlight[1])

    # -- the hooks -------------------------------------------------------------------

    def set_highlight(self, nodes=(), edges=()):
        """Glow on these node ids and wires ((src, dst, port) triples); replaces the last."""
        self._highlight = nodes, edges = (set(nodes), {Edge(*e) for e in edges})
        for nid, item in self._scene.node_items().items():
            item.set_highlighted(nid in nodes)
        for edge, item in self._scene.edge_item_map().items():
            item.set_highlighted(edge in edges)

    def set_node_status(self, statuses):
        """{nid: 'untouched' | 'partial' | 'final' | QColor | None}; other nodes keep theirs."""
        kept = self._statuses
        items = self._scene.node_items()
        for nid, status in statuses.items():
            if status is None:
                kept.pop(nid, None)
            else:
                kept[nid] = status
            item = items.get(nid)
            if item is not None:
                item.set_status(status)

    def clear_node_status(self):
        self._statuses = {}
        for item in self._scene.node_items().values():
            item.set_status(None)

    def set_debug_marks(self, marks, edges=()):
        """{nid: (mark, tag)} with mark 'current' or 'target' (others lose theirs),
        and the wires ((src, dst, port)) to highlight as carrying gradient."""
        old_marks, old_edges = self._debug_state
        items = self._scene.node_items()
        for nid in old_marks:
            if nid not in marks:
                item = items.get(nid)
                if item is not None:
                    item.set_debug(None, "")
        for nid, (mark, tag) in marks.items():
            item = items.get(nid)
            if item is not None:
                item.set_debug(mark, tag)
        edges = {Edge(*e) for e in edges}
        edge_items = self._scene.edge_item_map()
        for edge in old_edges - edges:
            item = edge_items.get(edge)
            if item is not None:
                item.set_highlighted(edge in self._highlight[1])
        for edge in edges:
            item = edge_items.get(edge)
            if item is not None:
                item.set_highlighted(True)
        self._debug_state = (dict(marks), edges)

    def set_breakpoint_marks(self, nids):
        nids = set(nids)
        items = self._scene.node_items()
        for nid in self._breakpoints | nids:
            item = items.get(nid)
            if item is not None:
                item.set_breakpoint(nid in nids)
        self._breakpoints = nids

    def mask_of(self, nid):
        """(data text, grad text, dimmed) the canvas shows instead of node nid's numbers,
        or None: the status bar, tool tips and the inspector hide what the canvas hides."""
        return self._masked.get(nid)

    def grad_masked(self):
        """The ids whose grad the canvas hides (the grad scale must not give them away)."""
        return {nid for nid, mask in self._masked.items() if mask[1] is not None}

    def update_masks(self, masks):
        """{nid: (data text, grad text, dimmed) or None (show the real numbers)}."""
        self._set_masks(masks)
        scene = self._scene
        if masks:
            scene.refresh_values(list(masks))  # the grad scale leaves hidden grads out
            scene.masksChanged.emit()

    def _set_masks(self, masks):
        masked = self._masked
        items = self._scene.node_items()
        for nid, mask in masks.items():
            if mask is None:
                masked.pop(nid, None)
            else:
                masked[nid] = mask
            item = items.get(nid)
            if item is None:
                continue
            if mask is None:
                item.set_masks()
            else:
                item.set_masks(*mask)

    def clear_debug(self):
        """Every debugger mark, mask and status stripe off (breakpoint dots stay)."""
        self.set_debug_marks({})
        self.update_masks({nid: None for nid in list(self._masked)})
        for item in self._scene.node_items().values():
            if item.debug_mark is not None or item.data_mask is not None or item.grad_mask is not None:
                item.set_debug(None, "")
                item.set_masks()
        self.clear_node_status()

    # -- items built later -----------------------------------------------------------

    def decorate_node(self, item):
        """Give a NodeItem built just now the marks held for its id."""
        nid = item.nid
        if nid in self._highlight[0]:
            item.set_highlighted(True)
        status = self._statuses.get(nid)
        if status is not None:
            item.set_status(status)
        mark = self._debug_state[0].get(nid)
        if mark is not None:
            item.set_debug(*mark)
        if nid in self._breakpoints:
            item.set_breakpoint(True)
        mask = self._masked.get(nid)
        if mask is not None:
            item.set_masks(*mask)

    def decorate_edge(self, edge, item):
        if edge in self._highlight[1] or edge in self._debug_state[1]:
            item.set_highlighted(True)
