"""Arranging a graph for the window: core.layout, on the GUI thread or in a worker.

A small graph is laid out at once. From ASYNC_LAYOUT_NODES nodes on, a
`LayoutWorker` runs core.layout on plain data (ids, edges, sizes measured on the
GUI thread) and the window stays responsive. Every request takes a new token on
the window (`_layout_token`); a result whose token is no longer the pending one
is stale and dropped. The state lives on the window (`_layout_token`,
`_pending_layout`, `_layout_workers`); these functions take the window.
"""

import time

from PySide6.QtCore import Qt, QThread, Signal
from PySide6.QtWidgets import QApplication

from app.graph.node_geometry import node_size
from core.layout import sugiyama

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


def wait_for_layout(window, timeout_s=60.0):
    """Block (running the event loop) until a pending layout is shown; for scripts."""
    deadline = time.perf_counter() + timeout_s
    while window.layout_pending and time.perf_counter() < deadline:
        QApplication.processEvents()
        for worker in list(window._layout_workers):
            worker.wait(20)
    QApplication.processEvents()
    return not window.layout_pending


def layout_input(window, doc):
    """Plain data for core.layout (sizes measured here, on the GUI thread)."""
    out = doc.effective_output()
    unit = window.theme.with_(scale=1.0)   # document positions are at scale 1 (see GraphScene.to_doc)
    sizes = {nid: node_size(unit, node, nid == out) for nid, node in doc.nodes.items()}
    return (list(doc.nodes), [(e.src, e.dst) for e in doc.edges], sizes,
            unit.length("layer_gap"), unit.length("node_gap"))


def arrange(window, doc, then):
    """Lay doc out, then call then(positions, routes) -- at once for a small graph,
    from a worker thread's result for a large one (the window stays responsive).
    A newer request makes an older one stale: its result is dropped."""
    window._layout_token += 1
    window._pending_layout = None
    data = window._layout_input(doc)
    if len(doc.nodes) < ASYNC_LAYOUT_NODES:
        try:
            result = _run_layout(*data)
        except Exception as e:
            result = e
        then(result)
        return
    worker = LayoutWorker(window._layout_token, data, window)
    worker.done.connect(window._layout_done)
    worker.finished.connect(lambda w=worker: window._layout_workers.remove(w) or w.deleteLater())
    window._layout_workers.append(worker)
    window._pending_layout = (window._layout_token, then)
    window.view.viewport().setCursor(Qt.BusyCursor)
    window.show_message(f"Arranging {len(doc.nodes):,} nodes…", 0)
    worker.start()


def layout_done(window, token, result):
    pending = window._pending_layout
    if pending is None or pending[0] != token:
        return   # stale: the user asked for something newer meanwhile
    window._pending_layout = None
    window.view.viewport().unsetCursor()
    window.statusBar().clearMessage()
    pending[1](result)
    window.layoutFinished.emit()
