"""Training microgpt in the studio: the live loss curve and names sampled as it learns.

The preset is the script's own run (resources/scripts/microgpt.py: seed 42,
the bundled names shuffled, Adam, 1,000 steps) on the numpy replay of each
step's recorded graph (core/microgpt/train.py): the same losses as the
script, about 20-80x as fast. The run is a `Job` on its own thread; it sends
its losses in batches (at most every 50 ms) and the names it samples every N
steps; the curve is redrawn by a 30 Hz timer from a preallocated buffer.
Stop ends the run at its next step; closing the panel stops it and waits.
"""

import os
import time

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.jobs import Job

BATCH_S = 0.05  # the worker sends its losses at most this often


def run_training(job, steps, sample_every, path=None):
    """The work of the job: train, report batches of (step, loss, name) and samples."""
    from core.microgpt.train import train

    batch, sent = [], time.perf_counter()
    started = sent
    for progress in train(steps, sample_every, path=path):
        batch.append((progress.step, progress.loss, progress.name))
        now = time.perf_counter()
        if progress.samples or now - sent >= BATCH_S or progress.step == steps:
            job.report({"losses": batch, "samples": progress.samples, "step": progress.step,
                        "rate": progress.step / max(1e-9, now - started)})  # fmt: skip
            batch, sent = [], now
        if job.stopped:
            return progress.step
    return steps


class MicroGPTPanel(QWidget):
    """The microgpt preset: steps, samples every N, Train/Stop, the loss curve, the sampled names."""

    def __init__(self, parent=None):
        super().__init__(parent, Qt.Window)
        self.setWindowTitle("Train microgpt — a GPT of scalar Values, on names")
        self.setObjectName("microgpt-panel")
        self.job = None
        self.losses = np.full(100_000, np.nan)
        self.count = 0
        self.steps = QSpinBox()
        self.steps.setRange(1, 100_000)
        self.steps.setValue(1000)
        self.every = QSpinBox()
        self.every.setRange(1, 100_000)
        self.every.setValue(100)
        self.button = QPushButton("Train")
        self.button.setObjectName("microgpt-train")
        self.button.clicked.connect(self.toggle)
        self.path: str | None = None  # a names file of the learner's; None: the bundled names
        self.names_button = QPushButton("Names…")
        self.names_button.setToolTip("Train on a names file of your own: one name a line (like Karpathy's names.txt)")
        self.names_button.clicked.connect(self.choose_names)
        self.status = QLabel(self._about_names(None, 492))
        self.status.setWordWrap(True)
        self.plot = pg.PlotWidget()
        theme = getattr(getattr(parent, "scene", None), "theme", None)
        if theme is not None:  # the studio's colours, not pyqtgraph's black
            self.plot.setBackground(theme.color("background"))
            for side in ("left", "bottom"):
                self.plot.getAxis(side).setPen(theme.color("caption_text"))
                self.plot.getAxis(side).setTextPen(theme.color("label_text"))
        self.plot.setLabel("left", "loss")
        self.plot.setLabel("bottom", "step")
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.curve = self.plot.plot(pen=pg.mkPen("#2b6cb0", width=2))
        self.mean = self.plot.plot(pen=pg.mkPen("#e07b00", width=2))
        self.names = QPlainTextEdit()
        self.names.setReadOnly(True)
        self.names.setPlaceholderText("Names the model makes up appear here every N steps.")
        bar = QHBoxLayout()
        for text, widget in (("steps", self.steps), ("sample every", self.every)):
            bar.addWidget(QLabel(text))
            bar.addWidget(widget)
        bar.addWidget(self.names_button)
        bar.addWidget(self.button)
        bar.addStretch(1)
        body = QHBoxLayout()
        body.addWidget(self.plot, 3)
        body.addWidget(self.names, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.status)
        layout.addLayout(body, 1)
        self.timer = QTimer(self)
        self.timer.setInterval(33)
        self.timer.timeout.connect(self._redraw)
        self.resize(1100, 600)

    @staticmethod
    def _about_names(path, count):
        where = "the bundled names" if path is None else os.path.basename(path)
        return f"The script's run: seed 42, {count:,} names ({where}) shuffled, Adam (lr 0.01, falling to 0)."

    def choose_names(self):
        from PySide6.QtWidgets import QFileDialog

        path, _ = QFileDialog.getOpenFileName(self, "Train microgpt on names", "", "Text files (*.txt);;All files (*)")
        return self.use_names(path) if path else False

    def use_names(self, path):
        """Train on the names file at path from the next Train on; False (and why, in the status line) if not."""
        from core.microgpt.data import NamesError, load_names

        if self.job is not None:
            self.status.setText("Stop the training first, then choose the names.")
            return False
        try:
            docs = load_names(path)
        except NamesError as e:
            self.status.setText(f"Not used: {e}")
            return False
        self.path = path
        self.status.setText(self._about_names(path, len(docs)))
        return True

    @property
    def running(self):
        return self.job is not None

    def toggle(self):
        if self.job is not None:
            self.job.stop()
            return
        self.start()

    def start(self):
        steps, every = self.steps.value(), self.every.value()
        self.losses[:] = np.nan
        self.count = 0
        self.names.clear()
        self.job = Job(0, None, self, name="microgpt")
        job = self.job
        path = self.path
        job.work = lambda: run_training(job, steps, every, path)
        job.progress.connect(self._progress)
        job.done.connect(self._done)
        self.button.setText("Stop")
        self.status.setText("Recording one step's graph (it serves every name length), then training…")
        self.timer.start()
        job.start()

    def _progress(self, _token, what):
        for step, loss, _name in what["losses"]:
            if step <= len(self.losses):
                self.losses[step - 1] = loss
                self.count = max(self.count, step)
        last = what["losses"][-1] if what["losses"] else None
        if last:
            self.status.setText(f"step {last[0]:,} of {self.steps.value():,} · loss {last[1]:.4f} on “{last[2]}”"
                                f" · {what['rate']:.0f} steps/s")  # fmt: skip
        if what["samples"]:
            self.names.appendPlainText(f"after step {what['step']:,}: " + ", ".join(what["samples"]))

    def _redraw(self):
        n = self.count
        if n:
            x = np.arange(1, n + 1)
            self.curve.setData(x, self.losses[:n])
            window = min(50, n)
            smooth = np.convolve(self.losses[:n], np.ones(window) / window, mode="valid")
            self.mean.setData(x[window - 1 :], smooth)

    def _done(self, _token, outcome):
        self._redraw()
        self.timer.stop()
        self.button.setText("Train")
        if isinstance(outcome, Exception):
            self.status.setText(f"Training stopped: {outcome}")
        else:
            self.status.setText(self.status.text() + f" · done ({outcome:,} steps)")
        job, self.job = self.job, None
        if job is not None:
            job.wait()
            job.deleteLater()

    def wait(self, timeout_ms=600_000):
        """Run until the job ends (for scripts and tests)."""
        from PySide6.QtWidgets import QApplication

        deadline = time.perf_counter() + timeout_ms / 1000
        while self.job is not None and time.perf_counter() < deadline:
            QApplication.processEvents()
            self.job and self.job.wait(20)
        QApplication.processEvents()

    def closeEvent(self, event):
        if self.job is not None:
            self.job.stop()
            self.job.wait()
        super().closeEvent(event)


def install_microgpt_training(services, page):
    """File → Train microgpt… (the preset): shows `page`, the window's LazyPage of a MicroGPTPanel."""
    services.add_action(
        "File",
        "Train micro&gpt…",
        lambda: show_training(page),
        key="train microgpt",
        tip="Train microgpt on the bundled names or a names file of yours: the live loss curve and names it makes up",
    )


def show_training(page):
    """The window's microgpt panel (`page`, a LazyPage), made on first use, shown."""
    panel = page.get()
    panel.show()
    panel.raise_()
    return panel
