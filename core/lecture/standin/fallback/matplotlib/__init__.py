"""matplotlib for the lecture-code runner's child, where the real one is not installed.

The lecture and micrograd's demo plot with a few pyplot calls: `plot`, `scatter`,
`contourf`, `figure`, `xlim`, `grid` and a colormap (`plt.cm.Spectral`). These
record what they are asked to draw, as plain numbers (pyplot.py); after the cell,
core/lecture/figures.py sends the figures to the studio, which draws them in its
Plots window. The real matplotlib, when installed, comes first on the path and is
used instead (its figures are sent as pictures)."""

from . import cm, pyplot  # noqa: F401 -- `import matplotlib.pyplot as plt` and `matplotlib.cm`

__version__ = "stand-in"
