"""The few label styles every box of the Training panel shares, its status line, and the
flow layout its bars wrap in.

Sizes in style sheets are written at 1x; `app.look.theme.apply_to_widgets` scales
every `font-size` rule (and fixed font) by the presenter scale, so nothing here
stays small at 2x.
"""

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtGui import QPainter, QPalette
from PySide6.QtWidgets import QCheckBox, QFrame, QLabel, QLayout, QSizePolicy, QSpacerItem, QWidget


def heading(text):
    """A column heading in the Playground's small capitals: DATA, NETWORK, OUTPUT."""
    label = QLabel(text)
    label.setStyleSheet("color: #6b7280; font-weight: bold; font-size: 11px; letter-spacing: 1px;")
    return label


def caption(text):
    """The grey name in front of a control."""
    label = QLabel(text)
    label.setStyleSheet("color: #4b5563;")
    return label


def vline():
    """A thin rule between two columns."""
    line = QFrame()
    line.setFrameShape(QFrame.VLine)
    line.setStyleSheet("color: #e5e7eb;")
    return line


def set_silently(widgets, apply):
    """Call apply() with the widgets' signals blocked: showing a value is not editing it."""
    for w in widgets:
        w.blockSignals(True)
    try:
        apply()
    finally:
        for w in widgets:
            w.blockSignals(False)


class LiveText(QWidget):
    """Text that changes many times a second (the metrics while training) for the price of a repaint.

    A QLabel lays its window out again on every setText -- here the whole panel with its
    wrapping bars, 30 times a second, GUI time taken from the worker (they share one
    interpreter). This widget's size comes from `template`, the largest text it will show,
    wrapped to the width it gets, so a new text never moves anything."""

    def __init__(self, template, parent=None):
        super().__init__(parent)
        self._text = ""
        self.template = template
        policy = QSizePolicy(QSizePolicy.Preferred, QSizePolicy.Fixed)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def text(self):
        return self._text

    def setText(self, text):
        if text != self._text:
            self._text = text
            self.update()

    def _wrapped(self, text, width):
        return self.fontMetrics().boundingRect(QRect(0, 0, max(1, width), 100_000), Qt.TextWordWrap, text)

    def sizeHint(self):
        return self._wrapped(self.template, 100_000).size()

    def minimumSizeHint(self):
        return QSize(self.fontMetrics().horizontalAdvance("training  loss"), self.heightForWidth(1))

    def hasHeightForWidth(self):
        return True

    def heightForWidth(self, width):
        return self._wrapped(self.template, width).height()

    def paintEvent(self, event):
        painter = QPainter(self)
        painter.setPen(self.palette().color(QPalette.WindowText))
        painter.drawText(self.rect(), Qt.TextWordWrap, self._text)


class StatusLine(QLabel):
    """The line under the panel: what the run is doing, or what went wrong and how to fix it."""

    def __init__(self, parent=None):
        super().__init__("", parent)
        self.setWordWrap(True)
        self.setToolTip("What the run is doing; problems and how to fix them show here")
        self.setMinimumHeight(20)  # one line and its padding; presenter 2x doubles it
        self.last_message = ""
        self.note = ""  # said with the next "ready" line (a setting the panel changed by itself)

    def show_message(self, text, error=False):
        self.last_message = text
        self.setText(text)
        self.setStyleSheet(
            "background: #fdecea; color: #b91c1c; padding: 4px 8px; border-radius: 4px;"
            if error
            else "color: #374151; padding: 4px 8px;"
        )

    def show_status(self, status, message, steps):
        """The controller's status ('playing' 'paused' 'finished' 'diverged' 'error') in words."""
        if status in ("diverged", "error"):
            self.show_message(message, error=True)
        elif message:
            self.show_message(message)
        elif status == "playing":
            self.note = ""
            self.show_message("training…")
        elif steps:
            self.show_message(
                f"paused at step {steps:,}: Play continues, Step takes one step; "
                "click a neuron to open its scalar graph, a weight to edit it"
            )
        else:
            ready = "ready: press Play to train, or Step to take one step and watch what it changes"
            self.show_message(f"{self.note} {ready[0].upper()}{ready[1:]}" if self.note else ready)


# -----------------------------------------------------------------------------
# a bar that wraps


class FlowLayout(QLayout):
    """Controls in a row that wraps onto more rows when the row runs out of width.

    It speaks QHBoxLayout's dialect -- `addWidget(w, stretch)`, `addSpacing`,
    `addStretch` -- so a bar built as a QHBoxLayout changes only its constructor.
    A caption (a QLabel, or a check box switching the control after it) never
    ends a row: it moves down with the control it names. Rows break where the
    controls no longer fit at their minimum widths; within a row they grow
    towards their preferred widths, and a stretch takes what is left, as in a
    box layout. Spacings and stretches that would open or close a row are dropped.
    """

    def __init__(self, parent=None):
        super().__init__(parent)
        self._items = []  # QLayoutItem, in order
        self._stretch = []  # stretch factor of each item (spacers: > 0 means a stretch)

    # -- QHBoxLayout's vocabulary --------------------------------------------------------

    def addWidget(self, widget, stretch=0, alignment=None):
        super().addWidget(widget)
        self._stretch[-1] = stretch

    def addSpacing(self, size):
        self.addItem(QSpacerItem(size, 0, QSizePolicy.Fixed, QSizePolicy.Minimum))

    def addStretch(self, stretch=1):
        self.addItem(QSpacerItem(0, 0, QSizePolicy.Expanding, QSizePolicy.Minimum))
        self._stretch[-1] = max(1, stretch)

    # -- QLayout ---------------------------------------------------------------------------

    def addItem(self, item):
        self._items.append(item)
        self._stretch.append(0)
        self.invalidate()

    def count(self):
        return len(self._items)

    def itemAt(self, index):
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index):
        if not 0 <= index < len(self._items):
            return None
        del self._stretch[index]
        return self._items.pop(index)

    def expandingDirections(self):
        return Qt.Orientation(0)

    def hasHeightForWidth(self):
        return True

    def heightForWidth(self, width):
        return self._arrange(QRect(0, 0, width, 0), apply=False)

    def setGeometry(self, rect):
        super().setGeometry(rect)
        self._arrange(rect, apply=True)

    def sizeHint(self):
        m = self.contentsMargins()
        groups = self._groups()
        width = sum(self._group_width(g) for g in groups) + self.spacing() * max(0, len(groups) - 1)
        height = max((self._hint(i).height() for g in groups for i in g), default=0)
        return QSize(width + m.left() + m.right(), height + m.top() + m.bottom())

    def minimumSize(self):
        m = self.contentsMargins()
        groups = [g for g in self._groups() if not self._is_spacer(g[0])]
        width = max((self._group_width(g, self._least) for g in groups), default=0)
        height = max((self._hint(i).height() for g in groups for i in g), default=0)
        return QSize(width + m.left() + m.right(), height + m.top() + m.bottom())

    # -- placing ---------------------------------------------------------------------------

    def _visible(self):
        return [(i, s) for i, s in zip(self._items, self._stretch) if not i.isEmpty() or i.spacerItem()]

    @staticmethod
    def _is_spacer(pair):
        return pair[0].spacerItem() is not None

    @staticmethod
    def _hint(pair):
        item = pair[0]
        hint = item.sizeHint().expandedTo(item.minimumSize()).boundedTo(item.maximumSize())
        return QSize(0, 0) if item.spacerItem() is not None and pair[1] else hint

    @staticmethod
    def _least(pair):
        """The width an item can shrink to (a spacer: its fixed width; a stretch: nothing)."""
        item = pair[0]
        if item.spacerItem() is not None:
            return 0 if pair[1] else item.sizeHint().width()
        return item.minimumSize().width()

    @staticmethod
    def _is_caption(pair):
        return isinstance(pair[0].widget(), (QLabel, QCheckBox))

    def _groups(self):
        """Runs that stay on one row: captions with the control after them; each spacer alone."""
        groups, current = [], []
        for pair in self._visible():
            if self._is_spacer(pair):
                if current:
                    groups.append(current)
                groups.append([pair])
                current = []
                continue
            if current and isinstance(current[-1][0].widget(), QCheckBox) and self._is_caption(pair):
                groups.append(current)  # two switches in a row: each stands alone
                current = []
            current.append(pair)
            if not self._is_caption(pair):
                groups.append(current)
                current = []
        if current:
            groups.append(current)
        return groups

    def _group_width(self, group, width=None):
        width = width or (lambda p: self._hint(p).width())
        return sum(width(p) for p in group) + self.spacing() * (len(group) - 1)

    def _arrange(self, rect, apply):
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        gap = self.spacing()
        rows, row, used = [], [], 0
        for group in self._groups():
            width = self._group_width(group, self._least)
            if row and used + gap + width > area.width() and not self._is_spacer(group[0]):
                rows.append(row)
                row, used = [], 0
            if not row and self._is_spacer(group[0]):
                continue  # no spacing at the start of a row
            row.append(group)
            used += (gap if used else 0) + width
        if row:
            rows.append(row)
        y = area.top()
        for row in rows:
            while row and self._is_spacer(row[-1][0]):
                row.pop()  # nor at its end
            pairs = [p for group in row for p in group]
            height = max((self._hint(p).height() for p in pairs), default=0)
            if apply:
                self._place_row(pairs, area.left(), y, area.width(), height)
            y += height + gap
        return (y - gap if rows else y) - area.top() + m.top() + m.bottom()

    def _place_row(self, pairs, x, y, room, height):
        """Every item its minimum width, then towards its preferred width, then the stretches the rest."""
        gap = self.spacing()
        least = [self._least(p) for p in pairs]
        wanted = [max(lo, self._hint(p).width()) for p, lo in zip(pairs, least)]
        spare = room - sum(least) - gap * (len(pairs) - 1)
        growth = sum(w - lo for w, lo in zip(wanted, least))
        share = 1.0 if growth <= spare else max(0.0, spare / growth) if growth else 0.0
        widths = [lo + int((w - lo) * share) for w, lo in zip(wanted, least)]
        left = room - sum(widths) - gap * (len(pairs) - 1)
        stretches = sum(s for _item, s in pairs)
        if left > 0 and stretches:
            for k, (item, stretch) in enumerate(pairs):
                if stretch:
                    room_k = item.maximumSize().width() - widths[k]
                    widths[k] += max(0, min(room_k, left * stretch // stretches))
        for (item, _stretch), w in zip(pairs, widths):
            h = min(height, item.maximumSize().height())
            item.setGeometry(QRect(QPoint(x, y + (height - h) // 2), QSize(w, h)))
            x += w + gap
