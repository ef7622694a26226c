"""The main window's two workspaces: Graph (the canvas and its panels) and Training.

The Training panel is three columns of controls and plots; beside the editor,
inspector and debugger docks it would be squeezed to nothing, so it is not a
dock. It takes the canvas's place instead:

    Graph workspace     the graph canvas with its docks -- the default
    Training workspace  the Training panel across the window; the docks step aside
                        and come back as they were (QMainWindow.saveState)

The toolbar's Graph | Training buttons, View → Graph / Training Workspace and
Ctrl+1 / Ctrl+2 switch between them. The panel is built the first time it is needed (it loads
pyqtgraph and starts a worker thread: about a second), so a window that never
trains pays nothing.

From training to the graph:

* `openGraph(root, title)` -- a neuron clicked: the Graph workspace opens that
  one-sample graph (`window.open_value`), laid out, ready for the debugger,
  which follows the session's graph.
* `liveGraphUpdated(root, title)` -- "Follow live": if the canvas still shows
  that graph (the same nodes, ops, labels and wires), the new leaf values are
  written into the document in place and the session recompiles once: new data
  and grads, the layout untouched. Training is not an edit, so this bypasses
  the undo stack (ARCHITECTURE §7); undoing the open still goes back to the
  graph before it. If the network changed shape while the canvas follows it,
  the new graph is opened; any other graph on the canvas is left alone.

`shutdown()` stops the run and joins its thread; the window calls it on close.

The workspaces are a part of the window, not a panel (tests/app/test_main_window_fields.py,
WINDOW_PARTS): they take the window's central widget for their stack of pages, set the
window's docks aside and give them back, head its View menu and toolbar with the switch,
and grey the canvas's toolbar actions and status-bar numbers while the canvas is away.
Another page that takes the canvas's place -- the big-graph page -- is shown through the
same three moves, `put`, `set_docks_aside` and `give_docks_back` (its `PageHost`,
app/graph/scope_page.py), so it needs nothing of the window itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QDeadlineTimer, QEvent, QEventLoop, QObject, Qt, QThread, QTimer, Signal
from PySide6.QtGui import QActionGroup
from PySide6.QtWidgets import QApplication, QFrame, QLayout, QScrollArea, QStackedWidget, QStyle, QVBoxLayout, QWidget

from core.document.compile import trace

if TYPE_CHECKING:  # a hint only: the window makes its workspaces
    from PySide6.QtCore import QByteArray
    from PySide6.QtGui import QAction

    from app.main_window import MainWindow
    from app.training.panel import TrainingPanel

GRAPH, TRAINING = "graph", "training"
# toolbar actions that work on the canvas: greyed out while it is not shown
GRAPH_ACTIONS = ("run", "backward", "zero grads", "fit", "zoom in", "zoom out", "export png", "export svg")


def structure(doc):
    """What must match for one graph to take another's values in place: everything but values and positions."""
    nodes = tuple((nid, n.kind, n.op, n.param, n.label) for nid, n in doc.nodes.items())
    return nodes, tuple(doc.edges), doc.effective_output()


class PanelScroller(QScrollArea):
    """The panel at the size of the window, or at its minimum with scroll bars when the window is
    smaller (a small screen, presenter mode's large type) -- rather than forcing the window wider
    than the screen. Sized by hand: `widgetResizable` sizes a widget with word-wrapped labels by
    its height-for-width, i.e. its preferred height, and would always scroll."""

    def __init__(self, panel):
        super().__init__()
        self.setObjectName("training-workspace")
        self.setFrameShape(QFrame.NoFrame)
        panel.layout().setSizeConstraint(QLayout.SetMinimumSize)  # it grows by itself when it needs to
        self.setWidget(panel)
        panel.installEventFilter(self)

    def eventFilter(self, obj, event):
        if obj is self.widget() and event.type() == QEvent.LayoutRequest:
            QTimer.singleShot(0, self, self.fit)  # what it needs changed: a bar wrapped, fonts grew or shrank
        return False

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self.fit()

    def fit(self):
        """Size the panel to the window, then let what that resizes settle (a bar wraps, the
        square plot takes the height it got) and size it again, a few rounds at most, so a
        picture taken at once (--screenshot) shows the settled layout, not the first guess."""
        for _ in range(4):
            before = self.widget().size()
            self._fit_once()
            QApplication.sendPostedEvents(None, QEvent.LayoutRequest)
            if self.widget().size() == before:
                break

    def _fit_once(self):
        panel = self.widget()
        fit_to = getattr(panel, "fit_to", None)
        if fit_to is not None:
            fit_to(self.width(), self.height())
        layout = panel.layout()
        need = layout.totalMinimumSize()
        if layout.hasHeightForWidth():  # bars that wrap need more height when narrow
            need.setHeight(max(need.height(), layout.totalMinimumHeightForWidth(max(self.width(), need.width()))))
        bar = self.style().pixelMetric(QStyle.PM_ScrollBarExtent)
        width, height = self.width(), self.height()
        for _ in range(2):  # a bar in one direction takes room from the other
            wide, tall = width < need.width(), height < need.height()
            width = self.width() - (bar if tall else 0)
            height = self.height() - (bar if wide else 0)
        panel.resize(max(width, need.width()), max(height, need.height()))


class TrainingWorkspace(QObject):
    """The Graph | Training switch of a MainWindow, and the Training panel's links to the canvas."""

    workspaceChanged = Signal(str)  # GRAPH or TRAINING

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.current = GRAPH
        self._panel: TrainingPanel | None = None
        self.training_page: PanelScroller | None = None  # the scroll area holding the panel, built with it
        self._dock_state: QByteArray | None = None  # the Graph workspace's docks while the Training one is shown
        self._set_aside: list[tuple[str, QWidget | QAction]] = []  # what a page disabled or hid, to give back
        self._following: Any = None  # structure() of the graph the canvas shows for training
        self._build_stack()
        self._build_actions()

    # -- building ----------------------------------------------------------------------

    def _build_stack(self):
        window = self.window
        view = window.takeCentralWidget()  # setCentralWidget alone would delete the graph view
        self.graph_page = QWidget()
        self.graph_page.setObjectName("graph-workspace")
        layout = QVBoxLayout(self.graph_page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(view)
        self.stack = QStackedWidget()
        self.stack.setObjectName("workspaces")
        self.stack.addWidget(self.graph_page)
        window.setCentralWidget(self.stack)

    def _build_actions(self):
        window = self.window
        a = window.add_action
        graph = a(
            "View",
            "&Graph Workspace",
            lambda: self.show(GRAPH),
            "Ctrl+1",
            key="graph workspace",
            tip="The graph canvas with its editor, inspector and debugger (Ctrl+1)",
        )
        training = a(
            "View",
            "&Training Workspace",
            lambda: self.show(TRAINING),
            "Ctrl+2",
            key="training workspace",
            tip="Train a small network on 2-D data, watch it learn, open any neuron's graph (Ctrl+2)",
        )
        group = QActionGroup(self)
        view_menu = window.menu("View")
        top = view_menu.actions()[0] if view_menu.actions() else None
        for action, text in ((graph, "Graph"), (training, "Training")):
            action.setCheckable(True)
            action.setIconText(text)
            group.addAction(action)
            view_menu.removeAction(action)  # the workspaces head the View menu
            view_menu.insertAction(top, action)
        view_menu.insertSeparator(top)
        graph.setChecked(True)
        toolbar = window.toolbar
        first = toolbar.actions()[0] if toolbar.actions() else None
        toolbar.insertAction(first, graph)
        toolbar.insertAction(first, training)
        toolbar.insertSeparator(first)
        for action in (graph, training):
            toolbar.widgetForAction(action).setObjectName(f"workspace-{action.iconText().lower()}")

        file_menu = window.menu("File")
        before = window.actions.get("export png")
        for text, slot, key, tip in (
            (
                "Open &Training Session…",
                lambda: self.panel.open_session_dialog(),
                "open training session",
                "Open a saved training run: its data, network, weights and curves",
            ),
            (
                "Save T&raining Session…",
                lambda: self.panel.save_session_dialog(),
                "save training session",
                "Save the training run (config, seeds, weights, curves) as JSON",
            ),
        ):
            action = a("File", text, slot, key=key, tip=tip)
            if before is not None:
                file_menu.removeAction(action)
                file_menu.insertAction(before, action)
        if before is not None:
            file_menu.insertSeparator(before)

    # -- the panel -------------------------------------------------------------------------

    @property
    def panel(self):
        """The TrainingPanel, built on first use."""
        if self._panel is None:
            from app.look.ui_scale import apply_to_widgets
            from app.training.panel import TrainingPanel

            panel = TrainingPanel()
            panel.openGraph.connect(self.open_graph)
            panel.liveGraphUpdated.connect(self.refresh_graph)
            panel.sessionSaved.connect(lambda path: self.window.show_message(f"Saved the training session {path}"))
            panel.sessionOpened.connect(lambda path: self.window.show_message(f"Opened the training session {path}"))
            self.training_page = PanelScroller(panel)
            self.stack.addWidget(self.training_page)
            if self.window.theme.scale != 1.0:
                apply_to_widgets(panel, self.window.theme.scale)
            self._panel = panel
        return self._panel

    @property
    def built(self):
        return self._panel is not None

    # -- switching -------------------------------------------------------------------------

    def show(self, name):
        """Show the GRAPH or the TRAINING workspace."""
        if name not in (GRAPH, TRAINING):
            raise ValueError(f"no workspace {name!r}: 'graph' or 'training'")
        window = self.window
        self.window.actions[f"{name} workspace"].setChecked(True)
        if name == self.current:
            return
        if name == TRAINING:
            panel = self.panel
            self._dock_state = self.set_docks_aside()
            self.stack.setCurrentWidget(self.training_page)
            self.training_page.fit()
            panel.setFocus(Qt.OtherFocusReason)
        else:
            self.stack.setCurrentWidget(self.graph_page)
            if self._dock_state is not None:
                window.restoreState(self._dock_state)
                self._dock_state = None
            self._set_graph_chrome(True)
            window.view.setFocus(Qt.OtherFocusReason)
        self.current = name
        self.workspaceChanged.emit(name)

    # -- a page in the canvas's place (the big-graph page's PageHost: app/graph/scope_page.py) --

    def put(self, page: QWidget | None) -> None:
        """Show `page` (one of the stack's) in the canvas's place; None: the graph canvas."""
        self.stack.setCurrentWidget(self.graph_page if page is None else page)

    def set_docks_aside(self) -> QByteArray:
        """Hide the docked docks (floating ones stay) and the canvas's tools and numbers, for a
        page that takes the whole window; returns the docks' state, for `give_docks_back`."""
        window = self.window
        state = window.saveState()
        for dock in window.docks.values():
            if not dock.isHidden() and not dock.isFloating():
                dock.hide()
        self._set_graph_chrome(False)
        return state

    def give_docks_back(self, state: QByteArray) -> None:
        """The docks as `state` (from `set_docks_aside`) has them, the canvas's tools back."""
        self.window.restoreState(state)
        self._set_graph_chrome(True)

    def _set_graph_chrome(self, on):
        """The canvas's toolbar actions and find box (greyed) and its status-bar numbers (hidden):
        off in the Training workspace, back on return -- only what was set aside here."""
        window = self.window
        if not on:
            aside = [("enabled", window.actions[k]) for k in GRAPH_ACTIONS if k in window.actions]
            aside.append(("enabled", window.find_box))
            aside += [("visible", w) for w in (window.output_label, window.zoom_label, window.counts_label)]
            self._set_aside = [
                (how, thing)
                for how, thing in aside
                if (thing.isEnabled() if how == "enabled" else not thing.isHidden())
            ]
        for how, thing in self._set_aside:
            (thing.setEnabled if how == "enabled" else thing.setVisible)(on)
        if on:
            self._set_aside = []

    # -- training -> graph ---------------------------------------------------------------

    def open_graph(self, root, title):
        """Show a neuron's one-sample graph in the Graph workspace."""
        parameters = self.panel.graph.parameters if self.built else ()
        try:
            self._following = structure(trace(root, parameters)[0])
        except ValueError as e:  # a leaf is inf or nan: the run diverged
            self.window.show_message(f"Cannot show this graph: {e}")
            return False
        self.show(GRAPH)
        ok = self.window.open_value(root, parameters, text=f"Open training graph: {title}")
        if ok:
            self.window.show_message(
                f"{title}. One sample's forward pass, then backward: step through it "
                "with the debugger (F10); Ctrl+2 goes back to training.",
                15000,
            )
        return ok

    def refresh_graph(self, root, title):
        """The same graph from newer weights: new values in place if the canvas shows it (see above)."""
        window = self.window
        if window.layout_pending:
            return False  # the graph being laid out is the newer one; the next update finds it
        try:
            new, _values = trace(root, self.panel.graph.parameters)
        except ValueError:
            return False
        doc = window.session.doc
        fresh, shown = structure(new), structure(doc)
        if fresh == shown:
            for nid, node in new.nodes.items():
                if node.kind != "op" and doc.nodes[nid].value != node.value:
                    doc.set_field(nid, "value", node.value)
            window.session.flush()  # one compile and backward for all the new values
            self._following = fresh
            return True
        if shown == self._following:  # following this neuron, and the network changed shape
            self._following = fresh
            return window.open_value(root, self.panel.graph.parameters, text=f"Open training graph: {title}")
        return False

    # -- the command line ----------------------------------------------------------------------

    def start(self, preset=None, hidden_layers=None, steps=None, wait=False, timeout_s=600.0):
        """Pick a preset (its name or first words), give the network `hidden_layers` hidden layers
        as the + and − buttons would, then press Play; the run pauses after `steps` steps (the
        Steps setting). With `wait`, return once it has. Returns a problem to report, or ''."""
        from core.training.presets import PRESETS

        panel = self.panel
        if preset:
            names = matching_presets(preset, PRESETS)
            if not names:
                return f"no training preset {preset!r}; the presets are: " + "; ".join(PRESETS)
            panel.apply_preset(names[0])
        while hidden_layers and len(panel.config.hidden_sizes) != hidden_layers:
            before = len(panel.config.hidden_sizes)
            panel.network_box.change_layers(+1 if hidden_layers > before else -1)
            if len(panel.config.hidden_sizes) == before:
                return f"a network has 1 to {before} hidden layers, not {hidden_layers}"
        if steps:
            panel.apply_config(panel.config.replace(steps=steps))
            panel.play()
            if wait:
                deadline = QDeadlineTimer(int(timeout_s * 1000))
                c = panel.controller
                while not (c.idle and not c.playing and c.steps >= steps) and not deadline.hasExpired():
                    QApplication.processEvents(QEventLoop.AllEvents, 50)
                    QThread.msleep(5)
        return ""

    # -- lifetime ------------------------------------------------------------------------------

    def shutdown(self):
        """Stop training and join the worker thread (nothing to do if the panel was never built)."""
        if self._panel is not None:
            self._panel.shutdown()


def matching_presets(asked, names):
    """The preset names `asked` names: the start of the full name, or the start of any of
    its words ('moons' -> 'micrograd demo (moons, 16-16 ReLU)'; 'spiral 2' too)."""
    import re

    asked = asked.strip().lower()
    starts = [name for name in names if name.lower().startswith(asked)]
    if starts or not asked:
        return starts
    words = asked.split()

    def fits(name):
        theirs = re.findall(r"[\w₀-₉²-³]+", name.lower())
        return all(any(w.startswith(word) for w in theirs) for word in words)

    return [name for name in names if fits(name)]
