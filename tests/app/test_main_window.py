"""The main window end to end: start-up example, Run, errors, undo, find, export, screenshot."""

import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QTextCharFormat

from app import window_actions
from app.files import image_export
from app.graph.node_geometry import LOD_FIT
from app.graph.view import MIN_ZOOM
from app.main_window import MainWindow
from app.startup import main
from core.engine import Value
from core.format import format_number
from core.nn import MLP


def item_by_label(window, label):
    items = [it for it in window.scene.node_items().values() if it.label == label]
    assert len(items) == 1, f"expected one node labelled {label!r}, got {len(items)}"
    return items[0]


def run(window, qtbot, text):
    window.editor.set_text(text)
    qtbot.keyClick(window.editor.editor, Qt.Key_Return, Qt.ControlModifier)


# -----------------------------------------------------------------------------
# start-up


def test_opens_with_the_tutorial_graph_and_its_gradients(window):
    f, x, y = (item_by_label(window, name) for name in "fxy")
    assert f.data_text == "15.0000" and f.grad_text == "1.0000"
    assert x.data_text == "2.0000" and x.grad_text == "3.0000"
    assert y.data_text == "3.0000" and y.grad_text == "8.0000"
    assert f.is_output
    assert window.scene.counts() == (5, 5)
    assert "5 nodes · 5 edges" in window.counts_label.text()
    assert "15.0000" in window.output_label.text()
    assert not window.undo_stack.canUndo()  # the example is not an edit


def test_menus_and_extension_points(window, qtbot):
    titles = [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert [t for t in titles if t != "Debug"][:5] == ["File", "Edit", "View", "Graph", "Help"]
    debug = window.menu("Debug")
    titles = [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert titles.index("Debug") == titles.index("Help") - 1
    assert window.menu("Debug") is debug and window.menus["Debug"] is debug
    from PySide6.QtWidgets import QLabel

    dock = window.add_dock("stepper", "Debugger", QLabel("steps"), Qt.RightDockWidgetArea, tabify_with="inspector")
    assert window.docks["stepper"] is dock
    action = window.add_action("Debug", "Step", lambda: None, "F10", key="step")
    assert window.actions["step"] is action


# -----------------------------------------------------------------------------
# Run, errors, undo


def test_ctrl_enter_runs_a_new_expression(window, qtbot):
    run(window, qtbot, "a = Value(-2.0, label='a')\nb = Value(5.0, label='b')\nc = a*b + b\n")
    assert window.scene.counts() == (4, 4)
    a, b, c = (item_by_label(window, name) for name in "abc")
    assert c.data_text == "-5.0000" and c.grad_text == "1.0000"
    assert a.grad_text == "5.0000"  # dc/da = b
    assert b.grad_text == "-1.0000"  # dc/db = a + 1
    assert window.editor.error_text() == ""


def test_a_times_a_draws_two_wires(window, qtbot):
    run(window, qtbot, "a = Value(3.0, label='a')\nb = a*a\n")
    a, b = item_by_label(window, "a"), item_by_label(window, "b")
    wires = window.scene.edge_items(src=a.nid, dst=b.nid)
    assert sorted(w.port for w in wires) == [0, 1]
    assert wires[0].path().pointAtPercent(1.0) != wires[1].path().pointAtPercent(1.0)
    assert a.grad_text == "6.0000"


def test_bad_expression_underlines_and_keeps_the_graph(window, qtbot):
    text = "x = Value(2.0, label='x')\nf = x * (x + \n"
    run(window, qtbot, text)
    assert "Line 2" in window.editor.error_text()
    selections = window.editor.editor.extraSelections()
    assert len(selections) == 1
    assert selections[0].format.underlineStyle() == QTextCharFormat.WaveUnderline
    assert selections[0].cursor.block().blockNumber() == 1
    assert window.editor.text() == text  # the user's text is untouched
    assert item_by_label(window, "f").data_text == "15.0000"  # the old graph stays
    assert "Not run" in window.statusBar().currentMessage()


def test_unknown_function_is_reported_not_raised(window, qtbot):
    run(window, qtbot, "foo(3)")
    assert window.editor.error_text()
    assert window.scene.counts() == (5, 5)


def test_run_is_undoable(window, qtbot):
    run(window, qtbot, "q = Value(4.0, label='q')\nr = q.tanh()\n")
    assert window.scene.counts() == (2, 1)
    window.actions["undo"].trigger()
    assert item_by_label(window, "f").data_text == "15.0000"
    window.actions["redo"].trigger()
    assert window.scene.counts() == (2, 1)
    assert item_by_label(window, "r").data_text == "0.9993"


def test_nonfinite_nodes_are_flagged(window, qtbot):
    run(window, qtbot, "x = Value(30.0, label='x')\ny = (x*x).exp()\n")
    y = item_by_label(window, "y")
    assert y.data_text == "inf" and y.nonfinite
    assert not item_by_label(window, "x").data_text == "inf"


def test_missing_inputs_are_marked(window):
    from core.document.graph import GraphDocument, Node

    doc = GraphDocument()
    doc.add_node(Node("n1", "input", value=2.0, label="a"))
    doc.add_node(Node("n2", "op", "mul", label="m"))
    doc.connect("n1", "n2", 0)
    assert window.show_document(doc, "half-built")
    m = item_by_label(window, "m")
    assert m.missing_ports == (1,)
    assert m.data_text == "—"
    assert "no output" in window.output_label.text()


# -----------------------------------------------------------------------------
# clicking, gradients, find


def test_clicking_a_node_fills_the_inspector(window, qtbot):
    x = item_by_label(window, "x")
    point = window.view.mapFromScene(x.mapToScene(x.geometry.data_rect.center()))
    qtbot.mouseClick(window.view.viewport(), Qt.LeftButton, pos=point)
    assert window.session.current_id == x.nid
    assert window.inspector.title.text() == "x"
    assert window.inspector.grad_label.text() == "3.0000"


def test_backward_and_zero_grads(window):
    window.actions["zero grads"].trigger()
    assert {it.grad_text for it in window.scene.node_items().values()} == {"0.0000"}
    window.actions["backward"].trigger()
    assert item_by_label(window, "y").grad_text == "8.0000"
    window.actions["backward"].trigger()  # zeroes first: no doubling
    assert item_by_label(window, "y").grad_text == "8.0000"


def test_find_selects_and_centres(window, qtbot):
    window.view.set_zoom(2.0)
    window.view.centerOn(-2000, -2000)
    nid = window_actions.find_node(window, "y")
    y = item_by_label(window, "y")
    assert nid == y.nid and y.isSelected()
    centre = window.view.mapToScene(window.view.viewport().rect().center())
    assert (centre - y.pos()).manhattanLength() < 5
    window.actions["find"].trigger()
    assert window.find_box.hasFocus()
    assert window_actions.find_node(window, "nothing-like-this") is None


def test_typing_f_in_the_editor_types_rather_than_fits(window, qtbot):
    window.view.set_zoom(2.0)
    window.editor.set_text("")
    window.editor.editor.setFocus()
    qtbot.keyClicks(window.editor.editor, "f")
    assert window.editor.text() == "f"
    assert window.view.zoom() == pytest.approx(2.0)


def test_zoom_actions(window):
    z = window.view.zoom()
    window.actions["zoom in"].trigger()
    assert window.view.zoom() > z
    window.actions["zoom out"].trigger()
    window.actions["zoom out"].trigger()
    assert window.view.zoom() < z
    window.actions["fit"].trigger()
    rect = window.view.mapToScene(window.view.viewport().rect()).boundingRect()
    assert rect.contains(window.scene.items_rect())


# -----------------------------------------------------------------------------
# export, files, screenshot


def test_export_png_and_svg(window, tmp_path):
    png, svg = tmp_path / "g.png", tmp_path / "g.svg"
    assert image_export.export_png(window.services(), png)
    image = QImage(str(png))
    assert not image.isNull() and image.width() > 100 and image.height() > 20
    assert image_export.export_svg(window.services(), svg)
    text = svg.read_text(encoding="utf-8")
    assert text.lstrip().startswith(("<?xml", "<svg"))
    assert ">f<" in text.replace(" ", "") or "f</text>" in text
    assert "15.0000" in text
    assert window.scene.selection.selected_ids() == [window.session.current_id]  # selection kept


def test_save_and_open_a_file(window, qtbot, tmp_path):
    run(window, qtbot, "p = Value(1.5, label='p')\nq = p.exp()\n")
    path = tmp_path / "g.json"
    assert window.files.save_to(path)
    other = MainWindow()
    qtbot.addWidget(other)
    try:
        assert other.open_file(path)
        assert item_by_label(other, "q").data_text == "4.4817"
    finally:
        other.close()


def test_a_bad_file_keeps_the_example_open(window, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something else"}', encoding="utf-8")
    assert not window.open_file(bad)
    assert "bad.json" in window.statusBar().currentMessage()  # the editor's box is for its text
    assert item_by_label(window, "f").data_text == "15.0000"
    assert not window.open_file(tmp_path / "missing.json")
    assert item_by_label(window, "f").data_text == "15.0000"


def test_screenshot_of_a_saved_file_and_of_a_bad_one(qtbot, tmp_path):
    good = tmp_path / "good.json"
    from core.document.expr import parse
    from core.files.graph_file import save

    save(parse("a = Value(2.0, label='a')\nb = a.tanh()\n"), good)
    out = tmp_path / "good.png"
    assert main(["--screenshot", str(out), str(good)]) == 0
    assert not QImage(str(out)).isNull()
    bad = tmp_path / "bad.json"
    bad.write_text("not json", encoding="utf-8")
    out = tmp_path / "bad.png"
    assert main(["--screenshot", str(out), str(bad)]) == 0  # the example stays open
    assert not QImage(str(out)).isNull()


def test_screenshot_option_writes_a_png(qtbot, tmp_path):
    out = tmp_path / "shot.png"
    assert main(["--screenshot", str(out), "--size", "1200x760"]) == 0
    image = QImage(str(out))
    assert image.width() == 1200 and image.height() == 760


# -----------------------------------------------------------------------------
# large graphs (times are printed, never asserted)


def _traced(nin, hidden):
    model = MLP(nin, hidden)
    return model([0.5 + 0.1 * i for i in range(nin)]), model


def test_a_1700_node_traced_graph_opens(window, qtbot):
    out, model = _traced(3, [24, 20, 1])
    started = time.perf_counter()
    assert window.open_value(out, model.parameters())
    assert window.layout_pending  # arranged off the GUI thread
    qtbot.waitUntil(lambda: not window.layout_pending, timeout=60000)
    window.view.viewport().grab()
    elapsed = time.perf_counter() - started
    nodes, edges = window.scene.counts()
    print(f"\n{nodes} nodes, {edges} edges opened in {elapsed:.2f} s")
    assert nodes >= 1700
    root = window.scene.node_item(window.session.doc.effective_output())
    assert root.grad_text == "1.0000" and root.data_text == format_number(out.data)
    window.view.fit()
    # too large to show whole at a legible size: fitted to the legible floor, from the output
    assert window.view.zoom() * window.scene.theme.scale == pytest.approx(LOD_FIT)
    assert window.view.minimap.isVisible()
    window.view.set_zoom(MIN_ZOOM)  # zoomed out by hand to the overview: all of it in view
    assert window.view.minimap.isHidden()


def test_a_5000_node_graph_opens(window, qtbot):
    out, model = _traced(4, [36, 40, 1])
    started = time.perf_counter()
    assert window.open_value(out, model.parameters())
    qtbot.waitUntil(lambda: not window.layout_pending, timeout=120000)
    window.view.viewport().grab()
    elapsed = time.perf_counter() - started
    nodes, edges = window.scene.counts()
    print(f"\n{nodes} nodes, {edges} edges opened in {elapsed:.2f} s")
    assert nodes >= 5000


def test_a_newer_request_wins_over_a_pending_layout(window, qtbot):
    out, model = _traced(3, [24, 20, 1])
    assert window.open_value(out, model.parameters())
    assert window.layout_pending
    run(window, qtbot, "z = Value(1.0, label='z')\nw = z.exp()\n")  # small: shown at once
    assert not window.layout_pending
    assert window.scene.counts() == (2, 1)
    qtbot.waitUntil(lambda: not window.arranger.workers, timeout=60000)
    qtbot.wait(50)  # the stale result is delivered and dropped
    assert window.scene.counts() == (2, 1)


def test_closing_during_a_layout_waits_for_the_worker(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    out, model = _traced(3, [24, 20, 1])
    w.open_value(out, model.parameters())
    w.close()
    assert all(not worker.isRunning() for worker in w.arranger.workers)


def test_open_value_of_a_hand_built_graph(window):
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    c = (a * b).tanh()
    c.label = "c"
    assert window.open_value(c)
    assert item_by_label(window, "c").data_text == f"{c.data:.4f}"


def test_theme_and_presenter_together_give_that_theme_in_presenter_mode(qtbot, tmp_path):
    # repro (issue 16): --presenter ignored --theme dark (presenter mode kept its own palette)
    out = tmp_path / "dark.png"
    args = ["--screenshot", str(out), "--size", "1280x720", "--presenter", "2", "--theme", "dark", "--no-welcome"]
    try:
        assert main(args) == 0
    finally:
        from app.look.theme import DEFAULT
        from app.look.ui_scale import apply_to_application

        apply_to_application(DEFAULT)  # main() set the presenter look application-wide
    image = QImage(str(out))
    canvas = image.pixelColor(image.width() - 40, image.height() // 3)  # background, right of the graph
    assert canvas.lightness() < 80, canvas.name()


def test_a_thousand_term_statement_runs_and_opens(window, qtbot):
    # repro: 'more than 1000 tokens' for a 1,000-node expression written as one statement
    text = "f = " + " + ".join(f"x{i}*w{i}" for i in range(500))
    assert window.run_expression(text)
    qtbot.waitUntil(lambda: not window.layout_pending, timeout=120000)
    nodes, _edges = window.scene.counts()
    assert nodes == 1000 + 500 + 499
    assert window.scene.node_item(window.session.doc.effective_output()).data_text == "500.0000"
