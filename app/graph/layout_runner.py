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

Every request takes a new token on the window (`_layout_token`); a result whose
token is no longer the pending one is stale and dropped. The state lives on the
window (`_layout_token`, `_pending_layout`, `_layout_workers`, `_measuring`,
`_unit_theme`); these functions take the window.
"""

import time

from PySide6.QtWidgets import QApplication

from app import collector
from app.graph.node_geometry import node_size
from app.jobs import Job
from app.slices import SlicedJob
from core.document.commands import ReplaceDocument
from core.document.compile import trace_data, traced_document
from core.document.layout import sugiyama
from core.document.names import naming_steps

ASYNC_LAYOUT_NODES = 400  # from this size on, the layout runs in a worker thread


def _layout_work(data, prepare):
    """On a Job's thread: core.document.layout of the plain data (ids, edges, sizes),
    then `prepare(positions)` if given -> (result, prepared); result is (positions,
    routes) or the exception the layout raised, prepared None if prepare failed
    (the GUI thread then does it again, and says what is wrong)."""
    try:
        result = _run_layout(*data)
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


def _run_layout(ids, edges, sizes, layer_gap, node_gap):
    layout = sugiyama(ids, edges, sizes=sizes, layer_gap=layer_gap, node_gap=node_gap)
    return layout.positions, layout.routes


def wait_for_layout(window, timeout_s=60.0):
    """Block (running the event loop) until a pending layout is shown and every canvas
    item is built; for scripts and tests."""
    deadline = time.perf_counter() + timeout_s
    while window.layout_pending and time.perf_counter() < deadline:
        QApplication.processEvents()
        for worker in list(window._layout_workers):
            worker.wait(20)
    QApplication.processEvents()
    return not window.layout_pending


# -----------------------------------------------------------------------------
# The layout's input: node sizes in document units


def unit_theme(window):
    """The canvas's theme at scale 1 (document positions are at scale 1, see GraphScene.to_doc)."""
    theme = window.scene.theme
    if theme.scale == 1.0:
        return theme  # the very theme the items use: they reuse the geometries measured here
    unit = window._unit_theme
    if unit is None or unit.palette is not theme.palette or unit.metrics is not theme.metrics:
        unit = window._unit_theme = theme.with_(scale=1.0)
    return unit


def _measure(window, doc, data):
    """Append core.document.layout's input for doc to `data`: (ids, edges, sizes, layer gap,
    node gap), a node's size per step. What doc holds when the first step runs is
    what is laid out (relayout measures the live document between edits)."""
    unit = unit_theme(window)
    out = doc.effective_output()
    nodes = list(doc.nodes.items())
    edges = [(e.src, e.dst) for e in doc.edges]
    names = {}  # a node's box is as wide as its name row needs
    yield from naming_steps(doc, names)
    sizes = {}
    for nid, node in nodes:
        sizes[nid] = node_size(unit, node, nid == out, names[nid])
        yield
    ids = [nid for nid, _node in nodes]
    data.extend((ids, edges, sizes, unit.length("layer_gap"), unit.length("node_gap")))


def layout_input(window, doc):
    """Plain data for core.document.layout, measured now (on the GUI thread)."""
    data = []
    for _ in _measure(window, doc, data):
        pass
    return tuple(data)


def place_nodes(doc, positions):
    """Put doc's nodes at the layout's positions (doc not shown yet: no event)."""
    nodes = doc.nodes
    for nid, pos in positions.items():
        nodes[nid].pos = (float(pos[0]), float(pos[1]))


def prepare_replacement(doc, text, positions):
    """On the worker thread: the laid-out doc and the ReplaceDocument that shows it
    (which also sorts the graph: ~40 ms at 5,000 nodes the compile would otherwise
    spend on the GUI thread)."""
    place_nodes(doc, positions)
    return ReplaceDocument(doc, text)


# -----------------------------------------------------------------------------
# Requests


def forget_pending(window):
    """Make any layout in progress stale (a newer request, or the window closes)."""
    window._layout_token += 1
    if window._pending_layout is not None and not window.scene.building:
        collector.release()  # no layout_done will come to say the opening is over
    window._pending_layout = None
    job, window._measuring = window._measuring, None
    if job is not None:
        job.cancel()
        job.deleteLater()


def arrange(window, doc, then, prepare=None):
    """Lay doc out, then call then(result), result being (positions, routes) or the
    exception -- at once for a small graph; for a large one after measuring in
    slices and a worker's run, the window staying responsive. With `prepare`, a
    function of the positions run on the worker thread, a large graph's call is
    then(result, prepared) (prepared None if it failed). A newer request makes an
    older one stale: its result is dropped."""
    forget_pending(window)
    if len(doc.nodes) < ASYNC_LAYOUT_NODES:
        try:
            result = _run_layout(*window._layout_input(doc))
        except Exception as e:
            result = e
        then(result)
        return
    data = []
    token = _begin(window, then, wants_prepared=prepare is not None)
    window.show_message(f"Arranging {len(doc.nodes):,} nodes…", 0)
    _start_measuring(window, doc, data, lambda: _start_worker(window, token, tuple(data), prepare))


def measure(window, doc, then):
    """Measure doc's node sizes in slices, then call then(measured), measured being
    core.layout's input (ids, edges, sizes, gaps): for a large graph
    shown where it stands (a saved file), so that the canvas meets node
    geometries already measured (at 5,000 nodes that took the GUI thread 30 ms
    in one go). Pending like a layout, and made stale the same way."""
    forget_pending(window)
    token = _begin(window, then)
    data = []
    _start_measuring(window, doc, data, lambda: _measured(window, token, data))


def run_in_worker(window, job, then, message):
    """Run job() on a worker thread (reading a large file), then call then(result),
    result being what job returned or the exception it raised. It is pending like
    a layout: `layout_pending` is True meanwhile, and a newer request (another
    open, a layout) makes it stale."""
    forget_pending(window)
    token = _begin(window, then)
    window.show_message(message, 0)
    _start(window, Job(token, lambda: _job_work(job), window, name="open"))


def open_traced(window, root, parameters, text):
    """Trace the Value graph of root and show it (MainWindow.open_value). A small
    graph is shown at once; a large one's document is built on a worker thread
    from what was read here, then arranged like any other. False if it cannot be traced."""
    try:
        data, _values = trace_data(root, parameters)
    except Exception as e:
        return _traced(window, text, e)
    if len(data["nodes"]) < ASYNC_LAYOUT_NODES:
        try:
            doc = traced_document(data)
        except Exception as e:
            doc = e
        return _traced(window, text, doc)
    run_in_worker(
        window,
        lambda: traced_document(data),
        lambda doc: _traced(window, text, doc),
        f"Tracing {len(data['nodes']):,} nodes…",
    )
    return True


def _traced(window, text, doc):
    """Show a traced document (or say why there is none)."""
    if isinstance(doc, Exception):
        window.show_message(f"Could not trace the graph: {doc}")
        return False
    window.editor.set_source_note(f"a traced graph of {len(doc.nodes):,} nodes")
    if not window.show_document(doc, text):
        return False
    window.files.detach()  # a trace, not the file's graph: Save must ask where
    return True


def _begin(window, then, wants_prepared=False):
    """Make `then` the pending request (after forget_pending) and return its token;
    the busy cursor shows and the collector waits (app/collector.py)."""
    token = window._layout_token
    window._pending_layout = (token, then, wants_prepared)
    window._opening_changed()
    return token


def _start_measuring(window, doc, data, when_done):
    job = SlicedJob(_measure(window, doc, data), window)
    job.finished.connect(when_done)
    window._measuring = job
    job.start()


def _drop_measuring(window):
    job, window._measuring = window._measuring, None
    if job is not None:
        job.deleteLater()


def _measured(window, token, data):
    _drop_measuring(window)
    layout_done(window, token, (tuple(data), None))


def _start(window, worker):
    worker.done.connect(window._layout_done)
    worker.finished.connect(lambda w=worker: window._layout_workers.remove(w) or w.deleteLater())
    window._layout_workers.append(worker)
    worker.start()


def _start_worker(window, token, data, prepare):
    _drop_measuring(window)
    pending = window._pending_layout
    if pending is None or pending[0] != token:
        return
    _start(window, Job(token, lambda: _layout_work(data, prepare), window, name="layout"))


def layout_done(window, token, outcome):
    pending = window._pending_layout
    if pending is None or pending[0] != token:
        return  # stale: the user asked for something newer meanwhile
    window._pending_layout = None
    window.statusBar().clearMessage()
    _token, then, wants_prepared = pending
    result, prepared = outcome
    if wants_prepared:
        then(result, prepared)
    else:
        then(result)
    window._opening_changed()
