"""The pyplot calls of the micrograd lecture and demo, recorded for the studio to draw.

Each call adds to the current figure (`figure()` starts a new one) a plain record
-- {"kind": "line" | "scatter" | "contour", the numbers, the colours asked} -- that
core/lecture/figures.py reads after the cell. Arrays become lists of floats (at most
MAX_POINTS points, a contour grid at most MAX_GRID cells a side). What a call
returns answers what code does with it next (`xlim()` gives the limits)."""

import math

from . import cm

MAX_POINTS = 20_000
MAX_GRID = 400

FIGURES = []  # [{"title", "xlabel", "ylabel", "xlim", "ylim", "grid", "items": [...]}]


class Artist:
    """What plot/scatter/contourf return: its repr says where it is drawn."""

    def __init__(self, kind):
        self.kind = kind

    def __repr__(self):
        return f"<{self.kind}: drawn in the studio's Plots window>"


class Figure:
    def __init__(self, record):
        self._record = record

    def add_subplot(self, *args, **kwargs):
        return Axes()

    def gca(self):
        return Axes()

    def savefig(self, *args, **kwargs):
        return None

    def __repr__(self):
        return "<Figure: drawn in the studio's Plots window>"


def _new(**kwargs):
    record = {"title": "", "xlabel": "", "ylabel": "", "xlim": None, "ylim": None, "grid": False, "items": []}
    FIGURES.append(record)
    return record


def _current():
    return FIGURES[-1] if FIGURES else _new()


def _floats(values, limit=MAX_POINTS):
    flat = []
    for v in _flatten(values):
        if len(flat) >= limit:
            break
        try:
            x = float(v)
        except (TypeError, ValueError):
            x = math.nan
        flat.append(x if math.isfinite(x) else None)
    return flat


def _flatten(values):
    if hasattr(values, "ravel"):
        return values.ravel().tolist()
    if isinstance(values, (int, float)):
        return [values]
    out = []
    for v in values:
        if isinstance(v, (list, tuple)) or hasattr(v, "ravel"):
            out.extend(_flatten(v))
        else:
            out.append(getattr(v, "data", v))  # a Value: its number
    return out


def _colour(value):
    return value if isinstance(value, str) else None


def _cmap(value):
    if isinstance(value, cm.Colormap):
        return value.name
    return value if isinstance(value, str) else "viridis"


def figure(*args, **kwargs):
    return Figure(_new())


def subplots(nrows=1, ncols=1, **kwargs):
    return Figure(_new()), Axes()


def plot(*args, **kwargs):
    """plot(ys), plot(xs, ys), plot(xs, ys, 'r-', xs2, ys2) ..."""
    args = list(args)
    lines = []
    while args:
        if len(args) >= 2 and not isinstance(args[1], str):
            xs, ys = args[0], args[1]
            args = args[2:]
        else:
            ys = args[0]
            xs = None
            args = args[1:]
        fmt = args.pop(0) if args and isinstance(args[0], str) else ""
        ys = _floats(ys)
        xs = list(range(len(ys))) if xs is None else _floats(xs)
        item = {"kind": "line", "x": xs[: len(ys)], "y": ys[: len(xs)], "format": fmt}
        item["color"] = _colour(kwargs.get("color", kwargs.get("c")))
        item["label"] = str(kwargs.get("label", ""))
        _current()["items"].append(item)
        lines.append(Artist("Line2D"))
    return lines


def scatter(x, y, s=None, c=None, cmap=None, alpha=None, **kwargs):
    xs, ys = _floats(x), _floats(y)
    item = {"kind": "scatter", "x": xs, "y": ys, "size": float(s) if isinstance(s, (int, float)) else 20.0}
    if c is None or isinstance(c, str):
        item["color"] = c
    else:
        item["values"] = _floats(c)
    item["cmap"] = _cmap(cmap)
    item["alpha"] = float(alpha) if isinstance(alpha, (int, float)) else 1.0
    _current()["items"].append(item)
    return Artist("PathCollection")


def contourf(*args, cmap=None, alpha=None, **kwargs):
    """contourf(Z) or contourf(X, Y, Z): a grid of values, filled by colour."""
    if len(args) >= 3:
        X, Y, Z = args[:3]
    else:
        Z, X, Y = args[0], None, None
    rows = [_floats(row, MAX_GRID) for row in list(Z)[:MAX_GRID]]
    if X is not None:
        xs = _floats(list(X)[0], MAX_GRID) if len(list(X)) and hasattr(list(X)[0], "__len__") else _floats(X)
        ys = [_floats(row, 1)[0] for row in list(Y)[:MAX_GRID]] if hasattr(list(Y)[0], "__len__") else _floats(Y)
    else:
        xs, ys = list(range(len(rows[0]) if rows else 0)), list(range(len(rows)))
    item = {"kind": "contour", "x": xs, "y": ys, "z": rows, "cmap": _cmap(cmap)}
    item["alpha"] = float(alpha) if isinstance(alpha, (int, float)) else 1.0
    _current()["items"].append(item)
    return Artist("QuadContourSet")


contour = contourf


def _limits(key, args, kwargs):
    record = _current()
    if args or kwargs:
        low = args[0] if args else kwargs.get("left", kwargs.get("bottom"))
        high = args[1] if len(args) > 1 else kwargs.get("right", kwargs.get("top"))
        if isinstance(low, (tuple, list)):
            low, high = low
        record[key] = [float(low), float(high)]
    if record[key] is not None:
        return tuple(record[key])
    return (0.0, 1.0)


def xlim(*args, **kwargs):
    return _limits("xlim", args, kwargs)


def ylim(*args, **kwargs):
    return _limits("ylim", args, kwargs)


def _text(key):
    def set_text(text="", *args, **kwargs):
        _current()[key] = str(text)

    return set_text


title, xlabel, ylabel = _text("title"), _text("xlabel"), _text("ylabel")


def grid(*args, **kwargs):
    _current()["grid"] = args[0] is not False if args else True


def _nothing(*args, **kwargs):
    return None


show = legend = close = savefig = tight_layout = colorbar = axis = _nothing


def gca():
    return Axes()


def gcf():
    return Figure(_current())


class Axes:
    """`ax.plot(...)`: the same as plt.plot on the current figure."""

    plot = staticmethod(plot)
    scatter = staticmethod(scatter)
    contourf = staticmethod(contourf)
    contour = staticmethod(contourf)
    grid = staticmethod(grid)
    legend = staticmethod(_nothing)
    set_title, set_xlabel, set_ylabel = staticmethod(title), staticmethod(xlabel), staticmethod(ylabel)
    set_xlim, set_ylim = staticmethod(xlim), staticmethod(ylim)

    def __repr__(self):
        return "<Axes: drawn in the studio's Plots window>"
