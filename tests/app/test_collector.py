"""The cyclic garbage collector is held off while a large graph opens (app/collector.py).

What makes that safe is checked here too: replacing a large graph leaves no
cyclic garbage, so a collection during the open would have found nothing.
"""

import gc

import pytest

import app.slices
from app import collector
from app.main_window import MainWindow
from core.nn import MLP


@pytest.fixture
def window(window, monkeypatch):
    """The shown window of tests/app/conftest.py, with many slices on any machine."""
    monkeypatch.setattr(app.slices, "SLICE_SECONDS", 0.0005)
    yield window
    window.close()
    assert not collector.held() and gc.isenabled()


def open_traced_mlp(window, qtbot, hidden=(12, 8, 1)):
    """Open one sample through an MLP (~500 nodes, laid out in a worker, built in slices)
    and return once the canvas is complete and the collector released."""
    model = MLP(3, list(hidden))
    assert window.open_value(model([0.5, 0.6, 0.7]), model.parameters())
    assert window.layout_pending
    qtbot.waitUntil(lambda: not window.layout_pending and not collector.held(), timeout=60000)


def test_hold_and_release_pause_collecting_and_freeze_what_lives():
    gc.unfreeze()
    collector.hold()
    try:
        assert collector.held() and not gc.isenabled()
        collector.hold()  # a second hold changes nothing
        kept = [[i] for i in range(1000)]  # made while held: frozen by the release
    finally:
        collector.release()
    assert not collector.held() and gc.isenabled()
    assert gc.get_freeze_count() >= len(kept)
    collector.release()  # nothing held: nothing happens
    assert gc.isenabled()


def test_release_collects_a_cycle_made_during_the_hold():
    gc.collect()
    collector.hold()
    cycle = []
    cycle.append(cycle)
    del cycle
    collector.release()  # else the cycle would be frozen, and never freed
    assert gc.collect() == 0


def test_opening_a_large_graph_holds_the_collector_until_the_canvas_is_complete(window, qtbot):
    seen = []
    window.scene.buildingChanged.connect(lambda building: seen.append((building, gc.isenabled())))
    open_traced_mlp(window, qtbot)
    assert seen[0] == (True, False)  # building with the collector off
    assert gc.isenabled() and window.scene.counts()[0] == len(window.session.doc.nodes)


def test_replacing_a_large_graph_leaves_no_cyclic_garbage(window, qtbot):
    open_traced_mlp(window, qtbot)
    gc.unfreeze()  # what earlier tests and the first open froze: cycles would hide there
    gc.collect()
    open_traced_mlp(window, qtbot, hidden=(10, 6, 1))  # the first graph's items, Values, nodes go
    qtbot.wait(50)
    gc.unfreeze()
    assert gc.collect() == 0


def test_closing_the_window_mid_open_resumes_collecting(qtbot, monkeypatch):
    monkeypatch.setattr(app.slices, "SLICE_SECONDS", 0.0005)
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    model = MLP(3, [12, 8, 1])
    w.open_value(model([0.5, 0.6, 0.7]), model.parameters())
    assert collector.held()
    w.files.prompt_on_close = False
    w.close()
    assert not collector.held() and gc.isenabled()


def test_a_release_due_after_one_open_waits_for_the_next_open_to_end(window, qtbot):
    model = MLP(3, [12, 8, 1])
    assert window.open_value(model([0.5, 0.6, 0.7]), model.parameters())
    assert collector.held()
    window._release_collector()  # the turn the first open's end scheduled, come mid-way through
    assert collector.held() and not gc.isenabled()
    qtbot.waitUntil(lambda: not window.layout_pending and not collector.held(), timeout=60000)
    assert gc.isenabled()


def test_a_hold_tidies_up_the_young_objects_so_the_release_walks_few(qapp, monkeypatch):
    monkeypatch.setattr(collector, "TIDY_OBJECTS", 500)
    gc.collect()
    collector.hold()
    try:
        assert not collector.tidy()  # too few new objects: nothing to do yet
        cycle = [[i] for i in range(1000)]
        cycle.append(cycle)
        del cycle
        kept = [[i] for i in range(1000)]
        assert collector.tidy()  # the cycle is found now, the survivors grow old
        assert gc.get_count()[0] < 500 and not gc.isenabled()
    finally:
        collector.release()
    assert gc.collect() == 0 and gc.get_freeze_count() >= len(kept)


def test_a_hold_tidies_up_from_the_event_loop(qtbot, monkeypatch):
    monkeypatch.setattr(collector, "TIDY_OBJECTS", 500)
    collector.hold()
    try:
        made = [[i] for i in range(2000)]
        qtbot.waitUntil(lambda: gc.get_count()[0] < 500, timeout=5000)
        assert collector.held() and not gc.isenabled() and made
    finally:
        collector.release()


def test_a_hold_without_tidying_leaves_the_young_objects_to_the_worker_that_freezes_them(qapp):
    # the big-graph page's Values (138k, made on a worker): a tidy-up on the GUI thread walked them (83 ms)
    collector.hold(tidying=False)
    try:
        assert collector.held() and not gc.isenabled()
        assert collector._tidy_timer is None or not collector._tidy_timer.isActive()  # no tidy-up will come
    finally:
        collector.release()
    collector.hold()
    try:
        assert collector._tidy_timer.isActive()  # the usual hold tidies
    finally:
        collector.release()
