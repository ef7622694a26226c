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


def layout(units: Units, aspect: float = 1.6) -> np.ndarray:
    """Positions (centre x, centre y) of every unit, shape (len(units), 2)."""
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
    return _place(units, [layers[k] for k in keys], aspect)


def _place(units: Units, columns: list[list[int]], aspect: float) -> np.ndarray:
    """Coordinates: columns cut into bands that fit a window of this aspect (width / height)."""
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
    return pos


def picture(view, aspect: float = 1.6) -> tuple[Units, np.ndarray, dict, dict]:
    """Everything the canvas needs for a view, computed off the GUI thread:
    (units, positions, {scope: Summary} of the blocks, {expanded scope: (x0, y0, x1, y1)}
    the box around the units it holds)."""
    units = view.units()
    pos = layout(units, aspect)
    graph = view.graph
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
