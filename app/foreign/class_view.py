"""File → Check a class…: a folder of submissions as a sortable table and a bar chart.

The checks run off the GUI thread (a `Job` calling core/foreign/batch.py's
`check_many`, each file in its own child process, several at once); each row
appears as its check ends. The bar chart counts the first-fault diagnoses of
the class, most common first. Double-clicking a row opens that submission as
File → Debug my engine… does: on the canvas, the debugger stopped at its first
wrong gradient.

Closing the dialog cancels: the checks still running are ended at once
(`batch.check_many`'s stop), without waiting on the GUI thread; the rows done
stay savable. A submission that kills what it can see ends only itself: each
runs in its own box (core/sandbox/).

The dialog is handed the window's `EngineChecks` (app/foreign/engine_dialog.py), what
opening a row as Debug my engine… uses; never the window.
"""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.foreign.engine_dialog import EngineChecks, open_engine_check
from app.jobs import Job
from core import sandbox
from core.foreign import batch
from core.foreign.report import CATEGORIES

HEADERS = ("file", "category", "passed / run", "seconds", "first fault", "op", "test")
CATEGORY_COLOURS = {c.key: c.colour for c in CATEGORIES}


class HistogramChart(QWidget):
    """Horizontal bars: how many submissions share each first-fault diagnosis."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bars: list[tuple[str, int]] = []
        self.total = 0
        self.setMinimumHeight(120)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Preferred)

    def set_rows(self, rows: list[dict[str, Any]]) -> None:
        self.bars = [(batch.words(d), n) for d, n in batch.histogram(rows)]
        self.total = len(rows)
        self.setMinimumHeight(max(120, min(240, 20 * len(self.bars) + 8)))
        self.update()

    def paintEvent(self, event: Any) -> None:  # noqa: N802 -- Qt's name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.Antialiasing)
        metrics = painter.fontMetrics()
        if not self.bars:
            painter.drawText(self.rect(), Qt.AlignCenter, "No wrong gradients yet")
            return
        label_width = max(metrics.horizontalAdvance(words) for words, _ in self.bars) + 12
        count_width = metrics.horizontalAdvance(f"{self.total} of {self.total}") + 12
        room = max(10, self.width() - label_width - count_width - 16)
        biggest = max(n for _, n in self.bars)
        row = max(14, min(28, (self.height() - 8) // len(self.bars)))
        for i, (words, n) in enumerate(self.bars):
            y = 4 + i * row
            painter.setPen(self.palette().text().color())
            painter.drawText(QRectF(4, y, label_width - 8, row), Qt.AlignRight | Qt.AlignVCenter, words)
            width = room * n / biggest
            painter.fillRect(QRectF(label_width, y + 3, width, row - 6), QColor("#c62828"))
            painter.drawText(
                QRectF(label_width + width + 6, y, count_width, row),
                Qt.AlignLeft | Qt.AlignVCenter,
                f"{n} of {self.total}",
            )
        painter.end()


class ClassCheckDialog(QDialog):
    """The class's table, filled as checks end; double-click a row to debug it."""

    def __init__(self, checks: EngineChecks, files: list[str], folder: str) -> None:
        super().__init__(checks.services.parent)
        self.checks = checks  # a row opens as File → Debug my engine… does
        self.files = files
        self.rows: dict[str, dict[str, Any]] = {}
        self.setWindowTitle(f"Check a class — {folder}")
        self.resize(980, 640)
        layout = QVBoxLayout(self)
        self.status = QLabel(f"Checking {len(files)} submissions, each in its own process…")
        layout.addWidget(self.status)
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setHorizontalHeaderLabels(HEADERS)
        self.table.setSortingEnabled(True)
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectRows)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeToContents)  # every column readable, the test last
        header.setStretchLastSection(True)
        self.table.cellDoubleClicked.connect(self.open_row)
        layout.addWidget(self.table, 3)
        layout.addWidget(QLabel("First faults of the class (double-click a row to step it in the debugger):"))
        self.chart = HistogramChart()
        layout.addWidget(self.chart, 1)
        buttons = QHBoxLayout()
        self.save_button = QPushButton("Save as CSV…")
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(self.save_csv)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        buttons.addStretch(1)
        buttons.addWidget(self.save_button)
        buttons.addWidget(close)
        layout.addLayout(buttons)
        self.stop = threading.Event()  # set when the dialog closes: the checks still running end
        self.job = Job(1, self._work, self, name="class check")
        self.job.progress.connect(self._row_done)
        self.job.done.connect(self._all_done)

    def start(self) -> None:
        self.job.start()

    def _work(self) -> list[dict[str, Any]]:
        return batch.check_many(self.files, progress=lambda done, total, row: self.job.report(row), stop=self.stop)

    def _row_done(self, _token: int, row: dict[str, Any]) -> None:
        self.rows[row["file"]] = row
        self.add_row(row)
        self.status.setText(f"Checked {len(self.rows)} of {len(self.files)} submissions…")
        self.chart.set_rows(list(self.rows.values()))

    def add_row(self, row: dict[str, Any]) -> None:
        self.table.setSortingEnabled(False)  # inserting into a sorted table scatters the cells
        r = self.table.rowCount()
        self.table.insertRow(r)
        first = batch.printable(batch.words(row["diagnosis"]) if row["diagnosis"] else row["message"])
        if len(first) > 70:  # the whole message is the cell's tool tip
            first_tip, first = first, first[:67] + "…"
        else:
            first_tip = first
        cells = [
            batch.printable(batch.name_of(row["file"])),
            row["category"],
            f"{row['passed']} / {row['run']}",
            f"{row['seconds']:.1f}",
            first,
            str(row["op"]),
            batch.printable(row["test"]),
        ]
        for c, text in enumerate(cells):
            item = QTableWidgetItem(text)
            item.setData(Qt.UserRole, row["file"])
            if c == 1 and text in CATEGORY_COLOURS:
                item.setForeground(QColor(CATEGORY_COLOURS[text]))
            item.setToolTip(first_tip if c == 4 else text)
            self.table.setItem(r, c, item)
        self.table.setSortingEnabled(True)

    def _all_done(self, _token: int, outcome: Any) -> None:
        if isinstance(outcome, batch.Stopped):
            self.status.setText(f"Stopped: {len(outcome.rows)} of {outcome.total} submissions were checked.")
            self.save_button.setEnabled(True)
            return
        if isinstance(outcome, Exception):
            self.status.setText(f"The check stopped: {outcome}")
            return
        counts = {c: sum(r["category"] == c for r in outcome) for c in ("ok", "wrong", "raised", "unusable")}
        self.status.setText(
            f"{len(outcome)} submissions: "
            + ", ".join(f"{n} {c}" for c, n in counts.items() if n)
            + ". Double-click a row to open it in the debugger."
        )
        self.save_button.setEnabled(True)

    def open_row(self, row: int, _column: int) -> None:
        item = self.table.item(row, 0)
        if item is None:
            return
        path = item.data(Qt.UserRole)
        self.opened = open_engine_check(self.checks, path)

    def save_csv(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save the class's table", "class.csv", "CSV (*.csv)")
        if not path:
            return
        from core.files.atomic import write_atomically

        try:
            write_atomically(path, batch.to_csv([self.rows[f] for f in self.files if f in self.rows]))
        except OSError as e:
            QMessageBox.warning(self, "Save as CSV", f"Could not write {path}: {e.strerror}")

    def closeEvent(self, event: Any) -> None:  # noqa: N802 -- Qt's name
        if self.job.isRunning():  # cancel: end the running checks now; the job then ends by itself
            self.stop.set()
            sandbox.stop(self.stop)
        super().closeEvent(event)


def check_a_class(checks: EngineChecks, folder: str | None = None) -> ClassCheckDialog | None:
    """File → Check a class…: pick a folder, confirm, check every .py off the GUI thread."""
    parent = checks.services.parent
    asked = folder is None
    if folder is None:
        folder = QFileDialog.getExistingDirectory(parent, "Check a class: the folder of submissions")
        if not folder:
            return None
    try:
        files = batch.files_of([folder])
    except batch.FolderError as e:
        QMessageBox.warning(parent, "Check a class", str(e))
        return None
    question = (
        f"Run the {len(files)} .py files of {folder}? Each runs in its own separate process, "
        "with time and memory limits, and everything it starts is stopped when its check ends."
        + (f"\n\nNote: {sandbox.box_problem()}" if sandbox.box_problem() else "")
    )
    if asked and QMessageBox.question(parent, "Check a class", question) != QMessageBox.Yes:
        return None
    dialog = ClassCheckDialog(checks, files, folder)
    dialog.show()
    dialog.start()
    return dialog
