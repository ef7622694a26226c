"""app/graph/layout_runner.py: a large graph is traced, read, measured and laid out
while the window keeps answering; only plain data crosses to the worker threads."""

import math
import threading

from app.graph import layout_runner
from core.engine import Value
from core.nn import MLP


def traced_mlp(hidden=(12, 8, 1)):
    model = MLP(3, list(hidden))
    return model([0.5, 0.6, 0.7]), model


def test_a_large_trace_is_read_here_and_its_document_built_on_a_worker(window, qtbot, monkeypatch):
    built_on = []
    real = layout_runner.traced_document

    def spy(data):
        built_on.append(threading.current_thread() is threading.main_thread())
        return real(data)

    monkeypatch.setattr(layout_runner, "traced_document", spy)
    out, model = traced_mlp()
    before = dict(window.session.doc.nodes)
    assert window.open_value(out, model.parameters())
    assert window.layout_pending and window.session.doc.nodes == before  # not built yet: the call returned
    qtbot.waitUntil(lambda: not window.layout_pending, timeout=60000)
    assert built_on == [False]
    assert len(window.session.doc.nodes) >= layout_runner.ASYNC_LAYOUT_NODES
    assert window.session.compiled.output.data == out.data


def test_a_small_trace_is_shown_before_the_call_returns(window):
    x = Value(2.0, label="x")
    assert window.open_value((x * x).tanh())
    assert not window.layout_pending and len(window.session.doc.nodes) == 3


def test_a_large_trace_that_cannot_be_stored_says_so_and_keeps_the_graph(window, qtbot):
    out, model = traced_mlp()
    model.parameters()[0].data = math.nan  # a diverged run: the leaf cannot be stored
    before = window.session.doc.to_dict()
    assert window.open_value(out, model.parameters())  # the answer comes from the worker
    qtbot.waitUntil(lambda: not window.layout_pending, timeout=60000)
    assert "Could not trace the graph" in window.statusBar().currentMessage()
    assert window.session.doc.to_dict() == before
