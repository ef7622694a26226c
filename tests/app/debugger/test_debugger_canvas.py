"""What a debugger move costs on the canvas (app/debugger/canvas.py): the view
follows a step only when it has to, and a long jump redraws in chunks that read
the debugger's state when they run, without building the records it passes.

No timings here: the properties that keep a step cheap are counted instead.
bench/bench_gui_step.py measures the times.
"""

import pytest
from PySide6.QtCore import QPointF

from app.debugger.canvas import REFRESH_CHUNK
from app.main_window import MainWindow
from core.engine import Value, topological_order


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1200, 800)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.close()


def open_chain(window, ops):
    """x -> tanh -> tanh ... (`ops` of them), laid out left to right."""
    node = Value(0.5, label="x")
    for _ in range(ops):
        node = node.tanh()
    node.label = "out"
    window.open_value(node)
    window.wait_for_layout()
    window.view.set_zoom(1.0)
    return node


def open_big_graph(window):
    """More nodes than one redraw chunk: a long jump has to redraw in chunks."""
    x = Value(0.5, label="x")
    node = x
    for i in range(REFRESH_CHUNK):
        node = node * 1.001 if i % 2 else node + 0.5
    node.label = "out"
    window.open_value(node)
    window.wait_for_layout()
    window.view.set_zoom(1.0)
    return node


def seen(window):
    view = window.view
    return view.mapToScene(view.viewport().rect()).boundingRect()


def in_sight(window, nid):
    return seen(window).contains(window.scene.node_item(nid).sceneBoundingRect())


def centre(window):
    return seen(window).center()


# -----------------------------------------------------------------------------
# following the step


def test_the_view_scrolls_only_when_the_steps_node_or_its_receivers_leave_it(window):
    # issue 38: the operands receiving the grads (x1, w1) were left off the canvas
    open_chain(window, 40)
    window.view.set_zoom(0.6)
    dbg = window.debugger
    assert dbg.controller.follow
    dbg.controller.reset()
    scrolled = stayed = 0
    while not dbg.controller.stepper.done:
        node = dbg.controller.stepper.current
        ids = [dbg.controller.nid(node)] + [dbg.controller.nid(c) for c in node._prev]
        was_in_sight, before = all(in_sight(window, i) for i in ids), centre(window)
        dbg.controller.step()
        moved = (centre(window) - before).manhattanLength() > 0.5
        if was_in_sight:
            assert not moved  # the node and its receivers were in sight: the view stays put
            stayed += 1
        else:
            assert moved and all(in_sight(window, i) for i in ids)
            scrolled += 1
    assert scrolled >= 2 and stayed >= scrolled  # a scroll brings the next step in sight too


def test_without_follow_the_view_never_scrolls(window):
    open_chain(window, 40)
    dbg = window.debugger
    dbg.controller.follow = False
    window.view.centerOn(QPointF(window.scene.items_rect().left(), 0.0))
    before = centre(window)
    dbg.controller.reset()
    for _ in range(20):
        dbg.controller.step()
    assert (centre(window) - before).manhattanLength() < 0.5


# -----------------------------------------------------------------------------
# long jumps


def test_a_long_jump_builds_no_records_for_the_steps_it_passes(window, monkeypatch):
    open_big_graph(window)
    dbg = window.debugger
    dbg.controller.reset()
    st = dbg.controller.stepper
    built = []
    record = st._record
    monkeypatch.setattr(st, "_record", lambda index: built.append(index) or record(index))
    dbg.controller.seek(len(st.order))
    dbg.controller.seek(0)
    dbg.controller.run_to_end()
    assert len(st.order) > 600
    assert len(built) < 20  # the record shown and the explanation's, not 1,400


def test_the_forward_pass_starts_in_chunks_and_a_step_meanwhile_is_kept(window, qtbot):
    open_big_graph(window)
    dbg = window.debugger
    dbg.controller.reset()
    qtbot.waitUntil(lambda: not dbg.controller.refreshing, timeout=10000)
    dbg.controller.forward_reset()
    assert dbg.controller.refreshing  # the rest follows a chunk per loop turn
    record = dbg.controller.forward_step()  # the first node computed, maybe not redrawn yet
    qtbot.waitUntil(lambda: not dbg.controller.refreshing, timeout=10000)
    items = window.scene.node_items()
    fs = dbg.controller.forward_stepper
    for v in fs.topo:
        item = items[dbg.controller.nid(v)]
        assert item.status is None and item.grad_mask == "—"
        if v._prev and not fs.computed(v):
            assert item.data_mask == "?" and item.dimmed
        else:
            assert item.data_mask is None and not item.dimmed
    assert items[dbg.controller.nid(record.node)].data_mask is None


def test_a_forward_step_redraws_only_its_node(window, qtbot):
    open_big_graph(window)
    dbg = window.debugger
    dbg.controller.reset()
    dbg.controller.seek(100)  # part way: the grads are not those of the finished pass
    dbg.controller.forward_reset()
    qtbot.waitUntil(lambda: not dbg.controller.refreshing, timeout=10000)
    record = dbg.controller.forward_step()
    # the colour scale was kept, so the step did not re-tint (and redraw) every node
    assert window.scene.last_refreshed == [dbg.controller.nid(record.node)]


def test_a_quiz_grad_stays_hidden_while_a_long_jump_redraws(window, qtbot):
    open_big_graph(window)
    dbg = window.debugger
    dbg.controller.follow = False
    window.view.centerOn(QPointF(window.scene.items_rect().left(), 0.0))  # far from the output
    dbg.set_quiz_mode(True)
    dbg.controller.reset()
    root = dbg.controller.stepper.root  # the compiled Value (open_value traces a copy)
    child = dbg.controller.nid(root._prev[0])
    assert child in dbg.controller.canvas._pending  # not redrawn yet
    dbg.controller.step()  # the output's step: its operands' grads hidden
    qtbot.waitUntil(lambda: not dbg.controller.refreshing, timeout=10000)
    assert window.scene.node_item(child).texts()[2] == "?"
    dbg.controller.answer_quiz(str(root._prev[0].grad))
    assert window.scene.node_item(child).texts()[2] != "?"


@pytest.mark.parametrize("phase", ["backward", "forward"])
def test_stopping_redraws_in_chunks_the_grads_of_one_backward(window, qtbot, phase):
    open_big_graph(window)
    dbg = window.debugger
    dbg.controller.reset()
    dbg.controller.seek(300)
    if phase == "forward":
        dbg.controller.forward_reset()
        dbg.controller.forward_step()
    qtbot.waitUntil(lambda: not dbg.controller.refreshing, timeout=10000)
    dbg.controller.stop()
    assert dbg.controller.phase == "idle" and dbg.controller.refreshing
    qtbot.waitUntil(lambda: not dbg.controller.refreshing, timeout=10000)
    items = window.scene.node_items()
    for nid, value in window.session.values.items():
        item = items[nid]
        assert item.grad == value.grad and item.status is None and item.debug_mark is None
        assert item.texts()[1:] == (item.data_text, item.grad_text)  # no '?' left
    root = window.session.output_value
    stepped = [v.grad for v in topological_order(root)]
    window.session.backward()  # what Stop ran until now
    assert [v.grad for v in topological_order(root)] == stepped  # the same, to the last bit


def test_a_long_jump_on_a_big_graph_redraws_in_chunks(window, qtbot):
    open_big_graph(window)
    dbg = window.debugger
    dbg.controller.reset()
    assert dbg.controller.refreshing  # the rest follows a chunk per loop turn
    dbg.controller.seek(len(dbg.controller.stepper.order))
    qtbot.waitUntil(lambda: not dbg.controller.refreshing, timeout=10000)
    items = window.scene.node_items()
    for v in dbg.controller.stepper.topo:
        item = items[dbg.controller.nid(v)]
        assert item.status == "final"
        assert item.grad == v.grad
