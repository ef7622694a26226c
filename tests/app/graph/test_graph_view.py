"""The canvas on its own: the scene mirrors the session's document; view navigation."""

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QWheelEvent

from app.graph.node_geometry import LOD_FIT, LOD_TEXT, node_size
from app.graph.node_item import NodeItem
from app.look.theme import DARK, DEFAULT
from core.document.commands import AddNode, Connect, MoveNodes, RemoveNodes, SetLabel, SetValue
from core.document.expr import parse
from core.document.graph import Node


def show(session, text):
    doc = parse(text)
    for i, node in enumerate(doc.nodes.values()):
        node.pos = (i * 320.0, (i % 2) * 60.0)
    ok, error = session.replace(doc)
    assert ok, error
    return doc


def test_scene_follows_commands(canvas):
    session, scene, _view = canvas
    session.push(AddNode(Node("n1", "input", value=2.0, label="a", pos=(0, 0))))
    session.push(AddNode(Node("n2", "op", "tanh", label="t", pos=(300, 0))))
    assert set(scene.node_items()) == {"n1", "n2"}
    assert scene.node_item("n2").missing_ports == (0,)
    session.push(Connect("n1", "n2", 0))
    assert len(scene.edge_items()) == 1
    t = scene.node_item("n2")
    assert t.missing_ports == () and t.data_text == "0.9640" and t.is_output
    session.push(SetValue("n1", 0.0))
    assert t.data_text == "0.0000" and t.grad_text == "1.0000"
    edge = scene.edge_items()[0]
    end = edge.path().currentPosition()
    session.push(MoveNodes({"n2": ((300.0, 0.0), (400.0, 50.0))}))
    assert (t.pos().x(), t.pos().y()) == (400.0, 50.0)
    moved = edge.path().currentPosition()  # the wire follows its node
    assert (moved.x() - end.x(), moved.y() - end.y()) == pytest.approx((100.0, 50.0), abs=6)
    session.push(SetLabel("n2", "tanh of a"))
    assert t.label == "tanh of a"
    session.push(RemoveNodes(["n1"]))
    assert set(scene.node_items()) == {"n2"} and scene.edge_items() == []
    session.undo_stack.undo()
    assert set(scene.node_items()) == {"n1", "n2"} and len(scene.edge_items()) == 1


def test_refused_command_changes_nothing(canvas):
    session, scene, _view = canvas
    show(session, "a = Value(1.0, label='a')\nb = a.exp()\n")
    ok, error = session.push(Connect("n2", "n1", 0))  # n1 is an input: no ports
    assert not ok and error is not None
    assert session.undo_stack.count() == 1
    assert len(scene.edge_items()) == 1


def test_debugger_hooks(canvas):
    session, scene, _view = canvas
    show(session, "x = Value(2.0, label='x')\ny = Value(3.0, label='y')\nf = x*y\n")
    scene.marks.set_highlight(nodes=["n3"], edges=[("n1", "n3", 0)])
    assert scene.node_item("n3").highlighted
    assert [e.highlighted for e in scene.edge_items()] == [True, False]
    scene.marks.set_highlight()
    assert not scene.node_item("n3").highlighted
    scene.marks.set_node_status({"n1": "final", "n2": "partial", "n3": QColor("purple")})
    assert scene.node_item("n1").status == "final"
    scene.marks.clear_node_status()
    assert all(item.status is None for item in scene.node_items().values())
    # a debugger step changes grads in place, then asks for a refresh of a few nodes
    x_value = session.value("n1")
    x_value.grad = 42.0
    session.notify_grads(["n1"])
    assert scene.node_item("n1").grad_text == "42.0000"


def test_selection_and_current_node_agree(canvas):
    session, scene, _view = canvas
    show(session, "x = Value(2.0, label='x')\ny = x.relu()\n")
    scene.selection.select_node("n1")
    assert session.current_id == "n1"
    session.select("n2")
    assert scene.selection.selected_ids() == ["n2"]
    scene.clearSelection()
    assert session.current_id is None


def test_dragging_a_node_is_one_undoable_move(canvas, qtbot):
    session, scene, view = canvas
    show(session, "x = Value(2.0, label='x')\ny = x.relu()\n")
    view.set_zoom(1.0)
    view.centerOn(scene.node_item("n1"))
    item = scene.node_item("n1")
    start = view.mapFromScene(item.mapToScene(item.geometry.data_rect.center()))
    qtbot.mousePress(view.viewport(), Qt.LeftButton, pos=start)
    for k in range(1, 6):
        qtbot.mouseMove(view.viewport(), start + QPoint(10 * k, 5 * k))
    qtbot.mouseRelease(view.viewport(), Qt.LeftButton, pos=start + QPoint(50, 25))
    moved = session.doc.nodes["n1"].pos
    assert moved != (0.0, 0.0)
    assert session.undo_stack.count() == 2 and "Move" in session.undo_stack.text(1)
    session.undo_stack.undo()
    assert session.doc.nodes["n1"].pos == (0.0, 0.0)
    assert (item.pos().x(), item.pos().y()) == (0.0, 0.0)


def test_wheel_zooms_under_the_mouse_and_fit(canvas, qtbot):
    session, scene, view = canvas
    show(session, "x = Value(2.0, label='x')\ny = x.relu()\nz = y.exp()\n")
    view.fit()
    assert view.zoom() <= 1.35
    rect = view.mapToScene(view.viewport().rect()).boundingRect()
    assert rect.contains(scene.items_rect())
    z = view.zoom()
    view.zoom_in()
    assert view.zoom() == pytest.approx(z * 1.25)
    pos = QPointF(view.viewport().rect().center())
    before = view.mapToScene(pos.toPoint())
    event = QWheelEvent(
        pos, view.mapToGlobal(pos), QPoint(0, 0), QPoint(0, 240), Qt.NoButton, Qt.NoModifier, Qt.NoScrollPhase, False
    )
    view.wheelEvent(event)
    assert view.zoom() > z * 1.25
    after = view.mapToScene(pos.toPoint())
    assert (after - before).manhattanLength() < 3  # the point under the mouse stays put


def test_far_zoom_hides_text_and_paints(canvas):
    session, scene, view = canvas
    show(session, "x = Value(2.0, label='x')\ny = x.relu()\n")
    view.set_zoom(LOD_TEXT / 3)
    image = view.viewport().grab().toImage()
    assert not image.isNull()
    view.set_zoom(0.03)
    assert not view.viewport().grab().toImage().isNull()


def test_minimap_appears_for_large_graphs_and_navigates(canvas, qtbot):
    session, scene, view = canvas
    chain = "x = Value(0.5, label='x')\n" + "\n".join("x = x.tanh()" for _ in range(30)) + "\n"
    show(session, chain)
    view.set_zoom(1.0)
    view.centerOn(scene.node_item("n1"))
    minimap = view.minimap
    qtbot.waitUntil(minimap.isVisible)
    target = QPointF(minimap.width() - 8, minimap.height() / 2)
    qtbot.mouseClick(minimap, Qt.LeftButton, pos=target.toPoint())
    centre = view.mapToScene(view.viewport().rect().center())
    assert centre.x() > scene.items_rect().center().x()
    view.fit()
    # too long to fit legibly: shown at the legible floor from its output, the minimap stays
    assert view.zoom() == pytest.approx(LOD_FIT / scene.theme.scale)
    out = scene.node_item(session.doc.effective_output())
    assert view.mapToScene(view.viewport().rect()).boundingRect().contains(out.sceneBoundingRect())
    assert minimap.isVisible()
    show(session, "x = Value(0.5, label='x')\ny = x.tanh()\n")
    view.fit()
    qtbot.waitUntil(minimap.isHidden)


def test_fit_never_shrinks_numbers_below_legible_and_keeps_the_legend_off_the_graph(canvas):
    session, scene, view = canvas
    show(session, "x = Value(2.0, label='x')\ny = Value(3.0, label='y')\nf = x*y + y**2\n")
    view.fit()
    assert view.zoom() * scene.theme.scale >= LOD_FIT
    legend = view.legend.geometry()
    for item in scene.node_items().values():
        box = view.mapFromScene(item.sceneBoundingRect()).boundingRect()
        assert not box.intersects(legend), item.nid


def test_layout_sizes_match_items(canvas):
    session, scene, _view = canvas
    doc = show(session, "x = Value(2.0, label='a long label here')\ny = x.relu()\n")
    for nid, node in doc.nodes.items():
        w, h = node_size(DEFAULT, node, nid == doc.effective_output())
        g = scene.node_item(nid).geometry
        assert (g.width, g.height) == (w, h)


def test_theme_switch_and_scale(canvas):
    session, scene, view = canvas
    show(session, "x = Value(2.0, label='x')\ny = x.relu()\n")
    small = scene.node_item("n1").geometry.width
    view.set_theme(DEFAULT.with_(palette=DARK, scale=1.5))
    assert scene.node_item("n1").geometry.width == pytest.approx(small * 1.5, rel=0.1)
    assert scene.backgroundBrush().color() == QColor(DARK.background)
    assert isinstance(scene.node_item("n1"), NodeItem)


# -----------------------------------------------------------------------------
# background and legend: what a repaint costs


def _pixel(view, scene_point):
    """The colour drawn at a scene point (the view's own painting, offscreen)."""
    image = view.viewport().grab().toImage()
    p = view.mapFromScene(scene_point)
    return image.pixelColor(p.x(), p.y())


def test_background_dots_sit_on_the_grid_at_any_zoom(canvas):
    from app.graph.view import GRID_STEP

    session, scene, view = canvas
    show(session, "x = Value(2.0, label='x')\n")
    background = DEFAULT.color("background")
    step = GRID_STEP * DEFAULT.scale
    for zoom in (1.0, 2.0, 0.8):
        view.set_zoom(zoom)
        view.centerOn(QPointF(6 * step, 6 * step))
        dot = _pixel(view, QPointF(6 * step, 6 * step))
        between = _pixel(view, QPointF(6.5 * step, 6.5 * step))
        assert dot != background, zoom  # a dot at a multiple of the step
        assert between == background, zoom  # nothing between dots
    view.set_zoom(0.3)  # too far out for dots
    view.centerOn(QPointF(6 * step, 6 * step))
    assert _pixel(view, QPointF(6 * step, 6 * step)) == background


def test_the_cached_background_follows_a_theme_switch(canvas):
    from app.graph.view import GRID_STEP

    session, scene, view = canvas
    show(session, "x = Value(2.0, label='x')\n")
    view.set_zoom(1.0)
    between = QPointF(-5.5 * GRID_STEP, -5.5 * GRID_STEP)  # no node, no dot there
    view.centerOn(between)
    assert _pixel(view, between) == DEFAULT.color("background")
    view.set_theme(DEFAULT.with_(palette=DARK))
    assert _pixel(view, between) == QColor(DARK.background)


def test_the_legend_repaints_only_when_the_grad_scale_changes(canvas, qtbot):
    from PySide6.QtCore import QEvent, QObject

    class PaintCounter(QObject):
        count = 0

        def eventFilter(self, obj, event):
            if event.type() == QEvent.Paint:
                self.count += 1
            return False

    session, scene, view = canvas
    show(session, "x = Value(2.0, label='x')\ny = Value(3.0, label='y')\nf = x*y\n")
    view.set_zoom(1.0)
    view.centerOn(QPointF(320.0, 250.0))  # the nodes along the top, far from the legend
    qtbot.wait(50)
    counter = PaintCounter()
    view.legend.installEventFilter(counter)
    grads = {nid: session.value(nid).grad for nid in ("n1", "n2")}  # x: 3, y: 2
    smaller = min(grads, key=grads.get)
    session.value(smaller).grad = 0.5  # still below the largest grad: the scale stays
    session.notify_grads([smaller])
    qtbot.wait(50)
    assert counter.count == 0
    session.value(smaller).grad = 40.0  # a new largest grad: the legend's numbers change
    session.notify_grads([smaller])
    qtbot.waitUntil(lambda: counter.count > 0)


def test_the_empty_canvas_text_goes_when_the_first_items_come(canvas, qtbot):
    # repro (issue 16): "No graph yet." stayed painted over a large graph until a pan
    session, scene, view = canvas
    view.viewport().grab()  # paints the hint on the empty canvas
    assert view._hint_shown
    show(session, "x = Value(2.0, label='x')\ny = x.tanh()\n")
    qtbot.waitUntil(lambda: not view._hint_shown, timeout=5000)
