"""The minimap (app/graph/minimap.py): a large graph's picture is drawn in slices."""

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

import app.graph.minimap as minimap_module
import app.slices
from core.document.expr import parse


def show_chain(session, n=30):
    doc = parse("x = Value(0.5, label='x')\n" + "\n".join("x = x.tanh()" for _ in range(n)) + "\n")
    for i, node in enumerate(doc.nodes.values()):
        node.pos = (i * 320.0, (i % 2) * 60.0)
    ok, error = session.replace(doc)
    assert ok, error


def at_once(minimap, scene):
    image = QImage(minimap.size(), QImage.Format_ARGB32_Premultiplied)
    image.fill(Qt.transparent)
    minimap._paint_blocks(image, scene.node_items().values())
    return image


def settled(minimap):
    """The picture is complete and no redraw is due (a change rebuilds it, coalesced)."""
    return not minimap._rebuild.isActive() and minimap._image is not None and not minimap.drawing


def redraw_the_picture(session, scene, view, qtbot):
    """Show a 31-node chain at 100 %, wait for the minimap, and throw its picture away: the next
    paint needs a new one. The minimap."""
    show_chain(session)
    view.set_zoom(1.0)
    view.centerOn(scene.node_item("n1"))
    minimap = view.minimap
    qtbot.waitUntil(minimap.isVisible)
    minimap.invalidate()
    return minimap


def test_a_large_graphs_picture_is_drawn_over_several_turns_and_ends_complete(canvas, qtbot, monkeypatch):
    monkeypatch.setattr(minimap_module, "RENDER_AT_ONCE", 10)
    monkeypatch.setattr(minimap_module, "BLOCKS_PER_STEP", 4)
    monkeypatch.setattr(app.slices, "SLICE_SECONDS", 0.0)  # one step per turn
    session, scene, view = canvas
    minimap = redraw_the_picture(session, scene, view, qtbot)
    minimap.repaint()  # the paint that needs the picture starts it, and does not wait for it
    assert minimap.drawing
    assert minimap._image != at_once(minimap, scene)  # only some of the blocks yet
    qtbot.waitUntil(lambda: settled(minimap), timeout=10000)
    assert minimap._image == at_once(minimap, scene)


def test_a_small_graphs_picture_is_drawn_in_the_paint_that_needs_it(canvas, qtbot):
    session, scene, view = canvas
    minimap = redraw_the_picture(session, scene, view, qtbot)
    minimap.repaint()
    assert not minimap.drawing
    assert minimap._image == at_once(minimap, scene)


def test_new_numbers_for_every_node_stop_a_drawing_that_would_keep_old_colours(canvas, qtbot, monkeypatch):
    monkeypatch.setattr(minimap_module, "RENDER_AT_ONCE", 10)
    monkeypatch.setattr(minimap_module, "BLOCKS_PER_STEP", 4)
    monkeypatch.setattr(app.slices, "SLICE_SECONDS", 0.0)
    session, scene, view = canvas
    minimap = redraw_the_picture(session, scene, view, qtbot)
    minimap.repaint()
    assert minimap.drawing
    session.zero_grads()  # every node's grad changes: the picture is drawn again, coalesced
    assert not minimap.drawing
    qtbot.waitUntil(lambda: settled(minimap), timeout=10000)
    assert minimap._image == at_once(minimap, scene)


def test_finish_drawing_completes_the_picture_now(canvas, qtbot, monkeypatch):
    monkeypatch.setattr(minimap_module, "RENDER_AT_ONCE", 10)
    monkeypatch.setattr(minimap_module, "BLOCKS_PER_STEP", 4)
    session, scene, view = canvas
    minimap = redraw_the_picture(session, scene, view, qtbot)
    minimap.finish_drawing()  # what a screenshot calls before it grabs the window
    assert not minimap.drawing
    assert minimap._image == at_once(minimap, scene)
