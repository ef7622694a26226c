"""Drawing a computation graph in layers, left to right (Sugiyama's method).

A computation graph flows one way: inputs and parameters on the left, the
output on the right. A picture that keeps this flow visible is built in three
small steps, each solving one problem and handing its result to the next
(Sugiyama, Tagawa and Toda, 1981):

1. Layers. Every node gets a column so that every edge points right; an edge
   that jumps over columns is cut into unit steps by *dummy* nodes, which
   behave like tiny nodes in the next two steps and become its bend points.
   Fewer dummies make a tidier picture and a faster layout. The simplest rule
   is the longest path from the sources: a node sits one column right of its
   furthest-back operand. That parks every leaf (each weight, each bias) in
   column 0, far from the multiply that uses it, so a second pass walks the
   graph backwards and pulls a node right, to just before its first consumer,
   unless that stretches more edges than it shortens (a weight that feeds
   only this node travels along and stretches nothing). That is enough for an
   MLP, but moving one node at a time cannot shift a strand of nodes that
   starts at its own leaves and joins the rest late, so a third pass slides
   whole blocks of nodes (`_slide_groups`), a greedy cousin of the network
   simplex method Graphviz `dot` uses for the exact minimum.
   networkx gives the starting point (`topological_generations`, the longest
   path from the sources, and the cycle check); the two passes that move nodes
   are ours. Its generations alone, from the sources or from the output on the
   reversed graph, leave 2-150x more crossings (bench/README_layout.md).

2. Order. Now only the order of the nodes inside each column decides how many
   edges cross. Finding the best order is NP-hard even for two columns, so we
   use the barycenter heuristic: sweep left to right sorting each column by
   the mean position of its neighbours in the column before, then sweep back
   right to left using the column after. A few sweeps, keeping the best order
   seen, counted exactly between each pair of columns as the inversions of a
   sequence (Barth, Juenger and Mutzel, 2004).

3. Coordinates. Columns are spaced so the widest box of each fits. Inside a
   column the boxes keep the chosen order, at least `node_gap` apart, and each
   would like to sit level with the mean of its neighbours so edges run
   straight. We grant those wishes as closely as the gaps allow (least squares
   under order constraints, solved exactly by "pool adjacent violators": boxes
   that collide merge into a block that slides to the mean of their wishes),
   in a few left-to-right and right-to-left passes.

Everything is deterministic: ties are broken by the order the nodes were given
in, never by hashing or `id()`. Positions are box centres.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx

LAYER_GAP = 80.0  # free space between the widest boxes of two columns
NODE_GAP = 30.0  # free space between two boxes of a column (half for dummies)
SWEEPS = 4  # down + up barycenter sweeps


@dataclass(frozen=True)
class Dummy:
    """Bend point `k` (0 = leftmost) of the long edge src -> dst."""

    src: Hashable
    dst: Hashable
    k: int


@dataclass
class Layout:
    positions: dict[Hashable, tuple[float, float]]  # node id -> (x, y), the centre of its box
    layers: list[list[Hashable]]  # per column, top to bottom: node ids and Dummy points
    edges: list[tuple[Hashable, Hashable]]  # proper edges, each joining adjacent columns (repeats kept)
    routes: dict[
        tuple[Hashable, Hashable], list[tuple[float, float]]
    ]  # (src, dst) -> [(x, y), ...] bend points, left to right: two per skipped
    # column, where the edge enters and leaves it (level in between), plus one at a column's
    # edge for an end whose box is narrower than its column
    crossings_before: int  # of `layers` in the order the nodes came in
    crossings_after: int


def positions_pile_up(positions: Iterable[tuple[float, float]]) -> bool:
    """True when most nodes share a position with another: the graph was made
    without a layout (a trace, a file written by another tool) and must be
    arranged before it is drawn. Drawn as given, every node would lie on the
    same spot -- unreadable, and each one repainted under all the others
    (O(n^2) paint work while a large graph is built on the canvas)."""
    spots = list(positions)
    return len(spots) > 1 and len(set(spots)) < max(2, len(spots) // 2)


def boxes_overlap(
    positions: Mapping[Hashable, tuple[float, float]], sizes: Mapping[Hashable, tuple[float, float]]
) -> tuple[Hashable, Hashable] | None:
    """The first two nodes whose boxes overlap, or None: positions {id: (x, y)}
    centres, sizes {id: (w, h)}. Saved positions collide when the nodes have
    grown since the file was written (or another tool wrote it); such a graph is
    arranged again on open, since a box on top of another hides its numbers.
    Linear on a laid-out graph: the boxes go into a grid of cells as large as the
    largest box, and a box is compared only with those of its own and the eight
    neighbouring cells; the first overlap ends the search."""
    if not positions:
        return None
    cell_w = max(w for w, _h in sizes.values()) or 1.0
    cell_h = max(h for _w, h in sizes.values()) or 1.0
    grid: dict[tuple[int, int], list[tuple[Hashable, tuple[float, float, float, float]]]] = {}
    for nid, (x, y) in positions.items():
        w, h = sizes[nid]
        box = (x - w / 2, x + w / 2, y - h / 2, y + h / 2)
        cx, cy = int(x // cell_w), int(y // cell_h)
        for gx in (cx - 1, cx, cx + 1):
            for gy in (cy - 1, cy, cy + 1):
                for other, (left, right, top, bottom) in grid.get((gx, gy), ()):
                    if box[0] < right and left < box[1] and box[2] < bottom and top < box[3]:
                        return other, nid
        grid.setdefault((cx, cy), []).append((nid, box))
    return None


def layered_layout(
    nodes: Iterable[Hashable],
    edges: Iterable[tuple[Hashable, Hashable]],
    *,
    sizes: Mapping[Hashable, Sequence[float]] | None = None,
    layer_gap: float = LAYER_GAP,
    node_gap: float = NODE_GAP,
    sweeps: int = SWEEPS,
) -> dict[Hashable, tuple[float, float]]:
    """{node id: (x, y)} for a DAG, sources left; see `sugiyama` for details."""
    return sugiyama(nodes, edges, sizes=sizes, layer_gap=layer_gap, node_gap=node_gap, sweeps=sweeps).positions


def sugiyama(
    nodes: Iterable[Hashable],
    edges: Iterable[tuple[Hashable, Hashable]],
    *,
    sizes: Mapping[Hashable, Sequence[float]] | None = None,
    layer_gap: float = LAYER_GAP,
    node_gap: float = NODE_GAP,
    sweeps: int = SWEEPS,
    layering: Callable[[list[Hashable], list[tuple[int, int]]], Iterable[int]] | None = None,
) -> Layout:
    """Lay out `nodes` (ordered hashable ids) joined by `edges` ((src, dst) pairs,
    repeats allowed). `sizes` maps an id to its box (w, h); missing ids are points.
    `layering(ids, pairs)` may replace step 1: it gets the node ids and the
    distinct edges as index pairs and returns a column per node, each edge
    pointing right (bench/bench_layout.py compares networkx's own this way).
    Raises ValueError for a cycle, a repeated node or an edge to an unknown node."""
    ids = list(nodes)
    index: dict[Hashable, int] = {}
    for i, v in enumerate(ids):
        if v in index:
            raise ValueError(f"node {v!r} is listed twice; node ids must be unique")
        index[v] = i
    mult: dict[tuple[int, int], int] = {}  # (src, dst) as indices -> how many times the edge was given
    for src, dst in edges:
        try:
            key = (index[src], index[dst])
        except KeyError:
            bad = src if src not in index else dst
            raise ValueError(f"edge {src!r} -> {dst!r} names {bad!r}, which is not a node") from None
        mult[key] = mult.get(key, 0) + 1

    n = len(ids)
    layer = list((layering or _assign_layers)(ids, list(mult)))
    for u, v in mult:
        if layer[v] <= layer[u]:
            raise ValueError(
                f"the layering puts {ids[v]!r} in column {layer[v]}, not right of "
                f"its operand {ids[u]!r} in column {layer[u]}"
            )
    # 1. cut long edges into unit steps; dummies get the indices n, n+1, ...
    preds: list[list[int]] = [[] for _ in range(n)]
    succs: list[list[int]] = [[] for _ in range(n)]
    chains: dict[tuple[Hashable, Hashable], list[int]] = {}
    owner: list[Dummy] = []
    for (u, v), m in mult.items():
        path = [u]
        for k in range(layer[v] - layer[u] - 1):
            path.append(n + len(owner))
            owner.append(Dummy(ids[u], ids[v], k))
            layer.append(layer[u] + k + 1)
            preds.append([])
            succs.append([])
        path.append(v)
        if len(path) > 2:
            chains[(ids[u], ids[v])] = path[1:-1]
        for a, b in zip(path, path[1:]):
            succs[a].extend([b] * m)
            preds[b].extend([a] * m)
    layers: list[list[int]] = [[] for _ in range(max(layer, default=-1) + 1)]
    for v, lay in enumerate(layer):  # given order first, then dummies as created
        layers[lay].append(v)

    # 2. order, 3. coordinates
    before, after = _reduce_crossings(layers, preds, succs, sweeps)
    boxes: list[tuple[float, ...]] = [(0.0, 0.0)] * len(layer)
    if sizes:
        boxes[:n] = [tuple(map(float, sizes.get(v, (0.0, 0.0)))) for v in ids]
    xs, ys = _coordinates(layers, preds, succs, boxes, n, layer_gap, node_gap)
    half = [max((boxes[v][0] for v in lay), default=0.0) / 2 for lay in layers]

    # a long edge runs level across each column it skips, from its left side to its
    # right, and bends only in the gaps between columns: never through a box
    routes = {
        e: [p for d in path for p in ((xs[d] - half[layer[d]], ys[d]), (xs[d] + half[layer[d]], ys[d]))]
        for e, path in chains.items()
    }
    # the same at its ends: a box narrower than its column is left level to the column's
    # edge, or a wire bending at once would cut through a wider box above or below it
    for u, v in mult:
        lead = [(xs[u] + half[layer[u]], ys[u])] if boxes[u][0] / 2 < half[layer[u]] - 1 else []
        tail = [(xs[v] - half[layer[v]], ys[v])] if boxes[v][0] / 2 < half[layer[v]] - 1 else []
        if lead or tail:
            e = (ids[u], ids[v])
            routes[e] = lead + routes.get(e, []) + tail

    name: list[Hashable] = [*ids, *owner]
    return Layout(
        positions={v: (xs[i], ys[i]) for i, v in enumerate(ids)},
        layers=[[name[v] for v in lay] for lay in layers],
        edges=[(name[a], name[b]) for a in range(len(name)) for b in succs[a]],
        routes=routes,
        crossings_before=before,
        crossings_after=after,
    )


# -----------------------------------------------------------------------------
# 1. layers: longest path from the sources, pull nodes right, slide blocks


def _assign_layers(ids, pairs):
    """A column per node, edges pointing right and short. `pairs` are the
    distinct edges as (src, dst) indices: a repeated edge has one route."""
    preds, succs = [[] for _ in ids], [[] for _ in ids]
    for u, v in pairs:
        succs[u].append(v)
        preds[v].append(u)
    order, layer = _longest_path(ids, pairs)
    _pull_right(order, layer, preds, succs)
    _slide_groups(order, layer, pairs)
    # drop columns left empty: no edge crosses them, so every edge stays >= 1 long
    column = {k: i for i, k in enumerate(sorted(set(layer)))}
    return [column[k] for k in layer]


def _longest_path(ids, pairs):
    """Topological order and longest-path layers: networkx's generations, where
    generation k holds the nodes whose operands all sit in generations < k.
    Nodes are the indices of `ids`, added in order, so ties keep that order."""
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(ids)))
    graph.add_edges_from(pairs)
    order, layer = [], [0] * len(ids)
    try:
        for k, generation in enumerate(nx.topological_generations(graph)):
            for v in generation:
                layer[v] = k
                order.append(v)
    except nx.NetworkXUnfeasible:
        loop = [u for u, _w in nx.find_cycle(graph)]
        raise ValueError(
            f"the graph has a cycle through node {ids[loop[0]]!r} "
            f"({' -> '.join(repr(ids[u]) for u in loop + loop[:1])}); "
            "a layered layout needs a DAG"
        ) from None
    return order, layer


def _pull_right(order, layer, preds, succs):
    # Moving v right by d shortens its out-edges by d and stretches its in-edges
    # by d, except those from a private "source cone" (operands used only by v,
    # with no inputs of their own, like a weight feeding one multiply), which
    # simply follows v. ext[v] counts the in-edges that do stretch.
    ext = [0] * len(layer)
    for v in order:
        ext[v] = sum(0 if len(succs[u]) == 1 and ext[u] == 0 else 1 for u in preds[v])
    # Mirror image: a "free" node has one operand and feeds only free nodes
    # (a dead-end chain); it never holds its operand back and is placed last.
    free = [False] * len(layer)
    for v in reversed(order):
        free[v] = len(preds[v]) == 1 and all(free[w] for w in succs[v])
    # right to left, so a node's uses have their final column already; ties
    # move right, so parameters and whole sub-expressions sit next to their use
    for v in reversed(order):
        anchors = [w for w in succs[v] if not free[w]]
        if not free[v] and anchors and len(anchors) >= ext[v]:
            layer[v] = min(layer[w] for w in anchors) - 1
    for v in order:
        if free[v]:
            layer[v] = layer[preds[v][0]] + 1


def _slide_groups(order, layer, pairs):
    """Slide blocks of nodes while that shortens the edges. Each step right
    shortens every edge leaving a block and stretches every edge entering it
    (edges inside keep their length), so a block with more edges leaving than
    entering slides right until a leaving edge has length 1, and is glued to
    the block at the other end; the mirror image for more edges entering.
    Every node starts alone; each slide glues two blocks (so fewer than n
    slides) and never makes the total length grow."""
    if all(layer[v] - layer[u] == 1 for u, v in pairs):
        return  # nothing to shorten: an expression tree ends here
    n = len(layer)
    block = list(range(n))  # the block of each node, named by one of its members
    members = [[v] for v in range(n)]
    leaving, entering = [[] for _ in range(n)], [[] for _ in range(n)]
    for e in pairs:  # edges that end up inside a block are dropped when seen
        leaving[e[0]].append(e)
        entering[e[1]].append(e)
    net = [len(a) - len(b) for a, b in zip(entering, leaving)]
    todo, waiting = order[::-1], [True] * n
    for b in todo:  # blocks glued together join the end of todo
        waiting[b] = False
        if block[b] != b or not net[b]:
            continue
        edges = leaving if net[b] < 0 else entering
        live = edges[b] = [(u, w) for u, w in edges[b] if block[u] != block[w]]
        if not live:
            continue
        lengths = [layer[w] - layer[u] for u, w in live]
        shortest = min(lengths)
        u, w = live[lengths.index(shortest)]
        if shortest > 1:
            step = shortest - 1 if net[b] < 0 else 1 - shortest
            for v in members[b]:
                layer[v] += step
        # u -> w has length 1 now: glue the smaller block into the larger one
        keep, gone = b, block[w] if net[b] < 0 else block[u]
        if len(members[keep]) < len(members[gone]):
            keep, gone = gone, keep
        for v in members[gone]:
            block[v] = keep
        for lists in (members, leaving, entering):
            lists[keep] += lists[gone]
            lists[gone] = None
        net[keep] += net[gone]
        if not waiting[keep]:
            waiting[keep] = True
            todo.append(keep)


# -----------------------------------------------------------------------------
# 2. order: barycenter sweeps, keep the best order seen


def _reduce_crossings(layers, preds, succs, sweeps):
    """Reorder `layers` in place; return (crossings before, crossings after)."""
    pos = [0] * len(preds)
    for lay in layers:
        for i, v in enumerate(lay):
            pos[v] = i
    before = best = _crossings(layers, succs, pos)
    best_layers = [lay[:] for lay in layers]
    for _ in range(sweeps):
        improved = False
        for down in (True, False):
            if down:
                steps = [(i, i - 1, preds) for i in range(1, len(layers))]
            else:
                steps = [(i, i + 1, succs) for i in range(len(layers) - 2, -1, -1)]
            for i, j, nbrs in steps:
                _sort_by_barycenter(layers[i], len(layers[j]), nbrs, pos)
            count = _crossings(layers, succs, pos)
            if count < best:
                best, best_layers, improved = count, [lay[:] for lay in layers], True
        if best == 0 or not improved:
            break
    layers[:] = best_layers
    return before, best


def _sort_by_barycenter(lay, other_len, nbrs, pos):
    # a node with no neighbour over there keeps its relative place in the column
    scale = (other_len - 1) / (len(lay) - 1) if len(lay) > 1 else 0.0
    key = []
    for v in lay:
        ns = nbrs[v]
        key.append(sum(map(pos.__getitem__, ns)) / len(ns) if ns else pos[v] * scale)
    # a stable sort: equal barycenters keep their current (hence given) order
    lay[:] = [lay[i] for i in sorted(range(len(lay)), key=key.__getitem__)]
    for i, v in enumerate(lay):
        pos[v] = i


def _crossings(layers, succs, pos):
    total = 0
    for north, south in zip(layers, layers[1:]):
        width = len(south)
        keys = sorted([pos[v] * width + pos[w] for v in north for w in succs[v]])
        total += _inversions([k % width for k in keys])
    return total


def _inversions(seq):
    """Pairs i < j with seq[i] > seq[j]. With edges sorted by (north, south)
    position, that is exactly the number of crossings between two columns;
    edges sharing an endpoint are never counted."""
    seen, count = [], 0
    for i, s in enumerate(seq):
        j = bisect_right(seen, s)
        count += i - j  # the earlier entries greater than s
        seen.insert(j, s)  # a C memmove: fast for the widths of real columns
    return count


def count_crossings(
    layers_or_positions: Sequence[Sequence[Hashable]] | dict[Hashable, tuple[float, float]],
    edges: Iterable[tuple[Hashable, Hashable]],
) -> int:
    """Edge crossings between adjacent columns. Give the columns as lists of ids
    top to bottom, or a {id: (x, y)} dict (same x = same column, ordered by y).
    An edge that skips columns is not counted: pass `Layout.layers` and
    `Layout.edges`, whose dummies make every edge join adjacent columns."""
    layers: Sequence[Sequence[Hashable]]
    if isinstance(layers_or_positions, dict):
        by_x: dict[float, list[tuple[float, Hashable]]] = {}
        for v, (x, y) in layers_or_positions.items():
            by_x.setdefault(x, []).append((y, v))
        layers = [
            [v for _, v in sorted(col, key=lambda t: t[0])] for _, col in sorted(by_x.items(), key=lambda t: t[0])
        ]
    else:
        layers = layers_or_positions
    where = {v: (i, j) for i, lay in enumerate(layers) for j, v in enumerate(lay)}
    keys: list[list[tuple[int, int]]] = [[] for _ in layers]
    for src, dst in edges:
        if src not in where or dst not in where:
            raise ValueError(f"edge {src!r} -> {dst!r} names a node missing from the layers")
        (i, a), (k, b) = where[src], where[dst]
        if abs(k - i) == 1:
            if k < i:
                i, a, b = k, b, a
            keys[i].append((a, b))
    return sum(_inversions([b for _, b in sorted(pairs)]) for pairs in keys)


# -----------------------------------------------------------------------------
# 3. coordinates: columns wide enough, boxes as close to their wishes as allowed


def _coordinates(layers, preds, succs, boxes, n, layer_gap, node_gap):
    xs, ys = [0.0] * len(boxes), [0.0] * len(boxes)
    x = 0.0
    for i, lay in enumerate(layers):
        half = max(boxes[v][0] for v in lay) / 2
        x += half if i == 0 else half + layer_gap
        for v in lay:
            xs[v] = x
        x += half

    seps = []  # seps[i][k]: least distance between the centres of k and k+1
    for lay in layers:
        seps.append(
            [
                (boxes[a][1] + boxes[b][1]) / 2 + (node_gap if a < n and b < n else node_gap / 2)
                for a, b in zip(lay, lay[1:])
            ]
        )
    for lay, sep in zip(layers, seps):  # start stacked and centred on y = 0
        _place(lay, sep, [0.0] * len(lay), [1.0] * len(lay), ys)

    # one sweep each way following one side, then one each way following both
    both = [p + s for p, s in zip(preds, succs)]
    columns = list(zip(layers, seps))
    passes = (
        [(lay, sep, preds) for lay, sep in columns[1:]]
        + [(lay, sep, succs) for lay, sep in columns[-2::-1]]
        + [(lay, sep, both) for lay, sep in columns]
        + [(lay, sep, both) for lay, sep in columns[::-1]]
    )
    for lay, sep, nbrs in passes:
        want, weight = [], []
        for v in lay:
            ns = nbrs[v]
            if ns:
                want.append(sum(map(ys.__getitem__, ns)) / len(ns))
                # dummies pull harder: a long edge should run straight
                weight.append(len(ns) if v < n else 4.0)
            else:
                want.append(ys[v])
                weight.append(0.01)
        _place(lay, sep, want, weight, ys)

    top = min((ys[v] - boxes[v][1] / 2 for v in range(len(boxes))), default=0.0)
    return xs, [y - top for y in ys]


def _place(lay, sep, want, weight, ys):
    """Set ys[lay[k]] to minimise sum weight[k] * (y_k - want[k])^2 subject to
    y_k+1 - y_k >= sep[k]. Shifting node k up by the sum of the gaps above it
    turns the gaps into a plain ordering, solved by pool adjacent violators."""
    offset, blocks = 0.0, []  # block: [weighted sum, weight, node count]
    for k in range(len(lay)):
        if k:
            offset += sep[k - 1]
        w = weight[k]
        blocks.append([w * (want[k] - offset), w, 1])
        while len(blocks) > 1 and (blocks[-2][0] * blocks[-1][1] >= blocks[-1][0] * blocks[-2][1]):
            s, w, c = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += w
            blocks[-1][2] += c
    k, offset = 0, 0.0
    for s, w, c in blocks:
        z = s / w
        for _ in range(c):
            if k:
                offset += sep[k - 1]
            ys[lay[k]] = z + offset
            k += 1
