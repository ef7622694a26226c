"""Arranging a graph for the window: core.document.layout, on the GUI thread or in a worker.

A small graph is laid out at once. From ASYNC_LAYOUT_NODES nodes on, the node
sizes are measured on the GUI thread (they need the window's fonts) in slices
(app/slices.py), then a `Job` (app/jobs.py) runs core.document.layout on that plain data
(ids, edges, sizes) and the window stays responsive. For a graph about to be
shown, the worker also places its nodes and makes the `ReplaceDocument` that
shows it, which checks the whole graph -- a tenth of a second at 5,000 nodes
that the GUI thread is spared. It may touch that document because
`show_document` is given a fresh one that nobody else holds.

A large file is read the same way (`run_in_worker`): parsing and checking the
JSON of 5,000 nodes and making its ReplaceDocument take ~0.1 s, done on a
`Job` while the window answers. So is a large traced graph
(`open_traced`): the Values are read on the GUI thread (~12 ms at 5,000 nodes:
no Value crosses threads), the document is built and checked from that plain
data on a worker (~50 ms).

The sizes are measured with the canvas's own theme when it is at scale 1, so
the node geometries measured for the layout are the ones the canvas items use
next (app/graph/node_geometry.py keeps them per theme).

`LayoutRunner.place` decides how a document about to be shown gets its positions:
arranged, or kept as saved (unless they pile up, or the boxes measured today overlap),
its wire routes reused when they are the layout's. The window shows the outcome.

`LayoutRunner` is that job, one per window, holding its own state: every request
takes a new token; a result whose token is no longer the pending one is stale and
dropped. The window holds it (`window.arranger`) and asks it; it knows of the
window only the canvas (fonts, `building`), the status bar and a callback for
"pending changed".
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Slot
from PySide6.QtWidgets import QApplication, QStatusBar

from app import collector
from app.graph.node_geometry import node_size
from app.jobs import Job
from app.slices import SlicedJob
from core.document.commands import ReplaceDocument
from core.document.compile import trace_data, traced_document
from core.document.graph import GraphDocument
from core.document.layout import boxes_overlap, positions_pile_up, sugiyama
from core.document.names import naming_steps

ASYNC_LAYOUT_NODES = 400  # from this size on, the layout runs in a worker thread
ROUTE_SLACK = 6.0  # document units: a saved position this close to the layout's is the layout's


def _layout_work(data, prepare):
    """On a Job's thread: core.document.layout of the plain data (ids, edges, sizes),
    then `prepare(positions)` if given -> (result, prepared); result is (positions,
    routes) or the exception the layout raised, prepared None if prepare failed
    (the GUI thread then does it again, and says what is wrong)."""
    try:
        result = run_layout(*data)
    except Exception as e:
        return e, None
    prepared = None
    if prepare is not None:
        try:
            prepared = prepare(result[0])
        except Exception:
            prepared = None
    return result, prepared


def _job_work(job):
    """On a Job's thread: job() -> (its result or the exception it raised, None)."""
    try:
        return job(), None
    except Exception as e:
        return e, None


def run_layout(ids, edges, sizes, layer_gap, node_gap) -> tuple[dict, dict]:
    """core.document.layout of the plain data: (positions, routes)."""
    layout = sugiyama(ids, edges, sizes=sizes, layer_gap=layer_gap, node_gap=node_gap)
    return layout.positions, layout.routes


def place_nodes(doc: GraphDocument, positions: dict) -> None:
    """Put doc's nodes at the layout's positions (doc not shown yet: no event)."""
    nodes = doc.nodes
    for nid, pos in positions.items():
        nodes[nid].pos = (float(pos[0]), float(pos[1]))


def prepare_replacement(doc: GraphDocument, text: str, positions: dict) -> ReplaceDocument:
    """On the worker thread: the laid-out doc and the ReplaceDocument that shows it
    (which also sorts the graph: ~40 ms at 5,000 nodes the compile would otherwise
    spend on the GUI thread)."""
    place_nodes(doc, positions)
    return ReplaceDocument(doc, text)


class LayoutRunner(QObject):
    """The window's layout job: at most one request pending (a layout, a measuring, a
    file read or a trace built on a worker), with its token, its workers and its
    measuring job. `changed()` is called when `pending` may have changed."""

    def __init__(
        self, scene: Any, status: Callable[[], QStatusBar], changed: Callable[[], None], parent: QObject
    ) -> None:
        super().__init__(parent)  # a QObject of the GUI thread: the workers' `done` is delivered there
        self.scene = scene  # GraphScene: its theme measures, its `building` counts as pending
        self._status = status
        self._changed = changed
        self._parent = parent  # the Jobs' parent (the window)
        self._token = 0
        self._pending: tuple[int, Callable[..., Any], bool] | None = None  # (token, then, wants prepared)
        self.workers: list[Job] = []
        self._measuring: SlicedJob | None = None  # measuring node sizes for a layout
        self._unit_theme: Any = None  # the canvas's theme at scale 1, when it is not at 1
        self._note: str | None = None  # why a graph shown "as saved" was arranged after all

    @property
    def pending(self) -> bool:
        """True while a large graph is being arranged off the GUI thread, or its canvas
        items are still being built in slices (app/graph/scene_build.py)."""
        return self._pending is not None or self.scene.building

    def _say(self, text: str) -> None:
        self._status().showMessage(text, 0)

    def wait(self, timeout_s: float = 60.0) -> bool:
        """Block (running the event loop) until a pending layout is shown and every canvas
        item is built; for scripts and tests."""
        deadline = time.perf_counter() + timeout_s
        while self.pending and time.perf_counter() < deadline:
            QApplication.processEvents()
            for worker in list(self.workers):
                worker.wait(20)
        QApplication.processEvents()
        return not self.pending

    def shutdown(self) -> None:
        """The window closes: whatever runs is stale; wait for the workers to end."""
        self.forget_pending()
        for worker in list(self.workers):
            worker.wait()

    # -- the layout's input: node sizes in document units ----------------------------------

    def unit_theme(self) -> Any:
        """The canvas's theme at scale 1 (document positions are at scale 1, see GraphScene.to_doc)."""
        theme = self.scene.theme
        if theme.scale == 1.0:
            return theme  # the very theme the items use: they reuse the geometries measured here
        unit = self._unit_theme
        if unit is None or unit.palette is not theme.palette or unit.metrics is not theme.metrics:
            unit = self._unit_theme = theme.with_(scale=1.0)
        return unit

    def _measure(self, doc: GraphDocument, data: list):
        """Append core.document.layout's input for doc to `data`: (ids, edges, sizes, layer gap,
        node gap), a node's size per step. What doc holds when the first step runs is
        what is laid out (relayout measures the live document between edits)."""
        unit = self.unit_theme()
        out = doc.effective_output()
        nodes = list(doc.nodes.items())
        edges = [(e.src, e.dst) for e in doc.edges]
        names: dict[str, str] = {}  # a node's box is as wide as its name row needs
        yield from naming_steps(doc, names)
        sizes = {}
        for nid, node in nodes:
            sizes[nid] = node_size(unit, node, nid == out, names[nid])
            yield
        ids = [nid for nid, _node in nodes]
        data.extend((ids, edges, sizes, unit.length("layer_gap"), unit.length("node_gap")))

    def layout_input(self, doc: GraphDocument) -> tuple:
        """Plain data for core.document.layout, measured now (on the GUI thread)."""
        data: list = []
        for _ in self._measure(doc, data):
            pass
        return tuple(data)

    def lay_out(self, doc: GraphDocument) -> tuple[dict, dict]:
        """({id: centre}, routes) for doc, from core.document.layout on the items' real sizes."""
        return run_layout(*self.layout_input(doc))

    # -- showing a document ----------------------------------------------------------------

    def place(
        self,
        doc: GraphDocument,
        text: str,
        show: Callable[[Any, Any], Any],
        layout: bool = True,
        keep_positions: bool = False,
        replacement: Any = None,
    ) -> Any:
        """Decide how doc (about to be shown, held by nobody else) gets its positions,
        then call show(result, prepared): result None keeps doc's own positions, else it
        is (positions, routes) of a layout or the exception the layout raised; prepared
        is doc's ReplaceDocument made already (on a worker), or None.

        `layout=False` keeps the document's positions -- unless they pile up (a trace,
        a file from another tool) or the boxes, measured now, overlap (a file saved when
        nodes were drawn smaller): such a graph is arranged all the same, since a box on
        top of another hides its numbers (`take_note()` says so). `keep_positions`: the
        positions are the user's own as they last saw them (an autosave, a file saved at
        today's node sizes): kept even where boxes overlap. `replacement` may be doc's
        ReplaceDocument when it keeps its positions. Returns what show returned when it
        was called at once, else True (a large graph: show is called later)."""
        if not layout and positions_pile_up(node.pos for node in doc.nodes.values()):
            layout, replacement = True, None
        if not layout:
            if len(doc.nodes) < ASYNC_LAYOUT_NODES:
                self.forget_pending()
                measured = self.layout_input(doc)
                if keep_positions or not self._boxes_collide(doc, measured):
                    self._reuse_routes(doc, measured)
                    return show(None, replacement)
            else:

                def then(data: tuple) -> None:
                    if not keep_positions and self._boxes_collide(doc, data):
                        self.place(doc, text, show)
                    else:
                        show(None, replacement)

                self.measure(doc, then)
                return True
        self.arrange(
            doc,
            lambda result, prepared=None: show(result, prepared),
            prepare=lambda positions: prepare_replacement(doc, text, positions),
        )
        return True

    def take_note(self) -> str | None:
        """Why the graph just shown was arranged though asked to keep its positions (once)."""
        note, self._note = self._note, None
        return note

    def _reuse_routes(self, doc: GraphDocument, measured: tuple) -> None:
        """A graph saved as the layout arranged it (an example, a file saved unmoved)
        gets the layout's wire routes back: its long wires run between the columns,
        not through the boxes. Positions the user changed keep plain curves."""
        try:
            positions, routes = run_layout(*measured)
        except ValueError:
            return
        nodes = doc.nodes
        if all(
            abs(nodes[nid].pos[0] - x) < ROUTE_SLACK and abs(nodes[nid].pos[1] - y) < ROUTE_SLACK
            for nid, (x, y) in positions.items()
        ):  # as arranged, give or take a pixel of text width
            self.scene.set_routes(routes, {nid: node.pos for nid, node in nodes.items()})

    def _boxes_collide(self, doc: GraphDocument, measured: tuple) -> bool:
        """True (and a note for take_note) if doc's saved positions put two of its boxes,
        at the sizes `measured` (the layout's input), on each other."""
        sizes = measured[2]
        hit = boxes_overlap({nid: node.pos for nid, node in doc.nodes.items()}, sizes)
        if hit is None:
            return False
        self._note = (
            "The saved positions put nodes on top of each other at today's node "
            "sizes, so the graph was arranged again (the file is unchanged)."
        )
        return True

    # -- requests --------------------------------------------------------------------------

    def forget_pending(self) -> None:
        """Make any layout in progress stale (a newer request, or the window closes)."""
        self._token += 1
        if self._pending is not None and not self.scene.building:
            collector.release()  # no layout_done will come to say the opening is over
        self._pending = None
        job, self._measuring = self._measuring, None
        if job is not None:
            job.cancel()
            job.deleteLater()

    def arrange(
        self, doc: GraphDocument, then: Callable[..., Any], prepare: Callable[[dict], Any] | None = None
    ) -> None:
        """Lay doc out, then call then(result), result being (positions, routes) or the
        exception -- at once for a small graph; for a large one after measuring in
        slices and a worker's run, the window staying responsive. With `prepare`, a
        function of the positions run on the worker thread, a large graph's call is
        then(result, prepared) (prepared None if it failed). A newer request makes an
        older one stale: its result is dropped."""
        self.forget_pending()
        if len(doc.nodes) < ASYNC_LAYOUT_NODES:
            try:
                result: Any = self.lay_out(doc)
            except Exception as e:
                result = e
            then(result)
            return
        data: list = []
        token = self._begin(then, wants_prepared=prepare is not None)
        self._say(f"Arranging {len(doc.nodes):,} nodes…")
        self._start_measuring(doc, data, lambda: self._start_worker(token, tuple(data), prepare))

    def measure(self, doc: GraphDocument, then: Callable[[tuple], Any]) -> None:
        """Measure doc's node sizes in slices, then call then(measured), measured being
        core.layout's input (ids, edges, sizes, gaps): for a large graph
        shown where it stands (a saved file), so that the canvas meets node
        geometries already measured (at 5,000 nodes that took the GUI thread 30 ms
        in one go). Pending like a layout, and made stale the same way."""
        self.forget_pending()
        token = self._begin(then)
        data: list = []
        self._start_measuring(doc, data, lambda: self._measured(token, data))

    def run_in_worker(self, job: Callable[[], Any], then: Callable[[Any], Any], message: str) -> None:
        """Run job() on a worker thread (reading a large file), then call then(result),
        result being what job returned or the exception it raised. It is pending like
        a layout: `pending` is True meanwhile, and a newer request (another
        open, a layout) makes it stale."""
        self.forget_pending()
        token = self._begin(then)
        self._say(message)
        self._start(Job(token, lambda: _job_work(job), self._parent, name="open"))

    def trace(self, root: Any, parameters: Any, then: Callable[[Any], Any]) -> Any:
        """Trace the Value graph of root, then call then(document or the exception): a
        small graph at once (its answer returned); a large one's document is built on
        a worker thread from what was read here (True returned)."""
        try:
            data, _values = trace_data(root, parameters)
        except Exception as e:
            return then(e)
        if len(data["nodes"]) < ASYNC_LAYOUT_NODES:
            try:
                doc: Any = traced_document(data)
            except Exception as e:
                doc = e
            return then(doc)
        self.run_in_worker(lambda: traced_document(data), then, f"Tracing {len(data['nodes']):,} nodes…")
        return True

    def _begin(self, then: Callable[..., Any], wants_prepared: bool = False) -> int:
        """Make `then` the pending request (after forget_pending) and return its token;
        the busy cursor shows and the collector waits (app/collector.py)."""
        token = self._token
        self._pending = (token, then, wants_prepared)
        self._changed()
        return token

    def _start_measuring(self, doc: GraphDocument, data: list, when_done: Callable[[], None]) -> None:
        job = SlicedJob(self._measure(doc, data), self._parent)
        job.finished.connect(when_done)
        self._measuring = job
        job.start()

    def _drop_measuring(self) -> None:
        job, self._measuring = self._measuring, None
        if job is not None:
            job.deleteLater()

    def _measured(self, token: int, data: list) -> None:
        self._drop_measuring()
        self.done(token, (tuple(data), None))

    def _start(self, worker: Job) -> None:
        worker.done.connect(self.done)
        worker.finished.connect(lambda w=worker: self._ended(w))
        self.workers.append(worker)
        worker.start()

    def _ended(self, worker: Job) -> None:
        self.workers.remove(worker)
        worker.deleteLater()

    def _start_worker(self, token: int, data: tuple, prepare: Callable[[dict], Any] | None) -> None:
        self._drop_measuring()
        if self._pending is None or self._pending[0] != token:
            return
        self._start(Job(token, lambda: _layout_work(data, prepare), self._parent, name="layout"))

    @Slot(int, object)
    def done(self, token: int, outcome: tuple) -> None:
        pending = self._pending
        if pending is None or pending[0] != token:
            return  # stale: the user asked for something newer meanwhile
        self._pending = None
        self._status().clearMessage()
        _token, then, wants_prepared = pending
        result, prepared = outcome
        if wants_prepared:
            then(result, prepared)
        else:
            then(result)
        self._changed()
