"""The runner's graph on the main canvas, with the step's nodes highlighted.

For a graph lesson the canvas shows the runner's own Values: the data and grads
on screen ARE the runner's, so a partial backward pass, a nudge or the
zero-grad bug shows exactly as the lesson text describes it.

The bridge is handed the window's Services (app/services.py: the session, the canvas,
show_document and the layout's progress), the window's file (to keep the user's
document saved and untitled while a lesson has the canvas), presenter mode (which
frames the step for the room) and the editor's source note: never the window.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from core.document.compile import Compiled
from core.document.graph import GraphDocument
from core.engine import topological_order

if TYPE_CHECKING:
    from app.lessons.presenter_layout import PresenterFit
    from app.look.presenter import Appearance
    from app.services import Services

READABLE_ZOOM = 0.5  # below this the canvas zooms in on the step's nodes


class DocumentFile(Protocol):
    """What the bridge reads and sets of the window's file (app/files/actions.py's
    FileActions; a lesson does not import the files panel)."""

    @property
    def modified(self) -> bool: ...

    @property
    def path(self) -> str | None: ...

    @property
    def name(self) -> str: ...

    def _set_file(self, path: str | None, meta: dict[str, Any], name: str | None = None) -> None: ...


class GraphBridge:
    """Shows a runner's graph on the window's canvas so the canvas reads the runner's Values.

    The document goes in as one undoable step (`services.show_document`), then the
    session's compiled Values are swapped for the runner's (`adopt`). An edit on
    the canvas recompiles from the document, which simply detaches the canvas
    from the lesson; the next lesson move shows the lesson's graph again.
    `files`: the user's document, kept saved; `appearance` and `presenter_fit`:
    presenter mode frames the step for the room; `source_note`: the editor's note
    on where the canvas's graph comes from.
    """

    def __init__(
        self,
        services: Services,
        files: DocumentFile | None = None,
        appearance: Appearance | None = None,
        presenter_fit: PresenterFit | None = None,
        source_note: Callable[[str | None], None] | None = None,
    ) -> None:
        self.services = services
        self.session = services.session
        self.files = files
        self.appearance = appearance
        self.presenter_fit = presenter_fit
        self.source_note = source_note
        self.adopted = None  # the Compiled we put into the session
        self._adopting = False
        self._pending = None  # a (doc, by_id, root, highlight, statuses) waiting for a layout
        self.touched = False  # the runner's Values were changed from outside the lesson
        self._masks: dict[str, Any] = {}
        self._keep_clean = False  # the user's document was saved when the lesson took the canvas
        self._title = ""
        self.session.gradsChanged.connect(self._grads_changed)
        services.layout_finished.connect(self._layout_finished)

    @property
    def showing_runner(self):
        return self.adopted is not None and self.session.compiled is self.adopted

    @property
    def presenting(self) -> bool:
        """In presenter mode the step is framed for the room (app/lessons/presenter_layout.py)."""
        return self.appearance is not None and self.appearance.presenting

    def set_note(self, note: str | None) -> None:
        """The editor's note on where the canvas's graph comes from (the lesson's step)."""
        if self.source_note is not None:
            self.source_note(note)

    def _grads_changed(self, _ids):
        if not self._adopting and self.showing_runner:
            self.touched = True  # Backward, Zero Grads, the debugger: the lesson state moved

    def detach(self):
        """Stop showing the runner's Values (before a worker changes them)."""
        if self.showing_runner:
            self._adopting = True
            try:
                self.session.recompile()
            finally:
                self._adopting = False
        self.adopted = None

    def show(self, runner, highlight=(), statuses=None, label="", masks=None):
        """Put runner's graph on the canvas; `masks` {node id: (data text or None, grad
        text or None, dimmed)} covers values the screen must not show yet (a forward
        pass not there yet, a quiz answer). A lesson never marks the user's document
        modified: if it was saved (or empty) before, it still counts as saved, and as
        untitled, so Save never writes the lesson's graph over the user's file."""
        self._masks = masks or {}
        files = self.files
        self._keep_clean = files is not None and not files.modified
        self._title = label.split(",")[0]
        doc = _with_leaf_values(runner.document, runner.by_id)
        by_id = runner.by_id
        # the output of the graph on the canvas (for a big network: its neuron, not the loss)
        root = by_id.get(runner.document.output) or runner.root
        current = self.session.doc
        if _signature(current) == _signature(doc) and _leaf_values(current) == _leaf_values(doc):
            self._adopt(by_id, root, highlight, statuses)
            return
        if _signature(current) == _signature(doc):  # same graph, a leaf changed: keep the places
            for nid, node in doc.nodes.items():
                node.pos = current.nodes[nid].pos
            self.services.show_document(doc, f"Lesson: {label}", layout=False)
        else:
            self.services.show_document(doc, f"Lesson: {label}")
        if self.services.layout_pending():
            self._pending = (by_id, root, highlight, statuses)
            return
        self._adopt(by_id, root, highlight, statuses)

    def _layout_finished(self):
        pending, self._pending = self._pending, None
        if pending is not None:
            self._adopt(*pending)

    def _adopt(self, by_id, root, highlight, statuses):
        value_to_id = {v: nid for nid, v in by_id.items()}
        order = [value_to_id[v] for v in topological_order(root) if v in value_to_id]
        compiled = Compiled(dict(by_id), root, {}, order)
        self._adopting = True
        try:
            self.session.flush()
            self.session.compiled = compiled
            self.session.grads_shown = "lesson"
            self.adopted = compiled
            self.session.recompiled.emit()
        finally:
            self._adopting = False
        self.touched = False
        scene = self.services.scene
        scene.marks.set_highlight(highlight)
        if statuses:
            scene.marks.set_node_status(statuses)
        else:
            scene.marks.clear_node_status()
        self.set_masks(self._masks)
        self._keep_saved()
        fit = self.presenter_fit
        if fit is not None and self.presenting:
            fit.request()  # presenter mode frames the step for the room (a graph laid out late, too)
        else:
            self._follow(highlight)

    def set_masks(self, masks):
        """{node id: (data text, grad text, dimmed) or None}; every other node of the
        lesson's graph shows its real numbers."""
        self._masks = dict(masks)
        scene = self.services.scene
        ids = scene.node_items().keys()
        scene.marks.update_masks({nid: self._masks.get(nid) for nid in ids})

    def _keep_saved(self):
        files = self.files
        if not self._keep_clean or files is None:
            return
        if files.modified:
            self.services.undo_stack.setClean()
        if files.path is not None or not files.name.startswith("Lesson"):
            files._set_file(None, {}, name=f"Lesson: {self._title}")

    def _follow(self, highlight):
        """Bring the step's nodes into view when the graph is too big to read whole
        (a network's loss graph): the camera follows the lesson."""
        view, scene = self.services.view, self.services.scene
        items = [scene.node_item(nid) for nid in highlight if scene.node_item(nid) is not None]
        if not items:
            return
        visible = view.mapToScene(view.viewport().rect()).boundingRect()
        readable = view.zoom() >= READABLE_ZOOM
        if readable and all(visible.contains(item.sceneBoundingRect()) for item in items):
            return
        view.center_on_node(items[0].nid, min_zoom=0.65)

    def clear_highlight(self):
        self.services.scene.marks.set_highlight(())


def _signature(doc):
    """The structure of a document, without positions or leaf values."""
    nodes = tuple((nid, n.kind, n.op, n.param, n.label) for nid, n in doc.nodes.items())
    return nodes, tuple(sorted((e.src, e.dst, e.port) for e in doc.edges)), doc.output


def _leaf_values(doc):
    return {nid: n.value for nid, n in doc.nodes.items() if n.kind != "op"}


def _with_leaf_values(doc, by_id):
    """A fresh copy of doc whose leaves hold the Values' data now (a set_value
    action changes the Value, not the runner's document)."""
    copy = GraphDocument.from_dict(doc.to_dict())
    for nid, node in copy.nodes.items():
        v = by_id.get(nid)
        if node.kind != "op" and v is not None and math.isfinite(v.data):
            node.value = v.data
    return copy
