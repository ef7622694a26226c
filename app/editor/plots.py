"""The Plots window: what a Run as Python cell plotted, drawn in the studio.

A pasted cell's `plt.scatter(...)`, `plt.contourf(...)` ran in the child process
(core/lecture/figures.py). Each figure comes back either as a picture (the real
matplotlib made it) or as plain records of the stand-in's calls, drawn here with
pyqtgraph: lines, scatters coloured by their values through the colormap named,
filled contours as a coloured image over the grid's extent (the decision
boundary of micrograd's demo). One window, its figures replaced by each run that
plots; it never takes the keyboard from the editor.
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QDialog, QLabel, QScrollArea, QVBoxLayout, QWidget

from core.lecture.colormaps import colours, contour_image, scaled

LINE_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]
NAMED = {"r": "#d62728", "g": "#2ca02c", "b": "#1f77b4", "k": "#000000", "c": "#17becf", "m": "#9467bd", "y": "#bcbd22"}


class PlotsWindow(QDialog):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Plots: what your code drew")
        self.setAttribute(Qt.WA_ShowWithoutActivating)
        self.resize(560, 600)
        layout = QVBoxLayout(self)
        self.area = QScrollArea()
        self.area.setWidgetResizable(True)
        layout.addWidget(self.area)
        self.figures: list[QWidget] = []
        self._holder = QWidget()
        self._column = QVBoxLayout(self._holder)
        self.area.setWidget(self._holder)

    def show_figures(self, figures: list[dict[str, Any]]) -> int:
        """Replace the figures shown; returns how many could be drawn. A plot widget of the
        last run is filled again rather than made anew (making one takes ~0.1 s)."""
        spare = [w for w in self.figures if isinstance(w, pg.PlotWidget)]
        for widget in self.figures:
            if widget not in spare:
                widget.setParent(None)
                widget.deleteLater()
        self.figures = []
        for figure in figures:
            reuse = spare.pop(0) if spare and isinstance(figure, dict) and figure.get("kind") == "record" else None
            made = figure_widget(figure, reuse)
            if made is not None:
                self._column.addWidget(made)
                self.figures.append(made)
        for widget in spare:
            widget.setParent(None)
            widget.deleteLater()
        return len(self.figures)


def figure_widget(figure: dict[str, Any], reuse: pg.PlotWidget | None = None) -> QWidget | None:
    if not isinstance(figure, dict):
        return None
    if figure.get("kind") == "png":
        try:
            data = base64.b64decode(str(figure.get("data", "")), validate=True)
        except ValueError:
            return None
        pixmap = QPixmap()
        if not pixmap.loadFromData(data, "PNG"):
            return None
        label = QLabel()
        label.setPixmap(pixmap)
        label.setAlignment(Qt.AlignCenter)
        return label
    if figure.get("kind") == "record":
        return drawn(figure, reuse)
    return None


def _array(values) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def drawn(figure: dict[str, Any], plot: pg.PlotWidget | None = None) -> pg.PlotWidget:
    """The stand-in's records drawn on a PlotWidget (white, like matplotlib's): `plot`, emptied, or a new one."""
    if plot is None:
        plot = pg.PlotWidget(background="w")
        plot.setMinimumSize(420, 380)
    item = plot.getPlotItem()
    item.clear()
    item.enableAutoRange()
    if figure.get("title"):
        item.setTitle(str(figure["title"]), color="k")
    item.setLabel("bottom", str(figure.get("xlabel", "")))
    item.setLabel("left", str(figure.get("ylabel", "")))
    item.showGrid(x=bool(figure.get("grid")), y=bool(figure.get("grid")), alpha=0.3)
    lines = 0
    for record in figure.get("items", []):
        kind = record.get("kind")
        if kind == "contour":
            z = record.get("z") or []
            if not z or not z[0]:
                continue
            rgba = record.get("image")  # made on the runner's worker (core/lecture/run.py)
            if not isinstance(rgba, np.ndarray):
                rgba = contour_image(z, str(record.get("cmap", "viridis")), float(record.get("alpha", 1.0)))
            rgba = np.ascontiguousarray(rgba[::-1])  # row 0 at the top of the picture: the grid's last y
            height, width = rgba.shape[:2]
            qimage = QImage(rgba.data, width, height, 4 * width, QImage.Format_RGBA8888).copy()
            xs, ys = _array(record.get("x", [])), _array(record.get("y", []))
            if not len(xs) or not len(ys):
                continue
            picture = pg.QtWidgets.QGraphicsPixmapItem(QPixmap.fromImage(qimage))
            span_x = (xs[-1] - xs[0]) or 1.0
            span_y = (ys[-1] - ys[0]) or 1.0
            rect = QRectF(xs[0], ys[0], span_x, span_y)  # contourf spans the grid, first point to last
            picture.setTransform(
                pg.QtGui.QTransform.fromTranslate(rect.left(), rect.bottom()).scale(
                    rect.width() / width, -rect.height() / height
                )
            )
            item.addItem(picture)
        elif kind == "scatter":
            xs, ys = _array(record.get("x", [])), _array(record.get("y", []))
            n = min(len(xs), len(ys))
            if "values" in record:
                rgb = (colours(str(record.get("cmap", "viridis")), scaled(_array(record["values"][:n]))) * 255).round()
                made: dict[tuple, Any] = {}  # one brush per colour (labels are a few colours)
                brushes = []
                for key in map(tuple, rgb.astype(int).tolist()):
                    brush = made.get(key)
                    if brush is None:
                        brush = made[key] = pg.mkBrush(*key, 255)
                    brushes.append(brush)
            else:
                brushes = pg.mkBrush(NAMED.get(record.get("color") or "", record.get("color") or LINE_COLOURS[0]))
            size = max(4.0, min(14.0, float(record.get("size", 20.0)) ** 0.5 * 1.6))
            item.addItem(pg.ScatterPlotItem(xs[:n], ys[:n], brush=brushes, size=size, pen=pg.mkPen("k", width=0.5)))
        elif kind == "line":
            xs, ys = _array(record.get("x", [])), _array(record.get("y", []))
            colour = record.get("color") or _format_colour(str(record.get("format", ""))) or LINE_COLOURS[lines % 6]
            lines += 1
            item.plot(xs, ys, pen=pg.mkPen(colour, width=2), connect="finite")
    for field, axis in (("xlim", "setXRange"), ("ylim", "setYRange")):
        limits = figure.get(field)
        if isinstance(limits, list) and len(limits) == 2:
            getattr(item, axis)(float(limits[0]), float(limits[1]), padding=0)
    return plot


def _format_colour(fmt: str) -> str | None:
    for ch in fmt:
        if ch in NAMED:
            return NAMED[ch]
    return None
