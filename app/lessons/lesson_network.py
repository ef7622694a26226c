"""A network lesson's numbers and picture: the metrics, and the decision boundary
drawn from the runner's float grid (TensorFlow Playground's colours)."""

import math

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPen
from PySide6.QtWidgets import QBoxLayout, QFrame, QLabel, QSizePolicy, QWidget

from app.lessons.reading import TEXT_PX
from app.look.theme import set_base_font

NEGATIVE, POSITIVE = QColor("#f59322"), QColor("#0877bd")  # class -1 / +1 (Playground colours)


class BoundaryView(QWidget):
    """The model's score over the plane (orange -1 .. blue +1) and the training points."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMinimumSize(90, 90)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Preferred)
        self.setToolTip(
            "The network's decision boundary: orange where it says −1, blue where it "
            "says +1; dots are the training points in their true colour"
        )
        self._image = None
        self._points = ((), ())
        self._bounds = None

    def sizeHint(self):
        return QSize(240, 240)

    def set_boundary(self, boundary, points):
        grid = boundary.grid
        rows, cols = grid.shape
        image = QImage(cols, rows, QImage.Format_RGB32)
        neutral = QColor("#f2f2f2")
        for j in range(rows):
            for i in range(cols):
                score = float(grid[j, i])
                t = max(-1.0, min(1.0, score / 2.0)) if math.isfinite(score) else 0.0
                end = POSITIVE if t > 0 else NEGATIVE
                a = abs(t) * 0.75
                c = QColor.fromRgbF(
                    neutral.redF() + (end.redF() - neutral.redF()) * a,
                    neutral.greenF() + (end.greenF() - neutral.greenF()) * a,
                    neutral.blueF() + (end.blueF() - neutral.blueF()) * a,
                )
                image.setPixelColor(i, rows - 1 - j, c)  # rows follow y upwards
        self._image = image
        self._bounds = (float(boundary.xs[0]), float(boundary.xs[-1]), float(boundary.ys[0]), float(boundary.ys[-1]))
        self._points = points
        self.update()

    def paintEvent(self, event):
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        side = min(self.width(), self.height()) - 2
        r = QRectF((self.width() - side) / 2, 1, side, side)
        if self._image is None:
            p.end()
            return
        p.drawImage(r, self._image)
        x0, x1, y0, y1 = self._bounds
        dot = max(3.0, side / 60)
        points, labels = self._points
        p.setPen(QPen(QColor("#ffffff"), max(1.0, dot / 3)))
        for (x, y), label in zip(points, labels):
            px = r.left() + (x - x0) / (x1 - x0) * r.width()
            py = r.bottom() - (y - y0) / (y1 - y0) * r.height()
            p.setBrush(POSITIVE if label > 0 else NEGATIVE)
            p.drawEllipse(QRectF(px - dot, py - dot, 2 * dot, 2 * dot))
        p.setPen(QPen(self.palette().windowText().color(), 1))
        p.setBrush(Qt.NoBrush)
        p.drawRect(r)
        p.end()


class LessonNetworkView(QFrame):
    """The network now, on its training set: its metrics above its decision boundary."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setFrameShape(QFrame.StyledPanel)
        net = QBoxLayout(QBoxLayout.TopToBottom, self)
        net.setContentsMargins(8, 6, 8, 6)
        self.compact = False
        self.metrics_label = QLabel()
        self.metrics_label.setWordWrap(True)
        self.metrics_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.metrics_label.setToolTip(
            "The network now, on its training set: updates done, loss, accuracy and parameters"
        )
        set_base_font(self.metrics_label, TEXT_PX, mono=True)
        self.boundary_view = BoundaryView()
        net.addWidget(self.metrics_label)
        net.addWidget(self.boundary_view, 1)

    def set_compact(self, on):
        """Presenter mode on a small screen (a step in pages, three lines high): the
        numbers beside the boundary, one a line, and the boundary as tall as the
        panel (above it, they left it 67 px at 2x on 1280x720)."""
        self.compact = bool(on)
        self.layout().setDirection(QBoxLayout.LeftToRight if on else QBoxLayout.TopToBottom)
