"""The Plots window draws what a Run as Python cell plotted (issue 42 item 2)."""

import base64

import pyqtgraph as pg
from PySide6.QtCore import QBuffer, QIODevice
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QLabel

from app.editor.plots import PlotsWindow
from core.lecture.run import prepared

BOUNDARY = {
    "kind": "record", "title": "", "xlabel": "", "ylabel": "", "xlim": [-1.0, 2.0], "ylim": None, "grid": False,
    "items": [
        {"kind": "contour", "x": [-1.0, 0.0, 1.0, 2.0], "y": [0.0, 1.0], "z": [[0, 0, 1, 1], [0, 1, 1, 1]],
         "cmap": "Spectral", "alpha": 0.8},
        {"kind": "scatter", "x": [0.5, 1.5], "y": [0.2, 0.8], "values": [0.0, 1.0], "cmap": "Spectral", "size": 40.0},
        {"kind": "line", "x": [0, 1], "y": [0, 1], "format": "r-", "color": None, "label": ""},
    ],
}  # fmt: skip


def test_a_boundary_a_scatter_and_a_line_are_drawn_over_the_grid(qtbot):
    window = PlotsWindow()
    qtbot.addWidget(window)
    assert window.show_figures(prepared([BOUNDARY])) == 1
    (plot,) = window.figures
    items = plot.getPlotItem().items
    picture = next(i for i in items if isinstance(i, pg.QtWidgets.QGraphicsPixmapItem))
    rect = picture.mapRectToParent(picture.boundingRect())
    assert (round(rect.left(), 6), round(rect.right(), 6)) == (-1.0, 2.0)  # the grid, first point to last
    assert (round(rect.top(), 6), round(rect.bottom(), 6)) == (0.0, 1.0)
    assert any(isinstance(i, pg.ScatterPlotItem) for i in items)
    assert plot.getPlotItem().viewRange()[0] == [-1.0, 2.0]  # xlim
    again = window.show_figures(prepared([BOUNDARY]))
    assert again == 1 and window.figures[0] is plot  # filled again, not made anew


def test_a_picture_from_the_real_matplotlib_is_shown(qtbot):
    image = QImage(30, 20, QImage.Format_RGB32)
    image.fill(0xFF3366)
    buffer = QBuffer()
    buffer.open(QIODevice.WriteOnly)
    image.save(buffer, "PNG")
    png = {"kind": "png", "data": base64.b64encode(bytes(buffer.data())).decode()}
    window = PlotsWindow()
    qtbot.addWidget(window)
    assert window.show_figures([png, {"kind": "png", "data": "not base64!"}, "junk"]) == 1
    (label,) = window.figures
    assert isinstance(label, QLabel) and label.pixmap().width() == 30
