"""Semantic zoom and the canvas's overlays (issue 16): a zoomed-out node keeps its name
with its numbers, the legend writes numbers in the canvas's one format, and a fitted view
stays fitted while the panels around it take or give back room."""

import pytest

import app.graph.node_paint as node_paint
from app.graph.node_geometry import LOD_FIT, LOD_NUMBERS, LOD_TEXT
from core.document.expr import parse
from core.format import format_number


def show(session, text):
    doc = parse(text)
    for i, node in enumerate(doc.nodes.values()):
        node.pos = (i * 320.0, (i % 2) * 60.0)
    ok, error = session.replace(doc)
    assert ok, error
    return doc


def test_a_zoomed_out_node_keeps_its_name_above_its_numbers(canvas, monkeypatch):
    session, scene, view = canvas
    show(session, "x = Value(2.0, label='x')\nw = Value(-3.0, label='w')\nxw = x*w\nxw.label = 'xw'\n")
    painted = []
    original = node_paint.paint_name

    def spy(item, painter, theme, row, full, lod):
        painted.append((item.name, row.height()))
        original(item, painter, theme, row, full, lod)

    monkeypatch.setattr(node_paint, "paint_name", spy)
    zoom = (LOD_TEXT + LOD_NUMBERS) / 2  # between the blocks and the full record
    view.set_zoom(zoom)
    view.viewport().grab()
    names = {name for name, _height in painted}
    assert names == {"x", "w", "xw"}
    # in a strip thinner than the full name row, so the numbers under it get more room
    item = scene.node_item(next(iter(scene.node_items())))
    strip, data_row, grad_row = item.geometry.compact_rows()
    assert all(height == pytest.approx(strip.height()) for _name, height in painted)
    assert strip.height() < item.geometry.label_rect.height()
    assert grad_row.height() > item.geometry.grad_rect.height() and data_row.height() == grad_row.height()
    # and the numbers still read at the zoom fit stops at
    assert node_paint.number_screen_px(item, LOD_FIT) >= 11.0
    painted.clear()
    view.set_zoom(LOD_TEXT / 2)  # the overview: blocks, no text at all
    view.viewport().grab()
    assert painted == []


def test_the_legend_writes_its_scale_in_the_canvas_number_format(canvas):
    session, scene, view = canvas
    show(session, "x = Value(2.0, label='x')\nk = Value(123456789.125, label='k')\ny = x*k\n")
    assert scene.grad_max == pytest.approx(123456789.125)
    assert view.legend.scale_text() == format_number(123456789.125) == "1.235e+08"


def test_a_fitted_view_fits_again_when_the_canvas_is_resized(canvas, qtbot):
    session, scene, view = canvas
    show(session, "x = Value(2.0, label='x')\ny = x.relu()\n")
    view.fit()
    fitted = view.zoom()
    view.resize(480, 300)  # a lesson dock took the lower part of the window
    qtbot.waitUntil(lambda: view.zoom() < fitted)
    visible = view.mapToScene(view.viewport().rect()).boundingRect()
    for item in scene.node_items().values():
        assert visible.contains(item.mapToScene(item.geometry.record).boundingRect()), item.name
    # once the user zooms, a resize leaves the zoom alone
    view.set_zoom(1.0)
    view.resize(900, 600)
    qtbot.wait(1)
    assert view.zoom() == 1.0
