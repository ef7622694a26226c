"""The one place the app keeps the current graph: `GraphSession`.

`GraphSession` is the single source of truth every panel subscribes to:

* `doc`       -- the GraphDocument being shown and edited (never replaced; a
                 new graph arrives through the undoable `ReplaceDocument`);
* `compiled`  -- the result of `core.document.compile.compile_document(doc)`: Values by
                 node id, the output Value, missing ports (the output of the compile
                 before is kept while a new, unwired part makes it ambiguous);
* `current_id` -- the selected node (not an edit, so not undoable);
* `groups`    -- the document's groups (core/document/groups.py: neurons and layers the
                 canvas can collapse), changed only by commands, like `doc`.

Edits go through `push(command)`, which wraps a core command in a
`CommandAdapter` and pushes it onto the window's QUndoStack; Qt calls `redo`,
which runs `command.do(doc)`. Document events mark the session dirty; the
adapter then recompiles at once (one compile per gesture, however many events
the command emitted), and a zero-time timer catches edits made any other way.

Signals:
    recompiled()           after every compile (and the automatic backward pass)
    gradsChanged(object)   after grads changed: None = every node, or a list of ids
    currentChanged(object) the selected node id, or None
    message(str)           a problem to show the user (a core error at the GUI boundary)
"""

from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QUndoStack

from app.undo import CommandAdapter
from core.document.commands import Command, Macro, ReplaceDocument
from core.document.compile import Compiled, compile_document
from core.document.graph import GraphDocument
from core.document.groups import GroupTable, SetGroups
from core.engine import Value

# Node changes that cannot alter any number: the scene handles them alone.
_COSMETIC_FIELDS = ("pos", "label")


class GraphSession(QObject):
    """The current GraphDocument, its compiled Values and the selection."""

    recompiled = Signal()
    gradsChanged = Signal(object)
    currentChanged = Signal(object)
    message = Signal(str)

    def __init__(self, undo_stack=None, parent=None) -> None:
        super().__init__(parent)
        self.undo_stack = undo_stack if undo_stack is not None else QUndoStack(self)
        self.doc = GraphDocument()
        self.doc.changed.connect(self._on_doc_changed)
        self.groups = GroupTable()
        self.compiled: Compiled | None = None
        self.compile_error: Exception | None = None
        self.last_error: Exception | None = None  # what the last push refused, and why
        self.current_id: str | None = None
        self.auto_backward = True  # run backward after every compile, like the tutorial
        # What the grads on the canvas are, for texts that describe them: "full" (a whole
        # backward() from the output), "zero" (none yet, or Zero Grads), or "lesson" (a
        # lesson's Values, as its step left them), or "code" (Run as Python: the learner's
        # Values as their cell left them).
        self.grads_shown = "zero"
        self._dirty = False
        self._forget_output = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.flush)

    # -- reading -----------------------------------------------------------------

    @property
    def values(self) -> dict[str, Value]:
        """{node id: Value} of the last compile ({} before the first)."""
        return self.compiled.values if self.compiled is not None else {}

    @property
    def output_value(self) -> Value | None:
        return self.compiled.output if self.compiled is not None else None

    @property
    def output_id(self) -> str | None:
        """The id of the node backward runs from (None if there is none): the
        document's own output, or the one kept while an unwired part waits."""
        return self.compiled.output_id if self.compiled is not None else None

    def value(self, nid: str) -> Value | None:
        return self.values.get(nid)

    # -- editing -----------------------------------------------------------------

    def push(self, command: Command) -> tuple[bool, Exception | None]:
        """Apply a core command through the undo stack; returns (ok, error). A command
        that would change nothing is not pushed: the history holds no empty step."""
        self.last_error = None
        if command.changes_nothing(self.doc):
            return True, None
        self.undo_stack.push(CommandAdapter(command, self))
        error = self.last_error
        if error is not None:
            self.message.emit(str(error))
        return error is None, error

    def replace(
        self, graph: Any, text: str = "Replace graph", groups: Any = (), replacement: Any = None
    ) -> tuple[bool, Exception | None]:
        """Show another graph (GraphDocument or dict) as one undoable step; the
        groups of the old graph go, `groups` (plain dicts) come with the new one.
        `replacement` is graph's ReplaceDocument if one was made already (checking
        a large graph takes a while: app/graph/layout_runner.py makes it off the GUI thread)."""
        try:
            swap = replacement if replacement is not None else ReplaceDocument(graph, text)
            command = Macro(text, [swap, SetGroups(self.groups, groups)])
        except Exception as exc:
            self.message.emit(str(exc))
            return False, exc
        return self.push(command)

    # -- compiling -----------------------------------------------------------------

    def _on_doc_changed(self, event, *details) -> None:
        if event == "node_changed" and details[1] in _COSMETIC_FIELDS:
            return
        if (event == "node_removed" and details[0] == self.current_id) or event == "reset":
            self.select(None)
        if event == "reset":
            self._forget_output = True  # another graph: its ids mean other nodes
        self._dirty = True
        if not self._timer.isActive():  # a restart costs more; opening 5,000 nodes sends 12,000 events
            self._timer.start()

    def flush(self) -> None:
        """Recompile now if the document changed since the last compile."""
        self._timer.stop()
        if self._dirty:
            self.recompile()

    def recompile(self) -> None:
        self._dirty = False
        self._timer.stop()
        keep = None if self._forget_output or self.compiled is None else self.compiled.output_id
        self._forget_output = False
        try:
            self.compiled = compile_document(self.doc, keep)
            self.compile_error = None
        except Exception as exc:  # never let a core bug take the window down
            self.compiled = None
            self.compile_error = exc
            self.message.emit(f"Could not compute the graph: {exc}")
        self.grads_shown = "zero"
        if self.auto_backward:
            self._run_backward()
        self.recompiled.emit()

    # -- gradients -----------------------------------------------------------------

    def _run_backward(self):
        out = self.output_value
        for v in self.values.values():
            v.grad = 0.0
        self.grads_shown = "zero"
        if out is None:
            return False
        try:
            out.backward()
        except Exception as exc:
            self.message.emit(f"Backward failed: {exc}")
            return False
        self.grads_shown = "full"
        return True

    def backward(self) -> bool:
        """Zero every grad, then backpropagate from the output. False if no output."""
        self.flush()
        ok = self._run_backward()
        if not ok and self.output_value is None:
            self.message.emit(
                "No output to backpropagate from: the graph needs a single output node with all its inputs wired."
            )
        self.gradsChanged.emit(None)
        return ok

    def zero_grads(self) -> None:
        self.flush()
        for v in self.values.values():
            v.grad = 0.0
        self.grads_shown = "zero"
        self.gradsChanged.emit(None)

    def notify_grads(self, ids=None) -> None:
        """Tell the views that grads changed (e.g. after a debugger step) for `ids`."""
        self.gradsChanged.emit(None if ids is None else list(ids))

    # -- selection -------------------------------------------------------------------

    def select(self, nid) -> None:
        if nid is not None and nid not in self.doc.nodes:
            nid = None
        if nid != self.current_id:
            self.current_id = nid
            self.currentChanged.emit(nid)
