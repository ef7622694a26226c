"""Laying out what a ScopeView shows: units in layers, left to right, in the order of making.

The units of a view (view.py) are few -- tens on the first picture, a few
thousand when a big block is open -- so a plain layered layout does:

1. **Layers.** A unit's layer is one more than the highest layer among the
   units that feed it (the longest path from an input). Units come in the
   order their first node was made, which is a topological order of the
   wires (a block's nodes are one run of that order), so one pass does it.
   An input (a block of parameters, a constant) sits just left of the first
   unit that reads it, not in a far-away column 0.
2. **Order within a layer.** Units start in the order of making; then two
   sweeps each way put every unit at the mean position of its neighbours in
   the layer before (the barycenter heuristic), which untangles most wires.
3. **Coordinates.** Layer k is at x = k * (width + gap); a layer's units are
   stacked. A long chain of layers (a step's positions one after another,
   then the sum of their losses) would be a thin strip, legible only when
   zoomed far out; so the layers are cut into *bands* of consecutive layers,
   each band below the one before, read like lines of text -- as many layers
   a band as make the picture's shape closest to the window's (`aspect`).
   Sizes are in the canvas's unscaled units.

Cost: linear in units plus wires per sweep, in plain Python; a layout of
5,000 units takes ~0.1 s (bench/bench_scopes.py), run off the GUI thread.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from core.scopes.view import Units

BLOCK_W, BLOCK_H = 230.0, 96.0
NODE_W, NODE_H = 150.0, 64.0
GAP_X, GAP_Y = 90.0, 26.0
SWEEPS = 2


def size_of(units: Units, u: int) -> tuple[float, float]:
    return (BLOCK_W, BLOCK_H) if units.node[u] < 0 else (NODE_W, NODE_H)


def layout(units: Units, aspect: float = 1.6, wires: np.ndarray | None = None, columns: int = 0) -> np.ndarray:
    """Positions (centre x, centre y) of every unit, shape (len(units), 2); given the wires
    the picture draws (`drawn_wires`), a small picture's bands are as wide as cross least."""
    m = len(units)
    src, dst = units.src.tolist(), units.dst.tolist()
    preds: list[list[int]] = [[] for _ in range(m)]
    succs: list[list[int]] = [[] for _ in range(m)]
    for a, b in zip(src, dst):
        preds[b].append(a)
        succs[a].append(b)
    layer = [0] * m
    for u in range(m):  # units are in a topological order of the wires
        if preds[u]:
            layer[u] = max(layer[p] for p in preds[u]) + 1
    for u in range(m):  # inputs next to their first reader
        if not preds[u] and succs[u]:
            layer[u] = max(0, min(layer[s] for s in succs[u]) - 1)
    layers: dict[int, list[int]] = defaultdict(list)
    for u in range(m):
        layers[layer[u]].append(u)
    keys = sorted(layers)
    rank = [0.0] * m
    for k in keys:
        for i, u in enumerate(layers[k]):
            rank[u] = float(i)
    for sweep in range(2 * SWEEPS):
        down = sweep % 2 == 0
        for k in keys if down else reversed(keys):
            members = layers[k]
            near = preds if down else succs

            def centre(u: int, near=near) -> float:
                others = near[u]
                return sum(rank[o] for o in others) / len(others) if others else rank[u]

            members.sort(key=centre)
            for i, u in enumerate(members):
                rank[u] = float(i)
    limit = columns
    columns = [layers[k] for k in keys]
    pos, best = _place(units, columns, aspect, limit=limit)
    capped = bool(limit) and best == limit and _place(units, columns, aspect)[1] > limit
    if wires is None or len(wires) > CHOOSE_WIRES or best <= 1 or (capped and best <= 2):
        return pos
    # a band as wide as the window's shape asks, or a little narrower or one wider: the one whose wires
    # cross least (a wire into a later band runs along above its reader's row); never narrower than
    # two columns when the window's width is what made the band narrow already
    fewest, chosen = crossings(units, pos, wires), pos
    for cols in range(max(2 if capped else 1, best - 2), best + 2):
        if cols == best or (limit and cols > limit):
            continue
        other, _ = _place(units, columns, aspect, cols)
        count = crossings(units, other, wires)
        if count < fewest:
            fewest, chosen = count, other
    return chosen


CHOOSE_WIRES = 400  # pictures of at most this many wires choose their bands' width by crossings


def _place(
    units: Units, columns: list[list[int]], aspect: float, force: int = 0, limit: int = 0
) -> tuple[np.ndarray, int]:
    """Coordinates: columns cut into bands that fit a window of this aspect (width / height),
    `force` columns a band if given; and the columns a band."""
    heights = []
    for members in columns:
        sizes = [size_of(units, u)[1] for u in members]
        heights.append(sum(sizes) + GAP_Y * (len(members) - 1))
    column_w = BLOCK_W + GAP_X
    band_gap = 2 * GAP_Y + BLOCK_H / 2
    best, best_cols = float("inf"), len(columns)
    for cols in range(1, len(columns) + 1):
        bands = [max(heights[i : i + cols]) for i in range(0, len(columns), cols)]
        width, height = cols * column_w, sum(bands) + band_gap * (len(bands) - 1)
        fit = max(width / aspect, height)  # the height the picture needs at the window's shape
        if fit < best - 1e-9:
            best, best_cols = fit, cols
    best_cols = force or (min(best_cols, limit) if limit else best_cols)
    pos = np.zeros((len(units), 2))
    top = 0.0
    for start in range(0, len(columns), best_cols):
        band = range(start, min(start + best_cols, len(columns)))
        band_h = max(heights[i] for i in band)
        for i in band:
            y = top + (band_h - heights[i]) / 2
            for u in columns[i]:
                h = size_of(units, u)[1]
                pos[u] = ((i - start) * column_w, y + h / 2)
                y += h + GAP_Y
        top += band_h + band_gap
    return pos, best_cols


def picture(view, aspect: float = 1.6, columns: int = 0) -> tuple[Units, np.ndarray, dict, dict]:
    """Everything the canvas needs for a view, computed off the GUI thread:
    (units, positions, {scope: Summary} of the blocks, {expanded scope: (x0, y0, x1, y1)}
    the box around the units it holds). `columns`: at most this many a band (what fits the
    window's width at a legible zoom; 0: no limit)."""
    units = view.units()
    graph = view.graph
    kinds = {s: graph.scopes[s].kind for s in range(len(graph.scopes))}
    pos = layout(units, aspect, drawn_wires(units, kinds), columns)
    summaries = {int(units.scope[u]): view.summary(int(units.scope[u])) for u in range(len(units)) if units.is_block(u)}
    frames: dict[int, list[float]] = {}
    for u in range(len(units)):
        w, h = size_of(units, u)
        x, y = pos[u]
        s = int(units.scope[u])
        chain = graph.path(s)[1:-1] if units.is_block(u) else graph.path(s)[1:]
        for e in chain:
            box = frames.get(e)
            if box is None:
                frames[e] = [x - w / 2, y - h / 2, x + w / 2, y + h / 2]
            else:
                box[0], box[1] = min(box[0], x - w / 2), min(box[1], y - h / 2)
                box[2], box[3] = max(box[2], x + w / 2), max(box[3], y + h / 2)
    return units, pos, summaries, {e: tuple(b) for e, b in frames.items()}


BUS = 4  # an inputs block feeding more units than this is a bus: its wires are not drawn
BUS_KINDS = ("inputs", "shared")  # the parameters; what every later term reads (core/scopes/infer.py)


def drawn_wires(units: Units, kinds: dict[int, str] | None = None) -> np.ndarray:
    """The indices of the wires the picture draws: all of them, except those out of an
    'inputs' block that feeds more than BUS units (the parameters every block reads: a fan
    of wires across the whole picture that says nothing its caption '9,298 out' does not), and
    out of a 'shared' block (what every term after it reads) likewise."""
    keep = np.ones(len(units.src), dtype=bool)
    if kinds:
        fan = np.bincount(units.src, minlength=len(units))
        for u in np.nonzero(fan > BUS)[0]:
            if units.node[u] < 0 and kinds.get(int(units.scope[u])) in BUS_KINDS:
                keep &= units.src != u
    return np.nonzero(keep)[0]


def route(units: Units, pos: np.ndarray, w: int) -> list[tuple[float, float]]:
    """The waypoints of wire w (unscaled): from the right side of its source to the left side of
    its reader; into a later band (the reader left of, or level with, the source): out to the
    right, down the gap to just above the reader's row, along it, and in from the left."""
    a, b = int(units.src[w]), int(units.dst[w])
    start = (pos[a, 0] + size_of(units, a)[0] / 2, pos[a, 1])
    end = (pos[b, 0] - size_of(units, b)[0] / 2, pos[b, 1])
    if end[0] > start[0] + 10:
        return [start, end]
    top = end[1] - (size_of(units, b)[1] / 2 + 12.0)
    return [start, (start[0] + 24, start[1]), (start[0] + 24, top), (end[0] - 24, top), (end[0] - 24, end[1]), end]


def crossings(units: Units, pos: np.ndarray, wires: np.ndarray | None = None) -> int:
    """How many pairs of drawn wires cross (their routes' segments; wires that share a unit are
    not counted): a measure of a layout's legibility, bench/README.md. Vectorised over pairs of
    segments: fine for a picture's few thousand wires."""
    wires = np.arange(len(units.src)) if wires is None else wires
    seg = []
    for w in wires.tolist():
        points = route(units, pos, w)
        seg += [(w, *p, *q) for p, q in zip(points, points[1:])]
    if len(seg) < 2:
        return 0
    arr = np.array(seg)
    wid = arr[:, 0].astype(np.int64)
    x1, y1, x2, y2 = arr[:, 1], arr[:, 2], arr[:, 3], arr[:, 4]
    src, dst = units.src[wid], units.dst[wid]
    pairs = set()
    for i in range(len(arr) - 1):
        j = slice(i + 1, None)
        shared = (src[j] == src[i]) | (dst[j] == dst[i]) | (src[j] == dst[i]) | (dst[j] == src[i])
        d1 = _side(x1[i], y1[i], x2[i], y2[i], x1[j], y1[j])
        d2 = _side(x1[i], y1[i], x2[i], y2[i], x2[j], y2[j])
        d3 = _side(x1[j], y1[j], x2[j], y2[j], x1[i], y1[i])
        d4 = _side(x1[j], y1[j], x2[j], y2[j], x2[i], y2[i])
        hit = np.nonzero((d1 * d2 < 0) & (d3 * d4 < 0) & ~shared)[0] + i + 1
        pairs.update((min(wid[i], k), max(wid[i], k)) for k in wid[hit].tolist())
    return len(pairs)


def _side(ax, ay, bx, by, px, py):
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax)
