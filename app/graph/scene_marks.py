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
"""

from core.graphdoc import Edge


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
    for nid, status in statuses.items():
        item = scene._nodes.get(nid)
        if item is not None:
            item.set_status(status)


def clear_node_status(scene):
    for item in scene._nodes.values():
        item.set_status(None)


def set_debug_marks(scene, marks, edges=()):
    """{nid: (mark, tag)} with mark 'current' or 'target' (others lose theirs),
    and the wires ((src, dst, port)) to highlight as carrying gradient."""
    old_marks, old_edges = getattr(scene, "_debug_state", ({}, set()))
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
    old = getattr(scene, "_breakpoint_marks", set())
    for nid in old | nids:
        item = scene._nodes.get(nid)
        if item is not None:
            item.set_breakpoint(nid in nids)
    scene._breakpoint_marks = nids


def update_masks(scene, masks):
    """{nid: (data text, grad text, dimmed) or None (show the real numbers)}."""
    masked = getattr(scene, "_masked", None)
    if masked is None:
        masked = scene._masked = set()
    for nid, mask in masks.items():
        item = scene._nodes.get(nid)
        if item is None:
            continue
        if mask is None:
            item.set_masks()
            masked.discard(nid)
        else:
            item.set_masks(*mask)
            masked.add(nid)


def clear_debug(scene):
    """Every debugger mark, mask and status stripe off (breakpoint dots stay)."""
    set_debug_marks(scene, {})
    update_masks(scene, {nid: None for nid in list(getattr(scene, "_masked", ()))})
    for item in scene._nodes.values():
        if item.debug_mark is not None or item.data_mask is not None or item.grad_mask is not None:
            item.set_debug(None, "")
            item.set_masks()
    clear_node_status(scene)
