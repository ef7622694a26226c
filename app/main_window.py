"""The main window: editor dock on the left, the graph in the middle, inspector on the right.

`MainWindow` composes the panels around one `GraphSession` (app/session.py), the
single source of truth for the current document and its compiled Values. The
panels never import each other; the window wires their signals. Every field of the
window is set in `__init__` below, from what each installer returns; nothing else
sets one (tests/app/test_main_window_fields.py). Pages made on first use are
`LazyPage` holders (app/services.py): `window.scope_page.get()`.

Extension points for later panels (debugger, builder, training):

    window.services()                  Services (app/services.py): what a panel may use --
                                       session, scene, view, undo stack, theme, menu,
                                       add_dock, add_action, say (the status bar)
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
    window.arranger                    LayoutRunner (app/graph/layout_runner.py): layouts and
                                       reads on a worker (run_in_worker), what to arrange (place)
    window.training                    TrainingWorkspace (app/training/workspace.py): show('graph' |
                                       'training'), panel (the TrainingPanel, built on first use)
    window.scopes                      ScopeOpener (app/graph/scope_open.py): a big graph collapsed
                                       by scope on the big-graph page (window.scope_page):
                                       open_script, open_scoped, open_collapsed
    window.files                       FileActions (app/files/actions.py): path, open, save_to,
                                       recent files, examples, autosave and recovery, exports
    window.window_state                WindowLayoutMemory (app/files/window_state.py): geometry and
                                       docks in QSettings (save_ui_state on close, restore_ui_state)
    window.code_runner                 CodeRunner (app/editor/code_runner.py): Run as Python, open_script
    window.engine_checks               EngineChecks (app/foreign/engine_dialog.py): what Debug my engine…
                                       and Check a class… use: open_engine_check(window.engine_checks, path)
    window.builder                     GraphBuilder (app/graph/builder.py): palette drops,
                                       quick add, clipboard, delete, edit, groups
    window.opening                     Opening (app/lessons/opening.py): show_lessons(id, step)
                                       opens a lesson in its dock; show_welcome() the welcome page

`main(argv)`, the `backprop-studio` entry point, lives in app/startup.py (the
console script is `app.startup:main`; it imports this module, never the reverse),
and so do the tour's and the slide deck's command lines (`tour_main`, `slides_main`).

The window's pieces; each installer returns what it builds:
    app/window_actions.py      the basic menus, toolbar, status bar, graph actions, find, theme
    app/window_layout.py       the docks' first arrangement
    app/graph/layout_runner.py       arranging off the GUI thread, on Jobs (app/jobs.py)
    app/graph/scene_build.py   the canvas items of a large graph, built in slices
    app/debugger/install.py    the Debugger dock and Debug menu
    app/graph/install.py       the builder: palette, history, edit actions
    app/graph/scope_install.py the big-graph page (made on first use) and File → Open microgpt Step
    app/lessons/install.py     the Lessons dock and menus, Open Lesson, Welcome (on Services)
    app/lessons/presenter_install.py  View → Theme / Scale / Presenter Mode, the toolbar's
                               lesson and presenter controls, the lesson's dock as steps show
    app/lessons/presenter_layout.py  presenter mode's docks and readable zoom
"""

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QUndoStack
from PySide6.QtWidgets import QApplication, QDockWidget, QLabel, QMainWindow, QMenu, QToolBar, QWidget

from app import collector, window_actions
from app.debugger.install import install_debugger
from app.editor.code_runner import CodeRunner
from app.editor.expression_bar import TUTORIAL, ExpressionBar
from app.editor.inspector import InspectorPanel
from app.files.actions import FileActions
from app.files.desktop_entry import app_icon
from app.files.window_state import WindowLayoutMemory
from app.foreign.engine_dialog import EngineChecks, open_engine_check
from app.graph.install import install_builder
from app.graph.layout_runner import LayoutRunner, place_nodes
from app.graph.scene import GraphScene
from app.graph.scope_install import install_scopes, make_page
from app.graph.scope_open import ScopeOpener
from app.graph.scope_page import ScopePage
from app.graph.view import GraphView
from app.help.welcome import WelcomeDialog
from app.lessons.install import install_classroom
from app.lessons.presenter_install import install_presenter
from app.lessons.presenter_layout import PresenterFit, make_frame_note, presenter_layout
from app.look.presenter import Appearance
from app.look.theme import DEFAULT, Theme
from app.services import LazyPage, Services
from app.session import GraphSession
from app.training.microgpt_panel import MicroGPTPanel, install_microgpt_training
from app.training.workspace import TrainingWorkspace
from app.window_layout import DockLayout
from core.document.expr import ExprError, read

MENU_ORDER = ("File", "Edit", "View", "Graph", "Help")


class MainWindow(QMainWindow):
    layoutFinished = Signal()  # a pending open is complete: laid out, every canvas item built

    def __init__(self, theme: Theme | None = None, load_example: bool = True, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Backprop Studio")
        self.theme = theme or DEFAULT
        self.undo_stack = QUndoStack(self)
        self.session = GraphSession(self.undo_stack, self)
        self.scene = GraphScene(self.session, self.theme, self)
        self.view = GraphView(self.scene)
        self.setCentralWidget(self.view)
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks)

        self.menus: dict[str, QMenu] = {}
        # every action by its key ('run', 'debug step', ...); it hides QWidget.actions(), which nothing here calls
        self.actions: dict[str, QAction] = {}  # type: ignore[assignment]
        self.docks: dict[str, QDockWidget] = {}
        self.dialogs: dict[str, QWidget] = {}  # Help's dialogs while open (app/help/dialogs.py)
        for name in MENU_ORDER:
            self.menu(name)
        self._panels_menu = self.menus["View"].addMenu("Panels")
        self.menus["View"].addSeparator()
        self.toolbar = QToolBar("Main")
        self.toolbar.setObjectName("main-toolbar")
        self.toolbar.setMovable(False)
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.toolbar)

        self.editor = ExpressionBar(self.session)
        self.add_dock("editor", "Editor", self.editor, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.inspector = InspectorPanel(self.session)
        self.add_dock("inspector", "Inspector", self.inspector, Qt.DockWidgetArea.RightDockWidgetArea)

        # made on first use; each holder's get() makes it
        self.welcome: LazyPage[WelcomeDialog] = LazyPage(self._welcome_page)
        self.scope_page: LazyPage[ScopePage] = LazyPage(  # a big graph, by scope (app/graph/scope_install.py)
            lambda: make_page(
                self.services(),
                self.arranger,
                self.training,
                self.training.stack,
                self.appearance.changed,
                presenting=lambda: self.appearance.presenting,
                export_page=lambda graph, title: self.files.export_block_page_dialog(graph, title),
            )
        )
        self.microgpt_panel: LazyPage[MicroGPTPanel] = LazyPage(lambda: MicroGPTPanel(self))
        self.frame_note: LazyPage[QLabel] = LazyPage(lambda: make_frame_note(self.view))  # presenter mode

        # File menu: new/open/save/recent/examples/revert, code in and out, autosave (app/files/actions.py);
        # a .py picked in File → Open runs as Python (the code runner, made below)
        self.files = FileActions(self.services(), self.editor, lambda path: self.code_runner.open_script(path))
        self.reach, self.find_box = window_actions.build_actions(self)  # the basic menus and the toolbar
        self.output_label, self.zoom_label, self.counts_label = window_actions.build_status_bar(
            self.statusBar(), self.view
        )
        # the Debugger dock and Debug menu (app/debugger/install.py)
        self.debugger = install_debugger(self.services(), self.inspector)
        # the builder: palette, history, edit actions (app/graph/install.py)
        # (`palette`, the palette dock's panel, hides QWidget.palette(), which nothing here calls)
        self.builder, self.palette, self.history = install_builder(self.services())  # type: ignore[method-assign]
        self.docks["inspector"].raise_()  # in front of the history, its tab
        self.setAcceptDrops(True)  # a graph file or a .py dropped on the window opens (dropEvent)
        self.setWindowIcon(app_icon())
        # the look: theme, scale, presenter mode (app/look/presenter.py); presenter mode's
        # docks arranged on entering it, the lesson's dock fitted to the step there
        self.appearance = Appearance(self, arrange=lambda: presenter_layout(self))
        self.presenter_fit = PresenterFit(self)
        # the Lessons dock, Help → Lessons, File → Open Lesson…, Help → Welcome (app/lessons/install.py)
        self.lessons, self.opening = install_classroom(
            self.services(),
            self.editor,
            self.docks["editor"],
            self.debugger.set_quiz_mode,
            self.files,
            self.appearance,
            self.presenter_fit,
            self.welcome.get,
        )
        # the window's part: View → Theme / Scale / Presenter Mode, the toolbar's lesson and
        # presenter controls, the lesson's dock as steps show (app/lessons/presenter_install.py)
        self.scale_box, self.side_fit = install_presenter(self)
        window_actions.tip_the_shell(self)  # tool tips on the shell's own actions, docks and find box
        # File → Debug my engine…, Check a class… and a lesson's "check this class" link check a learner's
        # engine: the finding goes to the canvas, the editor and the debugger (app/foreign/engine_dialog.py)
        self.engine_checks = EngineChecks(
            self.services(),
            self.debugger.controller,
            self.editor,
            self.files.detach,
            lambda graph, title: self.scopes.open_scoped(graph, title),  # made below
        )
        self.lessons.engineCheckAsked.connect(lambda path: open_engine_check(self.engine_checks, path))
        # the Training workspace (app/training/workspace.py): the Training panel in the canvas's
        # place, a Graph | Training switch, File → Open/Save Training Session; its panel is
        # built on first use
        self.training = TrainingWorkspace(self)
        install_scopes(self.services(), self.open_file)  # File → Open microgpt Step (app/graph/scope_install.py)
        install_microgpt_training(self.services(), self.microgpt_panel)  # File → Train microgpt…
        self.arranger = LayoutRunner(self.scene, self.statusBar, self._opening_changed, self)  # the layout job
        # opens a big graph collapsed by scope on the big-graph page (app/graph/scope_open.py)
        self.scopes = ScopeOpener(self.services(), self.arranger, self.scope_page, lambda: self.appearance.presenting)
        self.scene.buildingChanged.connect(self._opening_changed)
        self.dock_layout = DockLayout(self)  # the docks' first arrangement (app/window_layout.py)
        self.window_state = WindowLayoutMemory(self)  # geometry and docks in QSettings (app/files/window_state.py)

        self.editor.runRequested.connect(self.run_expression)
        # Run as Python: lecture code, in a child process (app/editor/code_runner.py)
        self.code_runner = CodeRunner(
            self.services(),
            self.editor,
            self.docks,
            self.scopes.open_scoped,
            self.may_run_script,
            self._leave_scope_page,
        )
        self.inspector.navigate.connect(self.view.center_on_node)
        self.session.message.connect(self.show_message)
        for changed in (
            self.session.recompiled,
            self.session.gradsChanged,
            self.scene.structureChanged,
            self.scene.masksChanged,
        ):
            changed.connect(lambda *_: window_actions.update_status(self))
        self._initial_size()
        self.dock_layout.place()

        if load_example:
            self.editor.set_text(TUTORIAL)
            self.run_expression(TUTORIAL)
            self.undo_stack.clear()  # the example is the starting point, not an edit
            self.scene.selection.select_node(self.session.doc.effective_output())
        self._fit_pending = True

    def services(self) -> Services:
        """What a panel may use of the window (app/services.py)."""
        return Services(
            session=self.session,
            scene=self.scene,
            view=self.view,
            undo_stack=self.undo_stack,
            parent=self,
            theme=lambda: self.theme,
            menu=self.menu,
            add_dock=self.add_dock,
            add_action=self.add_action,
            actions=self.actions,
            say=self.show_message,
            # files & editor
            show_document=self.show_document,
            run_in_worker=lambda *args, **kwargs: self.arranger.run_in_worker(*args, **kwargs),
            layout_pending=lambda: self.layout_pending,
            layout_finished=self.layoutFinished,
            wait_for_layout=self.wait_for_layout,
        )

    def _welcome_page(self) -> WelcomeDialog:
        """The welcome page, made when `welcome` is first asked for; forgotten on close."""
        dialog = WelcomeDialog(self, self.lessons.lessons, self.files.recent_files)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.finished.connect(lambda *_: self.welcome.clear())
        dialog.lessonChosen.connect(lambda lesson_id: self.opening.show_lessons(lesson_id))
        dialog.fileChosen.connect(self.open_file)
        return dialog

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

    def apply_theme(self, theme):
        """Take `theme` as the window's and give it to every pane (window_actions.apply_theme)."""
        self.theme = theme
        window_actions.apply_theme(self, theme)

    def closeEvent(self, event):
        training = self.training.current == "training"
        self.training.show("graph")  # the dock layout saved on close is the Graph workspace's
        if not self.files.close_event(event):
            if training:
                self.training.show("training")
            return  # the user chose Cancel: unsaved work stays open
        self.window_state.save_ui_state()  # the geometry and the Graph workspace's docks
        self.training.shutdown()  # stop the run and join its thread
        self.code_runner.shutdown()
        if self.scope_page.current is not None:
            self.scope_page.current.shutdown()  # the big-graph page's worker ends first
        self.debugger.controller.pause()
        self.lessons.shutdown()
        self.arranger.shutdown()  # any running layout is now stale
        self.scene.cancel_build()
        collector.release()
        super().closeEvent(event)

    def wait_for_layout(self, timeout_s=60.0):
        return self.arranger.wait(timeout_s)

    def showEvent(self, event):
        super().showEvent(event)
        if self._fit_pending:
            self._fit_pending = False
            if not self.dock_layout.arranged:
                self.dock_layout.arrange()
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

    def _release_collector(self):
        if not self.layout_pending:  # else another open began meanwhile: it releases at its end
            collector.release()

    def show_document(
        self, doc, text="Replace graph", layout=True, undoable=True, groups=(), replacement=None, keep_positions=False
    ):
        """Show doc (a fresh GraphDocument nobody else holds) as one undoable step,
        with its groups (core/document/groups.py). The arranger decides whether it is
        laid out or keeps its positions (`layout`, `keep_positions`: see
        LayoutRunner.place); a large graph is laid out in a worker first (see
        `layout_pending`). Without a layout, `replacement` may be doc's
        ReplaceDocument, made already (on a worker thread: app/files/actions.py)."""
        return self.arranger.place(
            doc,
            text,
            lambda result, prepared: self._show_laid_out(doc, text, result, undoable, groups, prepared),
            layout,
            keep_positions,
            replacement,
        )

    def _show_laid_out(self, doc, text, result, undoable, groups=(), prepared=None):
        """Show doc at the layout's positions; `prepared` is its ReplaceDocument, made
        (with the positions applied) on the layout's worker thread."""
        if isinstance(result, Exception):
            self.show_message(f"Could not arrange the graph ({result}); showing it unarranged.")
        elif result is not None:
            positions, routes = result
            if prepared is None:
                place_nodes(doc, positions)
            self.scene.set_routes(routes, positions)
        ok, error = self.session.replace(doc, text, groups, replacement=prepared)
        if not ok:
            self.editor.show_error(f"Could not show the graph: {error}")
            return False
        if not undoable:
            self.undo_stack.clear()
        self.session.select(None)
        self.view.fit()
        window_actions.update_status(self)
        note = self.arranger.take_note()
        if note:
            self.show_message(note)
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

    def _leave_scope_page(self):
        """The canvas again if the big-graph page is in front (a small graph shown after a big one)."""
        page = self.scope_page.current
        if page is not None and self.training.stack.currentWidget() is page:
            page.back()

    def may_run_script(self, path):
        """A .py the studio does not ship runs only if the user agrees (issue 37), as Debug my engine asks."""
        from app.graph.scope_open import confirm_script, shipped_script

        return shipped_script(path) or confirm_script(self.services(), path)

    def open_file(self, path):
        """Open a saved graph (app/files/actions.py); on any fault the graph shown stays.
        A .py script runs as Python, by the rules of a pasted cell (app/editor/code_runner.py):
        a small graph on the canvas, a big one collapsed by scope (app/graph/scope_page.py)."""
        if str(path).endswith(".py"):
            return self.code_runner.open_script(str(path))
        return self.files.open(path)

    def dragEnterEvent(self, event):
        if self.files.dropped_path(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event):
        path = self.files.dropped_path(event.mimeData())
        if path:
            event.acceptProposedAction()
            self.open_file(path)  # a .py script runs as Python (a big graph: the scope page)
