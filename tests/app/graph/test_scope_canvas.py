"""The big-graph page's canvas: its wires drawn once, under the boxes a step repaints; fitted never below legible."""

import pytest


def test_the_wires_are_drawn_once_under_the_boxes_a_step_repaints(window, qtbot, monkeypatch, request):
    # a step repainted every box and the 100-odd wire curves under them (8-20 ms of the GUI thread);
    # the wires are the canvas's cached background now, drawn again only when the picture or view changes
    from app.graph import scope_canvas
    from core.scopes.layout import drawn_wires

    drawn = []
    background = scope_canvas.ScopeCanvas.drawBackground  # patched before the canvas exists: Qt keeps what it found
    monkeypatch.setattr(scope_canvas.ScopeCanvas, "drawBackground", lambda *a: drawn.append(1) or background(*a))
    page = request.getfixturevalue("example_page")  # opened after the patch
    kinds = {k: page.graph.scopes[k].kind for k in range(len(page.graph.scopes))}
    assert len(page.canvas._wires) == len(drawn_wires(page._units, kinds)) > 10
    page.canvas.viewport().repaint()
    drawn.clear()
    page.canvas.viewport().repaint()
    page.canvas.viewport().repaint()
    assert not drawn  # drawn into the cache by the first paint, then taken from it
    drawn.clear()
    assert page.step() is not None
    page.canvas.viewport().repaint()
    assert not drawn


def test_the_canvas_is_never_fitted_below_legible_and_presenting_reads_from_the_back_row():
    from app.graph.scope_canvas import LEGIBLE_PX, READABLE_PX, legible_floor
    from app.look.theme import DEFAULT

    floor = legible_floor(DEFAULT, presenting=False)
    assert floor * DEFAULT.font("label").pixelSize() == pytest.approx(LEGIBLE_PX)
    back_row = legible_floor(DEFAULT, presenting=True)
    assert back_row >= floor and back_row * DEFAULT.font("number").pixelSize() >= READABLE_PX - 1e-9
