"""The main window: editor dock on the left, the graph in the middle, inspector on the right.

`MainWindow` composes the panels around one `GraphSession` (app/session.py), the
single source of truth for the current document and its compiled Values. The
panels never import each other; the window wires their signals.

Extension points for later panels (debugger, builder, training):

    window.session                     GraphSession: doc, compiled, push(cmd),
                                       recompiled / gradsChanged / currentChanged
    window.scene                       GraphScene: marks (set_highlight, set_node_status),
                                       refresh_values, node_item, selection.select_node
    window.view                        GraphView: center_on_node, fit, zoom
    window.undo_stack                  the QUndoStack (Edit → Undo/Redo)
    window.menu(name)                  a top-level menu, created before Help if new
                                       ('File', 'Edit', 'View', 'Graph', 'Debug', ...)
    window.add_dock(key, title, widget, area)   a dock, listed under View → Panels
    window.add_action(menu, text, slot, shortcut=None, toolbar=False)
    window.show_document(doc, text, groups=())  lay out and show a GraphDocument (undoable)
    window.open_value(root)            trace a Value graph and show it
    window.layout_pending              True until a large graph is arranged and drawn
                                       (layoutFinished then); wait_for_layout() for scripts
    window.training                    TrainingWorkspace (app/training/workspace.py): show('graph' |
                                       'training'), panel (the TrainingPanel, built on first use)
    window.files                       FileActions (app/files/actions.py): path, open, save,
                                       recent files, examples, autosave and recovery, exports
    window.builder                     GraphBuilder (app/graph/builder.py): palette drops,
                                       quick add, clipboard, delete, edit, groups

`main(argv)`, the `backprop-studio` entry point, lives in app/startup.py (the
console script is `app.startup:main`; it imports this module, never the reverse):
    backprop-studio [FILE] [--screenshot OUT.png] [--size WxH] [--dark]

The window's pieces, each a set of plain functions taking the window:
    app/window_actions.py      the basic menus, toolbar, status bar, graph actions, find, theme
    app/graph/layout_runner.py       arranging off the GUI thread, on Jobs (app/jobs.py)
    app/graph/scene_build.py   the canvas items of a large graph, built in slices
    app/debugger/install.py    the Debugger dock and Debug menu
    app/graph/install.py       the builder: palette, history, edit actions
    app/lessons/install.py     lessons, themes, presenter mode's actions, welcome
    app/lessons/presenter_layout.py  presenter mode's docks and readable zoom
"""

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QUndoStack
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow, QToolBar, QWidget

from app import collector, window_actions
from app.debugger.install import install_debugger
from app.editor.code_runner import CodeRunner
from app.editor.expression_bar import TUTORIAL, ExpressionBar
from app.editor.inspector import InspectorPanel
from app.files import image_export
from app.foreign.engine_dialog import open_engine_check
from app.graph import layout_runner
from app.graph.install import install_builder, toggle_group
from app.graph.layout_runner import LayoutRunner
from app.graph.scene import GraphScene
from app.graph.scope_page import install_scopes
from app.graph.view import GraphView
from app.lessons import install as classroom
from app.lessons import presenter_layout
from app.lessons.install import _has_tip  # noqa: F401  (tests import it from here)
from app.look.theme import DEFAULT
from app.session import GraphSession
from app.training.microgpt_panel import install_microgpt_training
from core.document.expr import ExprError, read
from core.document.layout import boxes_overlap, positions_pile_up

MENU_ORDER = ("File", "Edit", "View", "Graph", "Help")
ROUTE_SLACK = 6.0  # document units: a saved position this close to the layout's is the layout's
NARROW_WINDOW = 1600  # pixels: a narrower window puts the inspector with the editor (arrange_docks)


class MainWindow(QMainWindow):
    layoutFinished = Signal()  # a pending open is complete: laid out, every canvas item built

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
        # a lesson's "check this class" link does what File → Debug my engine… does
        self.lessons.engineCheckAsked.connect(lambda path: open_engine_check(self, path))
        self._install_training()
        install_scopes(self)  # File → Open microgpt Step (app/graph/scope_page.py)
        install_microgpt_training(self)  # File → Train microgpt… (app/training/microgpt_panel.py)
        self._find_state = ("", -1)
        self._layout_note = None  # why a graph shown "as saved" was arranged after all
        self.docks_arranged = False  # True once the panels have their first (or the saved) arrangement
        self.arranger = LayoutRunner(self.scene, self.statusBar, self._opening_changed, self)  # the layout job
        self.scene.buildingChanged.connect(self._opening_changed)

        self.editor.runRequested.connect(self.run_expression)
        self.code_runner = CodeRunner(self)  # Run as Python: lecture code, in a child process
        self.inspector.navigate.connect(self.view.center_on_node)
        self.session.message.connect(self.show_message)
        self.session.recompiled.connect(self._update_status)
        self.session.gradsChanged.connect(self._update_status)
        self.scene.structureChanged.connect(self._update_status)
        self._initial_size()
        self._place_docks()

        if load_example:
            self.editor.set_text(TUTORIAL)
            self.run_expression(TUTORIAL)
            self.undo_stack.clear()  # the example is the starting point, not an edit
            self.scene.selection.select_node(self.session.doc.effective_output())
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
        dock.setFeatures(
            QDockWidget.DockWidgetMovable | QDockWidget.DockWidgetClosable | QDockWidget.DockWidgetFloatable
        )
        self.addDockWidget(area, dock)
        if tabify_with in self.docks:
            self.tabifyDockWidget(self.docks[tabify_with], dock)
        self.docks[key] = dock
        self._panels_menu.addAction(dock.toggleViewAction())
        dock.toggleViewAction().setToolTip(f"Show or hide the {title} panel")
        for button, tip in (
            ("qt_dockwidget_closebutton", "Close this panel (View → Panels brings it back)"),
            ("qt_dockwidget_floatbutton", "Float this panel in a window of its own, or dock it again"),
        ):
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
        return window_actions.build_actions(self)

    def _build_status_bar(self):
        return window_actions.build_status_bar(self)

    def _update_status(self, *_):
        return window_actions.update_status(self, *_)

    def _install_debugger(self):
        return install_debugger(self)

    def _install_files(self):
        """File menu: new/open/save/recent/examples/revert, code in and out, autosave."""
        from app.files.actions import FileActions

        self.files = FileActions(self)
        self.files.install()

    def _install_builder(self):
        return install_builder(self)

    def _install_training(self):
        """The Training workspace (app/training/workspace.py): the Training panel in the
        canvas's place, a Graph | Training switch in the toolbar and atop the View menu
        (Ctrl+1 / Ctrl+2), File → Open/Save Training Session; a neuron clicked there opens
        its graph here, and "Follow live" refreshes it in place. The panel itself is
        built on first use."""
        from app.training.workspace import TrainingWorkspace

        self.training = TrainingWorkspace(self)

    def _install_classroom(self):
        return classroom.install_classroom(self)

    def closeEvent(self, event):
        training = self.training.current == "training"
        self.training.show("graph")  # the dock layout saved on close is the Graph workspace's
        if not self.files.close_event(event):
            if training:
                self.training.show("training")
            return  # the user chose Cancel: unsaved work stays open
        self.training.shutdown()  # stop the run and join its thread
        self.code_runner.shutdown()
        if getattr(self, "_scope_page", None) is not None:
            self._scope_page.shutdown()  # the big-graph page's worker ends first
        self.debugger.controller.pause()
        self.lessons.shutdown()
        self.arranger.shutdown()  # any running layout is now stale
        self.scene.cancel_build()
        collector.release()
        super().closeEvent(event)

    def wait_for_layout(self, timeout_s=60.0):
        return self.arranger.wait(timeout_s)

    def _place_docks(self):
        """The first arrangement of the panels (a saved one is restored over it). The
        canvas is the main thing on screen: in a window narrower than NARROW_WINDOW
        pixels the inspector and history join the editor's column as tabs, so the
        canvas gets the width to show a dozen nodes at a legible size."""
        if self.width() < NARROW_WINDOW:
            for key in ("inspector", "history"):
                if key in self.docks:
                    self.tabifyDockWidget(self.docks["editor"], self.docks[key])
            self.docks["editor"].raise_()

    def arrange_docks(self):
        """The panels' first sizes: the side columns what they need to be read, the
        debugger (idle at first) about a quarter of the height, the canvas the rest."""
        self.docks_arranged = True
        side = 280 if self.width() <= 1440 else 320
        sides = [self.docks["editor"]]
        if not self.tabifiedDockWidgets(self.docks["editor"]).count(self.docks["inspector"]):
            sides.append(self.docks["inspector"])
        self.resizeDocks(sides, [side] * len(sides), Qt.Horizontal)
        if "debugger" in self.docks:
            self.resizeDocks([self.docks["debugger"]], [max(170, self.height() * 27 // 100)], Qt.Vertical)

    def showEvent(self, event):
        super().showEvent(event)
        if self._fit_pending:
            self._fit_pending = False
            if not self.docks_arranged:
                self.arrange_docks()
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
            doc, notes = read(text, self.editor.run_values(text))
        except ExprError as e:
            self.editor.show_error(e.message, e.line, e.col, e.end_col, e.python)
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
        self.statusBar().clearMessage()  # an old "Not run: ..." must not outlive a good run
        if not self.show_document(doc, "Run expression"):
            return False
        # the open file keeps the graph: its text was edited and run again, and Save
        # writes it there, as any editor saves the file it shows (the title marks it changed)
        self.editor.show_notes(notes)
        return True

    def lay_out(self, doc):
        """({id: centre}, routes) for doc, from core.document.layout on the items' real sizes."""
        return self.arranger.lay_out(doc)

    @property
    def layout_pending(self):
        """True while a large graph is being arranged off the GUI thread, or its canvas
        items are still being built in slices (app/graph/scene_build.py)."""
        return self.arranger.pending

    def _opening_changed(self, *_):
        """The busy cursor while a graph is arranged or drawn, the cyclic garbage
        collector held off meanwhile (app/collector.py); layoutFinished after."""
        if self.layout_pending:
            self.view.viewport().setCursor(Qt.BusyCursor)
            collector.hold()
            return
        self.view.viewport().unsetCursor()
        QTimer.singleShot(0, self._release_collector)  # in its own event-loop turn, after the last slice
        self.layoutFinished.emit()

    def run_in_background(self, job, then, message):
        """job() on a worker thread, then then(its result or exception) here; pending
        meanwhile like a layout (app/graph/layout_runner.py)."""
        self.arranger.run_in_worker(job, then, message)

    def _release_collector(self):
        if not self.layout_pending:  # else another open began meanwhile: it releases at its end
            collector.release()

    def show_document(
        self, doc, text="Replace graph", layout=True, undoable=True, groups=(), replacement=None, keep_positions=False
    ):
        """Show doc (a fresh GraphDocument nobody else holds) as one undoable step,
        with its groups (core/document/groups.py). A large graph is laid out in a worker
        first (see `layout_pending`). Without a layout, `replacement` may be doc's
        ReplaceDocument, made already (on a worker thread: app/files/actions.py).
        `layout=False` keeps the document's positions -- unless they pile up (a
        trace, a file from another tool) or the boxes, measured now, overlap (a
        file saved when nodes were drawn smaller): such a graph is arranged all
        the same, since a box on top of another hides its numbers. `keep_positions`:
        the positions are the user's own as they last saw them (an autosave, a file
        saved at today's node sizes): kept even where boxes overlap."""
        if not layout and positions_pile_up(node.pos for node in doc.nodes.values()):
            layout, replacement = True, None
        if not layout:
            if len(doc.nodes) < layout_runner.ASYNC_LAYOUT_NODES:
                self.arranger.forget_pending()
                measured = self.arranger.layout_input(doc)
                if keep_positions or not self._boxes_collide(doc, measured):
                    self._reuse_routes(doc, measured)
                    return self._show_laid_out(doc, text, None, undoable, groups, replacement)
            else:

                def measured(data):
                    if not keep_positions and self._boxes_collide(doc, data):
                        self.show_document(doc, text, True, undoable, groups)
                    else:
                        self._show_laid_out(doc, text, None, undoable, groups, replacement)

                self.arranger.measure(doc, measured)
                return True
        self.arranger.arrange(
            doc,
            lambda result, prepared=None: self._show_laid_out(doc, text, result, undoable, groups, prepared),
            prepare=lambda positions: layout_runner.prepare_replacement(doc, text, positions),
        )
        return True

    def _reuse_routes(self, doc, measured):
        """A graph saved as the layout arranged it (an example, a file saved unmoved)
        gets the layout's wire routes back: its long wires run between the columns,
        not through the boxes. Positions the user changed keep plain curves."""
        try:
            positions, routes = layout_runner.run_layout(*measured)
        except ValueError:
            return
        nodes = doc.nodes
        if all(
            abs(nodes[nid].pos[0] - x) < ROUTE_SLACK and abs(nodes[nid].pos[1] - y) < ROUTE_SLACK
            for nid, (x, y) in positions.items()
        ):  # as arranged, give or take a pixel of text width
            self.scene.set_routes(routes, {nid: node.pos for nid, node in nodes.items()})

    def _boxes_collide(self, doc, measured):
        """True (and a note in the status bar) if doc's saved positions put two of
        its boxes, at the sizes `measured` (layout_runner's input), on each other."""
        sizes = measured[2]
        hit = boxes_overlap({nid: node.pos for nid, node in doc.nodes.items()}, sizes)
        if hit is None:
            return False
        self._layout_note = (
            "The saved positions put nodes on top of each other at today's node "
            "sizes, so the graph was arranged again (the file is unchanged)."
        )
        return True

    def _show_laid_out(self, doc, text, result, undoable, groups=(), prepared=None):
        """Show doc at the layout's positions; `prepared` is its ReplaceDocument, made
        (with the positions applied) on the layout's worker thread."""
        if isinstance(result, Exception):
            self.show_message(f"Could not arrange the graph ({result}); showing it unarranged.")
        elif result is not None:
            positions, routes = result
            if prepared is None:
                layout_runner.place_nodes(doc, positions)
            self.scene.set_routes(routes, positions)
        ok, error = self.session.replace(doc, text, groups, replacement=prepared)
        if not ok:
            self.editor.show_error(f"Could not show the graph: {error}")
            return False
        if not undoable:
            self.undo_stack.clear()
        self.session.select(None)
        self.view.fit()
        self._update_status()
        if self._layout_note:
            self.show_message(self._layout_note)
            self._layout_note = None
        return True

    def open_value(self, root, parameters=(), text="Show traced graph"):
        """Trace a Value graph (e.g. one sample through an MLP) and show it (a large
        one's document is built on a worker: app/graph/layout_runner.py)."""
        return self.arranger.trace(root, parameters, lambda doc: self._show_traced(doc, text))

    def _show_traced(self, doc, text):
        """Show a traced document (or say why there is none)."""
        if isinstance(doc, Exception):
            self.show_message(f"Could not trace the graph: {doc}")
            return False
        self.editor.set_source_note(f"a traced graph of {len(doc.nodes):,} nodes")
        if not self.show_document(doc, text):
            return False
        self.files.detach()  # a trace, not the file's graph: Save must ask where
        return True

    def open_scoped(self, graph, title):
        """Show a ScopedGraph collapsed by scope on the big-graph page (app/graph/scope_page.py)."""
        from app.graph.scope_page import open_scoped

        return open_scoped(self, graph, title)

    def may_run_script(self, path):
        """A .py the studio does not ship runs only if the user agrees (issue 37), as Debug my engine asks."""
        from app.graph.scope_page import confirm_script, shipped_script

        return shipped_script(path) or confirm_script(self, path)

    def open_file(self, path):
        """Open a saved graph (app/files/actions.py); on any fault the graph shown stays.
        A .py script runs as Python, by the rules of a pasted cell (app/editor/code_runner.py):
        a small graph on the canvas, a big one collapsed by scope (app/graph/scope_page.py)."""
        if str(path).endswith(".py"):
            return self.code_runner.open_script(str(path))
        return self.files.open(path)

    def save_file(self, path):
        return self.files.save_to(path)

    def _toggle_group(self):
        return toggle_group(self)

    def dragEnterEvent(self, event):
        if self.files.dropped_path(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event):
        path = self.files.dropped_path(event.mimeData())
        if path:
            event.acceptProposedAction()
            self.open_file(path)  # a .py script runs as Python (a big graph: the scope page)

    # -- graph actions ----------------------------------------------------------------------

    def backward(self):
        return window_actions.backward(self)

    def zero_grads(self):
        return window_actions.zero_grads(self)

    def relayout(self):
        return window_actions.relayout(self)

    def _toggle_auto_backward(self):
        return window_actions.toggle_auto_backward(self)

    def _toggle_dark(self):
        return window_actions.toggle_dark(self)

    def set_theme(self, palette):
        self.apply_theme(self.theme.with_(palette=palette))

    def apply_theme(self, theme):
        return window_actions.apply_theme(self, theme)

    def _toggle_legend(self):
        return window_actions.toggle_legend(self)

    # -- find ------------------------------------------------------------------------------

    def focus_find(self):
        return window_actions.focus_find(self)

    def find_node(self, text):
        return window_actions.find_node(self, text)

    # -- export ------------------------------------------------------------------------------

    def export_png(self, path, scale=2.0):
        """The whole graph as a PNG (app/files/image_export.py)."""
        return image_export.export_png(self, path, scale)

    def export_svg(self, path):
        return image_export.export_svg(self, path)

    def export_dialog(self, kind):
        return image_export.export_dialog(self, kind)

    # -- help ------------------------------------------------------------------------------

    def show_shortcuts(self):
        """Every shortcut, read from the window's actions (app/help/dialogs.py)."""
        from app.help.dialogs import show_shortcuts

        return show_shortcuts(self)

    def show_about(self):
        from app.help.dialogs import show_about

        return show_about(self)

    # -- the classroom: lessons, themes, welcome (app/lessons/install.py); presenter mode's
    # layout (app/lessons/presenter_layout.py) ---

    def show_lessons(self, lesson_id=None, step=0):
        return classroom.show_lessons(self, lesson_id, step)

    open_lesson = show_lessons

    def show_welcome(self):
        return classroom.show_welcome(self)

    def presenter_keeps_dock(self, key):
        return presenter_layout.presenter_keeps_dock(self, key)

    def presenter_layout(self):
        return presenter_layout.presenter_layout(self)

    def _size_presenter_docks(self):
        return presenter_layout.size_presenter_docks(self)

    def _presenter_canvas(self):
        return presenter_layout.presenter_canvas(self)

    def _lesson_controls(self):
        return classroom.lesson_controls(self)

    def _presenter_changed(self, on):
        return presenter_layout.presenter_changed(self, on)

    def _appearance_changed(self):
        return classroom.appearance_changed(self)
