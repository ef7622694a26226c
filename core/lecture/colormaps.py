"""The few colormaps the lecture's plots name (`cmap='jet'`, `plt.cm.Spectral`), as anchors.

A colormap turns a number in [0, 1] into a colour. Each here is a list of evenly
spaced anchor colours (read off matplotlib's own maps), and a number between two
anchors gets the straight mix of the two. A name not listed gets viridis; `_r`
at the end of a name reverses the map.

    rgba("Spectral", 0.0)  -> (0.62, 0.004, 0.259, 1.0)   # dark red
    image(grid, "Spectral")  -> an (rows, cols, 4) uint8 array, for a filled contour
"""

from __future__ import annotations

import numpy as np

ANCHORS = {
    "viridis": ["#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779", "#6ece58",
                "#b5de2b", "#fde725"],
    "jet": ["#00007f", "#0000ff", "#007fff", "#00ffff", "#7fff7f", "#ffff00", "#ff7f00", "#ff0000", "#7f0000"],
    "Spectral": ["#9e0142", "#d53e4f", "#f46d43", "#fdae61", "#fee08b", "#ffffbf", "#e6f598", "#abdda4",
                 "#66c2a5", "#3288bd", "#5e4fa2"],
    "coolwarm": ["#3b4cc0", "#7092f3", "#aac7fd", "#dddddd", "#f7b89c", "#e7745b", "#b40426"],
    "RdBu": ["#67001f", "#d6604d", "#fddbc7", "#f7f7f7", "#d1e5f0", "#4393c3", "#053061"],
    "bwr": ["#0000ff", "#ffffff", "#ff0000"],
    "gray": ["#000000", "#ffffff"],
    "Greys": ["#ffffff", "#000000"],
    "hot": ["#0b0000", "#ff0000", "#ffff00", "#ffffff"],
    "plasma": ["#0d0887", "#6a00a8", "#b12a90", "#e16462", "#fca636", "#f0f921"],
}  # fmt: skip


def _table(name: str) -> np.ndarray:
    reverse = name.endswith("_r")
    anchors = ANCHORS.get(name[:-2] if reverse else name) or ANCHORS["viridis"]
    rgb = np.array([[int(c[i : i + 2], 16) / 255 for i in (1, 3, 5)] for c in anchors])
    return rgb[::-1] if reverse else rgb


def colours(name: str, values) -> np.ndarray:
    """(n, 3) floats in [0, 1]: the colours of `values`, already scaled to [0, 1]."""
    table = _table(name)
    x = np.clip(np.nan_to_num(np.asarray(values, dtype=float), nan=0.0), 0.0, 1.0) * (len(table) - 1)
    low = np.minimum(np.floor(x).astype(int), len(table) - 2)
    t = (x - low)[..., None]
    return table[low] * (1 - t) + table[low + 1] * t


def rgba(name: str, x):
    """matplotlib's `cmap(x)`: one colour (r, g, b, 1.0) for a number, an (n, 4) array for many."""
    rgb = colours(name, np.atleast_1d(x))
    out = np.concatenate([rgb, np.ones((len(rgb), 1))], axis=1)
    return tuple(float(v) for v in out[0]) if np.ndim(x) == 0 else out


def scaled(values) -> np.ndarray:
    """values mapped onto [0, 1] from their smallest to their largest (as matplotlib's Normalize)."""
    v = np.asarray(values, dtype=float)
    finite = v[np.isfinite(v)]
    if not finite.size:
        return np.zeros_like(v)
    low, high = finite.min(), finite.max()
    return (v - low) / (high - low) if high > low else np.full_like(v, 0.5)


def image(grid, name: str, alpha: float = 1.0) -> np.ndarray:
    """Each cell of the grid coloured by its value: (rows, cols, 4) uint8 RGBA, row 0 the grid's first row."""
    z = np.array([[np.nan if v is None else v for v in row] for row in grid], dtype=float)
    rgb = colours(name, scaled(z))
    a = np.where(np.isfinite(z), alpha, 0.0)[..., None]
    return (np.concatenate([rgb, a], axis=-1) * 255).round().astype(np.uint8)


LEVELS = 7  # bands of a filled contour, as matplotlib's default locator picks for most ranges
MAX_SIDE = 800  # pixels a side of a contour's picture, at most


def contour_image(grid, name: str, alpha: float = 1.0) -> np.ndarray:
    """A filled contour as matplotlib's `contourf` draws it: the grid's values interpolated
    between its points (bilinear, several pixels per cell), cut into LEVELS bands, each band
    one colour -- the map's colour at the band's middle. The picture spans the grid from its
    first point to its last: (rows', cols', 4) uint8 RGBA, row 0 the grid's first row.
    A two-valued grid (the demo's decision boundary, Z = score > 0) is then two wide bands,
    red and blue for Spectral, with the thin bands of the values between along the boundary."""
    z = np.array([[np.nan if v is None else v for v in row] for row in grid], dtype=float)
    rows, cols = z.shape
    factor = max(1, min(8, MAX_SIDE // max(rows, cols, 1)))
    fine = _bilinear(np.nan_to_num(scaled(z), nan=0.0), factor)
    known = _bilinear(np.isfinite(z).astype(float), factor) > 0.5
    band = np.minimum((fine * LEVELS).astype(int), LEVELS - 1)
    rgb = colours(name, (np.arange(LEVELS) + 0.5) / LEVELS)[band]  # LEVELS colours, picked per pixel
    a = np.where(known, alpha, 0.0)[..., None]
    return (np.concatenate([rgb, a], axis=-1) * 255).round().astype(np.uint8)


def _bilinear(z: np.ndarray, factor: int) -> np.ndarray:
    """z sampled `factor` times as densely between its points, straight between neighbours."""
    rows, cols = z.shape
    r = np.linspace(0, rows - 1, (rows - 1) * factor + 1) if rows > 1 else np.zeros(1)
    c = np.linspace(0, cols - 1, (cols - 1) * factor + 1) if cols > 1 else np.zeros(1)
    r0 = np.minimum(np.floor(r).astype(int), max(rows - 2, 0))
    c0 = np.minimum(np.floor(c).astype(int), max(cols - 2, 0))
    r1, c1 = np.minimum(r0 + 1, rows - 1), np.minimum(c0 + 1, cols - 1)
    tr, tc = (r - r0)[:, None], (c - c0)[None, :]
    top = z[np.ix_(r0, c0)] * (1 - tc) + z[np.ix_(r0, c1)] * tc
    bottom = z[np.ix_(r1, c0)] * (1 - tc) + z[np.ix_(r1, c1)] * tc
    return top * (1 - tr) + bottom * tr
