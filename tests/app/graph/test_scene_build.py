"""A large graph's canvas items are built in slices (app/graph/scene_build.py, app/slices.py).

The window answers between slices; edits, undo and another open during a build
end in exactly the items a build from scratch makes; whatever needs every item
gets them at once. No test here times anything: the slices are made small, and
the tests count event-loop turns and compare items with the document.
"""

import pytest
from PySide6.QtCore import Qt, QTimer

import app.slices
from app.files import image_export
from app.graph import scene_build
from app.graph.node_item import NodeItem
from app.main_window import MainWindow
from core.document.commands import RemoveNodes
from core.document.expr import parse
from core.document.names import node_names
from core.nn import MLP

SMALL_SLICE = 0.0005  # seconds: a ~1,000-item build takes dozens of slices on any machine


@pytest.fixture
def window(window, monkeypatch):
    """The shown window of tests/app/conftest.py, with tiny slices."""
    monkeypatch.setattr(app.slices, "SLICE_SECONDS", SMALL_SLICE)
    return window


def traced_mlp(hidden=(12, 8, 1)):
    """One sample through an MLP: ~500 nodes and ~580 wires for the default size,
    enough to be laid out in a worker and built in slices."""
    model = MLP(3, list(hidden))
    return model([0.5, 0.6, 0.7]), model


def open_big(window, qtbot, hidden=(12, 8, 1)):
    """Open a traced MLP and return once its build has begun (some items, not all)."""
    out, model = traced_mlp(hidden)
    assert window.open_value(out, model.parameters())
    # (the first slices name the nodes: wait for the first items, not only for the build)
    qtbot.waitUntil(lambda: window.scene.building and bool(window.scene.node_items()), timeout=60000)
    return out


class TurnCounter:
    """Counts event-loop turns (a zero-interval timer) while the scene is building."""

    def __init__(self, scene):
        self.scene, self.turns = scene, 0
        self.timer = QTimer()
        self.timer.setInterval(0)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    def _tick(self):
        if self.scene.building:
            self.turns += 1

    def stop(self):
        self.timer.stop()


def assert_scene_matches_document(window):
    """One item per node and per wire, where the document says, and nothing else."""
    scene, doc = window.scene, window.session.doc
    assert not scene.building
    assert set(scene.node_items()) == set(doc.nodes)
    assert {tuple(item.edge) for item in scene.edge_items()} == {tuple(e) for e in doc.edges}
    for nid, item in scene.node_items().items():
        assert (item.x(), item.y()) == scene.to_scene_xy(*doc.nodes[nid].pos)
        assert item.label == doc.nodes[nid].label
    in_scene = [item for item in scene.items() if isinstance(item, NodeItem)]
    assert len(in_scene) == len(doc.nodes)  # no item of an earlier graph left behind


# -----------------------------------------------------------------------------
# slicing


def test_a_large_graph_is_built_in_slices_with_the_event_loop_running_between(window, qtbot):
    counter = TurnCounter(window.scene)
    out, model = traced_mlp()
    assert window.open_value(out, model.parameters())
    assert window.layout_pending
    qtbot.waitUntil(lambda: not window.layout_pending, timeout=60000)
    counter.stop()
    assert counter.turns >= 3  # the build went back to the event loop again and again
    assert_scene_matches_document(window)
    values = window.session.values
    for nid, item in window.scene.node_items().items():  # born with their numbers
        assert item.data == values[nid].data and item.grad == values[nid].grad
    root = window.scene.node_item(window.session.doc.effective_output())
    assert root.grad_text == "1.0000" and root.is_output


def test_the_view_can_be_fitted_to_the_whole_graph_before_it_is_built(window, qtbot):
    open_big(window, qtbot)
    planned = window.scene.items_rect()
    window.scene.finish_build()
    assert window.scene.items_rect() == planned


def test_a_small_graph_is_complete_as_soon_as_it_is_shown(window):
    assert window.run_expression("a = Value(2.0, label='a')\nb = a * a + a")
    assert not window.layout_pending and not window.scene.building
    assert_scene_matches_document(window)


def test_the_window_reports_the_open_finished_after_the_last_item(window, qtbot):
    seen = []
    window.layoutFinished.connect(lambda: seen.append(window.scene.counts()))
    out, model = traced_mlp()
    window.open_value(out, model.parameters())
    qtbot.waitUntil(lambda: bool(seen), timeout=60000)
    assert seen == [(len(window.session.doc.nodes), len(window.session.doc.edges))]
    assert window.view.viewport().cursor().shape() != Qt.BusyCursor


# -----------------------------------------------------------------------------
# input during a build


def test_deleting_a_node_during_the_build_ends_in_the_items_of_the_document(window, qtbot):
    open_big(window, qtbot)
    built = next(iter(window.scene.node_items()))
    assert window.session.push(RemoveNodes([built]))[0]
    qtbot.waitUntil(lambda: not window.layout_pending, timeout=60000)
    assert built not in window.session.doc.nodes
    assert_scene_matches_document(window)
    window.undo_stack.undo()
    qtbot.waitUntil(lambda: not window.layout_pending, timeout=60000)
    assert built in window.scene.node_items()
    assert_scene_matches_document(window)


def test_undo_during_the_build_brings_back_the_graph_shown_before(window, qtbot):
    before = {n.label for n in window.session.doc.nodes.values()}
    open_big(window, qtbot)
    window.undo_stack.undo()
    qtbot.waitUntil(lambda: not window.layout_pending, timeout=60000)
    assert {n.label for n in window.session.doc.nodes.values()} == before
    assert_scene_matches_document(window)
    window.undo_stack.redo()  # the big graph again, built in slices again
    qtbot.waitUntil(lambda: not window.layout_pending, timeout=60000)
    assert len(window.session.doc.nodes) > 400
    assert_scene_matches_document(window)


def test_a_second_open_during_the_build_replaces_it_cleanly(window, qtbot):
    open_big(window, qtbot)
    out, model = traced_mlp((14, 9, 1))
    assert window.open_value(out, model.parameters())
    qtbot.waitUntil(lambda: not window.layout_pending, timeout=60000)
    assert window.session.doc.nodes[window.session.doc.effective_output()].label == out.label
    assert_scene_matches_document(window)
    assert window.undo_stack.count() == 2  # two opens: two steps of the history, nothing lost


def test_replacing_a_large_graph_removes_all_its_items_and_repaints_again(window, qtbot):
    open_big(window, qtbot)
    qtbot.waitUntil(lambda: not window.layout_pending, timeout=60000)
    open_big(window, qtbot, (13, 8, 1))
    qtbot.waitUntil(lambda: not window.layout_pending, timeout=60000)
    assert_scene_matches_document(window)
    assert window.view.viewport().updatesEnabled()


def test_an_item_asked_for_during_the_build_is_there(window, qtbot):
    open_big(window, qtbot)
    last = list(window.session.doc.nodes)[-1]
    item = window.scene.node_item(last)
    assert item is not None and item.nid == last
    assert not window.scene.building  # it finished the build to get there
    assert_scene_matches_document(window)


def test_debugger_marks_set_during_the_build_reach_the_items_built_later(window, qtbot):
    open_big(window, qtbot)
    scene, doc = window.scene, window.session.doc
    pending = [nid for nid in doc.nodes if nid not in scene.node_items()][:3]
    assert pending, "the build had already ended"
    scene.marks.set_node_status({pending[0]: "final"})
    scene.marks.set_breakpoint_marks([pending[1]])
    scene.marks.set_highlight([pending[2]])
    scene.marks.update_masks({pending[0]: (None, "?", False)})
    qtbot.waitUntil(lambda: not scene.building, timeout=60000)
    items = scene.node_items()
    assert items[pending[0]].status == "final" and items[pending[0]].texts()[2] == "?"
    assert items[pending[1]].breakpoint
    assert items[pending[2]].highlighted


def test_select_all_during_the_build_selects_every_node(window, qtbot):
    open_big(window, qtbot)
    window.builder.select_all()
    assert set(window.scene.selection.selected_ids()) == set(window.session.doc.nodes)


def test_a_saved_large_graph_opens_in_slices_too(window, qtbot, tmp_path):
    open_big(window, qtbot)
    qtbot.waitUntil(lambda: not window.layout_pending, timeout=60000)
    path = tmp_path / "big.json"
    assert window.files.save_to(path)
    shown = window.session.doc.to_dict()
    counter = TurnCounter(window.scene)
    assert window.open_file(path)  # its nodes have places: no layout, just the build
    assert window.layout_pending
    qtbot.waitUntil(lambda: not window.layout_pending, timeout=60000)
    counter.stop()
    assert counter.turns >= 3
    assert window.session.doc.to_dict() == shown
    assert_scene_matches_document(window)


def test_an_export_during_the_build_pictures_the_whole_graph(window, qtbot, tmp_path):
    open_big(window, qtbot)
    assert image_export.export_png(window.services(), tmp_path / "big.png", scale=0.2)
    assert not window.scene.building
    assert_scene_matches_document(window)


def test_closing_the_window_during_a_build_stops_it(qtbot, monkeypatch):
    monkeypatch.setattr(app.slices, "SLICE_SECONDS", SMALL_SLICE)
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    open_big(w, qtbot)
    w.close()
    assert not w.scene.building and not w.layout_pending
    assert w.view.viewport().updatesEnabled()


# -----------------------------------------------------------------------------
# the pieces


def test_a_graph_with_every_node_at_one_spot_is_arranged_not_drawn_in_a_pile(window, qtbot):
    # repro: a 5,169-node trace shown with layout=False was built at ~120 nodes/s, every
    # slice repainting every node already in the pile (tests/app/files/test_autosave.py timed out)
    from core.document.compile import trace

    out, model = traced_mlp()
    doc, _values = trace(out, model.parameters())
    assert len({node.pos for node in doc.nodes.values()}) == 1
    assert window.show_document(doc, "pile", layout=False)
    qtbot.waitUntil(lambda: not window.layout_pending, timeout=120000)
    positions = [node.pos for node in window.session.doc.nodes.values()]
    assert len(set(positions)) == len(positions)
    assert_scene_matches_document(window)


def test_a_graph_with_its_own_positions_keeps_them_when_shown_unarranged(window):
    from core.document.expr import parse

    doc = parse("f = x*y + y**2")
    for i, node in enumerate(doc.nodes.values()):
        node.pos = (i * 300.0, (i % 2) * 200.0)
    wanted = {nid: node.pos for nid, node in doc.nodes.items()}
    assert window.show_document(doc, "mine", layout=False)
    assert {nid: node.pos for nid, node in window.session.doc.nodes.items()} == wanted


def test_planned_rect_is_the_union_of_the_boxes(window):
    items = list(window.scene.node_items().values())
    rect = scene_build.boxes_rect(items)
    for item in items:
        assert rect.contains(item.box_rect())
    assert rect == window.scene.items_rect()


def test_a_large_graph_comes_with_its_names_and_is_not_named_again(window, qtbot, monkeypatch):
    # the open's ReplaceDocument names the graph on the worker that checks it
    # (core/document/names.py); the build shows those names instead of naming the
    # 500 nodes again in its slices
    named_in_slices = []
    real = scene_build.naming_steps
    monkeypatch.setattr(scene_build, "naming_steps", lambda *a: named_in_slices.append(1) or real(*a))
    open_big(window, qtbot)
    qtbot.waitUntil(lambda: not window.layout_pending, timeout=60000)
    assert named_in_slices == []
    names = node_names(window.session.doc)
    assert {nid: item.name for nid, item in window.scene.node_items().items()} == names


def test_the_build_is_an_object_the_scene_holds(window, qtbot):
    build = window.scene.canvas_build
    open_big(window, qtbot)
    assert build.active and window.scene.building
    assert window.scene.items_rect().contains(build.planned_rect)  # the finished graph's extent from the start
    qtbot.waitUntil(lambda: not window.layout_pending, timeout=60000)
    assert not build.active and build.planned_rect.isNull()
    assert_scene_matches_document(window)


def test_a_new_graphs_extent_is_planned_by_the_first_steps_and_a_fit_asked_for_meanwhile_follows(window, qtbot):
    seen = []  # (items rect null?, items built) at each structureChanged while building
    window.scene.structureChanged.connect(
        lambda: seen.append((window.scene.items_rect().isNull(), len(window.scene.node_items())))
    )
    open_big(window, qtbot)
    assert (True, 0) in seen  # the swap turn: no extent yet (its planning is the build's work)
    assert any(not null for null, _built in seen)  # then the planned extent, before the last item
    planned = window.scene.items_rect()
    fitted_zoom = window.view.zoom()
    window.scene.finish_build()
    assert window.scene.items_rect() == planned
    window.view.fit()
    assert window.view.zoom() == pytest.approx(fitted_zoom)  # the fit asked for in the swap turn happened


def test_a_new_graphs_wires_read_in_steps_are_the_documents_in_its_order():
    doc = parse("a = Value(2.0, label='a')\nb = Value(3.0, label='b')\nc = a * b - b / a\nd = c.tanh() + c")
    edges = []
    steps = sum(1 for _ in scene_build.edges_in_steps(doc, edges))
    assert edges == doc.edges and steps >= 1
