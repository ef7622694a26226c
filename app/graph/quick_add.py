"""Two small editors that float over the canvas: quick-add search and node editing.

`QuickAddOverlay` is what Tab (or a double-click on empty canvas) opens at the
mouse: type a few letters ("tan"), the best match of the palette's catalogue
is highlighted, Enter adds it where the box was opened; Up/Down pick another
match; Escape closes. `NodeEditOverlay` is what a double-click on a node opens
beside it: its label and, for a leaf, its value (for pow its exponent); Enter
or clicking elsewhere applies every changed field as one undoable step,
Escape leaves the node as it was.

Both are child widgets of the view, not windows: they move with it, never
outlive it and open no nested event loop. They only emit what was chosen; the
builder turns that into commands.
"""

import math

from PySide6.QtCore import QEvent, QPointF, Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QFormLayout,
    QFrame,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
)

from app.fields import ExactFloatField
from core.document.blocks import search
from core.document.commands import same

_FRAME_STYLE = "QFrame#overlay { background: palette(base); border: 1px solid palette(mid); border-radius: 6px; }"


class QuickAddOverlay(QFrame):
    """A search box over the catalogue; `chosen(key, scene point)` on Enter."""

    chosen = Signal(str, QPointF)

    def __init__(self, view):
        super().__init__(view)
        self.setObjectName("overlay")
        self.setStyleSheet(_FRAME_STYLE)
        self._view = view
        self._scene_pos = QPointF()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(4)
        self.edit = QLineEdit()
        self.edit.setPlaceholderText("Add… (type: tanh, +, input, neuron)")
        self.edit.textChanged.connect(self._filter)
        self.edit.installEventFilter(self)
        self.list = QListWidget()
        self.list.setFocusPolicy(Qt.NoFocus)
        self.list.itemActivated.connect(lambda _item: self.accept())
        self.list.itemClicked.connect(lambda _item: self.accept())
        layout.addWidget(self.edit)
        layout.addWidget(self.list)
        self.resize(260, 250)
        self.hide()

    def open_at(self, scene_pos, text=""):
        """Show the box at scene_pos (where the node will go) and focus it."""
        self._scene_pos = QPointF(scene_pos)
        p = self._view.mapFromScene(scene_pos)
        vp = self._view.viewport().geometry()
        x = min(max(vp.left() + 4, p.x() + vp.left()), vp.right() - self.width() - 4)
        y = min(max(vp.top() + 4, p.y() + vp.top()), vp.bottom() - self.height() - 4)
        self.move(int(x), int(y))
        self.edit.setText(text)
        self._filter(text)
        self.show()
        self.raise_()
        self.edit.setFocus(Qt.PopupFocusReason)

    def _filter(self, text):
        self.list.clear()
        for entry in search(text):
            item = QListWidgetItem(f"{entry.symbol}   {entry.title}  —  {entry.tip}")
            item.setData(Qt.UserRole, entry.key)
            self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)

    def matches(self):
        return [self.list.item(i).data(Qt.UserRole) for i in range(self.list.count())]

    def accept(self):
        item = self.list.currentItem()
        self.hide()
        self._view.setFocus()
        if item is not None:
            self.chosen.emit(item.data(Qt.UserRole), self._scene_pos)

    def eventFilter(self, obj, event):
        if obj is self.edit and event.type() == QEvent.KeyPress:
            key = event.key()
            if key in (Qt.Key_Return, Qt.Key_Enter):
                self.accept()
                return True
            if key == Qt.Key_Escape:
                self.hide()
                self._view.setFocus()
                return True
            if key in (Qt.Key_Down, Qt.Key_Up):
                row = self.list.currentRow() + (1 if key == Qt.Key_Down else -1)
                self.list.setCurrentRow(max(0, min(self.list.count() - 1, row)))
                return True
        if obj is self.edit and event.type() == QEvent.FocusOut and self.isVisible():
            if not self.list.underMouse():
                self.hide()
        return super().eventFilter(obj, event)


class NodeEditOverlay(QFrame):
    """Label and value (or exponent) of one node; `applied(nid, changes)` with the
    fields that changed: {'label': str, 'value': float, 'param': float}."""

    applied = Signal(str, dict)

    def __init__(self, view):
        super().__init__(view)
        self.setObjectName("overlay")
        self.setStyleSheet(_FRAME_STYLE)
        self._view = view
        self.nid = None
        self._node = None
        self._closing = False
        form = QFormLayout(self)
        form.setContentsMargins(8, 6, 8, 6)
        self.title = QLabel()
        self.title.setStyleSheet("font-weight: bold;")
        form.addRow(self.title)
        self.label_edit = QLineEdit()
        self.label_edit.setPlaceholderText("(no label)")
        self.number_edit = ExactFloatField()  # every digit: Enter on an unedited value changes nothing
        self.number_label = QLabel("value")
        form.addRow("label", self.label_edit)
        form.addRow(self.number_label, self.number_edit)
        self._form = form
        for w in (self.label_edit, self.number_edit):
            w.installEventFilter(self)
        self.hint = QLabel("Enter applies · Esc cancels")
        self.hint.setStyleSheet("color: palette(mid); font-size: 10px;")
        form.addRow(self.hint)
        QApplication.instance().focusChanged.connect(self._focus_changed)
        self.hide()

    def open_for(self, node, view_point):
        self.nid, self._node = node.id, node.copy()
        what = {"input": "input", "const": "constant"}.get(node.kind, f"op {node.op}")
        self.title.setText(f"{node.label or node.id}  ({what})")
        self.label_edit.setText(node.label)
        field = self._number_field(node)
        self._form.setRowVisible(self.number_edit, field is not None)
        if field is not None:
            self.number_label.setText("value" if field == "value" else "exponent k" if node.op == "pow" else "base c")
            self.number_edit.setValue(float(getattr(node, field)))
        self.adjustSize()
        vp = self._view.viewport().geometry()
        x = min(max(vp.left() + 4, view_point.x() + vp.left()), vp.right() - self.width() - 4)
        y = min(max(vp.top() + 4, view_point.y() + vp.top()), vp.bottom() - self.height() - 4)
        self.move(int(x), int(y))
        self.show()
        self.raise_()
        target = self.number_edit if node.kind != "op" else self.label_edit
        target.setFocus(Qt.PopupFocusReason)
        if target is self.number_edit:
            self.number_edit.selectAll()
        else:
            self.label_edit.selectAll()

    @staticmethod
    def _number_field(node):
        if node.kind != "op":
            return "value"
        if node.op in ("pow", "rpow"):
            return "param"
        return None

    def changes(self):
        """The fields the user changed (what apply would push)."""
        node = self._node
        if node is None:
            return {}
        out = {}
        label = self.label_edit.text().strip()
        if label != node.label:
            out["label"] = label
        field = self._number_field(node)
        if field is not None:
            self.number_edit.interpretText()  # what is typed, even before the box has read it
            number = float(self.number_edit.value())
            if math.isfinite(number) and not same(number, float(getattr(node, field))):
                out[field] = number
        return out

    def apply(self):
        if self._closing or self.nid is None:
            return
        changes, nid = self.changes(), self.nid
        self._close()
        if changes:
            self.applied.emit(nid, changes)

    def cancel(self):
        self._close()

    def _close(self):
        self._closing = True
        self.hide()
        self.nid, self._node = None, None
        self._view.setFocus()
        self._closing = False

    def eventFilter(self, obj, event):
        if event.type() == QEvent.KeyPress:
            if event.key() in (Qt.Key_Return, Qt.Key_Enter):
                self.apply()
                return True
            if event.key() == Qt.Key_Escape:
                self.cancel()
                return True
        return super().eventFilter(obj, event)

    def _focus_changed(self, old, new):
        # clicking elsewhere applies, like a spreadsheet cell
        if self.isVisible() and not self._closing and (new is None or not self.isAncestorOf(new)):
            self.apply()
