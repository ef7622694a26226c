"""The big-graph page's overview: every unit of the picture as a dot, the view as a frame.

A picture opened deep can hold thousands of units; the canvas shows a few
dozen at a legible zoom. The overview (right of the canvas, never over a box) draws
every unit as a small rectangle -- blocks in their kind's tint, single ops
grey, the unit the backward pass stepped last in the highlight colour, on the
theme's overlay colour (dark on the dark theme, as the canvas's own overview) -- once
into a pixmap when the picture changes, and the canvas's visible area as a
frame on top at every scroll. Click or drag in it to move the view there.
"""

from collections.abc import Callable

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.graph.scope_items import KIND_TINT
from app.look.theme import Theme

SIZE = (240, 150)


class ScopeMinimap(QWidget):
    def __init__(self, canvas, theme: Callable[[], Theme], parent=None):
        super().__init__(parent)
        self.canvas = canvas
        self.theme = theme  # the theme now: the page draws again when it changes
        self.setObjectName("scope-minimap")
        # its size from the hint, not fixed limits: presenter mode scales fixed sizes (app/look/ui_scale.py),
        # and a 3x overview took a third of the canvas's width
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self._pixmap = None
        self._bounds = QRectF()
        self._scale = 1.0
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        canvas.horizontalScrollBar().valueChanged.connect(self.follow)
        canvas.verticalScrollBar().valueChanged.connect(self.follow)

    def sizeHint(self):
        return QSize(*SIZE)

    def refresh(self, items):
        """Draw the picture's units (a dict unit -> UnitItem) into the pixmap."""
        bounds = QRectF()
        for item in items.values():
            bounds = bounds.united(item.sceneBoundingRect())
        self._bounds = bounds.adjusted(-40, -40, 40, 40)
        if self._bounds.isEmpty():
            self._pixmap = None
            self.follow()
            return
        w, h = self.width(), self.height()  # SIZE, times the presenter's scale (app/look/ui_scale.py)
        self._scale = min(w / self._bounds.width(), h / self._bounds.height())
        theme = self.theme()
        pixmap = QPixmap(w, h)
        pixmap.fill(theme.color("overlay_fill"))
        painter = QPainter(pixmap)
        current = None
        for item in items.values():
            rect = self._to_map(item.sceneBoundingRect())
            if item.current:
                current = rect
            color = QColor(KIND_TINT.get(item.kind, "#c9ced6")).darker(125 if item.block else 100)
            if item.stepped:
                color = theme.color("status_final")
            painter.fillRect(rect.adjusted(0, 0, 0.5, 0.5), color)
        if current is not None:
            painter.setPen(QPen(theme.color("highlight"), 2))
            painter.drawRect(current.adjusted(-2, -2, 2, 2))
        painter.setPen(QPen(theme.color("overlay_border"), 1))
        painter.drawRect(QRectF(0, 0, w - 1, h - 1))
        painter.end()
        self._pixmap = pixmap
        self.follow()

    def _to_map(self, rect):
        s = self._scale
        return QRectF((rect.x() - self._bounds.x()) * s, (rect.y() - self._bounds.y()) * s, rect.width() * s,
                      rect.height() * s)  # fmt: skip

    def visible_area(self):
        return self.canvas.mapToScene(self.canvas.viewport().rect()).boundingRect()

    def follow(self, *_):
        """Redraw the frame of the view (scrolled, zoomed or resized)."""
        self.update()

    def paintEvent(self, event):
        if self._pixmap is None:
            return
        painter = QPainter(self)
        painter.drawPixmap(0, 0, self._pixmap)
        painter.setPen(QPen(self.theme().color("minimap_view"), 2))
        inside = QRectF(1, 1, self.width() - 2, self.height() - 2)
        painter.drawRect(self._to_map(self.visible_area()).intersected(inside))

    def _go(self, pos):
        s = self._scale
        self.canvas.centerOn(QPointF(self._bounds.x() + pos.x() / s, self._bounds.y() + pos.y() / s))

    def mousePressEvent(self, event):
        self._go(event.position())

    def mouseMoveEvent(self, event):
        if event.buttons() & Qt.LeftButton:
            self._go(event.position())
