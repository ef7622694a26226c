"""The Training panel: TensorFlow Playground's controls, linked to the scalar graph.

Laid out as the Playground is -- DATA | NETWORK | OUTPUT under a bar of run
controls and training settings -- and, unlike it, every neuron opens the
micrograd-style scalar graph of one sample flowing through the network.

The panel is a thin shell: the `TrainingController` holds the config, the run
and its history; the widgets show them and turn gestures into controller
calls (`apply_config`, `play`, `set_weight`, ...). The panel's own state is
presentation only: which neuron and which sample the graph is about.

This module composes the parts and is the panel's public API:

    run_bar.py       RunBar (Play, Step, speed, presets, Open/Save), SettingsBar (loss, lr, ...)
    data_box.py      DataBox: the DATA column
    network_box.py   NetworkBox: the NETWORK column (NetworkView, weight editor, graph row)
    output_box.py    OutputBox: the OUTPUT column (metrics, MetricsPlot, DataPlot)
    graph_link.py    GraphLink: which neuron and sample the scalar graph is about; Follow live
    redraw.py        which part of the picture to repaint on which tick
    widgets.py       shared label styles, the status line

and under it controller.py (the run), worker.py (its thread, running core's
training loop), plots.py, network_view.py; workspace.py puts the panel in the
main window, tuning.py holds the process settings training needs.

Signals for the main window:

    openGraph(object root, str title)         a neuron's one-sample graph (a core Value,
                                              data and grads filled in) -- show it
    liveGraphUpdated(object root, str title)  the same graph rebuilt from newer weights
                                              while training ("Follow live")
    sessionSaved(str path), sessionOpened(str path)
"""

import os

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from app.training.controller import TrainingController
from app.training.data_box import DataBox, read_points_csv
from app.training.graph_link import GraphLink
from app.training.network_box import NetworkBox
from app.training.output_box import OutputBox
from app.training.redraw import RedrawScheduler
from app.training.run_bar import HealthBanner, RunBar, SettingsBar
from app.training.widgets import StatusLine, vline
from core.files import training_session
from core.training import network_edits
from core.training.presets import DEFAULT_PRESET, PRESETS, for_display


class _WindowCloseWatcher(QObject):
    """Stops the run when the window that holds the panel closes (a dock gets no closeEvent)."""

    def __init__(self, panel):
        super().__init__(panel)
        self.panel = panel

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Close:
            QTimer.singleShot(0, self, self._check)  # dropped if the panel is deleted meanwhile
        return False

    def _check(self):
        window = self.panel.window()
        if window is not self.panel and not window.isVisible():
            self.panel.shutdown()


class TrainingPanel(QWidget):
    """Train an MLP on 2-D data, watch it learn, and open any neuron's scalar graph."""

    openGraph = Signal(object, str)
    liveGraphUpdated = Signal(object, str)
    sessionSaved = Signal(str)  # path
    sessionOpened = Signal(str)

    def __init__(self, cfg=None, parent=None):
        super().__init__(parent)
        self.setObjectName("TrainingPanel")
        cfg = for_display(cfg or PRESETS[DEFAULT_PRESET])
        self.controller = TrainingController(cfg, self)
        self.redraws = RedrawScheduler()
        self._watcher = None
        self._build()
        self._connect()
        self._sync_widgets(cfg)
        self.controller.start_run(cfg)

    # =========================================================================
    # composition

    def _build(self):
        c = self.controller
        self.run_bar = RunBar(c)
        self.settings_bar = SettingsBar()
        self.data_box = DataBox()
        self.network_box = NetworkBox(c)
        self.output_box = OutputBox(c)
        # the three views the controller's news are drawn into
        self.network_view = self.network_box.network_view
        self.metrics_plot = self.output_box.metrics_plot
        self.data_plot = self.output_box.data_plot
        # presentation state only: which neuron and which sample the scalar graph is about
        self.graph = GraphLink(self.controller, self.network_box, self.data_plot, self)

        # the sample line ("sample: training point #12 (-0.056, 0.380), label +1") breaks rather than
        # widening the NETWORK column past the window (presenter 2x)
        self.network_box.sample_label.setWordWrap(True)
        # the step counter changes with every step: at a fixed size (room for "step 10,000,000")
        # a new number is a repaint, not a new layout of the whole panel 30 times a second
        step = self.run_bar.step_label
        step.ensurePolished()  # its style sheet's font, not the default
        step.setFixedSize(step.fontMetrics().horizontalAdvance("step 10,000,000") + 24, step.sizeHint().height())
        # tight margins: the panel fits 1280 x 720 (and 2x on 1920 x 1080) with no scroll bar
        self.run_bar.layout().setSpacing(6)
        self.run_bar.layout().setContentsMargins(8, 3, 8, 3)
        root = QVBoxLayout(self)
        root.setContentsMargins(6, 3, 6, 3)
        root.setSpacing(3)
        root.addWidget(self.run_bar)
        root.addWidget(self.settings_bar)
        self.health_banner = HealthBanner(c)  # dead ReLUs, an exploded or stalled loss
        root.addWidget(self.health_banner)
        columns = QHBoxLayout()
        columns.setSpacing(10)
        columns.addWidget(self.data_box, 0)
        columns.addWidget(vline())
        # the square plot gets its side first, each column at least what it needs (the network's rows
        # wrap in presenter 2x); room beyond that goes 1 : 2 to the diagram and the curves
        columns.addWidget(self.network_box, 1)
        columns.addWidget(vline())
        columns.addWidget(self.output_box, 2)
        # the diagram shrinks to the room there is (network_view.py); presenter 2x doubles this
        self.network_view.setMinimumSize(240, 200)
        root.addLayout(columns, 1)
        self.status_label = StatusLine()
        root.addWidget(self.status_label)

    def _connect(self):
        c = self.controller
        c.configChanged.connect(self._sync_widgets)
        c.runStarted.connect(self.redraws.clear)
        c.progressed.connect(lambda _steps: self.redraws.mark("curves"))
        c.dataChanged.connect(self._on_data)
        c.boundaryChanged.connect(lambda _boundary: self.redraws.mark("image", "heatmaps"))
        c.weightsChanged.connect(self._on_weights)
        c.statusChanged.connect(lambda status, message: self.status_label.show_status(status, message, self.steps))
        c.idleReached.connect(self._on_idle)
        c.ticked.connect(self._redraw)

        def edit(changes):  # a box's edited(dict)
            self._edit(**changes)

        r = self.run_bar
        r.play_button.clicked.connect(self.toggle_play)
        # only while the focus is inside the panel: Space means other things in the graph editor
        space = QShortcut(QKeySequence(Qt.Key_Space), self, context=Qt.WidgetWithChildrenShortcut)
        space.activated.connect(self.toggle_play)
        r.step_button.clicked.connect(self.step)
        r.reset_button.clicked.connect(self.reset)
        r.reinit_button.clicked.connect(self.reinitialise)
        r.preset_combo.activated.connect(lambda i: self.apply_preset(r.preset_combo.itemText(i)))
        r.open_button.clicked.connect(self.open_session_dialog)
        r.save_button.clicked.connect(self.save_session_dialog)
        self.settings_bar.edited.connect(edit)
        self.settings_bar.message.connect(self._message)

        d = self.data_box
        d.datasetChosen.connect(self.set_dataset)
        d.edited.connect(edit)
        d.regenerate_button.clicked.connect(self.regenerate)
        d.import_button.clicked.connect(self._import_dialog)

        n = self.network_box
        n.edited.connect(edit)
        n.message.connect(self._message)
        n.open_graph_button.clicked.connect(self.graph.open_selected)
        self.network_view.neuronClicked.connect(self.open_neuron_graph)
        self.network_view.neuronHovered.connect(self.show_hovered)
        g = self.graph
        g.openGraph.connect(self.openGraph)
        g.liveGraphUpdated.connect(self.liveGraphUpdated)
        g.message.connect(self._message)

        p = self.data_plot
        p.pointAdded.connect(self.add_point)
        p.removeRequested.connect(self.remove_point)
        p.samplePicked.connect(g.pick_sample)

    # =========================================================================
    # the public API (what the buttons do; tests and the main window call these too)

    @property
    def config(self):
        return self.controller.config

    @property
    def steps(self):
        return self.controller.steps

    @property
    def history(self):
        return self.controller.history

    def toggle_play(self):
        if self.controller.playing:
            self.pause()
        else:
            self.play()

    def play(self):
        return self.controller.play()

    def pause(self):
        self.controller.pause()

    def step(self):
        return self.controller.step_once()

    def reset(self):
        self.controller.reset()

    def reinitialise(self):
        self.controller.reinitialise()

    def set_speed(self, steps_per_second):
        """None (or 0) for as fast as possible."""
        self.run_bar.set_speed(steps_per_second)

    def set_live(self, on):
        """Redraw the boundary and the network while training (off: only the curves and the counter)."""
        self.controller.set_live(on)
        self.run_bar.live_check.setChecked(bool(on))

    def apply_preset(self, name):
        if name not in PRESETS:
            return
        self.controller.start_run(for_display(PRESETS[name]))

    def apply_config(self, cfg, reset=None):
        self.controller.apply_config(for_display(cfg), reset)

    def _edit(self, reset=None, **changes):
        """Build the next config from the current one; an invalid one is explained, not applied."""
        try:
            cfg = self.config.replace(**changes)
        except ValueError as e:
            self._message(str(e), error=True)
            self._sync_widgets(self.config)
            return False
        self.controller.apply_config(cfg, reset)
        return True

    # -- data ------------------------------------------------------------------

    def set_dataset(self, name):
        changes = network_edits.dataset_chosen(self.config, name)
        said = network_edits.lr_changed(self.config, changes)
        self.status_label.note = said  # a setting the learner did not touch changes: say which and why
        if self._edit(**changes, reset=True) and said:
            self._message(said)

    def regenerate(self):
        if self.config.points is not None:
            self._edit(points=None, labels=None, reset=True)
        else:
            self._edit(data_seed=self.config.data_seed + 1)

    def import_csv(self, path):
        """Load x1,x2,label points from a file; on any error nothing changes. Returns (ok, message)."""
        try:
            points, labels = read_points_csv(path)
        except ValueError as e:
            self.data_box.show_message(str(e), ok=False)
            return False, str(e)
        self._edit(points=tuple(points), labels=tuple(labels), reset=True)
        message = f"imported {len(points)} points from {os.path.basename(path)}"
        self.data_box.show_message(message)
        return True, message

    def add_point(self, x, y, label):
        self.controller.add_point(x, y, label)

    def remove_point(self, x, y):
        if not self.controller.remove_nearest_point(x, y):
            self.data_box.show_message("at least 2 points must stay", ok=False)

    # -- network and scalar graph --------------------------------------------------

    def open_neuron_graph(self, layer, neuron):
        """Emit openGraph with the one-sample graph up to that neuron; returns its root (None: not yet)."""
        return self.graph.open(layer, neuron)

    def show_hovered(self, key=None):
        """The data plot shows the hovered neuron's (or input feature's) map large, and the
        network's output again when the mouse leaves it (key None)."""
        values, *levels = self._hovered_map(key)
        caption = self.network_view.hover_caption(key) if key is not None and values is not None else ""
        self.data_plot.show_map(values, levels[0] if levels else None, caption)

    def _hovered_map(self, key):
        boundary = self.controller.boundary
        if key is None:
            return (None,)
        if key[0] == "feature":
            return (self.network_view.feature_map(key[1]),)
        _, layer, j = key
        if boundary is None or layer >= len(boundary.neurons) or j >= len(boundary.neurons[layer]):
            return (None,)
        output = layer == len(boundary.neurons) - 1
        return boundary.neurons[layer][j], (self.data_plot.score_levels if output else None)

    def set_weight(self, layer, neuron, index, value):
        """Edit one weight (index == nin: the bias); only while paused. Returns ok."""
        return self.network_box.set_weight(layer, neuron, index, value)

    # -- sessions ----------------------------------------------------------------

    def save_session(self, path):
        """Pause, then write the session once the worker's state is current (sessionSaved(path) says when)."""

        def write():
            try:
                session = self.controller.session({"app": "Backprop Studio", "title": self._title()})
                training_session.save(session, path)
            except (training_session.SessionError, OSError) as e:
                self._message(f"not saved: {e}", error=True)
                return
            self._message(f"saved {os.path.basename(path)} at step {self.steps}")
            self.sessionSaved.emit(path)

        self.controller.call_when_idle(write)

    def open_session(self, path):
        """Load a session file; a bad file is explained and the current run is kept. Returns ok."""
        try:
            session = training_session.load(path)
        except training_session.SessionError as e:
            self._message(f"not opened: {e}", error=True)
            return False
        self.controller.load_session(session)
        self._message(f"opened {os.path.basename(path)} at step {session.state['step']}")
        self.sessionOpened.emit(path)
        return True

    def _title(self):
        return f"{self.run_bar.preset_combo.currentText()}, step {self.steps}"

    def save_session_dialog(self):
        path, _ = QFileDialog.getSaveFileName(
            self, "Save training session", "training-session.json", "Training sessions (*.json)"
        )
        if path:
            self.save_session(path)

    def open_session_dialog(self):
        path, _ = QFileDialog.getOpenFileName(self, "Open training session", "", "Training sessions (*.json)")
        if path:
            self.open_session(path)

    def _import_dialog(self):
        path, _ = QFileDialog.getOpenFileName(self, "Import points", "", "CSV files (*.csv *.txt);;All files (*)")
        if path:
            self.import_csv(path)

    # =========================================================================
    # controller -> widgets

    def _sync_widgets(self, cfg):
        """Show cfg in every control, without the controls reacting."""
        for box in (self.run_bar, self.settings_bar, self.data_box, self.network_box):
            box.show_config(cfg)
        self.graph.config_changed(cfg)

    def _on_data(self, data):
        self.data_plot.set_data(data)
        source = "drawn or imported" if self.config.points is not None else self.config.dataset
        self.data_box.show_data(data, source)
        self.network_view.set_bounds(data["bounds"])
        self.graph.data_changed(data)

    def _on_weights(self, _weights):
        self.redraws.mark("weights")
        if self.controller.playing:
            self.graph.follow_live()

    def _redraw(self, everything=False):
        """Redraw what changed: everything when not playing, else the most overdue part that is due."""
        c = self.controller
        if c.playing and not everything and not c.live:
            return  # live plots off: only the step counter moves until the run pauses
        for part in self.redraws.take(everything or not c.playing):
            if part == "curves":
                self.metrics_plot.update_from(self.history)
            elif part == "image" and c.boundary is not None:
                self.data_plot.set_boundary(c.boundary, *self._hovered_map(self.network_view.hovered_neuron))
            elif part == "heatmaps" and c.boundary is not None:
                self.network_view.set_boundary(c.boundary)
            elif part == "weights" and c.weights is not None:
                self.network_view.set_weights(c.weights)

    def _on_idle(self, info):
        self._redraw(everything=True)
        if info["reason"] in ("edited", "stepped", "reconfigured"):
            self.graph.follow_live(force=True)

    def _message(self, text, error=False):
        self.status_label.show_message(text, error)

    # =========================================================================
    # lifetime

    def shutdown(self):
        """Stop training and join the worker thread; the main window calls this when it closes."""
        self.controller.shutdown()

    def _optional_lines(self):
        """What the panel may drop when it is short, first dropped first: the DATA column's
        how-to lines (the data plot's tool tip says the same), its question line, its summary."""
        hint = getattr(self.data_box, "hint", None)
        question = [w for w in self.data_box.findChildren(QLabel) if w.text().startswith("Which dataset")]
        summary = getattr(self.data_box, "data_summary", None)  # the status line says how many points too
        return [w for w in [hint] + question + [summary] if w is not None]

    def fit_to(self, width, height):
        """Drop optional lines when a panel `width` wide is too short for them at `height`
        (presenter 2x on 1920 x 1080); bring them back when there is room. The workspace
        calls this before it sizes the panel."""
        layout, spacing = self.layout(), self.data_box.layout().spacing()
        optional = self._optional_lines()
        for line in optional:
            if not line.isHidden() and layout.totalMinimumHeightForWidth(width) > height:
                line.hide()
                self._relayout()
        for line in reversed(optional):
            extra = line.sizeHint().height() + spacing
            if line.isHidden() and layout.totalMinimumHeightForWidth(width) + extra <= height:
                line.show()
                self._relayout()

    def _relayout(self):
        for layout in (self.data_box.layout(), self.layout()):
            layout.invalidate()
            layout.activate()

    def showEvent(self, event):
        super().showEvent(event)
        window = self.window()
        if window is not self and self._watcher is None:
            self._watcher = _WindowCloseWatcher(self)
            window.installEventFilter(self._watcher)

    def closeEvent(self, event):
        self.shutdown()
        super().closeEvent(event)
