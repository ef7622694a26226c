"""The big-graph page's canvas: the picture's boxes over its wires, zoomed and fitted legibly.

A picture of a traced step holds a few hundred boxes and as many wires. The wires are
drawn once into the view's cached background (`drawBackground`), so a step of the
debugger repaints only the boxes it changed, not the curves under them. The wheel
zooms (and the page stops choosing the zoom for you); a double-click opens a block in
place, or closes an opened block's frame; a right-click on a box offers "Run to here",
a breakpoint, "Open".

`fit` frames the whole picture -- never zoomed in past MAX_FIT_ZOOM, never out below
the zoom at which a title is LEGIBLE_PX pixels high (READABLE_PX numbers in presenter
mode, for the back row: `legible_floor`). A picture too big for that starts at its top
left, read like a page, with the output (where the backward pass starts) in view.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QRect, QRectF, Qt, QTimer
from PySide6.QtGui import (
    QContextMenuEvent,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPaintEvent,
    QPen,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import QGraphicsView, QMenu

from app.graph.scope_items import FrameItem, UnitItem

if TYPE_CHECKING:  # a hint only: the page makes its canvas
    from app.graph.scope_page import ScopePage
    from app.look.theme import Theme

MAX_FIT_ZOOM = 1.2
READABLE_PX = 24  # presenter mode: a number's pixels on screen at least
LEGIBLE_PX = 11  # a title's pixels on screen at least, when a block opens


def legible_floor(theme: Theme, presenting: bool) -> float:
    """The zoom the canvas is never fitted below: LEGIBLE_PX titles, READABLE_PX numbers
    when presenting (digits for the back row)."""
    floor = LEGIBLE_PX / max(1, theme.font("label").pixelSize())
    if presenting:
        floor = max(floor, READABLE_PX / max(1, theme.font("number").pixelSize()))
    return floor


class ScopeCanvas(QGraphicsView):
    def __init__(self, page: ScopePage) -> None:
        super().__init__()
        self.page = page
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        # the wires are drawn in the background, kept as a pixmap of the view: a step repaints its
        # boxes over it, not the 100-odd curves under them (a full repaint: ~8-20 ms, two thirds wires)
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheBackground)
        self._wires: list[tuple[QPainterPath, QRectF]] = []  # [(path, its bounding box)] in scene coordinates
        self._pen = QPen()

    def set_wires(self, wires: list[tuple[QPainterPath, QRectF]], pen: QPen) -> None:
        self._wires, self._pen = wires, pen
        self.resetCachedContent()
        self.viewport().update()

    def drawBackground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        super().drawBackground(painter, rect)
        if self._wires:
            painter.setPen(self._pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            for path, box in self._wires:
                if box.intersects(rect):
                    painter.drawPath(path)

    def wheelEvent(self, event: QWheelEvent) -> None:
        factor = 1.2 if event.angleDelta().y() > 0 else 1 / 1.2
        zoom = self.transform().m11() * factor
        if 0.02 <= zoom <= 6:
            self.scale(factor, factor)
            self.page.user_zoomed = True

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        item = self.itemAt(event.position().toPoint())
        if isinstance(item, UnitItem) and item.block:
            self.page.open_block(item.unit_scope)
        elif isinstance(item, FrameItem):
            self.page.close_block(item.scope)
        else:
            super().mouseDoubleClickEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        item = self.itemAt(event.pos())
        if not isinstance(item, UnitItem):
            super().contextMenuEvent(event)
            return
        menu = QMenu(self)
        menu.addAction("Run to here", lambda: self.page.run_to_unit(item.unit))
        menu.addAction("Breakpoint before this (on/off)", lambda: self.page.toggle_breakpoint(item.unit))
        if item.block:
            menu.addAction("Open", lambda: self.page.open_block(item.unit_scope))
        menu.exec(event.globalPos())

    painted: Callable[[], Any] | None = None  # called once after the next paint of the viewport (the first picture)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        then, self.painted = self.painted, None
        if then is not None:
            QTimer.singleShot(0, then)  # after this paint's turn

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if not self.page.user_zoomed:
            self.fit()
            self.page.fit_to_size()
        self.page.minimap.follow()

    def fit(self) -> None:
        rect = QRectF()
        for item in self.page.items.values():
            rect = rect.united(item.sceneBoundingRect())
        if rect.isEmpty():
            return
        self.resetTransform()
        self.fitInView(rect.adjusted(-20, -20, 20, 20), Qt.AspectRatioMode.KeepAspectRatio)
        floor = legible_floor(self.page.services.scene.theme, self.page.presenting())
        zoom = self.transform().m11()
        if zoom > MAX_FIT_ZOOM or zoom < floor:
            zoom = MAX_FIT_ZOOM if zoom > MAX_FIT_ZOOM else floor
            self.resetTransform()
            self.scale(zoom, zoom)
            view = self.viewport().rect()
            if rect.width() * zoom <= view.width() and rect.height() * zoom <= view.height():
                self.centerOn(rect.center())
            else:  # the start of the picture, read like a page: its top left -- moved as little as
                self.centerOn(rect.left() + view.width() / zoom / 2 - 20, rect.top() + view.height() / zoom / 2 - 20)
                output = self.page.output_item()  # shows the output whole: the backward pass starts there
                if output is not None:
                    self.ensureVisible(output, 20, 20)
