"""The File menu: new, open, save, recent files, examples, revert, code in and out,
the unsaved-changes question, autosave with crash recovery, and drop-to-open.

`FileActions` keeps what a window knows about its file -- the path (None for
an untitled graph) and the file's `meta` -- and nothing about the graph
itself, which stays in the session. "Modified" is the undo stack's clean
state: saving marks the current point of the history clean, so undoing back
to it clears the `*` in the title again.

Opening never harms the open document: the file is read and checked
completely first (core.files.graph_file, core.document.groups); any fault is shown with the
loader's message, which names the problem, and the document stays as it was.
A large file (ASYNC_OPEN_BYTES) is read, checked and made into the
ReplaceDocument that shows it on a worker thread, so the window keeps
answering; a newer open or run made meanwhile wins over it. Pictures of the
graph (PNG, SVG) are app/files/image_export.py.
A graph file never holds UI state: recent files, window geometry and dock
layout go to QSettings.

Every dialog goes through one of the small module functions below
(`show_error`, `ask_save_changes`, `ask_open_path`, ...) so tests replace them
and never meet a modal window; `show_error` is not modal anyway.
"""

import os

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QFileDialog, QMessageBox

from app.files.autosave import AutosaveManager
from app.graph.node_geometry import CANVAS_VERSION
from app.settings import settings
from core.document.codegen import to_python, to_pytorch
from core.document.commands import ReplaceDocument
from core.document.expr import ExprError, parse
from core.document.graph import GraphDocument
from core.document.groups import GroupError, join_meta, split_meta
from core.document.layout import positions_pile_up
from core.files import graph_file, strict_json
from core.files.atomic import sweep_stale_temps, write_atomically
from core.files.interchange import dot, graphml

MAX_RECENT = 10
GRAPH_FILTER = "Graphs (*.json);;All files (*)"
ASYNC_OPEN_BYTES = 300_000  # from this size on (~1,000 nodes) a file is read on a worker thread
EXAMPLES_DIR = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "resources", "examples"
)
_open_boxes = []  # non-modal message boxes still showing


def _file_size(path):
    try:
        return os.path.getsize(path)
    except (OSError, TypeError, ValueError):
        return 0  # reading it says what is wrong


def _needs_layout(doc):
    """A file whose nodes mostly share a position was written without a layout."""
    return positions_pile_up(node.pos for node in doc.nodes.values())


# -----------------------------------------------------------------------------
# Dialogs: one function each, so tests can replace them


def show_error(parent, title, text):
    """Tell the user what went wrong; returns at once (the box is not modal)."""
    box = QMessageBox(QMessageBox.Warning, title, text, QMessageBox.Ok, parent)
    box.setAttribute(Qt.WA_DeleteOnClose)
    box.setWindowModality(Qt.WindowModal)
    _open_boxes.append(box)
    box.finished.connect(lambda _r, b=box: _open_boxes.remove(b) if b in _open_boxes else None)
    box.open()
    return box


def close_message_boxes(parent):
    for box in list(_open_boxes):
        if box.parent() is parent:
            box.close()


def ask_save_changes(parent, name):
    """'save', 'discard' or 'cancel' for the unsaved changes of `name`."""
    answer = QMessageBox.question(
        parent,
        "Unsaved changes",
        f"Save the changes to {name} before closing it?\n\nIf you don't save, your changes will be lost.",
        QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel,
        QMessageBox.Save,
    )
    return {QMessageBox.Save: "save", QMessageBox.Discard: "discard"}.get(answer, "cancel")


def ask_confirm(parent, title, text):
    return (
        QMessageBox.question(parent, title, text, QMessageBox.Yes | QMessageBox.No, QMessageBox.No) == QMessageBox.Yes
    )


def ask_open_path(parent, title, directory="", filter=GRAPH_FILTER):
    return QFileDialog.getOpenFileName(parent, title, directory, filter)[0]


def ask_save_path(parent, title, suggested, filter=GRAPH_FILTER):
    return QFileDialog.getSaveFileName(parent, title, suggested, filter)[0]


def ask_recover(parent, recovered, saved_at):
    """'restore', 'discard' or 'later' for autosaved work a crash left behind."""
    name = recovered.title or "an untitled graph"
    box = QMessageBox(
        QMessageBox.Question,
        "Recover unsaved work",
        f"Backprop Studio did not close normally. It autosaved your work on "
        f"{name} ({len(recovered.doc.nodes)} nodes) at {saved_at}.\n\n"
        "Restore it now?",
        QMessageBox.NoButton,
        parent,
    )
    restore = box.addButton("Restore", QMessageBox.AcceptRole)
    discard = box.addButton("Discard", QMessageBox.DestructiveRole)
    box.addButton("Later", QMessageBox.RejectRole)
    box.exec()
    clicked = box.clickedButton()
    return "restore" if clicked is restore else "discard" if clicked is discard else "later"


def examples():
    """[(title, description, path)] of the valid graphs in resources/examples/, by title
    (File → Examples and the welcome page both list these)."""
    found = []
    try:
        names = sorted(n for n in os.listdir(EXAMPLES_DIR) if n.endswith(".json"))
    except OSError:
        return []
    for name in names:
        path = os.path.join(EXAMPLES_DIR, name)
        try:
            _doc, meta = graph_file.load(path)
        except (OSError, graph_file.FormatError):
            continue
        title = meta.get("title") or os.path.splitext(name)[0]
        found.append((title, meta.get("description", ""), path))
    return sorted(found, key=lambda row: row[0].lower())


# -----------------------------------------------------------------------------
# The file of one window


class FileActions(QObject):
    def __init__(self, window, settings_store=None, autosave_dir=None):
        super().__init__(window)
        self.window = window
        self.session = window.session
        self.stack = window.undo_stack
        self.settings = settings_store if settings_store is not None else settings()
        self.path = None  # the file the document belongs to (None: untitled)
        self.name = "Untitled"  # what the title bar calls it
        self.meta = {}  # the file's meta without groups (title, description, ...)
        self.prompt_on_close = True
        self.autosave = AutosaveManager(self._snapshot, autosave_dir, parent=self)
        self.session.doc.changed.connect(self.autosave.changed)
        self.session.groups.changed.connect(self.autosave.changed)
        self.stack.cleanChanged.connect(self._clean_changed)
        self._alive = True  # the undo stack's last signals arrive while the window is destroyed
        window.destroyed.connect(self._window_destroyed)
        self.recent_menu = None
        self.examples_menu = None
        self.swept = self.sweep_stale_saves()

    def sweep_stale_saves(self):
        """The temporary files a killed save left beside the recent files: removed now
        (their process is gone). Returns their paths."""
        swept = []
        for folder in dict.fromkeys(os.path.dirname(p) for p in self.recent_files()):
            swept += [os.path.join(folder, name) for name in sweep_stale_temps(folder)]
        return swept

    # -- menus -------------------------------------------------------------------------

    def install(self):
        """Add the File menu's entries (before whatever the window adds after)."""
        a = self.window.add_action
        a("File", "&New", self.new, QKeySequence.New, key="new", tip="Start an empty graph")
        a("File", "&Open…", self.open_dialog, QKeySequence.Open, key="open", tip="Open a saved graph (.json)")
        menu = self.window.menu("File")
        self.recent_menu = menu.addMenu("Open &Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.examples_menu = menu.addMenu("&Examples")
        for title, _description, path in examples():
            action = self.examples_menu.addAction(title)
            action.setToolTip(f"Open the example '{title}' as a new, untitled graph")
            action.triggered.connect(lambda checked=False, p=path: self.open_example(p))
        self._fill_recent()
        menu.addSeparator()
        a("File", "&Save", self.save, QKeySequence.Save, key="save", tip="Save the graph (Ctrl+S)")
        a(
            "File",
            "Save &As…",
            self.save_as,
            QKeySequence.SaveAs,
            key="save as",
            tip="Save the graph under a new file name",
        )
        a("File", "Re&vert", self.revert, key="revert", tip="Go back to the saved file")
        menu.addSeparator()
        a(
            "File",
            "&Import Snippet…",
            self.import_snippet_dialog,
            key="import snippet",
            tip="Read micrograd-style code from a .py file into the graph",
        )
        a(
            "File",
            "Export as P&ython…",
            lambda: self.export_code_dialog("python"),
            key="export python",
            tip="Save the graph as micrograd-style code",
        )
        a(
            "File",
            "Export as Py&Torch…",
            lambda: self.export_code_dialog("pytorch"),
            key="export pytorch",
            tip="Save the graph as a PyTorch script that checks its gradients",
        )
        a(
            "File",
            "Export as &GraphML…",
            lambda: self.export_graph_dialog("graphml"),
            key="export graphml",
            tip="Save the graph for yEd, Gephi, Cytoscape or networkx (.graphml)",
        )
        a(
            "File",
            "Export as Graphviz &DOT…",
            lambda: self.export_graph_dialog("dot"),
            key="export dot",
            tip="Save the graph for Graphviz and other graph viewers (.dot)",
        )
        menu.addSeparator()
        self.update_title()

    def _fill_recent(self):
        menu = self.recent_menu
        if menu is None:
            return
        menu.clear()
        paths = self.recent_files()
        for path in paths:
            action = menu.addAction(os.path.basename(path))
            action.setToolTip(path)
            action.triggered.connect(lambda checked=False, p=path: self.open_recent(p))
        if paths:
            menu.addSeparator()
            menu.addAction("Clear Menu", self.clear_recent)
        else:
            menu.addAction("(no recent files)").setEnabled(False)

    # -- recent files (QSettings) --------------------------------------------------------

    def recent_files(self):
        value = self.settings.value("recentFiles", [])
        if isinstance(value, str):
            value = [value]
        return [p for p in (value or []) if isinstance(p, str)][:MAX_RECENT]

    def _remember(self, path):
        path = os.path.abspath(path)
        paths = [path] + [p for p in self.recent_files() if p != path]
        self.settings.setValue("recentFiles", paths[:MAX_RECENT])
        self.settings.sync()

    def _forget(self, path):
        self.settings.setValue("recentFiles", [p for p in self.recent_files() if p != path])

    def clear_recent(self):
        self.settings.setValue("recentFiles", [])
        self._fill_recent()

    def open_recent(self, path):
        if not os.path.exists(path):
            show_error(self.window, "File not found", f"{path} is no longer there; it is taken off the recent files.")
            self._forget(path)
            return False
        return self.open(path)

    # -- the title and the `*` ------------------------------------------------------------

    @property
    def modified(self):
        return not self.stack.isClean()

    def update_title(self):
        self.window.setWindowTitle(f"{self.name}[*] — Backprop Studio")
        self.window.setWindowModified(self.modified)

    def _window_destroyed(self, *_):
        self._alive = False

    def _clean_changed(self, clean):
        if not self._alive:
            return
        self.window.setWindowModified(not clean)
        if clean:
            self.autosave.remove()

    def _set_file(self, path, meta, name=None):
        self.path = os.path.abspath(path) if path is not None else None
        self.meta = dict(meta)
        self.name = name or (os.path.basename(self.path) if self.path else "Untitled")
        self.update_title()

    def detach(self):
        """The graph shown was replaced by one that is not the file's (a Run, a trace,
        an engine's failing expression): the document becomes untitled, so Save asks
        where and never writes this graph over the file that was open before."""
        if self.path is not None:
            self._set_file(None, {})

    # -- unsaved changes ------------------------------------------------------------------

    def maybe_save(self):
        """True if the current work may be replaced: saved, or the user said so."""
        if not self.modified:
            return True
        answer = ask_save_changes(self.window, self.name)
        if answer == "save":
            return self.save()
        return answer == "discard"

    def close_event(self, event):
        """The window is closing: ask about unsaved work; False if the user cancelled."""
        if self.prompt_on_close and not self.maybe_save():
            event.ignore()
            return False
        self.autosave.close()
        close_message_boxes(self.window)
        self.save_ui_state()
        return True

    # -- new / open / revert -----------------------------------------------------------------

    def new(self):
        if not self.maybe_save():
            return False
        self.window.show_document(GraphDocument(), "New graph", layout=False, undoable=False)
        self.window.view.reset_zoom()  # nothing to fit: a new graph starts at 100 %, not at the last zoom
        self._set_file(None, {})
        return True

    def open_dialog(self):
        if not self.maybe_save():
            return False
        start = os.path.dirname(self.path) if self.path else ""
        path = ask_open_path(self.window, "Open graph", start)
        return self.open(path, ask=False) if path else False

    def read(self, path):
        """(doc, meta, groups) of a file; FormatError (naming the fault) or OSError."""
        doc, meta = graph_file.load(path)
        try:
            meta, groups = split_meta(meta, doc)
        except GroupError as e:
            raise graph_file.FormatError(f"{path}: {e}") from None
        return doc, meta, groups

    def open(self, path, ask=True):
        """Open a graph file; on any fault say what it is and keep the current graph.
        A file of ASYNC_OPEN_BYTES or more is read and checked on a worker thread:
        then this returns True at once and the graph comes when it is ready."""
        if ask and not self.maybe_save():
            return False
        text = f"Open {os.path.basename(str(path))}"
        if ASYNC_OPEN_BYTES <= _file_size(path) <= graph_file.MAX_BYTES:  # larger: refused at once
            self.window.run_in_background(
                lambda: self._read_for_showing(path, text),
                lambda outcome: self._opened(path, text, outcome),
                f"Opening {os.path.basename(str(path))}…",
            )
            return True
        try:
            outcome = self._read_for_showing(path, text, prepare=False)
        except (OSError, ValueError, graph_file.FormatError) as e:
            outcome = e
        return self._opened(path, text, outcome)

    def _read_for_showing(self, path, text, prepare=True):
        """(doc, meta, groups, replacement): the file read and checked, and -- when it
        needs no layout, and `prepare` -- the ReplaceDocument that shows it. Touches
        no widget: this runs on a worker thread for a large file."""
        doc, meta, groups = self.read(path)
        replacement = ReplaceDocument(doc, text) if prepare and not _needs_layout(doc) else None
        return doc, meta, groups, replacement

    def _opened(self, path, text, outcome):
        if isinstance(outcome, Exception):
            self._open_failed(path, outcome)
            return False
        doc, meta, groups, replacement = outcome
        if not self._show(doc, groups, text, replacement, meta):
            return False
        self._set_file(path, meta)
        self._remember(path)
        self.window.editor.set_source_note(os.path.basename(str(path)))
        self.window.show_message(f"Opened {path}")
        return True

    def _open_failed(self, path, error):
        name = os.path.basename(str(path))
        if isinstance(error, FileNotFoundError) or getattr(error, "fault", None) == "missing":
            text = f"There is no file {path}."
        elif isinstance(error, OSError):
            text = f"{path} could not be read: {error.strerror or error}."
        else:
            text = str(error)
        message = f"Could not open {name}: {text}"
        self.window.show_message(message)  # not in the editor's box: that speaks of the editor's text
        show_error(
            self.window, "Could not open the file", f"{name} was not opened.\n\n{text}\n\nThe graph shown is unchanged."
        )

    def _show(self, doc, groups, text, replacement=None, meta=None):
        """Show a file's graph; its positions are kept as saved if it was saved for
        today's node boxes (meta "canvas"), else re-checked for overlaps."""
        current = meta is not None and meta.get("canvas") == CANVAS_VERSION
        return self.window.show_document(
            doc,
            text,
            layout=_needs_layout(doc),
            undoable=False,
            groups=groups,
            replacement=replacement,
            keep_positions=current,
        )

    def open_example(self, path):
        """An example opens as an untitled copy: saving asks where, never over the example."""
        if not self.maybe_save():
            return False
        try:
            doc, meta, groups = self.read(path)
        except (OSError, ValueError, graph_file.FormatError) as e:
            self._open_failed(path, e)
            return False
        if not self._show(doc, groups, "Open example", meta=meta):
            return False
        self._set_file(None, meta, name=f"{meta.get('title') or os.path.basename(path)} (example)")
        return True

    def revert(self):
        if self.path is None:
            self.window.show_message("This graph was never saved: there is no file to go back to.")
            return False
        if self.modified and not ask_confirm(
            self.window, "Revert", f"Discard your changes and go back to {self.name} as saved?"
        ):
            return False
        return self.open(self.path, ask=False)

    # -- save ---------------------------------------------------------------------------------

    def save(self):
        if self.path is None:
            return self.save_as()
        return self.save_to(self.path)

    def save_as(self, path=None):
        if path is None:
            suggested = self.path or os.path.join(os.path.expanduser("~"), "graph.json")
            path = ask_save_path(self.window, "Save graph as", suggested)
            if not path:
                return False
            if not os.path.splitext(path)[1]:
                path += ".json"
        return self.save_to(path)

    def save_to(self, path):
        meta = dict(self.meta)
        meta.setdefault("title", os.path.splitext(os.path.basename(str(path)))[0])
        meta["canvas"] = CANVAS_VERSION  # the positions are for today's node boxes
        try:
            graph_file.save(self.session.doc, path, join_meta(meta, self.session.groups.to_list()))
        except (OSError, ValueError) as e:
            text = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            show_error(
                self.window,
                "Could not save",
                f"{path} was not written: {text}.\n\nYour graph is still open; try another folder or name.",
            )
            self.window.show_message(f"Could not save {path}: {text}")
            return False
        self.stack.setClean()
        self._set_file(path, meta)
        self._remember(path)
        self.autosave.remove()
        self.window.show_message(f"Saved {path}")
        return True

    # -- code in and out --------------------------------------------------------------------

    def export_code(self, kind, path):
        try:
            text = to_python(self.session.doc) if kind == "python" else to_pytorch(self.session.doc)
            write_atomically(str(path), text)
        except (OSError, ValueError) as e:
            show_error(self.window, "Could not export", f"The graph was not exported: {e}")
            return False
        self.window.show_message(f"Exported {path}")
        return True

    def export_code_dialog(self, kind):
        stem = os.path.splitext(self.name)[0] if self.path else "graph"
        suggested = f"{stem}_torch.py" if kind == "pytorch" else f"{stem}.py"
        path = ask_save_path(
            self.window, "Export as PyTorch" if kind == "pytorch" else "Export as Python", suggested, "Python (*.py)"
        )
        return self.export_code(kind, path) if path else False

    def export_graph(self, kind, path):
        """Write the graph as GraphML or DOT (core/files/interchange.py)."""
        try:
            write_atomically(str(path), graphml(self.session.doc) if kind == "graphml" else dot(self.session.doc))
        except (OSError, ValueError) as e:
            show_error(self.window, "Could not export", f"The graph was not exported: {e}")
            return False
        self.window.show_message(f"Exported {path}")
        return True

    def export_graph_dialog(self, kind):
        stem = os.path.splitext(self.name)[0] if self.path else "graph"
        title, pattern = (
            ("Export as GraphML", "GraphML (*.graphml)")
            if kind == "graphml"
            else ("Export as Graphviz DOT", "Graphviz DOT (*.dot *.gv)")
        )
        path = ask_save_path(self.window, title, f"{stem}.{'graphml' if kind == 'graphml' else 'dot'}", pattern)
        return self.export_graph(kind, path) if path else False

    def import_snippet(self, path):
        """Read micrograd-style code into the graph (one undoable step)."""
        try:
            # the strict reader: a FIFO or a device is refused before it is opened
            text = strict_json.decode(strict_json.read_bytes(path, graph_file.MAX_BYTES, "a snippet"), "a snippet")
            doc = parse(text)
        except ExprError as e:
            show_error(
                self.window,
                "Could not import",
                f"{os.path.basename(path)}, line {e.line}, column {e.col}: {e.message}\n\n"
                "The graph shown is unchanged.",
            )
            return False
        except strict_json.JSONFileError as e:
            show_error(
                self.window,
                "Could not import",
                f"{os.path.basename(path)}: {e.message}\n\nThe graph shown is unchanged.",
            )
            return False
        except (OSError, UnicodeDecodeError, ValueError) as e:
            show_error(
                self.window, "Could not import", f"{os.path.basename(path)}: {e}\n\nThe graph shown is unchanged."
            )
            return False
        self.window.editor.set_text(text)
        if not self.window.show_document(doc, f"Import {os.path.basename(path)}"):
            return False
        self.detach()
        return True

    def import_snippet_dialog(self):
        path = ask_open_path(self.window, "Import snippet", "", "Python (*.py *.txt);;All files (*)")
        return self.import_snippet(path) if path else False

    # -- pictures: PNG and SVG of the whole graph ------------------------------------------------

    # -- drop a file on the window -------------------------------------------------------------

    @staticmethod
    def dropped_path(mime):
        """The .json file a drag carries, or None."""
        if mime is None or not mime.hasUrls():
            return None
        for url in mime.urls():
            if url.isLocalFile() and url.toLocalFile().lower().endswith(".json"):
                return url.toLocalFile()
        return None

    # -- autosave and recovery -------------------------------------------------------------------

    def _snapshot(self):
        if not self.modified:
            return None
        return (self.session.doc, self.meta, self.session.groups.to_list(), self.path, self.name)

    def offer_recovery(self):
        """Offer autosaved work that a crash left behind; True if some was restored."""
        orphans = self.autosave.orphans()
        restored = False
        for orphan in orphans:
            if restored:
                orphan.release()  # any others wait for the next start
                continue
            recovered = orphan.read()
            if recovered is None:
                show_error(
                    self.window,
                    "Autosave unreadable",
                    f"Autosaved work was found but could not be read:\n{orphan.error}\n\nIt is kept at {orphan.path}.",
                )
                orphan.release()
                continue
            answer = ask_recover(self.window, recovered, recovered.saved_at)
            if answer == "discard":
                orphan.discard()
                continue
            if answer != "restore" or not self.maybe_save():
                orphan.release()
                continue
            ok = self.window.show_document(
                recovered.doc,
                "Recover autosaved work",
                layout=False,
                undoable=True,
                groups=recovered.groups,
                keep_positions=True,
            )
            if ok and self.window.layout_pending:
                ok = self.window.wait_for_layout()  # shown before the copy it came from goes
            if not ok:
                orphan.release()
                continue
            self._set_file(recovered.source, recovered.meta, name=recovered.title or None)
            self.autosave.changed()
            self.autosave.tick(wait=True)  # written before the old copy goes: never no copy
            orphan.discard()
            self.window.show_message("Restored the autosaved work. Save it to keep it.")
            restored = True
        return restored

    # -- UI state (QSettings, never graph files) -------------------------------------------------

    def save_ui_state(self):
        self.settings.setValue("window/geometry", self.window.saveGeometry())
        self.settings.setValue("window/state", self.window.saveState())
        self.settings.sync()

    def restore_ui_state(self):
        geometry = self.settings.value("window/geometry")
        state = self.settings.value("window/state")
        ok = False
        if geometry is not None:
            ok = self.window.restoreGeometry(geometry)
        if state is not None:
            ok = self.window.restoreState(state) and ok
            self.window.docks_arranged = True  # the user's own arrangement: keep it
        return ok
