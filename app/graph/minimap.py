"""A small overview of the whole graph in a corner of the canvas.

It appears only when the graph does not fit in the view. Nodes are drawn as
blocks in their grad colour from a cached image (rebuilt when the graph or its
numbers change, not on every scroll); the visible part of the scene is a
rectangle on top. Click or drag in the minimap to move the view there.

Drawing the blocks costs ~10 us a node: at 5,000 nodes the whole image is half
a tenth of a second, longer than the window may stop answering. So a large
graph's image is drawn in slices (app/slices.py): each event-loop turn adds
some blocks and shows what is there, and the picture is complete a few turns
later. A small graph's image is drawn at once, in the paint that needs it.
"""

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QImage, QPainter, QPen
from PySide6.QtWidgets import QWidget

from app.slices import SlicedJob

MAX_W, MAX_H = 220, 150
PAD = 6
RENDER_AT_ONCE = 1000  # nodes below which the image is drawn in the paint that needs it
BLOCKS_PER_STEP = 50  # blocks drawn between two checks of the slice's clock


class MinimapOverlay(QWidget):
    def __init__(self, view):
        super().__init__(view)
        self._view = view
        self._image = None
        self._drawing = None  # the SlicedJob drawing a large graph's image, or None
        self._dragging = False
        self.setCursor(Qt.PointingHandCursor)
        self.setToolTip("Overview: click or drag to move the view")
        # rebuilding the image is coalesced: many changes, one redraw
        self._rebuild = QTimer(self)
        self._rebuild.setSingleShot(True)
        self._rebuild.setInterval(30)
        self._rebuild.timeout.connect(self.invalidate)
        scene = view.scene()
        scene.structureChanged.connect(self._rebuild.start)
        scene.valuesRefreshed.connect(self._values_refreshed)
        view.viewChanged.connect(self._follow_view)
        self.hide()

    # -- geometry ----------------------------------------------------------------

    def _source_rect(self):
        scene = self._view.scene()
        if scene is None:  # the window is being torn down
            return QRectF()
        return scene.items_rect().adjusted(-30, -30, 30, 30)

    def sizeHint(self):
        rect = self._source_rect()
        if rect.isEmpty():
            return QSize(MAX_W, MAX_H)
        k = min((MAX_W - 2 * PAD) / rect.width(), (MAX_H - 2 * PAD) / rect.height())
        return QSize(max(60, round(rect.width() * k) + 2 * PAD), max(40, round(rect.height() * k) + 2 * PAD))

    def place(self, viewport_geometry, margin):
        size = self.sizeHint()
        self.resize(size)
        self.move(
            viewport_geometry.right() - size.width() - margin, viewport_geometry.bottom() - size.height() - margin
        )
        self._follow_view()

    def needed(self):
        """True when part of the graph is outside the view."""
        scene = self._view.scene()
        if scene is None:  # the window is being torn down
            return False
        rect = scene.items_rect()
        if rect.isEmpty():
            return False
        visible = self._view.mapToScene(self._view.viewport().rect()).boundingRect()
        return not visible.contains(rect)

    def _follow_view(self):
        show = self.needed()
        if show != self.isVisible():
            self.setVisible(show)
        if show:
            self.raise_()
            self.update()

    def _transform(self):
        """(scale, offset) mapping scene coordinates into this widget."""
        src = self._source_rect()
        inner = QRectF(self.rect()).adjusted(PAD, PAD, -PAD, -PAD)
        if src.isEmpty():
            return 1.0, QPointF(0, 0), src
        k = min(inner.width() / src.width(), inner.height() / src.height())
        off = QPointF(
            inner.left() + (inner.width() - src.width() * k) / 2 - src.left() * k,
            inner.top() + (inner.height() - src.height() * k) / 2 - src.top() * k,
        )
        return k, off, src

    def to_scene(self, point):
        k, off, _src = self._transform()
        return QPointF((point.x() - off.x()) / k, (point.y() - off.y()) / k)

    # -- the cached picture ---------------------------------------------------------

    def invalidate(self):
        self._stop_drawing()
        self._image = None
        if self._view.scene() is None:
            return
        # the view places it: a corner that covers no node (placing it here put it back on one)
        self._view.place_overlays()
        self.update()

    def _values_refreshed(self):
        """A few nodes' grads changed (one debugger step): repaint just their
        blocks into the cached picture. Anything more rebuilds it, coalesced."""
        scene = self._view.scene()
        ids = getattr(scene, "last_refreshed", None) if scene is not None else None
        if self._image is None:  # the next paint draws every block anyway
            return
        if ids is None or len(ids) > 64 or self._image.size() != self.size():
            # the blocks the slices drew already would keep the old numbers' colours
            self._stop_drawing()
            self._rebuild.start()
            return
        items = [item for item in map(scene.node_item, ids) if item is not None]
        if items:
            self._paint_blocks(self._image, items)
            self.update()

    def _render(self):
        """A new image of every block: drawn now for a small graph; for a large one
        empty at first, the slices of `_drawing` fill it in."""
        self._stop_drawing()
        image = QImage(self.size(), QImage.Format_ARGB32_Premultiplied)
        image.fill(Qt.transparent)
        items = list(self._view.scene().node_items().values())
        if len(items) < RENDER_AT_ONCE:
            self._paint_blocks(image, items)
        else:
            self._drawing = SlicedJob(self._drawing_steps(image, items), self)
            self._drawing.finished.connect(self._stop_drawing)
            self._drawing.start()
        return image

    def _drawing_steps(self, image, items):
        """The blocks of `items` into image, a few per step; each slice shows its blocks."""
        for start in range(0, len(items), BLOCKS_PER_STEP):
            self._paint_blocks(image, items[start : start + BLOCKS_PER_STEP])
            self.update()
            yield

    def finish_drawing(self):
        """Complete the picture now, without returning to the event loop (a
        screenshot of the window wants all of it)."""
        if self._rebuild.isActive():  # a redraw is due: do it now
            self._rebuild.stop()
            self.invalidate()
        if self._image is None or self._image.size() != self.size():
            self._image = self._render()
        if self._drawing is not None:
            self._drawing.run_to_end()

    @property
    def drawing(self):
        """True while a large graph's image is still being drawn in slices."""
        return self._drawing is not None

    def _stop_drawing(self):
        job, self._drawing = self._drawing, None
        if job is not None:
            job.cancel()
            job.deleteLater()

    def _paint_blocks(self, image, items):
        scene = self._view.scene()
        theme = scene.theme
        k, off, _src = self._transform()
        p = QPainter(image)
        zero = theme.color("grad_zero")
        plain = theme.color("op_border")
        gmax = scene.grad_max
        for item in items:
            r = item.box_rect()
            hidden = item.grad_mask is not None  # a grad a quiz keeps back must not show by its colour
            fill = theme.grad_color(0.0 if hidden else item.grad or 0.0, gmax)
            if item.nonfinite:
                fill = theme.color("nonfinite")
            elif fill == zero:
                fill = plain
            p.fillRect(
                QRectF(
                    r.left() * k + off.x(), r.top() * k + off.y(), max(1.0, r.width() * k), max(1.0, r.height() * k)
                ),
                fill,
            )
        p.end()

    def paintEvent(self, event):
        theme = self._view.scene().theme
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        p.setPen(QPen(theme.color("overlay_border"), 1))
        p.setBrush(theme.color("overlay_fill"))
        p.drawRoundedRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), 7, 7)
        if self._image is None or self._image.size() != self.size():
            self._image = self._render()
        p.drawImage(0, 0, self._image)
        k, off, _src = self._transform()
        visible = self._view.mapToScene(self._view.viewport().rect()).boundingRect()
        frame = QRectF(
            visible.left() * k + off.x(), visible.top() * k + off.y(), visible.width() * k, visible.height() * k
        ).intersected(QRectF(self.rect()))
        color = QColor(theme.color("minimap_view"))
        p.setPen(QPen(color, 1.5))
        color.setAlpha(40)
        p.setBrush(color)
        p.drawRect(frame)
        p.end()

    # -- navigating -------------------------------------------------------------------

    def mousePressEvent(self, event):
        if event.button() == Qt.LeftButton:
            self._dragging = True
            self._view.centerOn(self.to_scene(event.position()))
            event.accept()

    def mouseMoveEvent(self, event):
        if self._dragging:
            self._view.centerOn(self.to_scene(event.position()))
            event.accept()

    def mouseReleaseEvent(self, event):
        self._dragging = False
        event.accept()
