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
    window.show_document(doc, text)    lay out and show a GraphDocument (undoable)
    window.open_value(root)            trace a Value graph and show it

`main(argv)` is the `backprop-studio` entry point:
    backprop-studio [FILE] [--screenshot OUT.png] [--size WxH] [--dark]
"""

import argparse
import os
import sys
import time

from PySide6.QtCore import QCoreApplication, QEvent, QRectF, QSize, Qt, QThread, Signal
from PySide6.QtGui import QAction, QFont, QImage, QKeySequence, QPainter, QUndoStack
from PySide6.QtWidgets import (QApplication, QDockWidget, QFileDialog, QLabel, QLineEdit,
                               QMainWindow, QMessageBox, QSizePolicy, QToolBar, QWidget)

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
EXPORT_MAX_SIDE = 12000          # pixels; a 5,000-node graph is exported scaled down to fit
EXPORT_MAX_PIXELS = 40_000_000   # and to at most this many pixels (160 MB of RGBA)


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
        a("File", "&Open…", self.open_file_dialog, QKeySequence.Open, key="open",
          tip="Open a saved graph (.json)")
        a("File", "Save &As…", self.save_file_dialog, QKeySequence.SaveAs, key="save as")
        self.menus["File"].addSeparator()
        a("File", "Export &PNG…", lambda: self.export_dialog("png"), "Ctrl+Shift+P", key="export png",
          tip="Save the whole graph as an image")
        a("File", "Export &SVG…", lambda: self.export_dialog("svg"), "Ctrl+Shift+G", key="export svg",
          tip="Save the whole graph as a vector drawing")
        self.menus["File"].addSeparator()
        a("File", "&Quit", self.close, QKeySequence.Quit, key="quit")

        undo = self.undo_stack.createUndoAction(self, "&Undo")
        undo.setShortcut(QKeySequence.Undo)
        redo = self.undo_stack.createRedoAction(self, "&Redo")
        redo.setShortcuts([QKeySequence.Redo, QKeySequence("Ctrl+Y")])
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

    def closeEvent(self, event):
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
        sizes = {nid: node_size(self.theme, node, nid == out) for nid, node in doc.nodes.items()}
        return (list(doc.nodes), [(e.src, e.dst) for e in doc.edges], sizes,
                self.theme.length("layer_gap"), self.theme.length("node_gap"))

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

    def show_document(self, doc, text="Replace graph", layout=True, undoable=True):
        """Show doc (a fresh GraphDocument nobody else holds) as one undoable step.
        A large graph is laid out in a worker first (see `layout_pending`)."""
        if not layout:
            self._layout_token += 1
            self._pending_layout = None
            return self._show_laid_out(doc, text, None, undoable)
        self._arrange(doc, lambda result: self._show_laid_out(doc, text, result, undoable))
        return True

    def _show_laid_out(self, doc, text, result, undoable):
        if isinstance(result, Exception):
            self.show_message(f"Could not arrange the graph ({result}); showing it unarranged.")
        elif result is not None:
            positions, routes = result
            for nid, pos in positions.items():
                doc.nodes[nid].pos = (float(pos[0]), float(pos[1]))  # not shown yet: no event
            self.scene.set_routes(routes, positions)
        ok, error = self.session.replace(doc, text)
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
        """Load a saved graph; on any error say so and keep the current graph."""
        from core.fileformat import load
        try:
            doc, meta = load(path)
        except Exception as e:
            message = f"Could not open {os.path.basename(str(path))}: {e}"
            self.editor.show_error(message + "\nThe graph shown is unchanged.")
            self.show_message(message)
            return False
        positions = {node.pos for node in doc.nodes.values()}
        needs_layout = len(doc.nodes) > 1 and len(positions) < max(2, len(doc.nodes) // 2)
        ok = self.show_document(doc, f"Open {os.path.basename(str(path))}", layout=needs_layout,
                                undoable=False)
        if ok:
            self.editor.set_source_note(os.path.basename(str(path)))
            title = meta.get("title") if isinstance(meta, dict) else None
            self.setWindowTitle(f"{title or os.path.basename(str(path))} — Backprop Studio")
            self.show_message(f"Opened {path}")
        return ok

    def open_file_dialog(self):
        path, _ = QFileDialog.getOpenFileName(self, "Open graph", "", "Graphs (*.json);;All files (*)")
        if path:
            self.open_file(path)

    def save_file(self, path):
        from core.fileformat import save
        try:
            save(self.session.doc, path, {"title": os.path.splitext(os.path.basename(str(path)))[0]})
        except Exception as e:
            self.show_message(f"Could not save {path}: {e}")
            return False
        self.undo_stack.setClean()
        self.show_message(f"Saved {path}")
        return True

    def save_file_dialog(self):
        path, _ = QFileDialog.getSaveFileName(self, "Save graph", "graph.json", "Graphs (*.json)")
        if path:
            self.save_file(path)

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
        self.theme = self.theme.with_(palette=palette)
        self.view.set_theme(self.theme)

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

    def _export_source(self):
        rect = self.scene.items_rect()
        return rect.adjusted(-30, -30, 30, 30)

    def _render_for_export(self, painter, target, source, vector=False):
        """scene.render without the selection halo (a figure, not a screen), with a
        busy cursor; for SVG, items paint themselves instead of their pixmap caches."""
        selected = self.scene.selected_ids()
        items = list(self.scene.node_items().values()) if vector else []
        modes = [item.cacheMode() for item in items]
        QApplication.setOverrideCursor(Qt.WaitCursor)
        self.scene.blockSignals(True)   # a passing deselect is not a change of the current node
        try:
            self.scene.clearSelection()
            for item in items:
                item.setCacheMode(item.CacheMode.NoCache)
            self.scene.render(painter, target, source)
        finally:
            for item, mode in zip(items, modes):
                item.setCacheMode(mode)
            for nid in selected:
                self.scene.node_item(nid).setSelected(True)
            self.scene.blockSignals(False)
            QApplication.restoreOverrideCursor()

    def export_png(self, path, scale=2.0):
        """The whole graph as a PNG (at `scale`, capped to EXPORT_MAX_SIDE pixels)."""
        source = self._export_source()
        if source.isEmpty():
            self.show_message("Nothing to export: the graph is empty.")
            return False
        scale = min(scale, EXPORT_MAX_SIDE / max(source.width(), source.height()),
                    (EXPORT_MAX_PIXELS / (source.width() * source.height())) ** 0.5)
        size = QSize(max(1, round(source.width() * scale)), max(1, round(source.height() * scale)))
        image = QImage(size, QImage.Format_ARGB32_Premultiplied)
        image.fill(self.theme.color("background"))
        painter = QPainter(image)
        painter.setRenderHints(QPainter.Antialiasing | QPainter.TextAntialiasing)
        try:
            self._render_for_export(painter, QRectF(0, 0, size.width(), size.height()), source)
        finally:
            painter.end()
        ok = image.save(str(path), "PNG")
        self.show_message(f"Exported {path}" if ok else f"Could not write {path}")
        return ok

    def export_svg(self, path):
        """The whole graph as SVG (text stays text, so labels can be searched)."""
        from PySide6.QtSvg import QSvgGenerator
        source = self._export_source()
        if source.isEmpty():
            self.show_message("Nothing to export: the graph is empty.")
            return False
        gen = QSvgGenerator()
        gen.setFileName(str(path))
        gen.setSize(QSize(round(source.width()), round(source.height())))
        gen.setViewBox(QRectF(0, 0, source.width(), source.height()))
        gen.setTitle("Backprop Studio graph")
        gen.setDescription(f"{len(self.session.doc.nodes)} nodes")
        painter = QPainter()
        if not painter.begin(gen):
            self.show_message(f"Could not write {path}")
            return False
        painter.fillRect(QRectF(0, 0, source.width(), source.height()), self.theme.color("background"))
        try:
            self._render_for_export(painter, QRectF(0, 0, source.width(), source.height()), source,
                                    vector=True)
        finally:
            painter.end()
        self.show_message(f"Exported {path}")
        return os.path.exists(str(path))

    def export_dialog(self, kind):
        filters = {"png": "PNG image (*.png)", "svg": "SVG drawing (*.svg)"}
        path, _ = QFileDialog.getSaveFileName(self, f"Export {kind.upper()}", f"graph.{kind}", filters[kind])
        if path:
            (self.export_png if kind == "png" else self.export_svg)(path)

    # -- help ------------------------------------------------------------------------------

    def show_shortcuts(self):
        rows = [("Ctrl+Enter", "run the editor's text"), ("Ctrl+B", "backward"),
                ("Ctrl+Shift+B", "zero grads"), ("F", "fit the graph"),
                ("Ctrl+= / Ctrl+-", "zoom in / out"), ("wheel", "zoom under the mouse"),
                ("drag background", "pan"), ("Ctrl+F", "find a node by label"),
                ("Ctrl+Z / Ctrl+Shift+Z", "undo / redo"), ("Ctrl+L", "re-arrange")]
        text = "<table>" + "".join(f"<tr><td><b>{k}</b>&nbsp;&nbsp;</td><td>{v}</td></tr>"
                                   for k, v in rows) + "</table>"
        QMessageBox.information(self, "Keyboard shortcuts", text)

    def show_about(self):
        QMessageBox.about(self, "About Backprop Studio",
                          "<b>Backprop Studio</b><br>See, step through and explain backpropagation "
                          "on a micrograd-style scalar autograd engine.")


# -----------------------------------------------------------------------------
# Entry point

def _parse_args(argv):
    parser = argparse.ArgumentParser(prog="backprop-studio", description="Backprop Studio")
    parser.add_argument("file", nargs="?", help="a saved graph (.json) to open")
    parser.add_argument("--screenshot", metavar="OUT.png",
                        help="render the window to a PNG offscreen and exit")
    parser.add_argument("--size", default="1440x880", metavar="WxH",
                        help="window size for --screenshot (default 1440x880)")
    parser.add_argument("--dark", action="store_true", help="start with the dark theme")
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
    return app


def main(argv=None):
    args = _parse_args(sys.argv[1:] if argv is None else argv)
    if args.screenshot and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = _application()
    started = time.perf_counter()
    window = MainWindow(theme=DEFAULT.with_(palette=DARK) if args.dark else DEFAULT)
    if args.file:
        window.open_file(args.file)
    if args.screenshot:
        window.resize(*args.size)
        window.show()
        window.wait_for_layout()
        app.processEvents()
        window.view.fit()
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
    window.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
