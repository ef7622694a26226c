"""The pyplot calls of the micrograd lecture, drawing nothing (see __init__.py)."""

__all__ = ["plot", "scatter", "show", "figure", "grid", "title", "xlabel", "ylabel", "legend", "xlim", "ylim"]


def _nothing(*args, **kwargs):
    return None


plot = scatter = show = figure = grid = title = xlabel = ylabel = legend = xlim = ylim = _nothing
