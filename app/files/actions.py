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

Every dialog goes through one of the small functions of app/files/dialogs.py
(`show_error`, `ask_save_changes`, `ask_open_path`, ...) so tests replace them
and never meet a modal window; `show_error` is not modal anyway.

The parts of the menu live in one module each, mixed into FileActions: the
dialogs (dialogs.py), the examples (examples.py), Open Recent (recent.py),
import and exports (exports.py), crash recovery (recovery.py). This module keeps
new, open, save and revert. (The window's geometry, also in QSettings, is the
window's own: window_state.py.)

FileActions is handed the window's `Services` (app/services.py: its `parent` is the
window, whose title bar names the file) and, by name, what else it uses: the editor
(the note naming the open file, an imported snippet's text) and `run_script`, which
runs a .py picked in File → Open as Python (the code runner, app/editor/code_runner.py).
It never holds the window.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import QObject, QSettings
from PySide6.QtGui import QKeySequence

from app.files import dialogs
from app.files.autosave import AutosaveManager
from app.files.dialogs import GRAPH_FILTER  # noqa: F401 (where it was)
from app.files.examples import EXAMPLES_DIR, examples  # noqa: F401 (EXAMPLES_DIR: where it was)
from app.files.exports import CodeAndGraphExports
from app.files.recent import MAX_RECENT, RecentFiles  # noqa: F401 (MAX_RECENT: where it was)
from app.files.recovery import Recovery
from app.graph.node_geometry import CANVAS_VERSION
from app.services import Editor, Services
from app.settings import settings
from core.document.commands import ReplaceDocument
from core.document.graph import GraphDocument
from core.document.groups import GroupError, join_meta, split_meta
from core.document.layout import positions_pile_up
from core.files import graph_file
from core.files.atomic import sweep_stale_temps

ASYNC_OPEN_BYTES = 300_000  # from this size on (~1,000 nodes) a file is read on a worker thread


def _file_size(path):
    try:
        return os.path.getsize(path)
    except (OSError, TypeError, ValueError):
        return 0  # reading it says what is wrong


def _needs_layout(doc):
    """A file whose nodes mostly share a position was written without a layout."""
    return positions_pile_up(node.pos for node in doc.nodes.values())


# -----------------------------------------------------------------------------
# The file of one window


class FileActions(RecentFiles, CodeAndGraphExports, Recovery, QObject):
    def __init__(
        self,
        services: Services,
        editor: Editor,
        run_script: Callable[[str], bool],
        settings_store: QSettings | None = None,
        autosave_dir: str | None = None,
    ) -> None:
        super().__init__(services.parent)
        self.services = services
        self.session = services.session
        self.stack = services.undo_stack
        self.editor = editor  # the note naming the open file; an imported snippet's text
        self.run_script = run_script  # a .py picked in File → Open runs as Python (app/editor/code_runner.py)
        self.settings = settings_store if settings_store is not None else settings()
        self.path = None  # the file the document belongs to (None: untitled)
        self.folder = None  # the folder of the last file opened or saved
        self.name = "Untitled"  # what the title bar calls it
        self.meta = {}  # the file's meta without groups (title, description, ...)
        self.prompt_on_close = True
        self.autosave = AutosaveManager(self._snapshot, autosave_dir, parent=self)
        self.session.doc.changed.connect(self.autosave.changed)
        self.session.groups.changed.connect(self.autosave.changed)
        self.stack.cleanChanged.connect(self._clean_changed)
        self._alive = True  # the undo stack's last signals arrive while the window is destroyed
        services.parent.destroyed.connect(self._window_destroyed)
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
        a = self.services.add_action
        a("File", "&New", self.new, QKeySequence.New, key="new", tip="Start an empty graph")
        a("File", "&Open…", self.open_dialog, QKeySequence.Open, key="open", tip="Open a saved graph (.json)")
        menu = self.services.menu("File")
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
            tip="Save the graph as a Python script that runs as it is (python graph.py) on the studio's "
            "engine and prints every input's data and grad",
        )
        a(
            "File",
            "Export as Python for &micrograd…",
            lambda: self.export_code_dialog("micrograd"),
            key="export micrograd",
            tip="The same script on micrograd's engine (pip install micrograd), where its ops allow: "
            "micrograd has no tanh, exp, log, sigmoid or c**x",
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
        a(
            "File",
            "Export as I&nteractive Page (HTML)…",
            self.export_page_dialog,
            key="export page",
            tip="One web page that steps the backward pass in any browser, offline: Step, Back, a slider; "
            "link page.html#step=5 to open it at step 5",
        )
        menu.addSeparator()
        self.update_title()

    # -- the title and the `*` ------------------------------------------------------------

    @property
    def modified(self):
        return not self.stack.isClean()

    def update_title(self):
        """The window's title bar names the file; its `*` marks unsaved changes."""
        self.services.parent.setWindowTitle(f"{self.name}[*] — Backprop Studio")
        self.services.parent.setWindowModified(self.modified)

    def _window_destroyed(self, *_):
        self._alive = False

    def _clean_changed(self, clean):
        if not self._alive:
            return
        self.services.parent.setWindowModified(not clean)
        if clean:
            self.autosave.remove()

    def _set_file(self, path, meta, name=None):
        self.path = os.path.abspath(path) if path is not None else None
        if self.path is not None:
            self.folder = os.path.dirname(self.path)  # where Save As offers to save next
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
        answer = dialogs.ask_save_changes(self.services.parent, self.name)
        if answer == "save":
            return self.save()
        return answer == "discard"

    def close_event(self, event):
        """The window is closing: ask about unsaved work; False if the user cancelled."""
        if self.prompt_on_close and not self.maybe_save():
            event.ignore()
            return False
        self.autosave.close()
        dialogs.close_message_boxes(self.services.parent)
        return True

    # -- new / open / revert -----------------------------------------------------------------

    def new(self):
        if not self.maybe_save():
            return False
        self.services.show_document(GraphDocument(), "New graph", layout=False, undoable=False)
        self.services.view.reset_zoom()  # nothing to fit: a new graph starts at 100 %, not at the last zoom
        self._set_file(None, {})
        return True

    def open_dialog(self):
        if not self.maybe_save():
            return False
        start = os.path.dirname(self.path) if self.path else ""
        path = dialogs.ask_open_path(self.services.parent, "Open graph", start)
        if path and path.lower().endswith(".py"):  # a script: run as Python, as if pasted (app/editor/code_runner.py)
            return self.run_script(path)
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
            self.services.run_in_worker(
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
        self.editor.set_source_note(os.path.basename(str(path)))
        self.services.say(f"Opened {path}")
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
        self.services.say(message)  # not in the editor's box: that speaks of the editor's text
        dialogs.show_error(
            self.services.parent,
            "Could not open the file",
            f"{name} was not opened.\n\n{text}\n\nThe graph shown is unchanged.",
        )

    def _show(self, doc, groups, text, replacement=None, meta=None):
        """Show a file's graph; its positions are kept as saved if it was saved for
        today's node boxes (meta "canvas"), else re-checked for overlaps."""
        current = meta is not None and meta.get("canvas") == CANVAS_VERSION
        return self.services.show_document(
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
            self.services.say("This graph was never saved: there is no file to go back to.")
            return False
        if self.modified and not dialogs.ask_confirm(
            self.services.parent, "Revert", f"Discard your changes and go back to {self.name} as saved?"
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
            suggested = self.path or os.path.join(self.folder or os.path.expanduser("~"), "graph.json")
            path = dialogs.ask_save_path(self.services.parent, "Save graph as", suggested)
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
            dialogs.show_error(
                self.services.parent,
                "Could not save",
                f"{path} was not written: {text}.\n\nYour graph is still open; try another folder or name.",
            )
            self.services.say(f"Could not save {path}: {text}")
            return False
        self.stack.setClean()
        self._set_file(path, meta)
        self._remember(path)
        self.autosave.remove()
        self.services.say(f"Saved {path}")
        return True

    # -- drop a file on the window -------------------------------------------------------------

    @staticmethod
    def dropped_path(mime):
        """The .json graph or .py script a drag carries, or None."""
        if mime is None or not mime.hasUrls():
            return None
        for url in mime.urls():
            if url.isLocalFile() and url.toLocalFile().lower().endswith((".json", ".py")):
                return url.toLocalFile()
        return None
