"""Gradient check: does backprop agree with nudging each leaf? (core.gradcheck)

For every leaf the table shows the analytic grad (one full backward pass), the
numeric one (a central finite difference, (f(x+h) - f(x-h)) / 2h) and their
relative error, green when they agree and red when not. The check runs in
slices of a few leaves per timer tick so a large graph never freezes the
window, and each slice restores every grad it touched: a debugger session in
progress is left exactly as it was.
"""

import time

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.look.theme import format_number
from core.format import full_number
from core.gradcheck import gradcheck, verdict

SLICE_SECONDS = 0.025
_TOP = QModelIndex()  # the invisible root of a table model
# two-line headers: in the dock's narrow tab one line each was cut to "analytic (ba..."
COLUMNS = ("leaf", "analytic\n(backprop)", "numeric\n(finite diff.)", "rel.\nerror", "")


class GradcheckModel(QAbstractTableModel):
    def __init__(self, controller, theme, parent=None):
        super().__init__(parent)
        self.ctrl, self.theme = controller, theme
        self.checks = []

    def set_checks(self, checks):
        self.beginResetModel()
        self.checks = list(checks)
        self.endResetModel()

    def append(self, checks):
        if checks:
            n = len(self.checks)
            self.beginInsertRows(QModelIndex(), n, n + len(checks) - 1)
            self.checks.extend(checks)
            self.endInsertRows()

    def rowCount(self, parent=_TOP):
        return 0 if parent.isValid() else len(self.checks)

    def columnCount(self, parent=_TOP):
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if orientation == Qt.Horizontal and role == Qt.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index, role=Qt.DisplayRole):
        check = self.checks[index.row()]
        col = index.column()
        if role == Qt.DisplayRole:
            if col == 0:
                return self.ctrl.name(check.leaf)
            if col == 1:
                return format_number(check.analytic)
            if col == 2:
                return format_number(check.numeric)
            if col == 3:
                return f"{check.rel_error:.1e}"
            return "✔ agree" if check.ok else "✘ differ"
        if role == Qt.BackgroundRole:
            c = QColor(self.theme.color("status_final" if check.ok else "nonfinite"))
            c.setAlpha(60 if col < 4 else 200)
            return c
        if role == Qt.ToolTipRole:
            return (
                f"{self.ctrl.name(check.leaf)}: backprop says {full_number(check.analytic)}, "
                f"nudging the leaf by ±h says {full_number(check.numeric)}"
            )
        if role == Qt.TextAlignmentRole and 0 < col < 4:
            return int(Qt.AlignRight | Qt.AlignVCenter)
        return None


class GradcheckView(QWidget):
    finished = Signal(int, int)  # (leaves that agree, leaves checked)

    def __init__(self, controller, theme, parent=None):
        super().__init__(parent)
        self.ctrl = controller
        self.model = GradcheckModel(controller, theme, self)
        self.button = QPushButton("Check gradients")
        self.button.setToolTip(
            "Compare every leaf's grad from backprop with a central finite difference (f(x+h) − f(x−h)) / 2h"
        )
        self.button.clicked.connect(self.run)
        self.summary = QLabel("Numeric vs analytic gradient of every leaf.")
        self.summary.setWordWrap(True)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.NoSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeToContents)  # numbers and headers whole
        header.setSectionResizeMode(0, QHeaderView.Stretch)  # the leaf's name takes the rest
        top = QHBoxLayout()
        top.addWidget(self.button)
        top.addWidget(self.summary, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._slice)
        self._todo = []
        self._root = None
        controller.ended.connect(lambda _why: self.clear("The graph changed: check again."))

    @property
    def running(self):
        return self._timer.isActive()

    def clear(self, text="Numeric vs analytic gradient of every leaf."):
        self._timer.stop()
        self._todo = []
        self.model.set_checks([])
        self.summary.setText(text)
        self.button.setEnabled(True)

    def run(self):
        st = self.ctrl.stepper
        if st is None:
            self.summary.setText("Nothing to check: the graph has no computable output.")
            return False
        self._root = st.root
        self._topo = st.topo
        self._todo = [v for v in st.topo if not v._prev]
        self._total = len(self._todo)
        self._batch = 1
        self.model.set_checks([])
        self.button.setEnabled(False)
        self.summary.setText(f"Checking {self._total} leaves…")
        self._timer.start()
        return True

    def run_now(self):
        """Run the whole check at once (for tests and small graphs)."""
        self.run()
        while self._timer.isActive():
            self._slice()

    def _slice(self):
        if self.ctrl.stepper is None or self.ctrl.stepper.root is not self._root:
            self.clear("The graph changed: check again.")
            return
        grads = [v.grad for v in self._topo]
        # one backward pass per slice, as many leaves as fit in the time budget
        batch, self._todo = self._todo[: self._batch], self._todo[self._batch :]
        started = time.perf_counter()
        checks = gradcheck(self._root, leaves=batch)
        took = time.perf_counter() - started
        if took < SLICE_SECONDS / 2:
            self._batch *= 2
        elif took > SLICE_SECONDS and self._batch > 1:
            self._batch //= 2
        for v, g in zip(self._topo, grads):  # leave the debugger's grads as they were
            v.grad = g
        self.model.append(checks)
        if not self._todo:
            self._timer.stop()
            self.button.setEnabled(True)
            good = sum(1 for c in self.model.checks if c.ok)
            n = len(self.model.checks)
            self.summary.setText(verdict(self.model.checks, self._root, self.ctrl.name))
            self.finished.emit(good, n)
