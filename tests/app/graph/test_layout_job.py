"""Issue 32 item 1: the layout is one object with its own state, which the window
holds (`window.arranger`) and asks; the window keeps none of it."""

import pytest

from app.graph.layout_runner import ASYNC_LAYOUT_NODES, LayoutRunner
from app.main_window import MainWindow
from core.document.expr import parse


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    w.files.prompt_on_close = False
    qtbot.addWidget(w)
    yield w
    w.close()


def test_the_window_holds_no_layout_state(window):
    for name in ("_pending_layout", "_layout_workers", "_measuring", "_layout_token", "_unit_theme"):
        assert not hasattr(window, name)
    assert isinstance(window.arranger, LayoutRunner)
    for name in ("_arrange", "_layout_done", "_layout_input"):
        assert not hasattr(window, name)  # the one-line forwarders are gone


def test_a_large_graph_is_arranged_by_the_job_and_a_newer_request_wins(window, qtbot):
    text = " + ".join(f"x{i}*y{i}" for i in range(ASYNC_LAYOUT_NODES // 3))
    first, second = parse(text), parse(text)
    assert len(first.nodes) >= ASYNC_LAYOUT_NODES
    got = []
    window.arranger.arrange(first, lambda result: got.append(("first", result)))
    assert window.arranger.pending and window.layout_pending
    window.arranger.arrange(second, lambda result: got.append(("second", result)))
    qtbot.waitUntil(lambda: not window.arranger.pending and not window.arranger.workers, timeout=120_000)
    assert [name for name, _ in got] == ["second"]  # the first was made stale
    positions, _routes = got[0][1]
    assert set(positions) == set(second.nodes)


def test_a_small_graph_is_arranged_at_once(window):
    doc = parse("x*y + y**2")
    got = []
    window.arranger.arrange(doc, got.append)
    assert len(got) == 1 and set(got[0][0]) == set(doc.nodes) and not window.arranger.pending


def test_a_result_that_comes_back_for_an_older_graph_is_dropped_not_applied(window, qtbot, monkeypatch):
    # issue 41's planted bug: the first graph's layout, finished while the second was pending, was handed
    # to the second's callback (an AttributeError on the older graph). Each worker waits for its own turn.
    import threading

    from app.graph import layout_runner

    first = parse(" + ".join(f"x{i}*y{i}" for i in range(ASYNC_LAYOUT_NODES // 3)))
    second = parse(" + ".join(f"a{i}*b{i}*c{i}" for i in range(ASYNC_LAYOUT_NODES // 4)))
    assert set(first.nodes) != set(second.nodes) and len(second.nodes) >= ASYNC_LAYOUT_NODES
    gates = {len(first.nodes): threading.Event(), len(second.nodes): threading.Event()}
    real = layout_runner.run_layout

    def gated(ids, *rest):
        gates[len(ids)].wait(120)
        return real(ids, *rest)

    monkeypatch.setattr(layout_runner, "run_layout", gated)
    runner, got = window.arranger, []
    try:
        runner.arrange(first, lambda result: got.append(("first", result)))
        qtbot.waitUntil(lambda: len(runner.workers) == 1, timeout=120_000)  # the first is on its worker
        runner.arrange(second, lambda result: got.append(("second", result)))
        qtbot.waitUntil(lambda: len(runner.workers) == 2, timeout=120_000)  # so is the second, now the pending one
        gates[len(first.nodes)].set()  # the older result comes back while the newer is pending
        qtbot.waitUntil(lambda: len(runner.workers) == 1, timeout=120_000)
        assert got == [] and runner.pending
    finally:
        for gate in gates.values():
            gate.set()
    qtbot.waitUntil(lambda: not runner.pending and not runner.workers, timeout=120_000)
    assert [name for name, _ in got] == ["second"]
    assert set(got[0][1][0]) == set(second.nodes)
