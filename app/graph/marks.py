"""The debugger's decorations on the canvas: glow, status stripes, marks, masks.

Functions taking the GraphScene (its methods of the same names delegate here).
The hooks:
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

Debugger marks change a handful of nodes per step: each call touches only the
items whose look changes, never all of a 5,000-node graph.

The scene keeps every mark it was given (`_highlight`, `_statuses`,
`_debug_state`, `_breakpoint_marks`, `_masked`), not just the items' looks: a
large graph's items are built in slices (app/graph/scene_build.py), and an item
built after a call gets its marks from `decorate_node` / `decorate_edge`. A new
graph (`forget_marks`) starts without any.
"""

from core.document.graph import Edge


def set_highlight(scene, nodes=(), edges=()):
    """Glow on these node ids and wires ((src, dst, port) triples); replaces the last."""
    scene._highlight = (set(nodes), {Edge(*e) for e in edges})
    apply_highlight(scene)


def apply_highlight(scene):
    nodes, edges = scene._highlight
    for nid, item in scene._nodes.items():
        item.set_highlighted(nid in nodes)
    for edge, item in scene._edges.items():
        item.set_highlighted(edge in edges)


def set_node_status(scene, statuses):
    """{nid: 'untouched' | 'partial' | 'final' | QColor | None}; other nodes keep theirs."""
    kept = scene._statuses
    for nid, status in statuses.items():
        if status is None:
            kept.pop(nid, None)
        else:
            kept[nid] = status
        item = scene._nodes.get(nid)
        if item is not None:
            item.set_status(status)


def clear_node_status(scene):
    scene._statuses = {}
    for item in scene._nodes.values():
        item.set_status(None)


def set_debug_marks(scene, marks, edges=()):
    """{nid: (mark, tag)} with mark 'current' or 'target' (others lose theirs),
    and the wires ((src, dst, port)) to highlight as carrying gradient."""
    old_marks, old_edges = scene._debug_state
    for nid in old_marks:
        if nid not in marks:
            item = scene._nodes.get(nid)
            if item is not None:
                item.set_debug(None, "")
    for nid, (mark, tag) in marks.items():
        item = scene._nodes.get(nid)
        if item is not None:
            item.set_debug(mark, tag)
    edges = {Edge(*e) for e in edges}
    for edge in old_edges - edges:
        item = scene._edges.get(edge)
        if item is not None:
            item.set_highlighted(edge in scene._highlight[1])
    for edge in edges:
        item = scene._edges.get(edge)
        if item is not None:
            item.set_highlighted(True)
    scene._debug_state = (dict(marks), edges)


def set_breakpoint_marks(scene, nids):
    nids = set(nids)
    old = scene._breakpoint_marks
    for nid in old | nids:
        item = scene._nodes.get(nid)
        if item is not None:
            item.set_breakpoint(nid in nids)
    scene._breakpoint_marks = nids


def update_masks(scene, masks):
    """{nid: (data text, grad text, dimmed) or None (show the real numbers)}."""
    masked = scene._masked
    for nid, mask in masks.items():
        if mask is None:
            masked.pop(nid, None)
        else:
            masked[nid] = mask
        item = scene._nodes.get(nid)
        if item is None:
            continue
        if mask is None:
            item.set_masks()
        else:
            item.set_masks(*mask)


def clear_debug(scene):
    """Every debugger mark, mask and status stripe off (breakpoint dots stay)."""
    set_debug_marks(scene, {})
    update_masks(scene, {nid: None for nid in list(scene._masked)})
    for item in scene._nodes.values():
        if item.debug_mark is not None or item.data_mask is not None or item.grad_mask is not None:
            item.set_debug(None, "")
            item.set_masks()
    clear_node_status(scene)


# -----------------------------------------------------------------------------
# Items built later, and a new graph

def forget_marks(scene):
    """A new graph: the marks of the old one's ids go (ids like n1 come back)."""
    scene._highlight = (set(), set())
    scene._statuses = {}
    scene._debug_state = ({}, set())
    scene._breakpoint_marks = set()
    scene._masked = {}


def decorate_node(scene, item):
    """Give a NodeItem built just now the marks the scene holds for its id."""
    nid = item.nid
    if nid in scene._highlight[0]:
        item.set_highlighted(True)
    status = scene._statuses.get(nid)
    if status is not None:
        item.set_status(status)
    mark = scene._debug_state[0].get(nid)
    if mark is not None:
        item.set_debug(*mark)
    if nid in scene._breakpoint_marks:
        item.set_breakpoint(True)
    mask = scene._masked.get(nid)
    if mask is not None:
        item.set_masks(*mask)


def decorate_edge(scene, edge, item):
    if edge in scene._highlight[1] or edge in scene._debug_state[1]:
        item.set_highlighted(True)
