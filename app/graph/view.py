"""The canvas widget: zoom under the mouse, pan by dragging, fit, a legend and a minimap.

`GraphView` shows a `GraphScene`. The wheel zooms about the point under the
mouse; dragging the background with the left button draws a rubber band that
selects (Ctrl adds to the selection); the middle button, or the left one with
Space or Alt held, pans; `fit()` frames the whole graph without blowing a
small one up past a readable size.

Building: a palette entry dragged in (mime `PALETTE_MIME`, JSON of the entry
and its options) is announced as `entryDropped(spec, scene point)`; Tab opens
the quick-add search at the mouse (`quickAddRequested`), Escape cancels a wire
being drawn. The arrow keys walk the graph along its wires (`walk`: ← an input,
→ what it feeds, ↑ ↓ its column; core.document.navigate). A legend
(bottom left) explains the colours; a minimap (bottom right) appears when the
graph is larger than the view. Both are child widgets of the view, not scene
items, so they stay put while the scene scrolls and are never exported.
"""

import json

from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QCursor, QFont, QLinearGradient, QPainter, QPen, QPixmap, QTransform
from PySide6.QtWidgets import QFrame, QGraphicsView, QToolTip, QWidget

from app.graph.minimap import MinimapOverlay
from app.graph.node_geometry import LOD_FIT
from app.graph.node_item import NodeItem
from core.document.graph import OPS
from core.document.navigate import neighbour, start_node
from core.format import format_number

MIN_ZOOM, MAX_ZOOM = 0.02, 6.0
GRID_STEP = 24.0  # scene units between background dots (times the theme's scale)
GRID_DOT = 1.6  # a dot's diameter on screen, pixels
GRID_MIN_ZOOM = 0.5  # no dots when zoomed out further
FIT_MAX_ZOOM = 1.35  # fitting a 3-node graph should not make it huge
STEP = 1.25  # one zoom-in / zoom-out step
OVERLAY_MARGIN = 12
PALETTE_MIME = "application/x-backprop-studio-palette"
MAX_SPEC_BYTES = 4096
_ARROWS = {Qt.Key_Left: "left", Qt.Key_Right: "right", Qt.Key_Up: "up", Qt.Key_Down: "down"}
_ONE_INPUT_OR_MORE = frozenset(op for op, (n, _symbol) in OPS.items() if n >= 1)


def spec_from_mime(mime):
    """The palette entry a drag carries ({'key': ..., options}), or None."""
    if mime is None or not mime.hasFormat(PALETTE_MIME):
        return None
    raw = bytes(mime.data(PALETTE_MIME))
    if len(raw) > MAX_SPEC_BYTES:
        return None
    try:
        spec = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return spec if isinstance(spec, dict) and isinstance(spec.get("key"), str) else None


class GraphView(QGraphicsView):
    viewChanged = Signal()  # scrolled, zoomed or resized (the minimap follows)
    zoomChanged = Signal(float)
    entryDropped = Signal(object, QPointF)  # (palette spec, scene point)
    quickAddRequested = Signal(QPointF)  # scene point

    def __init__(self, scene, parent=None):
        super().__init__(scene, parent)
        self.setRenderHints(QPainter.Antialiasing | QPainter.TextAntialiasing | QPainter.SmoothPixmapTransform)
        self.setDragMode(QGraphicsView.RubberBandDrag)
        self.setRubberBandSelectionMode(Qt.IntersectsItemShape)
        self.setAcceptDrops(True)
        self._space = False
        # zooming keeps its own anchor (set_zoom); Qt's would use a stale mouse position
        self.setTransformationAnchor(QGraphicsView.NoAnchor)
        self.setResizeAnchor(QGraphicsView.AnchorViewCenter)
        self.setViewportUpdateMode(QGraphicsView.SmartViewportUpdate)
        self.setOptimizationFlag(QGraphicsView.DontAdjustForAntialiasing, True)
        # the dotted background is kept in a pixmap: repainting a few nodes, or the
        # strip a scroll uncovers, does not redraw the dots under the whole view
        self.setCacheMode(QGraphicsView.CacheBackground)
        self._grid_key, self._grid = None, None
        self.setFrameShape(QFrame.NoFrame)
        # navigation is by dragging, the wheel and the minimap: no scroll bars
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.StrongFocus)
        self._middle_pan = None
        self.legend = LegendOverlay(self)
        self.minimap = MinimapOverlay(self)
        scene.valuesRefreshed.connect(self.legend.values_refreshed)
        scene.structureChanged.connect(self._structure_changed)
        self._fitted = None  # (zoom, centre, graph rect) as fit() left them
        self._fit_due = None  # max_zoom of a fit asked for before a new graph's extent was known
        self._hint_shown = False  # the "No graph yet" text is on screen
        scene.changed.connect(self._clear_hint)

    # -- zoom ----------------------------------------------------------------------

    def zoom(self):
        return self.transform().m11()

    def set_zoom(self, zoom, anchor=None):
        """Zoom to `zoom`, keeping the scene point under viewport point `anchor`
        (default: the centre of the view) where it is."""
        zoom = max(MIN_ZOOM, min(MAX_ZOOM, zoom))
        factor = zoom / self.zoom()
        if abs(factor - 1.0) < 1e-9:
            return
        if anchor is None:
            anchor = QPointF(self.viewport().rect().center())
        before = self.mapToScene(anchor.toPoint())
        self.scale(factor, factor)
        after = self.mapToScene(anchor.toPoint())
        # scroll so that `before` is under the anchor again
        shift = self.mapFromScene(before) - self.mapFromScene(after)
        self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() + shift.x())
        self.verticalScrollBar().setValue(self.verticalScrollBar().value() + shift.y())
        self._changed()

    def zoom_in(self):
        self.set_zoom(self.zoom() * STEP)

    def zoom_out(self):
        self.set_zoom(self.zoom() / STEP)

    def reset_zoom(self):
        self.set_zoom(1.0)

    def fit(self, max_zoom=FIT_MAX_ZOOM):
        """Show the whole graph above the legend, never closer than max_zoom and
        never so far out that its numbers fall below a legible size (LOD_FIT:
        semantic zoom keeps them readable down to there). A graph too large for
        that is shown from its output, where backprop starts; pan and the minimap
        reach the rest."""
        scene = self.scene()
        rect = scene.items_rect()
        # a new large graph's extent is planned by its build's first steps (app/graph/scene_build.py)
        self._fit_due = max_zoom if rect.isNull() and scene.building else None
        if rect.isNull() or rect.isEmpty():
            return
        m = 28.0
        rect = rect.adjusted(-m, -m, m, m)
        area = max(self.graph_areas(), key=lambda a: min(a.width() / rect.width(), a.height() / rect.height()))
        zoom = min(area.width() / rect.width(), area.height() / rect.height(), max_zoom)
        legible = LOD_FIT / scene.theme.scale
        too_large = zoom < legible
        self.set_zoom(max(MIN_ZOOM, legible if too_large else zoom))
        centre = self._output_point(rect) if too_large else rect.center()
        # put `centre` in the middle of the area the overlays leave free
        shift = QPointF(area.center()) - QPointF(self.viewport().rect().center())
        self.centerOn(centre - shift / self.zoom())
        self._changed()
        self._fitted = (self.zoom(), self._centre(), scene.items_rect())

    def _centre(self, size=None):
        """The scene point in the middle of the viewport (of `size`: its size before a resize)."""
        if size is None or not size.isValid():
            size = self.viewport().size()
        return self.mapToScene(QRect(QPoint(0, 0), size).center())

    def _still_fitted(self, size=None):
        """True while the view is as fit() left it: no zoom, pan or graph change since."""
        if self._fitted is None:
            return False
        zoom, centre, rect = self._fitted
        moved = self._centre(size) - centre
        near = abs(moved.x()) + abs(moved.y()) <= 3.0 / zoom  # a resize keeps the centre, give or take a pixel
        return abs(self.zoom() - zoom) < 1e-9 and near and self.scene().items_rect() == rect

    def graph_areas(self):
        """The parts of the viewport a fitted graph may use, clear of the legend in
        the bottom-left corner: above it, or right of it. fit() takes the one that
        shows the graph larger (a wide graph in a short canvas: right of it)."""
        vp = self.viewport().rect()
        legend = self.legend.sizeHint()
        above = vp.adjusted(0, 0, 0, -min(legend.height() + 2 * OVERLAY_MARGIN, vp.height() // 3))
        beside = vp.adjusted(min(legend.width() + 2 * OVERLAY_MARGIN, vp.width() // 3), 0, 0, 0)
        return above, beside

    def _output_point(self, rect):
        """Where to centre a graph too large to fit: its output node, else its right end."""
        scene = self.scene()
        out = scene.session.output_id or scene.session.doc.effective_output()  # as the canvas marks it
        item = scene.node_items().get(out) if out is not None else None
        if item is not None:
            return QPointF(min(item.x(), rect.right() - self.viewport().width() / 2 / self.zoom()), item.y())
        return QPointF(rect.right(), rect.center().y())

    def center_on_node(self, nid, min_zoom=0.8):
        """Scroll so node nid is in the middle, zooming in if too far out to read."""
        item = self.scene().node_item(nid)
        if item is None:
            return False
        if self.zoom() < min_zoom:
            self.set_zoom(min_zoom)
        self.centerOn(item)
        self._changed()
        return True

    def wheelEvent(self, event):
        if event.modifiers() & Qt.ShiftModifier:  # shift+wheel scrolls sideways
            super().wheelEvent(event)
            return
        delta = event.angleDelta().y() or event.angleDelta().x()
        if delta:
            self.set_zoom(self.zoom() * (1.0015**delta), anchor=event.position())
        event.accept()

    # -- pan with the middle button too (left drag on the background pans already) ----

    def mousePressEvent(self, event):
        pan_with_left = event.button() == Qt.LeftButton and (self._space or event.modifiers() & Qt.AltModifier)
        if event.button() == Qt.MiddleButton or pan_with_left:
            self._middle_pan = event.position()
            self.viewport().setCursor(Qt.ClosedHandCursor)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event):
        if self._middle_pan is not None:
            delta = event.position() - self._middle_pan
            self._middle_pan = event.position()
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - int(delta.x()))
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - int(delta.y()))
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event):
        if event.button() in (Qt.MiddleButton, Qt.LeftButton) and self._middle_pan is not None:
            self._middle_pan = None
            self.viewport().unsetCursor()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    # -- keys: Tab opens quick-add, Space pans, Escape cancels a wire -----------------

    def event(self, event):
        # Tab would move the focus to the next widget before keyPressEvent sees it
        if (
            event.type() == QEvent.KeyPress
            and event.key() == Qt.Key_Tab
            and not event.modifiers() & (Qt.ControlModifier | Qt.AltModifier)
        ):
            self.quickAddRequested.emit(self.cursor_scene_pos())
            return True
        return super().event(event)

    def keyPressEvent(self, event):
        if event.key() == Qt.Key_Space and not event.isAutoRepeat():
            self._space = True
            self.viewport().setCursor(Qt.OpenHandCursor)
            event.accept()
            return
        if event.key() == Qt.Key_Escape and self.scene().gestures.wiring:
            self.scene().gestures.cancel_wire()
            event.accept()
            return
        direction = _ARROWS.get(event.key())
        if direction is not None and not event.modifiers() & ~Qt.KeypadModifier:
            self.walk(direction)
            event.accept()
            return
        super().keyPressEvent(event)

    def walk(self, direction):
        """An arrow key: select the node that way along the wires (core.document.navigate),
        or the output when nothing is selected; the view follows it if it left the view.
        The id selected, or None where there is nothing that way."""
        scene = self.scene()
        doc = scene.session.doc
        chosen = scene.selection.selected_ids()
        if len(chosen) == 1:
            target = neighbour(doc, chosen[0], direction)
        else:
            target = start_node(doc)
        seen = set()
        while target is not None and target not in seen and not self._shown(target):
            seen.add(target)  # inside a collapsed block: walk on through it
            target = neighbour(doc, target, direction)
        if target is None or not self._shown(target):
            return None
        scene.selection.select_node(target)
        item = scene.node_item(target)
        if item is not None:
            self.ensureVisible(item.sceneBoundingRect(), 40, 40)
            self._changed()
        return target

    def keyReleaseEvent(self, event):
        if event.key() == Qt.Key_Space and not event.isAutoRepeat():
            self._space = False
            self.viewport().unsetCursor()
            event.accept()
            return
        super().keyReleaseEvent(event)

    def focusOutEvent(self, event):
        if self._space:
            self._space = False
            self.viewport().unsetCursor()
        super().focusOutEvent(event)

    def cursor_scene_pos(self):
        """The scene point under the mouse, or the middle of the view if it is elsewhere."""
        p = self.viewport().mapFromGlobal(QCursor.pos())
        if not self.viewport().rect().contains(p):
            p = self.viewport().rect().center()
        return self.mapToScene(p)

    # -- palette drops -------------------------------------------------------------

    def dragEnterEvent(self, event):
        if spec_from_mime(event.mimeData()) is not None:
            event.acceptProposedAction()
        else:
            event.ignore()  # e.g. a file: the window opens it

    def dragMoveEvent(self, event):
        spec = spec_from_mime(event.mimeData())
        if spec is None:
            event.ignore()
            return
        event.acceptProposedAction()
        pos = self.mapToScene(event.position().toPoint())
        scene = self.scene()
        edge = None
        if spec["key"] in _ONE_INPUT_OR_MORE:
            edge = scene.edge_at(pos, scene.hit_radius(self.viewport()))
        scene.gestures.show_insert_hint(edge)

    def dragLeaveEvent(self, event):
        self.scene().gestures.show_insert_hint(None)
        event.accept()

    def dropEvent(self, event):
        spec = spec_from_mime(event.mimeData())
        self.scene().gestures.show_insert_hint(None)
        if spec is None:
            event.ignore()
            return
        event.acceptProposedAction()
        self.drop_spec(spec, event.position().toPoint())

    def drop_spec(self, spec, view_point):
        """What a drop at view_point (viewport pixels) does: announce it in scene units.
        The camera stays where it is, so the new node is under the mouse: the scene keeps
        what the view shows inside its rect (else a small scene is centred again)."""
        view_point = QPoint(view_point)
        at = self.mapToScene(view_point)
        scene = self.scene()
        scene.hold(self.mapToScene(self.viewport().rect()).boundingRect())
        self.scroll_to_put(at, view_point)
        self.entryDropped.emit(spec, at)
        self.scroll_to_put(at, view_point)

    def _shown(self, nid):
        item = self.scene().node_item(nid)
        return item is not None and item.isVisible()

    def scroll_to_put(self, scene_point, view_point):
        """Scroll so that scene_point is under view_point (viewport pixels)."""
        shift = self.mapFromScene(scene_point) - view_point
        self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() + shift.x())
        self.verticalScrollBar().setValue(self.verticalScrollBar().value() + shift.y())

    # -- tooltips from the item under the mouse (no per-item tooltip strings) ----------

    def viewportEvent(self, event):
        if event.type() == QEvent.ToolTip:
            item = self.itemAt(event.pos())
            if isinstance(item, NodeItem):
                QToolTip.showText(event.globalPos(), item.tooltip(), self)
            else:
                QToolTip.hideText()
            return True
        return super().viewportEvent(event)

    # -- painting ------------------------------------------------------------------

    def drawBackground(self, painter, rect):
        theme = self.scene().theme
        painter.fillRect(rect, theme.color("background"))
        zoom = self.zoom()
        if zoom < GRID_MIN_ZOOM:
            return
        # one texture fill instead of a point per grid dot: a full repaint (the
        # debugger following a step) drew ~1,000 dots in Python and took 6 ms
        painter.save()
        painter.setRenderHint(QPainter.SmoothPixmapTransform, False)
        painter.fillRect(rect, self._grid_brush(theme, zoom))
        painter.restore()

    def _grid_brush(self, theme, zoom):
        """A brush of one grid cell with its dot in the middle, drawn at screen
        resolution and mapped onto the scene so the dots sit at multiples of the step."""
        ratio = self.viewport().devicePixelRatioF()
        key = (theme.color("grid").rgba(), theme.scale, round(zoom, 6), ratio)
        if self._grid_key != key:
            step = GRID_STEP * theme.scale
            size = max(4, round(step * zoom * ratio))  # device pixels per cell
            tile = QPixmap(size, size)
            tile.fill(Qt.transparent)
            p = QPainter(tile)
            p.setRenderHint(QPainter.Antialiasing)
            p.setPen(Qt.NoPen)
            p.setBrush(theme.color("grid"))
            radius = GRID_DOT * ratio / 2
            p.drawEllipse(QPointF(size / 2, size / 2), radius, radius)
            p.end()
            brush = QBrush(tile)
            k = step / size
            brush.setTransform(QTransform(k, 0, 0, k, -step / 2, -step / 2))
            self._grid_key, self._grid = key, brush
        return self._grid

    def _clear_hint(self, _regions=None):
        """The first items of a graph arrived: repaint the whole view once, or the
        empty-canvas text stays painted over them (it is redrawn only where items
        change) until the next pan."""
        if self._hint_shown and self.scene().counts()[0]:
            self._hint_shown = False
            self.viewport().update()

    def drawForeground(self, painter, rect):
        scene = self.scene()
        if scene.counts()[0]:
            return
        self._hint_shown = True
        painter.save()
        painter.resetTransform()
        theme = scene.theme
        painter.setPen(theme.color("caption_text"))
        font = theme.font("ui")
        font.setPixelSize(round(15 * theme.scale))
        painter.setFont(font)
        painter.drawText(
            QRectF(self.viewport().rect()),
            Qt.AlignCenter,
            "No graph yet.\nDrag a part from the Palette, press Tab to search for one,\n"
            "or type an expression on the left and press Ctrl+Enter.",
        )
        painter.restore()

    # -- keeping overlays in place --------------------------------------------------

    def scrollContentsBy(self, dx, dy):
        super().scrollContentsBy(dx, dy)
        self.viewChanged.emit()
        self._keep_overlays_off_nodes()

    def resizeEvent(self, event):
        fitted = self._still_fitted(event.oldSize())  # the viewport has its new size already
        super().resizeEvent(event)
        if fitted:  # a panel took or gave back room right after a fit: fit the new size (a lesson's
            self.fit()  # dock sized in presenter mode cut the graph's top off)
        self.viewChanged.emit()
        self.place_overlays()  # after the minimap followed the view: it must not reappear over a node

    def showEvent(self, event):
        super().showEvent(event)
        self.place_overlays()

    def _structure_changed(self):
        self.place_overlays()
        if self._fit_due is not None and not self.scene().items_rect().isNull():
            self.fit(self._fit_due)

    def _changed(self):
        self.viewChanged.emit()
        self.zoomChanged.emit(self.zoom())
        self._keep_overlays_off_nodes()

    def _keep_overlays_off_nodes(self):
        """An overlay never covers a node: the legend steps aside (hides) while a
        node is under it; the minimap moves to the top corner, or hides too."""
        self.legend.setVisible(not self._covers_a_node(self.legend.geometry()))
        if self.minimap.isVisible() and self._covers_a_node(self.minimap.geometry()):
            vp = self.viewport().geometry()
            self.minimap.move(self.minimap.x(), vp.top() + OVERLAY_MARGIN)
            if self._covers_a_node(self.minimap.geometry()):
                self.minimap.hide()

    def _covers_a_node(self, rect):
        """True if a node's box lies under `rect`, a rectangle in this widget's coordinates."""
        scene = self.scene()
        if scene is None:
            return False
        area = self.mapToScene(rect.translated(-self.viewport().pos())).boundingRect()
        return any(
            isinstance(item, NodeItem) and item.isVisible() for item in scene.items(area, Qt.IntersectsItemBoundingRect)
        )

    def place_overlays(self):
        """The legend bottom-left, the minimap bottom-right (or wherever they cover no node)."""
        vp = self.viewport().geometry()
        self.legend.adjustSize()
        self.legend.move(vp.left() + OVERLAY_MARGIN, vp.bottom() - self.legend.height() - OVERLAY_MARGIN)
        self.minimap.place(vp, OVERLAY_MARGIN)
        self._keep_overlays_off_nodes()

    def set_theme(self, theme):
        self.scene().set_theme(theme)
        self.resetCachedContent()  # the background's colours
        self.legend.update()
        self.minimap.invalidate()
        self.viewport().update()


# -----------------------------------------------------------------------------
# Legend


class LegendOverlay(QWidget):
    """What the colours mean: grad sign and size, inf/nan, output, missing input."""

    def __init__(self, view):
        super().__init__(view)
        self._view = view
        self._grad_max = None  # the scale drawn last
        self.setAttribute(Qt.WA_TransparentForMouseEvents)

    def values_refreshed(self):
        """Repaint only when the scale changed: the legend has rounded corners, so each
        repaint also repaints the canvas under it (every debugger step did)."""
        if self._view.scene().grad_max != self._grad_max:
            self.update()

    def _theme(self):
        return self._view.scene().theme

    def scale_text(self):
        """The grad at either end of the colour bar, in the canvas's one number format."""
        return format_number(self._view.scene().grad_max or 1.0)

    def sizeHint(self):
        s = self._theme().scale
        return QSize(round(318 * s), round(50 * s))

    def paintEvent(self, event):
        theme = self._theme()
        s = theme.scale
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        r = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        p.setPen(QPen(theme.color("overlay_border"), 1))
        p.setBrush(theme.color("overlay_fill"))
        p.drawRoundedRect(r, 8 * s, 8 * s)
        font = theme.font("ui")
        font.setPixelSize(round(11 * s))
        small = QFont(font)
        small.setPixelSize(round(10 * s))
        text = theme.color("overlay_text")

        # gradient bar: -max (blue) .. 0 (neutral) .. +max (orange)
        pad = 10 * s
        bar = QRectF(pad + 34 * s, pad + 3 * s, 140 * s, 10 * s)
        self._grad_max = self._view.scene().grad_max
        gmax = self._grad_max or 1.0
        grad = QLinearGradient(bar.topLeft(), bar.topRight())
        for t in (0.0, 0.1, 0.25, 0.4, 0.499, 0.5, 0.501, 0.6, 0.75, 0.9, 1.0):
            grad.setColorAt(t, theme.grad_color((t - 0.5) * 2 * gmax, gmax))
        p.setPen(QPen(theme.color("node_border"), 1))
        p.setBrush(QBrush(grad))
        p.drawRoundedRect(bar, 3 * s, 3 * s)
        p.setFont(font)
        p.setPen(text)
        p.drawText(QRectF(pad, bar.top() - 4 * s, 32 * s, bar.height() + 8 * s), Qt.AlignLeft | Qt.AlignVCenter, "grad")
        p.setFont(small)
        below = QRectF(bar.left(), bar.bottom() + 2 * s, bar.width(), 14 * s)
        top = self.scale_text()
        p.drawText(below, Qt.AlignLeft | Qt.AlignVCenter, "−" + top)
        p.drawText(below, Qt.AlignHCenter | Qt.AlignVCenter, "0")
        p.drawText(below, Qt.AlignRight | Qt.AlignVCenter, "+" + top)

        # markers: inf/nan badge, missing input port
        x = bar.right() + 22 * s
        cy = bar.center().y()
        p.setPen(QPen(theme.color("node_fill"), 1))
        p.setBrush(theme.color("nonfinite"))
        p.drawEllipse(QPointF(x + 6 * s, cy), 6.5 * s, 6.5 * s)
        p.setPen(QColor("#ffffff"))
        bold = QFont(small)
        bold.setBold(True)
        p.setFont(bold)
        p.drawText(QRectF(x, cy - 6 * s, 12 * s, 12 * s), Qt.AlignCenter, "!")
        p.setFont(small)
        p.setPen(text)
        p.drawText(QRectF(x + 17 * s, cy - 8 * s, 90 * s, 16 * s), Qt.AlignLeft | Qt.AlignVCenter, "inf / nan")
        cy2 = below.center().y()
        p.setPen(QPen(theme.color("missing"), 1.6 * s))
        p.setBrush(theme.color("node_fill"))
        p.drawEllipse(QPointF(x + 6 * s, cy2), 4 * s, 4 * s)
        p.setPen(text)
        p.drawText(QRectF(x + 17 * s, cy2 - 8 * s, 90 * s, 16 * s), Qt.AlignLeft | Qt.AlignVCenter, "missing input")
        p.end()
