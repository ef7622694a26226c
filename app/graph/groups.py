"""How a group looks: a frame around its nodes, or -- collapsed -- one box.

An expanded group (a Neuron or Layer from the palette) is drawn as a faint
frame behind its nodes with its title, so the learner sees which boxes make
up the neuron. A collapsed group hides its nodes and shows one `GroupItem`
instead: the block's title, an input port on the left for every operand fed
from outside (or not fed yet: a red ring), and on the right one row per
output -- `label  data  grad` -- with its output port. Wires that cross the
group's border are redrawn to end at those ports; wires inside are hidden.

Both items are presentation only. Where a collapsed box stands is the
centroid of its nodes' positions, so dragging it moves every node of the
group by the same amount (one MoveNodes on release) and nothing about the box
needs saving beyond the group record itself (see core/document/groups.py).
"""

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem

from app.look.theme import format_number

GROUP_Z = 1.5
FRAME_Z = -1.0


class GroupFrameItem(QGraphicsItem):
    """A rounded frame with a title behind the nodes of an expanded group."""

    def __init__(self, theme, gid, title):
        super().__init__()
        self.gid, self.title, self.theme = gid, title, theme
        self._rect = QRectF()
        self.setZValue(FRAME_Z)
        self.setAcceptedMouseButtons(Qt.NoButton)

    def set_rect(self, rect):
        pad = 14 * self.theme.scale
        rect = rect.adjusted(-pad, -pad - 16 * self.theme.scale, pad, pad)
        if rect != self._rect:
            self.prepareGeometryChange()
            self._rect = rect

    def boundingRect(self):
        return self._rect.adjusted(-2, -2, 2, 2)

    def paint(self, painter, option, widget=None):
        theme, s = self.theme, self.theme.scale
        border = QColor(theme.color("selection"))
        border.setAlpha(110)
        fill = QColor(theme.color("selection"))
        fill.setAlpha(14)
        pen = QPen(border, 1.2 * s, Qt.DashLine)
        painter.setPen(pen)
        painter.setBrush(fill)
        painter.drawRoundedRect(self._rect, 10 * s, 10 * s)
        painter.setFont(theme.font("caption"))
        painter.setPen(theme.color("caption_text"))
        painter.drawText(
            self._rect.adjusted(10 * s, 3 * s, -10 * s, 0),
            Qt.AlignLeft | Qt.AlignTop,
            f"{self.title}   (right-click: collapse)",
        )


class GroupItem(QGraphicsItem):
    """A collapsed group: one box with the group's inputs and outputs as ports.

    inputs   [(dst id, port, name of what feeds it or None)]  left side, top down
    outputs  [(node id, label)]                              right side, top down
    """

    def __init__(self, theme, gid, title):
        super().__init__()
        self.gid, self.title, self.theme = gid, title, theme
        self.inputs, self.outputs = [], []
        self.numbers = {}  # output id -> (data, grad)
        self.edges = []  # EdgeItems anchored on this box
        self._rect = QRectF()
        self.setFlags(
            QGraphicsItem.ItemIsSelectable | QGraphicsItem.ItemIsMovable | QGraphicsItem.ItemSendsGeometryChanges
        )
        self.setZValue(GROUP_Z)
        self.set_ports([], [])

    # -- geometry -------------------------------------------------------------------

    def _row(self):
        return 26.0 * self.theme.scale

    def _header(self):
        return 26.0 * self.theme.scale

    def set_ports(self, inputs, outputs):
        self.inputs, self.outputs = list(inputs), list(outputs)
        s = self.theme.scale
        rows = max(len(self.inputs), len(self.outputs), 1)
        title_w = self.theme.text_width("label", self.title) + 30 * s
        w = max(250.0 * s, title_w)
        h = self._header() + rows * self._row() + 8 * s
        self.prepareGeometryChange()
        self._rect = QRectF(-w / 2, -h / 2, w, h)
        self.update()

    def boundingRect(self):
        m = 10 * self.theme.scale
        return self._rect.adjusted(-m, -m, m, m)

    def shape(self):
        path = QPainterPath()
        path.addRect(self._rect)
        return path

    def box_rect(self):
        return self._rect.translated(self.pos())

    def _row_y(self, i, count):
        rows = max(len(self.inputs), len(self.outputs), 1)
        top = self._rect.top() + self._header()
        # spread `count` ports over the rows the box has
        span = rows * self._row()
        return top + (i + 0.5) * span / max(count, 1)

    def in_point(self, dst, port):
        for i, (d, p, _name) in enumerate(self.inputs):
            if (d, p) == (dst, port):
                return self.mapToScene(QPointF(self._rect.left(), self._row_y(i, len(self.inputs))))
        return self.mapToScene(QPointF(self._rect.left(), 0.0))

    def out_point_for(self, nid):
        for i, (o, _label) in enumerate(self.outputs):
            if o == nid:
                return self.mapToScene(QPointF(self._rect.right(), self._row_y(i, len(self.outputs))))
        return self.mapToScene(QPointF(self._rect.right(), 0.0))

    def itemChange(self, change, value):
        if change == QGraphicsItem.ItemPositionHasChanged:
            for edge in self.edges:
                edge.update_path()
        return super().itemChange(change, value)

    # -- numbers --------------------------------------------------------------------

    def set_numbers(self, numbers):
        if numbers != self.numbers:
            self.numbers = dict(numbers)
            self.update()

    def texts(self):
        """[(output label, data text, grad text)], for tests and screen readers."""
        return [
            (
                label,
                format_number(self.numbers.get(nid, (None, None))[0]),
                format_number(self.numbers.get(nid, (None, None))[1]),
            )
            for nid, label in self.outputs
        ]

    # -- painting -------------------------------------------------------------------

    def paint(self, painter, option, widget=None):
        theme, s, r = self.theme, self.theme.scale, self._rect
        selected = self.isSelected()
        if selected:
            halo = QColor(theme.color("selection"))
            halo.setAlpha(70)
            painter.setPen(QPen(halo, 7 * s))
            painter.setBrush(Qt.NoBrush)
            painter.drawRoundedRect(r, 9 * s, 9 * s)
        painter.setPen(
            QPen(theme.color("selection") if selected else theme.color("op_border"), (2.2 if selected else 1.4) * s)
        )
        painter.setBrush(theme.color("node_fill"))
        painter.drawRoundedRect(r, 9 * s, 9 * s)
        header = QRectF(r.left(), r.top(), r.width(), self._header())
        band = QPainterPath()
        band.addRoundedRect(header, 9 * s, 9 * s)
        clip = QPainterPath()
        clip.addRect(header.adjusted(0, 0, 0, -1))
        painter.setPen(Qt.NoPen)
        painter.setBrush(theme.color("op_fill"))
        painter.drawPath(band.intersected(clip))
        painter.setFont(theme.font("label"))
        painter.setPen(theme.color("label_text"))
        painter.drawText(header.adjusted(10 * s, 0, -10 * s, 0), Qt.AlignLeft | Qt.AlignVCenter, f"▸ {self.title}")

        port_r = 4.0 * s
        painter.setFont(theme.font("caption"))
        for i, (_dst, _port, name) in enumerate(self.inputs):
            y = self._row_y(i, len(self.inputs))
            if name is None:
                painter.setPen(QPen(theme.color("missing"), 1.8 * s))
                painter.setBrush(theme.color("node_fill"))
            else:
                painter.setPen(QPen(theme.color("node_fill"), 1.2 * s))
                painter.setBrush(theme.color("op_border"))
            painter.drawEllipse(QPointF(r.left(), y), port_r, port_r)
            painter.setPen(theme.color("missing") if name is None else theme.color("caption_text"))
            painter.drawText(
                QRectF(r.left() + 9 * s, y - 9 * s, r.width() * 0.35, 18 * s),
                Qt.AlignLeft | Qt.AlignVCenter,
                name if name is not None else "not wired",
            )
        for i, (nid, label) in enumerate(self.outputs):
            y = self._row_y(i, len(self.outputs))
            data, grad = self.numbers.get(nid, (None, None))
            row = QRectF(r.left() + r.width() * 0.33, y - 10 * s, r.width() * 0.67 - 12 * s, 20 * s)
            painter.setFont(theme.font("caption"))
            painter.setPen(theme.color("caption_text"))
            painter.drawText(row, Qt.AlignLeft | Qt.AlignVCenter, label)
            painter.setFont(theme.font("number"))
            painter.setPen(theme.color("number_text"))
            painter.drawText(row, Qt.AlignRight | Qt.AlignVCenter, f"{format_number(data)}   ∇ {format_number(grad)}")
            painter.setPen(QPen(theme.color("node_fill"), 1.2 * s))
            painter.setBrush(theme.color("edge"))
            painter.drawEllipse(QPointF(r.right(), y), port_r, port_r)
