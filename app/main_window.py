"""The main window: editor dock on the left, the graph in the middle, inspector on the right.

`MainWindow` composes the panels around one `GraphSession` (app/undo.py), the
single source of truth for the current document and its compiled Values. The
panels never import each other; the window wires their signals.

Extension points for later panels (debugger, builder, training):

    window.session                     GraphSession: doc, compiled, push(cmd),
                                       recompiled / gradsChanged / currentChanged
    window.scene                       GraphScene: set_highlight, set_node_status,
                                       refresh_values, node_item, select_node
    window.view                        GraphView: center_on_node, fit, zoom
    window.undo_stack                  the QUndoStack (Edit → Undo/Redo)
    window.menu(name)                  a top-level menu, created before Help if new
                                       ('File', 'Edit', 'View', 'Graph', 'Debug', ...)
    window.add_dock(key, title, widget, area)   a dock, listed under View → Panels
    window.add_action(menu, text, slot, shortcut=None, toolbar=False)
    window.show_document(doc, text, groups=())  lay out and show a GraphDocument (undoable)
    window.open_value(root)            trace a Value graph and show it
    window.training                    TrainingWorkspace (app/training/workspace.py): show('graph' |
                                       'training'), panel (the TrainingPanel, built on first use)
    window.files                       FileActions (app/file_actions.py): path, open, save,
                                       recent files, examples, autosave and recovery, exports
    window.builder                     GraphBuilder (app/graph/builder.py): palette drops,
                                       quick add, clipboard, delete, edit, groups

`main(argv)` is the `backprop-studio` entry point:
    backprop-studio [FILE] [--screenshot OUT.png] [--size WxH] [--dark]
"""

import argparse
import os
import sys
import time

from PySide6.QtCore import QCoreApplication, QEvent, Qt, QThread, QTimer, Signal
from PySide6.QtGui import QAction, QFont, QKeySequence, QUndoStack
from PySide6.QtWidgets import (QApplication, QDockWidget, QLabel, QLineEdit, QMainWindow, QSizePolicy,
                               QToolBar, QWidget)

from app.expression_bar import TUTORIAL, ExpressionBar
from app.graph.items import node_size
from app.graph.scene import GraphScene
from app.graph.view import GraphView
from app.inspector import InspectorPanel
from app.theme import DARK, DEFAULT, FONT_FAMILY, LIGHT, format_number
from app.undo import GraphSession
from core.commands import ApplyLayout
from core.compile import trace
from core.expr import ExprError, parse
from core.layout import sugiyama

MENU_ORDER = ("File", "Edit", "View", "Graph", "Help")
ASYNC_LAYOUT_NODES = 400  # from this size on, the layout runs in a worker thread


class LayoutWorker(QThread):
    """Runs core.layout on plain data (ids, edges, sizes) and reports the result."""

    done = Signal(int, object)   # (token, (positions, routes) or the exception)

    def __init__(self, token, data, parent=None):
        super().__init__(parent)
        self.token, self.data = token, data

    def run(self):
        try:
            result = _run_layout(*self.data)
        except Exception as e:
            result = e
        self.done.emit(self.token, result)


def _run_layout(ids, edges, sizes, layer_gap, node_gap):
    layout = sugiyama(ids, edges, sizes=sizes, layer_gap=layer_gap, node_gap=node_gap)
    return layout.positions, layout.routes


class MainWindow(QMainWindow):
    layoutFinished = Signal()   # a worker's layout was applied

    def __init__(self, theme=None, load_example=True, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Backprop Studio")
        self.theme = theme or DEFAULT
        self.undo_stack = QUndoStack(self)
        self.session = GraphSession(self.undo_stack, self)
        self.scene = GraphScene(self.session, self.theme, self)
        self.view = GraphView(self.scene)
        self.setCentralWidget(self.view)
        self.setDockOptions(QMainWindow.AnimatedDocks | QMainWindow.AllowTabbedDocks)

        self.menus = {}
        self.actions = {}
        self.docks = {}
        for name in MENU_ORDER:
            self.menu(name)
        self._panels_menu = self.menus["View"].addMenu("Panels")
        self.menus["View"].addSeparator()
        self.toolbar = QToolBar("Main")
        self.toolbar.setObjectName("main-toolbar")
        self.toolbar.setMovable(False)
        self.toolbar.setToolButtonStyle(Qt.ToolButtonTextOnly)
        self.addToolBar(Qt.TopToolBarArea, self.toolbar)

        self.editor = ExpressionBar(self.session)
        self.add_dock("editor", "Editor", self.editor, Qt.LeftDockWidgetArea)
        self.inspector = InspectorPanel(self.session)
        self.add_dock("inspector", "Inspector", self.inspector, Qt.RightDockWidgetArea)

        self._build_actions()
        self._build_status_bar()
        self._install_debugger()
        self._install_builder()
        self._install_classroom()
        self._install_training()
        self._find_state = ("", -1)
        self._layout_token = 0
        self._pending_layout = None
        self._layout_workers = []

        self.editor.runRequested.connect(self.run_expression)
        self.inspector.navigate.connect(self.view.center_on_node)
        self.session.message.connect(self.show_message)
        self.session.recompiled.connect(self._update_status)
        self.session.gradsChanged.connect(self._update_status)
        self.scene.structureChanged.connect(self._update_status)
        self._initial_size()

        if load_example:
            self.editor.set_text(TUTORIAL)
            self.run_expression(TUTORIAL)
            self.undo_stack.clear()   # the example is the starting point, not an edit
            self.scene.select_node(self.session.doc.effective_output())
        self._fit_pending = True

    def _initial_size(self):
        """90% of the screen (at most 1800x1100), 1440x880 without one."""
        screen = QApplication.primaryScreen()
        area = screen.availableGeometry() if screen is not None else None
        if area is None or area.width() < 800 or QApplication.platformName() == "offscreen":
            self.resize(1440, 880)
        else:
            self.resize(min(1800, int(area.width() * 0.9)), min(1100, int(area.height() * 0.9)))

    # -- extension points ----------------------------------------------------------------

    def menu(self, name):
        """The top-level menu `name`; a new one goes before Help."""
        menu = self.menus.get(name)
        if menu is None:
            title = "&" + name
            help_menu = self.menus.get("Help")
            if help_menu is not None:
                menu = self.menuBar().addMenu(title)
                self.menuBar().insertMenu(help_menu.menuAction(), menu)
            else:
                menu = self.menuBar().addMenu(title)
            menu.setObjectName(f"menu-{name}")
            self.menus[name] = menu
        return menu

    def add_dock(self, key, title, widget, area=Qt.RightDockWidgetArea, tabify_with=None):
        """Put `widget` in a dock; its show/hide toggle goes under View → Panels."""
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock-{key}")
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetMovable | QDockWidget.DockWidgetClosable
                         | QDockWidget.DockWidgetFloatable)
        self.addDockWidget(area, dock)
        if tabify_with in self.docks:
            self.tabifyDockWidget(self.docks[tabify_with], dock)
        self.docks[key] = dock
        self._panels_menu.addAction(dock.toggleViewAction())
        dock.toggleViewAction().setToolTip(f"Show or hide the {title} panel")
        for button, tip in (("qt_dockwidget_closebutton", "Close this panel (View → Panels brings it back)"),
                            ("qt_dockwidget_floatbutton", "Float this panel in a window of its own, "
                                                          "or dock it again")):
            child = dock.findChild(QWidget, button)
            if child is not None:
                child.setToolTip(tip)
        return dock

    def add_action(self, menu, text, slot, shortcut=None, toolbar=False, key=None, tip=None):
        """A menu action (and optionally a toolbar button); returns the QAction."""
        action = QAction(text, self)
        if shortcut is not None:
            if isinstance(shortcut, (list, tuple)):
                action.setShortcuts([QKeySequence(s) for s in shortcut])
            else:
                action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setToolTip(tip)
            action.setStatusTip(tip)
        action.triggered.connect(lambda checked=False: slot())
        self.menu(menu).addAction(action)
        if toolbar:
            self.toolbar.addAction(action)
        self.actions[key or text.replace("&", "").replace("…", "").strip().lower()] = action
        return action

    # -- building ----------------------------------------------------------------------

    def _build_actions(self):
        a = self.add_action
        self._install_files()
        a("File", "Export &PNG…", lambda: self.export_dialog("png"), "Ctrl+Shift+P", key="export png",
          tip="Save the whole graph as an image")
        a("File", "Export &SVG…", lambda: self.export_dialog("svg"), "Ctrl+Shift+G", key="export svg",
          tip="Save the whole graph as a vector drawing")
        self.menus["File"].addSeparator()
        a("File", "&Quit", self.close, QKeySequence.Quit, key="quit")

        undo = self.undo_stack.createUndoAction(self, "&Undo")
        undo.setShortcut(QKeySequence.Undo)
        redo = self.undo_stack.createRedoAction(self, "&Redo")
        redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])   # Redo alone gives Ctrl+Y only
        self.menus["Edit"].addAction(undo)
        self.menus["Edit"].addAction(redo)
        self.actions["undo"], self.actions["redo"] = undo, redo
        self.menus["Edit"].addSeparator()
        a("Edit", "&Find Node…", self.focus_find, QKeySequence.Find, key="find",
          tip="Find a node by its label (Ctrl+F)")

        run = a("Graph", "&Run Expression", lambda: self.run_expression(), ["Ctrl+Return", "Ctrl+Enter"],
                toolbar=True, key="run", tip="Build the graph from the editor's text (Ctrl+Enter)")
        run.setShortcutContext(Qt.WindowShortcut)
        a("Graph", "&Backward", self.backward, "Ctrl+B", toolbar=True, key="backward",
          tip="Zero every grad, then backpropagate from the output (Ctrl+B)")
        a("Graph", "&Zero Grads", self.zero_grads, "Ctrl+Shift+B", toolbar=True, key="zero grads",
          tip="Set every grad to 0 (Ctrl+Shift+B)")
        auto = a("Graph", "Backward After Every &Change", self._toggle_auto_backward, key="auto backward")
        auto.setCheckable(True)
        auto.setChecked(self.session.auto_backward)
        self.menus["Graph"].addSeparator()
        a("Graph", "Re-&arrange", self.relayout, "Ctrl+L", key="arrange",
          tip="Lay the graph out again, left to right (undoable)")
        self.toolbar.addSeparator()

        a("View", "&Fit", self.view.fit, "F", toolbar=True, key="fit", tip="Show the whole graph (F)")
        a("View", "Zoom &In", self.view.zoom_in, [QKeySequence.ZoomIn, "Ctrl+="], toolbar=True,
          key="zoom in", tip="Zoom in (Ctrl+=)")
        a("View", "Zoom &Out", self.view.zoom_out, [QKeySequence.ZoomOut, "Ctrl+-"], toolbar=True,
          key="zoom out", tip="Zoom out (Ctrl+-)")
        a("View", "Actual &Size", self.view.reset_zoom, "Ctrl+0", key="actual size")
        self.menus["View"].addSeparator()
        dark = a("View", "&Dark Theme", self._toggle_dark, key="dark theme")
        dark.setCheckable(True)
        dark.setChecked(self.theme.dark)
        legend = a("View", "Show &Legend", self._toggle_legend, key="legend")
        legend.setCheckable(True)
        legend.setChecked(True)

        a("Help", "&Keyboard Shortcuts", self.show_shortcuts, key="shortcuts")
        a("Help", "&About Backprop Studio", self.show_about, key="about")

        self.toolbar.addSeparator()
        self.find_box = QLineEdit()
        self.find_box.setPlaceholderText("Find node by label…  (Ctrl+F)")
        self.find_box.setClearButtonEnabled(True)
        self.find_box.setMaximumWidth(260)
        self.find_box.returnPressed.connect(lambda: self.find_node(self.find_box.text()))
        self.toolbar.addWidget(self.find_box)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Preferred)
        self.toolbar.addWidget(spacer)
        self.toolbar.addAction(self.actions["export png"])
        self.toolbar.addAction(self.actions["export svg"])
        self.actions["export png"].setIconText("Export PNG")
        self.actions["export svg"].setIconText("Export SVG")

    def _build_status_bar(self):
        bar = self.statusBar()
        self.output_label = QLabel()
        self.zoom_label = QLabel()
        self.counts_label = QLabel()
        for label in (self.output_label, self.zoom_label, self.counts_label):
            label.setContentsMargins(8, 0, 8, 0)
            bar.addPermanentWidget(label)
        self.view.zoomChanged.connect(lambda z: self.zoom_label.setText(f"{z * 100:.0f}%"))

    def _update_status(self, *_):
        nodes, edges = self.scene.counts()
        self.counts_label.setText(f"{nodes:,} nodes · {edges:,} edges")
        out = self.session.output_value
        doc = self.session.doc
        out_id = doc.effective_output()
        if out is not None:
            name = doc.nodes[out_id].label or out_id
            self.output_label.setText(f"output {name} = {format_number(out.data)}")
        elif doc.nodes:
            missing = len(doc.missing_inputs())
            self.output_label.setText(f"no output: {missing} op(s) with missing inputs" if missing
                                      else "no single output")
        else:
            self.output_label.setText("")
        self.zoom_label.setText(f"{self.view.zoom() * 100:.0f}%")

    def _install_debugger(self):
        """The backprop debugger: a dock along the bottom, the Debug menu, its shortcuts."""
        from app.stepper_panel import StepperPanel
        self.debugger = StepperPanel(self.session, self.scene, self.view, self.theme)
        dock = self.add_dock("debugger", "Debugger — step through backprop", self.debugger,
                             Qt.BottomDockWidgetArea)
        menu = self.menu("Debug")
        groups = (("step", "step back", "run to end", "run to selected", "play"),
                  ("forward step", "forward back", "forward all"),
                  ("toggle breakpoint", "quiz"), ("reset", "stop"))
        for group in groups:
            for key in group:
                action = self.debugger.actions[key]
                action.setShortcutContext(Qt.WindowShortcut)
                menu.addAction(action)
                self.actions[f"debug {key}"] = action
            menu.addSeparator()
        menu.addAction(dock.toggleViewAction())
        self.debugger.controller.message.connect(self.show_message)
        self.debugger.stepped.connect(lambda _record: dock.isVisible() or dock.show())

    def closeEvent(self, event):
        training = self.training.current == "training"
        self.training.show("graph")   # the dock layout saved on close is the Graph workspace's
        if not self.files.close_event(event):
            if training:
                self.training.show("training")
            return   # the user chose Cancel: unsaved work stays open
        self.training.shutdown()      # stop the run and join its thread
        self.debugger.pause()
        self.lessons.shutdown()
        self._layout_token += 1       # any running layout is now stale
        self._pending_layout = None
        for worker in list(self._layout_workers):
            worker.wait()
        super().closeEvent(event)

    def wait_for_layout(self, timeout_s=60.0):
        """Block (running the event loop) until a pending layout is shown; for scripts."""
        deadline = time.perf_counter() + timeout_s
        while self.layout_pending and time.perf_counter() < deadline:
            QApplication.processEvents()
            for worker in list(self._layout_workers):
                worker.wait(20)
        QApplication.processEvents()
        return not self.layout_pending

    def showEvent(self, event):
        super().showEvent(event)
        if self._fit_pending:
            self._fit_pending = False
            self.resizeDocks([self.docks["editor"], self.docks["inspector"]], [300, 300], Qt.Horizontal)
            QApplication.sendPostedEvents()
            self.view.fit()

    # -- graph in, graph out ----------------------------------------------------------------

    def show_message(self, text, timeout=8000):
        self.statusBar().showMessage(text, timeout)

    def run_expression(self, text=None):
        """Parse the editor's text (or `text`) and show it; False (and a message) on error."""
        if text is None:
            text = self.editor.text()
        try:
            doc = parse(text, self.editor.run_values(text))
        except ExprError as e:
            self.editor.show_error(e.message, e.line, e.col, getattr(e, "end_col", None))
            self.show_message(f"Not run: line {e.line}, column {e.col}: {e.message}")
            return False
        except Exception as e:  # a bug in core must not take the user's work with it
            self.editor.show_error(f"Could not read the text: {e}")
            self.show_message(f"Not run: {e}")
            return False
        if not doc.nodes:
            self.editor.show_error("There is nothing to draw: write an expression such as x*y + y**2.")
            return False
        self.editor.clear_error()
        self.editor.set_source_note(None)
        return self.show_document(doc, "Run expression")

    def lay_out(self, doc):
        """({id: centre}, routes) for doc, from core.layout on the items' real sizes."""
        return _run_layout(*self._layout_input(doc))

    def _layout_input(self, doc):
        """Plain data for core.layout (sizes measured here, on the GUI thread)."""
        out = doc.effective_output()
        unit = self.theme.with_(scale=1.0)   # document positions are at scale 1 (see GraphScene.to_doc)
        sizes = {nid: node_size(unit, node, nid == out) for nid, node in doc.nodes.items()}
        return (list(doc.nodes), [(e.src, e.dst) for e in doc.edges], sizes,
                unit.length("layer_gap"), unit.length("node_gap"))

    @property
    def layout_pending(self):
        """True while a large graph is being arranged off the GUI thread."""
        return self._pending_layout is not None

    def _arrange(self, doc, then):
        """Lay doc out, then call then(positions, routes) -- at once for a small graph,
        from a worker thread's result for a large one (the window stays responsive).
        A newer request makes an older one stale: its result is dropped."""
        self._layout_token += 1
        self._pending_layout = None
        data = self._layout_input(doc)
        if len(doc.nodes) < ASYNC_LAYOUT_NODES:
            try:
                result = _run_layout(*data)
            except Exception as e:
                result = e
            then(result)
            return
        worker = LayoutWorker(self._layout_token, data, self)
        worker.done.connect(self._layout_done)
        worker.finished.connect(lambda w=worker: self._layout_workers.remove(w) or w.deleteLater())
        self._layout_workers.append(worker)
        self._pending_layout = (self._layout_token, then)
        self.view.viewport().setCursor(Qt.BusyCursor)
        self.show_message(f"Arranging {len(doc.nodes):,} nodes…", 0)
        worker.start()

    def _layout_done(self, token, result):
        pending = self._pending_layout
        if pending is None or pending[0] != token:
            return   # stale: the user asked for something newer meanwhile
        self._pending_layout = None
        self.view.viewport().unsetCursor()
        self.statusBar().clearMessage()
        pending[1](result)
        self.layoutFinished.emit()

    def show_document(self, doc, text="Replace graph", layout=True, undoable=True, groups=()):
        """Show doc (a fresh GraphDocument nobody else holds) as one undoable step,
        with its groups (core/groups.py). A large graph is laid out in a worker
        first (see `layout_pending`)."""
        if not layout:
            self._layout_token += 1
            self._pending_layout = None
            return self._show_laid_out(doc, text, None, undoable, groups)
        self._arrange(doc, lambda result: self._show_laid_out(doc, text, result, undoable, groups))
        return True

    def _show_laid_out(self, doc, text, result, undoable, groups=()):
        if isinstance(result, Exception):
            self.show_message(f"Could not arrange the graph ({result}); showing it unarranged.")
        elif result is not None:
            positions, routes = result
            for nid, pos in positions.items():
                doc.nodes[nid].pos = (float(pos[0]), float(pos[1]))  # not shown yet: no event
            self.scene.set_routes(routes, positions)
        ok, error = self.session.replace(doc, text, groups)
        if not ok:
            self.editor.show_error(f"Could not show the graph: {error}")
            return False
        if not undoable:
            self.undo_stack.clear()
        self.session.select(None)
        self.view.fit()
        self._update_status()
        return True

    def open_value(self, root, parameters=(), text="Show traced graph"):
        """Trace a Value graph (e.g. one sample through an MLP) and show it."""
        try:
            doc, _values = trace(root, parameters)
        except Exception as e:
            self.show_message(f"Could not trace the graph: {e}")
            return False
        self.editor.set_source_note(f"a traced graph of {len(doc.nodes):,} nodes")
        return self.show_document(doc, text)

    def open_file(self, path):
        """Open a saved graph (app/file_actions.py); on any fault the graph shown stays."""
        return self.files.open(path)

    def save_file(self, path):
        return self.files.save_to(path)

    def _install_files(self):
        """File menu: new/open/save/recent/examples/revert, code in and out, autosave."""
        from app.file_actions import FileActions
        self.files = FileActions(self)
        self.files.install()

    def _install_builder(self):
        """Drag-and-drop building: palette, quick add, wires, clipboard, undo history."""
        from PySide6.QtWidgets import QUndoView
        from app.graph.builder import GraphBuilder
        from app.graph.palette import PalettePanel
        self.builder = GraphBuilder(self.session, self.scene, self.view, self)
        self.palette = PalettePanel(self.theme, self.builder.options)
        self.palette.activated.connect(lambda spec: self.builder.add_entry(
            spec, self.view.mapToScene(self.view.viewport().rect().center())))
        self.add_dock("palette", "Palette", self.palette, Qt.LeftDockWidgetArea, tabify_with="editor")
        self.docks["palette"].raise_()   # building by hand first; the code editor is one tab away
        self.history = QUndoView(self.undo_stack)
        self.history.setEmptyLabel("<start>")
        self.add_dock("history", "History", self.history, Qt.RightDockWidgetArea, tabify_with="inspector")
        self.docks["inspector"].raise_()
        self.builder.message.connect(self.show_message)
        self.scene.hint.connect(lambda text: text and self.show_message(text, 4000))
        b = self.builder
        edit = (("Cu&t", b.cut, QKeySequence.Cut, "cut"), ("&Copy", b.copy, QKeySequence.Copy, "copy"),
                ("&Paste", b.paste, QKeySequence.Paste, "paste"),
                ("D&uplicate", b.duplicate, "Ctrl+D", "duplicate"),
                ("&Delete", b.delete_selection, [QKeySequence.Delete, "Backspace"], "delete"),
                ("Select &All", b.select_all, QKeySequence.SelectAll, "select all"))
        self.menus["Edit"].addSeparator()
        for text, slot, keys, key in edit:
            action = self.add_action("Edit", text, slot, keys, key=key)
            action.setShortcutContext(Qt.WidgetWithChildrenShortcut)   # typing elsewhere keeps its keys
            self.view.addAction(action)
        graph = self.menus["Graph"]
        graph.addSeparator()
        self.add_action("Graph", "&Add Part…", lambda: b.open_quick_add(self.view.cursor_scene_pos()),
                        key="quick add", tip="Search the palette and add a part (Tab on the canvas)")
        self.add_action("Graph", "Set as &Output", lambda: b.set_output(self.session.current_id),
                        key="set output", tip="The selected node's grad is 1 in the backward pass")
        self.add_action("Graph", "Collapse / E&xpand Group", self._toggle_group, "Ctrl+G",
                        key="toggle group", tip="Show the selected neuron or layer as one box, or open it")
        self.setAcceptDrops(True)

    def _install_training(self):
        """The Training workspace (app/training/workspace.py): the Training panel in the
        canvas's place, a Graph | Training switch in the toolbar and atop the View menu
        (Ctrl+1 / Ctrl+2), File → Open/Save Training Session; a neuron clicked there opens
        its graph here, and "Follow live" refreshes it in place. The panel itself is
        built on first use."""
        from app.training.workspace import TrainingWorkspace
        self.training = TrainingWorkspace(self)

    def _toggle_group(self):
        groups = self.session.groups
        gids = self.scene.selected_group_ids()
        if gids:
            return self.builder.set_collapsed(gids[0], False)
        for nid in self.scene.edit_selection():
            gid = groups.group_of(nid)
            if gid is not None:
                return self.builder.set_collapsed(gid, True)
        self.show_message("Select a node of a neuron or layer to collapse it.")
        return False

    def dragEnterEvent(self, event):
        if self.files.dropped_path(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event):
        path = self.files.dropped_path(event.mimeData())
        if path:
            event.acceptProposedAction()
            self.files.open(path)

    # -- graph actions ----------------------------------------------------------------------

    def backward(self):
        ok = self.session.backward()
        if ok:
            out_id = self.session.doc.effective_output()
            name = self.session.doc.nodes[out_id].label or out_id
            self.show_message(f"Backward from {name}: every grad zeroed, then {name}.grad = 1 "
                              "and the chain rule applied in reverse topological order.")
        return ok

    def zero_grads(self):
        self.session.zero_grads()
        self.show_message("Every grad set to 0.")

    def relayout(self):
        """Arrange the current graph again, as one undoable step."""
        doc = self.session.doc
        if not doc.nodes:
            return

        def apply(result):
            if isinstance(result, Exception):
                self.show_message(f"Could not arrange the graph: {result}")
                return
            positions, routes = result
            self.scene.set_routes(routes, positions)
            self.session.push(ApplyLayout(positions))
            self.view.fit()
        self._arrange(doc, apply)

    def _toggle_auto_backward(self):
        self.session.auto_backward = self.actions["auto backward"].isChecked()

    def _toggle_dark(self):
        self.set_theme(DARK if self.actions["dark theme"].isChecked() else LIGHT)

    def set_theme(self, palette):
        self.apply_theme(self.theme.with_(palette=palette))

    def apply_theme(self, theme):
        """One palette and ONE scale factor for every pane (app/theme.py): the canvas
        items, the widgets and menus, the plots; a panel with `set_theme(theme)`
        gets the theme too. The graph is framed again at its new size."""
        from app.theme import apply_to_application, apply_to_widgets
        size = self.size()
        self.theme = theme
        self.view.set_theme(theme)
        apply_to_application(theme)
        apply_to_widgets(self, theme.scale)
        for dock in self.docks.values():
            hook = getattr(dock.widget(), "set_theme", None)
            if callable(hook):
                hook(theme)
        if self.isVisible() and not (self.isFullScreen() or self.isMaximized()):
            QApplication.sendPostedEvents()
            self.resize(size.expandedTo(self.minimumSizeHint()))   # a new look keeps the window's size
        if "dark theme" in self.actions:
            self.actions["dark theme"].setChecked(theme.dark)
        self.view.fit()

    def _toggle_legend(self):
        self.view.legend.setVisible(self.actions["legend"].isChecked())

    # -- find ------------------------------------------------------------------------------

    def focus_find(self):
        self.find_box.setFocus(Qt.ShortcutFocusReason)
        self.find_box.selectAll()

    def find_node(self, text):
        """Select and centre the next node whose label matches text; its id or None."""
        matches = self.scene.find(text)
        if not matches:
            self.show_message(f"No node labelled '{text}'.")
            return None
        last_text, index = self._find_state
        index = (index + 1) % len(matches) if last_text == text else 0
        self._find_state = (text, index)
        nid = matches[index]
        self.scene.select_node(nid)
        self.view.center_on_node(nid)
        more = f" ({index + 1} of {len(matches)}; Enter for the next)" if len(matches) > 1 else ""
        self.show_message(f"Found {self.session.doc.nodes[nid].label or nid}{more}")
        return nid

    # -- export ------------------------------------------------------------------------------

    def export_png(self, path, scale=2.0):
        """The whole graph as a PNG (app/file_actions.py)."""
        return self.files.export_png(path, scale)

    def export_svg(self, path):
        return self.files.export_svg(path)

    def export_dialog(self, kind):
        return self.files.export_image_dialog(kind)

    # -- help ------------------------------------------------------------------------------

    def show_shortcuts(self):
        """Every shortcut, read from the window's actions (app/help_dialogs.py)."""
        from app.help_dialogs import show_shortcuts
        return show_shortcuts(self)

    def show_about(self):
        from app.help_dialogs import show_about
        return show_about(self)

    # -- the classroom: lessons, themes, presenter mode, welcome -----------------------------

    def _install_classroom(self):
        """Lessons dock and menu, View → Theme / Scale / Presenter Mode, Help → Welcome,
        the window icon, and tool tips on the shell's own actions."""
        from PySide6.QtGui import QActionGroup
        from PySide6.QtWidgets import QComboBox, QMenu
        from app.desktop_entry import app_icon
        from app.lessons.panel import LessonsPanel
        from app.presenter import KEEP_PROPERTY, Appearance
        from app.theme import PALETTE_TITLES, SCALES
        self.setWindowIcon(app_icon())
        self.appearance = Appearance(self)
        self.lessons = LessonsPanel(self)
        area_dock = "editor" if "editor" in self.docks else None
        dock = self.add_dock("lessons", "Lessons", self.lessons, Qt.LeftDockWidgetArea, tabify_with=area_dock)
        dock.toggleViewAction().setText("&Lessons")
        if area_dock:   # the palette in front: a new user builds by dragging, code is one tab away
            self.docks["palette" if "palette" in self.docks else area_dock].raise_()
        a = self.add_action
        help_menu = self.menus["Help"]
        lessons_menu = QMenu("&Lessons", help_menu)   # Help → Lessons: the guided track
        lessons_menu.setToolTipsVisible(True)
        for text, slot, keys, key, tip in (
                ("&Open Lessons Panel", self.show_lessons, "Ctrl+Shift+L", "lessons panel",
                 "Show the guided lessons (Ctrl+Shift+L)"),
                ("&Next Step", self.lessons.next, ["PgDown", "Alt+Right"], "lesson next",
                 "Run the lesson's next step (Page Down, Alt+Right; a presenter's clicker works)"),
                ("&Previous Step", self.lessons.back, ["PgUp", "Alt+Left"], "lesson back",
                 "Back to the lesson's step before (Page Up, Alt+Left)")):
            action = a("Help", text, slot, keys, key=key, tip=tip)
            action.setShortcutContext(Qt.WindowShortcut)
            help_menu.removeAction(action)
            lessons_menu.addAction(action)
        self.actions["lesson next"].setIconText("Next ▶")
        self.actions["lesson back"].setIconText("◀ Back")
        self.lessons.busyChanged.connect(lambda busy: self._lesson_controls())
        self.lessons.stepShown.connect(lambda _i: self._lesson_controls())
        self.lessons.stepShown.connect(lambda _i: self._presenter_canvas())
        self._lesson_controls()
        debugger = getattr(self, "debugger", None)
        quiz = debugger.actions.get("quiz") if debugger is not None else None
        if quiz is not None:
            quiz.toggled.connect(self.lessons.show_quiz_state)

        view = self.menus["View"]
        dark = self.actions.get("dark theme")
        if dark is not None:      # replaced by View → Theme
            view.removeAction(dark)
        theme_menu = view.addMenu("&Theme")
        theme_menu.setToolTipsVisible(True)
        group = QActionGroup(self)
        for name, title in PALETTE_TITLES.items():
            action = QAction(title, self)
            action.setCheckable(True)
            action.setChecked(name == self.theme.palette.name)
            action.setToolTip({"light": "Dark text on light grey: the everyday look",
                               "dark": "Light text on dark grey, for a dim room",
                               "high-contrast": "Black on white with strong colours: for projectors"}[name])
            action.triggered.connect(lambda checked=False, n=name: self.appearance.set_palette(n))
            group.addAction(action)
            theme_menu.addAction(action)
            self.actions[f"theme {name}"] = action
        scale_menu = view.addMenu("&Scale")
        scale_menu.setToolTipsVisible(True)
        scales = QActionGroup(self)
        for factor in SCALES:
            action = QAction(f"{factor:g}×", self)
            action.setCheckable(True)
            action.setChecked(factor == self.theme.scale)
            action.setToolTip(f"Draw every font, node and line {factor:g} times as large")
            action.triggered.connect(lambda checked=False, f=factor: self.appearance.set_scale(f))
            scales.addAction(action)
            scale_menu.addAction(action)
            self.actions[f"scale {factor:g}"] = action
        scale_menu.addSeparator()
        a("View", "&Larger", lambda: self.appearance.step_scale(+1), "Ctrl+Shift+=", key="larger",
          tip="Everything one step larger (Ctrl+Shift+=)")
        a("View", "S&maller", lambda: self.appearance.step_scale(-1), "Ctrl+Shift+-", key="smaller",
          tip="Everything one step smaller (Ctrl+Shift+-)")
        for key in ("larger", "smaller"):
            view.removeAction(self.actions[key])
            scale_menu.addAction(self.actions[key])
        presenter = a("View", "&Presenter Mode", self.appearance.toggle_presenter, "F11", key="presenter",
                      tip="Full screen, large and high-contrast, without extras (F11; Esc leaves)")
        presenter.setCheckable(True)
        presenter.setIconText("Presenter")
        leave = QAction("Leave Presenter Mode", self)
        leave.setShortcut(QKeySequence("Esc"))
        leave.setShortcutContext(Qt.WindowShortcut)
        leave.setEnabled(False)
        leave.triggered.connect(lambda: self.appearance.set_presenter(False))
        self.addAction(leave)
        self.actions["leave presenter"] = leave
        leave.setToolTip("Back to the everyday window (Esc)")
        self.appearance.presenterChanged.connect(self._presenter_changed)
        self.appearance.changed.connect(self._appearance_changed)

        a("Help", "&Welcome…", self.show_welcome, key="welcome",
          tip="Lessons, examples and recent files to start from")
        help_menu.removeAction(self.actions["welcome"])
        first = help_menu.actions()[0] if help_menu.actions() else None
        help_menu.insertAction(first, self.actions["welcome"])
        help_menu.insertMenu(first, lessons_menu)
        help_menu.insertSeparator(first)

        # the toolbar: lesson moves, presenter mode and its scale at the right end
        self.toolbar.addSeparator()
        self.toolbar.addAction(self.actions["lesson back"])
        self.toolbar.addAction(self.actions["lesson next"])
        self.toolbar.addAction(presenter)
        self.scale_box = QComboBox()
        self.scale_box.setObjectName("scale-box")
        self.scale_box.setToolTip("How large everything is drawn: 1× to 3× (View → Scale)")
        for factor in SCALES:
            self.scale_box.addItem(f"{factor:g}×", factor)
        self.scale_box.activated.connect(lambda i: self.appearance.set_scale(self.scale_box.itemData(i)))
        self.actions["presenter scale"] = self.toolbar.addWidget(self.scale_box)
        self.output_label.setProperty(KEEP_PROPERTY, True)
        self._appearance_changed()

        tips = {"quit": "Close the window (unsaved work is asked about first)",
                "undo": "Undo the last edit (Ctrl+Z)", "redo": "Redo the edit just undone (Ctrl+Shift+Z)",
                "actual size": "Zoom to 100% (Ctrl+0)",
                "auto backward": "Run backward after every edit, so the grads are always current",
                "legend": "Show what the grad colours and marks mean",
                "shortcuts": "Every keyboard shortcut, read from the menus",
                "about": "Version and what this program is"}
        for key, tip in tips.items():
            action = self.actions.get(key)
            if action is not None and not _has_tip(action):
                action.setToolTip(tip)
                action.setStatusTip(tip)
        for key, dock_widget in self.docks.items():
            toggle = dock_widget.toggleViewAction()
            if not _has_tip(toggle):
                toggle.setToolTip(f"Show or hide the {dock_widget.windowTitle()} panel")
        for menu in self.menus.values():
            menu.setToolTipsVisible(True)
        if not self.find_box.toolTip():
            self.find_box.setToolTip("Type a node's label and press Enter; Enter again finds the next (Ctrl+F)")

    def show_lessons(self, lesson_id=None, step=0):
        """Show the Lessons dock; with an id, open that lesson at `step` (0-based)."""
        dock = self.docks["lessons"]
        dock.show()
        dock.raise_()
        if lesson_id is not None:
            return self.lessons.open_lesson(lesson_id, step)
        if self.lessons.runner is None and self.lessons.lessons:
            return self.lessons.open_lesson(self.lessons.lessons[0].id)
        return True

    open_lesson = show_lessons

    def show_welcome(self):
        """The welcome page (Help → Welcome; also at start unless turned off)."""
        from app.welcome import WelcomeDialog
        dialog = getattr(self, "_welcome", None)
        if dialog is None:
            dialog = WelcomeDialog(self, self.lessons.lessons)
            dialog.setAttribute(Qt.WA_DeleteOnClose)
            dialog.finished.connect(lambda *_: setattr(self, "_welcome", None))
            dialog.lessonChosen.connect(self.show_lessons)
            dialog.fileChosen.connect(self.open_file)
            self._welcome = dialog
        dialog.show()
        dialog.raise_()
        return dialog

    def presenter_keeps_dock(self, key):
        """Which panels stay in presenter mode: the lessons, and the debugger or the
        training panel while they are in use; the others come back on leaving it."""
        if key == "lessons":
            return True
        widget = self.docks[key].widget()
        if key == "debugger":
            quiz = getattr(widget, "actions", {}).get("quiz")
            return getattr(widget, "phase", "idle") != "idle" or bool(quiz and quiz.isChecked())
        return bool(widget.property("presenter_keep"))

    def presenter_layout(self):
        """Presenter mode's panels: the canvas across the whole width (a graph reads left
        to right), the lesson under it; panels not in use give up their room. Leaving
        presenter mode restores the layout as it was (QMainWindow.saveState)."""
        for key, dock in self.docks.items():
            if not dock.isHidden() and not dock.isFloating() and not self.presenter_keeps_dock(key):
                dock.hide()
        lessons = self.docks["lessons"]
        if not lessons.isHidden():
            self.addDockWidget(Qt.BottomDockWidgetArea, lessons)
            lessons.raise_()

    def _size_presenter_docks(self):
        lessons = self.docks["lessons"]
        if self.appearance.presenting and not lessons.isHidden():
            self.resizeDocks([lessons], [max(300, int(self.height() * 0.45))], Qt.Vertical)
        self.view.fit()
        self.lessons.follow()

    def _presenter_canvas(self):
        """In presenter mode a lesson step without a graph (a big network) gets the
        whole window: the canvas would only show an unrelated graph."""
        snapshot = self.lessons.snapshot
        wanted = not (self.appearance.presenting and snapshot is not None and not snapshot.show_graph)
        if self.view.isHidden() == wanted:
            self.view.setVisible(wanted)
            self.output_label.setVisible(wanted)   # the hidden graph's output would mislead
            if wanted:
                QTimer.singleShot(0, self._size_presenter_docks)

    def _lesson_controls(self):
        panel = self.lessons
        self.actions["lesson next"].setEnabled(panel.next_button.isEnabled())
        self.actions["lesson back"].setEnabled(panel.back_button.isEnabled())

    def _presenter_changed(self, on):
        self.actions["presenter"].setChecked(on)
        self.actions["leave presenter"].setEnabled(on)
        lessons = self.docks["lessons"]
        if on and not lessons.isHidden():
            lessons.raise_()
            self._presenter_canvas()
            QTimer.singleShot(0, self._size_presenter_docks)   # once the window has its new size
            QTimer.singleShot(450, self._size_presenter_docks)
        if on:
            self.show_message("Presenter mode: F11 or Esc to leave; View → Scale or the box "
                              "in the toolbar for the size.", 6000)
        else:
            self.view.show()
            self.output_label.show()
            QTimer.singleShot(0, self.view.fit)   # the canvas has its old size back

    def _appearance_changed(self):
        look = self.appearance
        name, factor = look.current_palette, look.current_scale
        for key, action in self.actions.items():
            if key.startswith("theme "):
                action.setChecked(key == f"theme {name}")
            elif key.startswith("scale "):
                action.setChecked(abs(float(key[6:]) - factor) < 1e-9)
        index = self.scale_box.findData(factor)
        if index < 0:
            self.scale_box.addItem(f"{factor:g}×", factor)
            index = self.scale_box.count() - 1
        self.scale_box.setCurrentIndex(index)


# -----------------------------------------------------------------------------
# Entry point

def _has_tip(action):
    """Has the action a tool tip of its own? (Qt falls back to the text.)"""
    tip = action.toolTip().strip()
    plain = action.text().replace("&&", "\0").replace("&", "").replace("\0", "&").replace("…", "")
    return bool(tip) and tip.rstrip(".").strip() != plain.rstrip(".").strip()


def _parse_args(argv):
    parser = argparse.ArgumentParser(prog="backprop-studio", description="Backprop Studio")
    parser.add_argument("file", nargs="?", help="a saved graph (.json) to open")
    parser.add_argument("--screenshot", metavar="OUT.png",
                        help="render the window to a PNG offscreen and exit")
    parser.add_argument("--size", default="1440x880", metavar="WxH",
                        help="window size for --screenshot (default 1440x880)")
    parser.add_argument("--dark", action="store_true", help="start with the dark theme")
    parser.add_argument("--theme", choices=("light", "dark", "high-contrast"),
                        help="start with this theme (default: the last one chosen)")
    parser.add_argument("--presenter", metavar="SCALE", type=float, nargs="?", const=2.0,
                        help="start in presenter mode, everything SCALE times as large (1-3, default 2)")
    parser.add_argument("--lesson", metavar="ID", help="open this lesson (e.g. chain-rule)")
    parser.add_argument("--step", metavar="K", type=int, default=1,
                        help="with --lesson: start at step K (1-based)")
    parser.add_argument("--no-welcome", action="store_true", help="do not show the welcome page")
    parser.add_argument("--debug-steps", metavar="N|end",
                        help="open the debugger and run N backward steps (0: just reset; end: all)")
    parser.add_argument("--forward-steps", metavar="N", type=int,
                        help="open the debugger and compute N nodes of the forward pass")
    parser.add_argument("--workspace", choices=("graph", "training"), default="graph",
                        help="start in this workspace (default: graph)")
    parser.add_argument("--train-preset", metavar="NAME",
                        help="a training preset, by its name or first words (e.g. spiral)")
    parser.add_argument("--train-layers", metavar="N", type=int,
                        help="that many hidden layers, added or removed as the + and - buttons do")
    parser.add_argument("--train-steps", metavar="N", type=int,
                        help="press Play in the Training panel; it pauses after N steps")
    args = parser.parse_args(argv)
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        parser.error(f"--size must look like 1440x880, not {args.size!r}")
    args.size = (w, h)
    return args


def _application():
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setApplicationName("Backprop Studio")
        app.setOrganizationName("Backprop Studio")
        app.setStyle("Fusion")
        font = QFont(FONT_FAMILY)
        font.setPixelSize(13)
        app.setFont(font)
        app.setDesktopFileName("backprop-studio")   # matches the menu entry (app/desktop_entry.py)
        from app.desktop_entry import app_icon
        app.setWindowIcon(app_icon())
    return app


def main(argv=None):
    # Before numpy and pyqtgraph load: the GUI thread gets the interpreter back within
    # 1 ms of a training worker, and OpenBLAS runs one thread (its idle threads spun on
    # the GUI's core and halved training speed). See app/training/tuning.py.
    from app.training.tuning import tune_process
    tune_process()
    args = _parse_args(sys.argv[1:] if argv is None else argv)
    if args.screenshot and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = _application()
    started = time.perf_counter()
    window = MainWindow(theme=DEFAULT.with_(palette=DARK) if args.dark else DEFAULT)
    if args.file:
        window.open_file(args.file)
    window.wait_for_layout()
    _start_classroom(window, args)
    if args.forward_steps is not None:
        window.debugger.forward_reset()
        for _ in range(args.forward_steps):
            window.debugger.forward_step()
    if args.debug_steps is not None:
        window.debugger.reset()
        if args.debug_steps == "end":
            window.debugger.run_to_end()
        else:
            for _ in range(int(args.debug_steps)):
                window.debugger.step()
    if args.screenshot:
        window.files.prompt_on_close = False   # a picture, not a session: nothing to ask
        _start_training(window, args, wait=True)
        window.resize(*args.size)
        window.show()
        window.wait_for_layout()
        app.processEvents()
        window.view.fit()
        window.lessons.follow()
        app.processEvents()
        ok = window.grab().save(args.screenshot, "PNG")
        window.close()
        window.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)
        print(f"{'saved' if ok else 'could not save'} {args.screenshot} "
              f"({time.perf_counter() - started:.2f} s)")
        return 0 if ok else 1
    from app import errors
    errors.install_excepthook()   # a bug we did not foresee is reported, the work stays open
    window.files.restore_ui_state()
    _start_training(window, args)   # after the saved layout: the Training workspace hides the docks
    if args.presenter is not None:
        window.appearance.set_presenter(True, args.presenter)
    else:
        window.show()
    recovered = window.files.offer_recovery()   # work a crash left behind
    from app.welcome import should_show_at_start
    asked = args.no_welcome or args.lesson or args.file or args.workspace == "training"
    if not (asked or recovered) and should_show_at_start():
        window.show_welcome()
    return app.exec()


def _start_training(window, args, wait=False):
    """--workspace, --train-preset, --train-layers, --train-steps; with `wait`, return once
    the run has paused after its steps (for a screenshot)."""
    if args.workspace == "training":
        window.training.show("training")
    if args.train_preset or args.train_layers or args.train_steps is not None:
        problem = window.training.start(args.train_preset, args.train_layers, args.train_steps, wait)
        if problem:
            print(problem, file=sys.stderr)
            window.show_message(problem)


def _start_classroom(window, args):
    """--theme/--dark, the last appearance from QSettings, --lesson/--step; and for a
    --screenshot with --presenter, the presenter look without going full screen."""
    look = window.appearance
    look.restore()
    if args.theme or args.dark:
        look.palette_name = args.theme or "dark"
    look.apply()
    if args.presenter is not None and args.screenshot:   # the look, at the picture's size
        look.set_presenter(True, args.presenter, full_screen=False)
    if args.lesson:
        try:
            window.show_lessons(args.lesson, max(0, args.step - 1))
        except KeyError as e:
            window.show_message(str(e).strip("'\""))
        window.lessons.wait_idle()
        window.wait_for_layout()


if __name__ == "__main__":
    sys.exit(main())
