"""Building graphs by hand: palette drops, wires, selection, clipboard, editing, groups,
undo/redo -- each gesture one command, each refusal with its reason."""

import math

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt
from PySide6.QtGui import QDropEvent, QGuiApplication
from PySide6.QtWidgets import QMenu, QUndoView

from app import window_actions
from app.graph.builder import FRAGMENT_MIME
from app.graph.groups import GroupItem
from app.graph.ports import PortRef
from app.graph.view import PALETTE_MIME
from app.graph.wires import port_at
from app.main_window import MainWindow
from core.engine import Value


@pytest.fixture
def window(qtbot):
    w = MainWindow(load_example=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.view.set_zoom(1.0)
    w.view.centerOn(400, 100)
    yield w
    w.close()


def view_point(window, scene_point):
    return window.view.mapFromScene(scene_point)


def drop(window, key, scene_point, **options):
    """Drop a palette tile at scene_point through a real QDropEvent."""
    mime = window.palette.mime_for(key)
    if options:
        import json

        spec = json.loads(bytes(mime.data(PALETTE_MIME)).decode())
        spec.update(options)
        mime.setData(PALETTE_MIME, json.dumps(spec).encode())
    pos = QPointF(view_point(window, scene_point))
    event = QDropEvent(pos, Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    window.view.dropEvent(event)
    assert event.isAccepted()
    return window.builder.last_added


def add(window, key, x, y, **options):
    ids = window.builder.add_entry(dict(key=key, **options), QPointF(x, y))
    assert ids, f"could not add {key}"
    return ids[0]


def wire(window, src, dst, port):
    scene = window.scene
    scene.gestures.start_wire(PortRef(src, "out"))
    return scene.gestures.finish_wire(scene.node_item(dst).port_point(port))


def labels(window):
    return {n.label: nid for nid, n in window.session.doc.nodes.items() if n.label}


# -----------------------------------------------------------------------------
# the palette


def test_palette_lists_every_part_and_filters(window):
    keys = window.palette.visible_keys()
    assert keys[:2] == ["input", "const"] and "tanh" in keys and keys[-2:] == ["neuron", "layer"]
    window.palette.search.setText("tan")
    assert window.palette.visible_keys() == ["tanh"]
    window.palette.search.setText("")
    assert len(window.palette.visible_keys()) == len(keys)


def test_dropping_a_palette_tile_creates_the_node_at_the_drop_point(window):
    stack = window.undo_stack
    ids = drop(window, "tanh", QPointF(300, 40))
    doc = window.session.doc
    assert len(ids) == 1 and doc.nodes[ids[0]].op == "tanh"
    x, y = doc.nodes[ids[0]].pos
    assert abs(x - 300) <= 1.5 and abs(y - 40) <= 1.5  # view pixels round to a point
    assert window.scene.node_item(ids[0]).missing_ports == (0,)  # marked, not failing
    assert stack.count() == 1 and stack.text(0) == "Add tanh"
    stack.undo()
    assert not doc.nodes and window.scene.counts() == (0, 0)
    stack.redo()
    assert list(doc.nodes) == ids


def test_a_drag_carries_the_entry_and_the_options(window):
    window.palette.k_spin.setValue(3.0)
    mime = window.palette.shelves["Operations"].mimeData([window.palette.shelves["Operations"].item(5)])  # pow
    assert mime.hasFormat(PALETTE_MIME)
    ids = drop(window, "pow", QPointF(0, 0))
    assert window.session.doc.nodes[ids[0]].param == 3.0


def test_drop_of_something_else_is_ignored(window):
    mime = QMimeData()
    mime.setText("hello")
    event = QDropEvent(QPointF(10, 10), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    window.view.dropEvent(event)
    assert not window.session.doc.nodes


def test_double_click_or_enter_on_a_tile_adds_it_in_the_view(window):
    shelf = window.palette.shelves["Leaves"]
    shelf.itemActivated.emit(shelf.item(0))
    (nid,) = window.session.doc.nodes
    assert window.session.doc.nodes[nid].kind == "input"
    assert window.session.doc.nodes[nid].label == "x1"


# -----------------------------------------------------------------------------
# wires


def test_a_wire_dragged_with_the_mouse_connects(window, qtbot):
    x = add(window, "input", 100, 0)
    t = add(window, "tanh", 420, 0)
    scene, viewport = window.scene, window.view.viewport()
    start = view_point(window, scene.node_item(x).out_point())
    end = view_point(window, scene.node_item(t).port_point(0))
    assert port_at(scene, scene.node_item(x).out_point(), 3) == PortRef(x, "out")
    qtbot.mousePress(viewport, Qt.LeftButton, pos=start)
    assert scene.gestures.wiring
    for k in range(1, 6):
        qtbot.mouseMove(viewport, start + (end - start) * k / 5)
    assert scene.gestures.wire.ok and "connect x1" in scene.gestures.wire.reason
    qtbot.mouseRelease(viewport, Qt.LeftButton, pos=end)
    doc = window.session.doc
    assert doc.inputs_of(t) == [x] and not scene.gestures.wiring
    assert window.undo_stack.count() == 3 and window.undo_stack.text(2) == "Connect x1 → tanh"
    assert scene.node_item(t).data_text == f"{math.tanh(1.0):.4f}"
    assert doc.nodes[x].pos == (100.0, 0.0)  # the press on the port did not drag the node
    window.undo_stack.undo()
    assert doc.inputs_of(t) == [None]


def test_a_wire_can_start_at_a_free_input_and_end_on_any_node(window):
    x = add(window, "input", 0, 0)
    t = add(window, "exp", 400, 0)
    scene = window.scene
    scene.gestures.start_wire(PortRef(t, "in", 0))
    ok, reason = scene.gestures.move_wire(scene.node_item(x).box_rect().center())
    assert ok, reason
    assert scene.gestures.finish_wire(scene.node_item(x).box_rect().center())[0]
    assert window.session.doc.inputs_of(t) == [x]


@pytest.mark.parametrize("case", ["cycle", "self", "into a leaf"])
def test_invalid_wires_are_refused_with_their_reason(window, qtbot, case):
    x = add(window, "input", 0, 0)
    a = add(window, "exp", 350, 0)
    b = add(window, "relu", 700, 0)
    assert wire(window, x, a, 0)[0] and wire(window, a, b, 0)[0]
    before, count = window.session.doc.to_dict(), window.undo_stack.count()
    hints = []
    window.scene.hint.connect(hints.append)
    scene = window.scene
    if case == "cycle":
        scene.gestures.start_wire(PortRef(b, "out"))
        target, expected = scene.node_item(a).port_point(0), "cycle"
    elif case == "self":
        scene.gestures.start_wire(PortRef(b, "out"))
        target, expected = scene.node_item(b).box_rect().center() + QPointF(30, 0), "cannot feed itself"
    else:
        scene.gestures.start_wire(PortRef(a, "out"))
        target, expected = scene.node_item(x).box_rect().center(), "has no inputs"
    ok, reason = scene.gestures.move_wire(target)
    assert not ok and expected in reason
    assert scene.gestures.wire.path_item.pen().color() == window.theme.color("missing")  # drawn red
    done, reason = scene.gestures.finish_wire(target)
    assert not done and expected in reason
    assert any(expected in h for h in hints)
    assert window.session.doc.to_dict() == before and window.undo_stack.count() == count
    assert not scene.gestures.wiring and scene.gestures.wire is None


def test_dropping_on_an_occupied_input_replaces_the_wire_in_one_step(window):
    x, y = add(window, "input", 0, 0), add(window, "input", 0, 120)
    t = add(window, "tanh", 400, 60)
    assert wire(window, x, t, 0)[0]
    count = window.undo_stack.count()
    ok, reason = wire(window, y, t, 0)
    assert ok and "replaces the wire from x1" in reason
    assert window.session.doc.inputs_of(t) == [y]
    assert window.undo_stack.count() == count + 1
    window.undo_stack.undo()
    assert window.session.doc.inputs_of(t) == [x]


def test_a_wired_input_picked_up_moves_or_removes_its_wire(window):
    x = add(window, "input", 0, 0)
    m = add(window, "mul", 400, 0)
    n = add(window, "add", 400, 200)
    assert wire(window, x, m, 0)[0]
    scene, doc = window.scene, window.session.doc
    # pick up from m:0, drop on n:1 -> moved, one step
    scene.gestures.start_wire(PortRef(m, "in", 0))
    assert scene.gestures.finish_wire(scene.node_item(n).port_point(1))[0]
    assert doc.inputs_of(m) == [None, None] and doc.inputs_of(n) == [None, x]
    assert window.undo_stack.text(window.undo_stack.count() - 1) == "Move wire"
    # pick up again and drop on empty canvas -> removed
    scene.gestures.start_wire(PortRef(n, "in", 1))
    assert scene.gestures.finish_wire(QPointF(900, 900))[0]
    assert not doc.edges
    window.undo_stack.undo()
    window.undo_stack.undo()
    assert doc.inputs_of(m) == [x, None]


def test_escape_cancels_a_wire(window, qtbot):
    x = add(window, "input", 0, 0)
    window.scene.gestures.start_wire(PortRef(x, "out"))
    window.view.setFocus()
    qtbot.keyClick(window.view, Qt.Key_Escape)
    assert not window.scene.gestures.wiring and len(window.scene.items()) == 1 + 0  # only the node


def test_dropping_an_op_on_a_wire_inserts_it(window):
    x = add(window, "input", 0, 0)
    t = add(window, "tanh", 600, 0)
    assert wire(window, x, t, 0)[0]
    edge_item = window.scene.edge_items()[0]
    middle = edge_item.path().pointAtPercent(0.45)
    ids = drop(window, "relu", middle)
    doc = window.session.doc
    assert doc.inputs_of(ids[0]) == [x] and doc.inputs_of(t) == [ids[0]]
    assert window.undo_stack.text(window.undo_stack.count() - 1).startswith("Insert relu")
    window.undo_stack.undo()
    assert doc.inputs_of(t) == [x] and len(doc.nodes) == 2


def test_dragging_a_node_onto_a_wire_inserts_it_in_one_step(window, qtbot):
    x = add(window, "input", 0, 0)
    t = add(window, "tanh", 700, 0)
    assert wire(window, x, t, 0)[0]
    e = add(window, "exp", 350, 250)
    scene, viewport = window.scene, window.view.viewport()
    item = scene.node_item(e)
    grab = view_point(window, item.mapToScene(item.geometry.data_rect.center()))
    wire_point = scene.edge_items()[0].path().pointAtPercent(0.5)
    shift = view_point(window, wire_point) - view_point(window, item.port_point(0))
    count = window.undo_stack.count()
    qtbot.mousePress(viewport, Qt.LeftButton, pos=grab)
    for k in range(1, 8):
        qtbot.mouseMove(viewport, grab + shift * k / 7)
    assert scene.gestures.insert_edge is not None  # the wire glows
    qtbot.mouseRelease(viewport, Qt.LeftButton, pos=grab + shift)
    doc = window.session.doc
    assert doc.inputs_of(e) == [x] and doc.inputs_of(t) == [e]
    assert window.undo_stack.count() == count + 1
    window.undo_stack.undo()
    assert doc.inputs_of(t) == [x] and doc.nodes[e].pos == (350.0, 250.0)


# -----------------------------------------------------------------------------
# selection, moving, deleting


def test_rubber_band_and_ctrl_click_select(window, qtbot):
    a, b = add(window, "input", 0, 0), add(window, "input", 0, 100)
    c = add(window, "input", 600, 0)
    scene, viewport = window.scene, window.view.viewport()
    scene.clearSelection()
    p0 = view_point(window, QPointF(-150, -60))
    p1 = view_point(window, QPointF(150, 160))
    qtbot.mousePress(viewport, Qt.LeftButton, pos=p0)
    for k in range(1, 6):
        qtbot.mouseMove(viewport, p0 + (p1 - p0) * k / 5)
    qtbot.mouseRelease(viewport, Qt.LeftButton, pos=p1)
    assert sorted(scene.selection.selected_ids()) == sorted([a, b])
    item = scene.node_item(c)
    qtbot.mouseClick(
        viewport,
        Qt.LeftButton,
        Qt.ControlModifier,
        view_point(window, item.mapToScene(item.geometry.data_rect.center())),
    )
    assert sorted(scene.selection.selected_ids()) == sorted([a, b, c])
    assert window.undo_stack.count() == 3  # selecting is not an edit


def test_moving_several_nodes_is_one_undo_step(window, qtbot):
    a, b = add(window, "input", 0, 0), add(window, "input", 0, 100)
    scene, viewport = window.scene, window.view.viewport()
    scene.selection.select_ids([a, b])
    item = scene.node_item(a)
    start = view_point(window, item.mapToScene(item.geometry.data_rect.center()))
    count = window.undo_stack.count()
    qtbot.mousePress(viewport, Qt.LeftButton, pos=start)
    for k in range(1, 6):
        qtbot.mouseMove(viewport, start + QPoint(12 * k, 4 * k))
    qtbot.mouseRelease(viewport, Qt.LeftButton, pos=start + QPoint(60, 20))
    doc = window.session.doc
    assert window.undo_stack.count() == count + 1
    assert window.undo_stack.text(count) == "Move 2 nodes"
    assert doc.nodes[a].pos[0] > 0 and doc.nodes[b].pos[0] == doc.nodes[a].pos[0]
    window.undo_stack.undo()
    assert doc.nodes[a].pos == (0.0, 0.0) and doc.nodes[b].pos == (0.0, 100.0)


def test_delete_key_removes_the_selection_and_undo_brings_it_back(window, qtbot):
    x = add(window, "input", 0, 0)
    t = add(window, "tanh", 400, 0)
    assert wire(window, x, t, 0)[0]
    before = window.session.doc.to_dict()
    window.scene.selection.select_ids([x])
    window.view.setFocus()
    qtbot.keyClick(window.view, Qt.Key_Delete)
    assert list(window.session.doc.nodes) == [t] and window.scene.node_item(t).missing_ports == (0,)
    assert window.undo_stack.text(window.undo_stack.count() - 1) == "Delete x1"
    window.undo_stack.undo()
    assert window.session.doc.to_dict() == before


def test_delete_a_wire_from_its_context_menu(window):
    x = add(window, "input", 0, 0)
    t = add(window, "tanh", 600, 0)
    assert wire(window, x, t, 0)[0]
    middle = window.scene.edge_items()[0].path().pointAtPercent(0.5)
    target = window.scene.target_at(middle)
    assert target[0] == "edge"
    menu = window.scene.context_menu.fill(QMenu(), target, middle)
    action = next(a for a in menu.actions() if a.text().startswith("Delete Wire"))
    action.trigger()
    assert not window.session.doc.edges


def test_select_all_is_ctrl_a_on_the_canvas(window, qtbot):
    for i in range(3):
        add(window, "input", 0, 100 * i)
    window.scene.clearSelection()
    window.view.setFocus()
    qtbot.keyClick(window.view, Qt.Key_A, Qt.ControlModifier)
    assert len(window.scene.selection.selected_ids()) == 3


# -----------------------------------------------------------------------------
# clipboard


def test_copy_paste_cut_and_duplicate(window):
    x = add(window, "input", 0, 0)
    t = add(window, "tanh", 400, 0)
    assert wire(window, x, t, 0)[0]
    doc, builder = window.session.doc, window.builder
    window.scene.selection.select_ids([x, t])
    assert builder.copy()
    mime = QGuiApplication.clipboard().mimeData()
    assert mime.hasFormat(FRAGMENT_MIME) and '"backprop-studio.fragment"' in mime.text()
    count = window.undo_stack.count()
    pasted = builder.paste(QPointF(200, 400))
    assert len(pasted) == 2 and len(doc.nodes) == 4
    assert doc.inputs_of(pasted[1]) == [pasted[0]]  # the wire among them came along
    cx = sum(doc.nodes[n].pos[0] for n in pasted) / 2
    assert abs(cx - 200) < 1e-6  # centred on the mouse
    assert window.undo_stack.count() == count + 1 and sorted(window.scene.selection.selected_ids()) == pasted
    dup = builder.duplicate()
    assert len(dup) == 2 and doc.nodes[dup[0]].pos == (
        doc.nodes[pasted[0]].pos[0] + 40,
        doc.nodes[pasted[0]].pos[1] + 40,
    )
    assert builder.cut()
    assert len(doc.nodes) == 4
    assert len(builder.paste(QPointF(0, 600))) == 2
    for _ in range(4):
        window.undo_stack.undo()
    assert list(doc.nodes) == [x, t]


def test_pasting_micrograd_code_as_text_builds_it(window):
    QGuiApplication.clipboard().setText("a = Value(2.0, label='a')\nb = a.exp()\n")
    ids = window.builder.paste(QPointF(0, 0))
    assert len(ids) == 2 and window.session.doc.nodes[ids[1]].op == "exp"
    QGuiApplication.clipboard().setText("this is not ( a graph")
    messages = []
    window.builder.message.connect(messages.append)
    assert window.builder.paste(QPointF(0, 0)) == []
    assert "not a graph" in messages[-1]


def test_a_broken_fragment_on_the_clipboard_is_refused(window):
    mime = QMimeData()
    mime.setData(
        FRAGMENT_MIME,
        b'{"format": "backprop-studio.fragment", "nodes": [{"id": "n1", "kind": "op", "op": "matmul"}], "edges": []}',
    )
    QGuiApplication.clipboard().setMimeData(mime)
    messages = []
    window.builder.message.connect(messages.append)
    assert window.builder.paste(QPointF(0, 0)) == []
    assert "matmul" in messages[-1] and not window.session.doc.nodes


# -----------------------------------------------------------------------------
# quick add, editing, output


def test_tab_opens_quick_add_and_enter_adds_tanh_at_the_cursor(window, qtbot):
    window.view.setFocus()
    qtbot.keyClick(window.view, Qt.Key_Tab)
    overlay = window.builder.quick_add
    assert overlay.isVisible() and overlay.edit.hasFocus()
    opened_at = QPointF(overlay._scene_pos)
    qtbot.keyClicks(overlay.edit, "tan")
    assert overlay.matches()[0] == "tanh"
    qtbot.keyClick(overlay.edit, Qt.Key_Return)
    assert not overlay.isVisible()
    (nid,) = window.session.doc.nodes
    node = window.session.doc.nodes[nid]
    assert node.op == "tanh" and node.pos == (opened_at.x(), opened_at.y())


def test_double_click_on_empty_canvas_opens_quick_add(window, qtbot):
    qtbot.mouseDClick(window.view.viewport(), Qt.LeftButton, pos=QPoint(300, 200))
    overlay = window.builder.quick_add
    assert overlay.isVisible()
    qtbot.keyClick(overlay.edit, Qt.Key_Escape)
    assert not overlay.isVisible() and not window.session.doc.nodes


def test_double_click_on_a_leaf_edits_label_and_value_in_one_step(window, qtbot):
    x = add(window, "input", 0, 0)
    t = add(window, "tanh", 400, 0)
    assert wire(window, x, t, 0)[0]
    item = window.scene.node_item(x)
    qtbot.mouseDClick(
        window.view.viewport(), Qt.LeftButton, pos=view_point(window, item.mapToScene(item.geometry.data_rect.center()))
    )
    editor = window.builder.node_editor
    assert editor.isVisible() and editor.nid == x
    editor.label_edit.setText("w")
    editor.number_edit.setValue(0.5)
    count = window.undo_stack.count()
    qtbot.keyClick(editor.number_edit, Qt.Key_Return)
    assert not editor.isVisible()
    node = window.session.doc.nodes[x]
    assert node.label == "w" and node.value == 0.5
    assert window.undo_stack.count() == count + 1
    assert window.scene.node_item(t).data_text == f"{math.tanh(0.5):.4f}"  # recomputed at once
    assert window.scene.node_item(x).grad_text == f"{1 - math.tanh(0.5) ** 2:.4f}"
    window.undo_stack.undo()
    assert window.session.doc.nodes[x].label == "x1" and window.session.doc.nodes[x].value == 1.0


def test_escape_leaves_the_node_as_it_was(window, qtbot):
    x = add(window, "input", 0, 0)
    window.builder.edit_node(x)
    editor = window.builder.node_editor
    editor.number_edit.setValue(9.0)
    qtbot.keyClick(editor.number_edit, Qt.Key_Escape)
    assert window.session.doc.nodes[x].value == 1.0 and not editor.isVisible()


def test_pow_exponent_is_edited_like_a_value(window):
    p = add(window, "pow", 0, 0, k=2.0)
    window.builder.edit_node(p)
    editor = window.builder.node_editor
    assert editor.number_label.text() == "exponent k"
    editor.number_edit.setValue(3.0)
    editor.apply()
    assert window.session.doc.nodes[p].param == 3.0


def test_live_backward_toggle(window):
    x = add(window, "input", 0, 0)
    t = add(window, "tanh", 400, 0)
    assert wire(window, x, t, 0)[0]
    window.session.auto_backward = False
    window.builder.apply_edit(x, {"value": 0.0})
    assert window.scene.node_item(t).data_text == "0.0000"  # data at once
    assert window.scene.node_item(x).grad_text == "0.0000"  # grads wait for Backward
    window.session.backward()
    assert window.scene.node_item(x).grad_text == "1.0000"


def test_set_as_output_from_the_context_menu(window):
    x = add(window, "input", 0, 0)
    a = add(window, "exp", 400, 0)
    b = add(window, "relu", 400, 200)
    assert wire(window, x, a, 0)[0] and wire(window, x, b, 0)[0]
    doc = window.session.doc
    assert doc.effective_output() is None  # two sinks: ambiguous
    menu = window.scene.context_menu.fill(QMenu(), ("node", b), QPointF())
    next(act for act in menu.actions() if act.text() == "Set as Output").trigger()
    assert doc.effective_output() == b and window.scene.node_item(b).is_output
    menu = window.scene.context_menu.fill(QMenu(), ("node", b), QPointF())
    next(act for act in menu.actions() if act.text().startswith("Use the Single Sink")).trigger()
    assert doc.output is None
    window.undo_stack.undo()
    assert doc.output == b


def test_canvas_menu_adds_any_part_where_clicked(window):
    menu = window.scene.context_menu.fill(QMenu(), ("canvas", None), QPointF(50, 60))
    add_menu = next(a for a in menu.actions() if a.text() == "Add").menu()
    next(a for a in add_menu.actions() if a.text().endswith("sigmoid")).trigger()
    (nid,) = window.session.doc.nodes
    assert window.session.doc.nodes[nid].op == "sigmoid" and window.session.doc.nodes[nid].pos == (50, 60)


def test_debugger_hooks_still_fill_the_node_menu(window):
    x = add(window, "input", 0, 0)
    window.scene.context_menu.add_node_menu_hook(lambda menu, nid: menu.addAction(f"hooked {nid}"))
    menu = window.scene.context_menu.fill(QMenu(), ("node", x), QPointF())
    texts = [a.text() for a in menu.actions()]
    assert "Edit…" in texts and f"hooked {x}" in texts


# -----------------------------------------------------------------------------
# blocks and groups


def test_a_neuron_from_the_palette_is_one_step_with_editable_leaves(window):
    ids = drop(window, "neuron", QPointF(0, 0), nin=2, activation="tanh")
    doc, groups = window.session.doc, window.session.groups
    assert len(ids) == 10 and len(groups) == 1
    (group,) = list(groups)
    assert group["title"] == "Neuron N1 (tanh, 2 inputs)"
    assert window.scene.group_layer.frame("N1") is not None
    assert {doc.nodes[n].label for n in ids} >= {"N1.w0", "N1.w1", "N1.b", "N1", "x1", "x2"}
    assert window.undo_stack.count() == 1
    window.undo_stack.undo()
    assert not doc.nodes and not len(groups) and window.scene.group_layer.frame("N1") is None
    window.undo_stack.redo()
    assert len(doc.nodes) == 10 and groups.get("N1") is not None


def test_a_neuron_reads_the_selected_nodes(window):
    a, b = add(window, "input", 0, 0), add(window, "input", 0, 100)
    window.scene.selection.select_ids([a, b])
    window.builder.options["nin"] = 2
    ids = window.builder.add_entry({"key": "neuron"}, QPointF(300, 50))
    doc = window.session.doc
    assert len(ids) == 8  # no new inputs: a and b feed it
    assert sorted(e.src for e in doc.edges if e.src in (a, b)) == sorted([a, b])


def test_collapse_and_expand_a_layer(window):
    ids = window.builder.add_entry({"key": "layer", "nin": 2, "nout": 2, "activation": "relu"}, QPointF(0, 0))
    scene, doc = window.scene, window.session.doc
    before = doc.to_dict()
    gid = next(iter(window.session.groups))["id"]
    members = window.session.groups.get(gid)["nodes"]
    assert window.builder.set_collapsed(gid, True)
    box = scene.group_layer.item(gid)
    assert isinstance(box, GroupItem) and box.isVisible()
    assert all(not scene.node_item(n).isVisible() for n in members)
    assert [label for label, _d, _g in box.texts()] == ["L1.n0", "L1.n1"]
    assert len(box.inputs) == 4  # 2 inputs × 2 neurons, fed from outside
    inputs = [n for n in ids if n not in members]
    crossing = [e for e in scene.edge_items() if e.src_item.nid in inputs]
    assert crossing and all(e.dst_anchor is box for e in crossing)
    end = crossing[0].path().pointAtPercent(1.0)
    assert abs(end.x() - box.box_rect().left()) < 8  # the wire ends on the box
    assert doc.to_dict() == before  # collapsing changed no number, no wire
    assert window.undo_stack.text(window.undo_stack.count() - 1) == "Collapse Layer L1 (2×2, relu)"
    window.undo_stack.undo()
    assert scene.group_layer.item(gid) is None and all(scene.node_item(n).isVisible() for n in members)
    window.undo_stack.redo()
    assert window.builder.set_collapsed(gid, False)
    assert scene.group_layer.item(gid) is None


def test_a_collapsed_group_moves_as_one_and_deletes_as_one(window, qtbot):
    window.builder.add_entry({"key": "neuron", "nin": 1, "activation": "tanh"}, QPointF(0, 0))
    doc, scene = window.session.doc, window.scene
    gid = "N1"
    members = window.session.groups.get(gid)["nodes"]
    window.builder.set_collapsed(gid, True)
    box = scene.group_layer.item(gid)
    old = {n: doc.nodes[n].pos for n in members}
    start = view_point(window, box.box_rect().center() + QPointF(0, 10))
    viewport = window.view.viewport()
    count = window.undo_stack.count()
    qtbot.mousePress(viewport, Qt.LeftButton, pos=start)
    for k in range(1, 5):
        qtbot.mouseMove(viewport, start + QPoint(10 * k, 5 * k))
    qtbot.mouseRelease(viewport, Qt.LeftButton, pos=start + QPoint(40, 20))
    assert window.undo_stack.count() == count + 1
    dx = doc.nodes[members[0]].pos[0] - old[members[0]][0]
    assert dx > 0 and all(doc.nodes[n].pos[0] - old[n][0] == pytest.approx(dx) for n in members)
    assert scene.selection.edit_selection() == members
    window.builder.delete_selection()
    assert not any(n in doc.nodes for n in members) and len(window.session.groups) == 0
    window.undo_stack.undo()
    assert all(n in doc.nodes for n in members) and window.session.groups.get(gid)["collapsed"]
    assert scene.group_layer.item(gid) is not None


def test_double_click_expands_a_collapsed_group(window, qtbot):
    window.builder.add_entry({"key": "neuron", "nin": 1}, QPointF(0, 0))
    window.builder.set_collapsed("N1", True)
    box = window.scene.group_layer.item("N1")
    qtbot.mouseDClick(window.view.viewport(), Qt.LeftButton, pos=view_point(window, box.box_rect().center()))
    assert not window.session.groups.get("N1")["collapsed"]


def test_copying_a_whole_group_pastes_a_new_group(window):
    ids = window.builder.add_entry({"key": "neuron", "nin": 1}, QPointF(0, 0))
    window.scene.selection.select_ids(ids)
    pasted = window.builder.duplicate()
    assert len(pasted) == len(ids)
    assert [g["id"] for g in window.session.groups] == ["N1", "N1-2"]


# -----------------------------------------------------------------------------
# layout, history, the whole path


def test_arrange_is_one_undoable_step(window):
    for i in range(3):
        add(window, "input", 0, 0 + i)  # piled up
    before = window.session.doc.to_dict()
    window.actions["arrange"].trigger()
    assert window.undo_stack.text(window.undo_stack.count() - 1) == "Arrange graph"
    assert len({n.pos for n in window.session.doc.nodes.values()}) == 3
    window.undo_stack.undo()
    assert window.session.doc.to_dict() == before


def test_the_undo_history_is_shown(window):
    add(window, "input", 0, 0)
    assert isinstance(window.history, QUndoView) and window.history.stack() is window.undo_stack
    assert window.docks["history"].widget() is window.history


def test_undo_redo_shortcuts(window, qtbot):
    add(window, "input", 0, 0)
    window.view.setFocus()
    qtbot.keyClick(window.view, Qt.Key_Z, Qt.ControlModifier)
    assert not window.session.doc.nodes
    qtbot.keyClick(window.view, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    assert len(window.session.doc.nodes) == 1
    window.undo_stack.undo()
    qtbot.keyClick(window.view, Qt.Key_Y, Qt.ControlModifier)
    assert len(window.session.doc.nodes) == 1


def build_neuron_by_hand(window):
    """tanh(w1*x1 + w2*x2 + b) from palette drops and wire gestures, no code typed."""
    b = window.builder
    parts = {}
    for name, value, y in (
        ("x1", 2.0, 0),
        ("w1", -3.0, 100),
        ("x2", 0.0, 200),
        ("w2", 1.0, 300),
        ("b", 6.8813735870195432, 400),
    ):
        (nid,) = drop(window, "input", QPointF(0, y))
        assert b.apply_edit(nid, {"label": name, "value": value})
        parts[name] = nid
    for name, key, x, y in (
        ("m1", "mul", 350, 50),
        ("m2", "mul", 350, 250),
        ("s1", "add", 700, 150),
        ("s2", "add", 1050, 250),
        ("o", "tanh", 1400, 250),
    ):
        (parts[name],) = drop(window, key, QPointF(x, y))
    for src, dst, port in (
        ("w1", "m1", 0),
        ("x1", "m1", 1),
        ("w2", "m2", 0),
        ("x2", "m2", 1),
        ("m1", "s1", 0),
        ("m2", "s1", 1),
        ("s1", "s2", 0),
        ("b", "s2", 1),
        ("s2", "o", 0),
    ):
        ok, reason = wire(window, parts[src], parts[dst], port)
        assert ok, reason
    b.apply_edit(parts["o"], {"label": "o"})
    return parts


def test_building_tanh_neuron_from_the_palette_gives_the_right_grads(window):
    parts = build_neuron_by_hand(window)
    assert window_actions.backward(window)
    # the same neuron written with the engine
    x1, w1 = Value(2.0), Value(-3.0)
    x2, w2 = Value(0.0), Value(1.0)
    b = Value(6.8813735870195432)
    o = (w1 * x1 + w2 * x2 + b).tanh()
    o.backward()
    values = window.session.values
    assert values[parts["o"]].data == pytest.approx(o.data, abs=1e-15) == pytest.approx(0.7071, abs=1e-4)
    for name, v in (("x1", x1), ("w1", w1), ("x2", x2), ("w2", w2), ("b", b)):
        assert values[parts[name]].grad == pytest.approx(v.grad, abs=1e-12), name
    assert window.scene.node_item(parts["w1"]).grad_text == "1.0000"
    assert window.scene.node_item(parts["x1"]).grad_text == "-1.5000"
    # undo everything, redo everything: the same graph
    final = window.session.doc.to_dict()
    steps = window.undo_stack.count()
    for _ in range(steps):
        window.undo_stack.undo()
    assert not window.session.doc.nodes
    for _ in range(steps):
        window.undo_stack.redo()
    assert window.session.doc.to_dict() == final


def test_a_clicked_wire_is_selected_and_del_removes_it(window, qtbot):
    x = add(window, "input", 0, 0)
    t = add(window, "tanh", 600, 0)
    assert wire(window, x, t, 0)[0]
    middle = window.scene.edge_items()[0].path().pointAtPercent(0.5)
    qtbot.mouseClick(window.view.viewport(), Qt.LeftButton, pos=view_point(window, middle))
    assert window.scene.selection.selected_edge == (x, t, 0) and window.scene.selection.selected_ids() == []
    window.view.setFocus()
    qtbot.keyClick(window.view, Qt.Key_Delete)
    assert not window.session.doc.edges and window.scene.selection.selected_edge is None
    assert len(window.session.doc.nodes) == 2
    window.undo_stack.undo()
    assert window.session.doc.inputs_of(t) == [x]


def test_build_backward_undo_redo_save_quit_reopen_identical(window, qtbot, tmp_path):
    parts = build_neuron_by_hand(window)
    window_actions.backward(window)
    grads = {name: window.session.values[nid].grad for name, nid in parts.items()}
    steps = window.undo_stack.count()
    for _ in range(steps):
        window.undo_stack.undo()
    for _ in range(steps):
        window.undo_stack.redo()
    path = tmp_path / "neuron.json"
    assert window.files.save_as(str(path))
    final = window.session.doc.to_dict()
    window.close()  # saved: closes without a question
    assert not window.isVisible()
    again = MainWindow(load_example=False)
    qtbot.addWidget(again)
    try:
        assert again.files.open(str(path))
        assert again.session.doc.to_dict() == final
        window_actions.backward(again)
        assert {name: again.session.values[nid].grad for name, nid in parts.items()} == grads
        assert again.scene.node_item(parts["o"]).texts() == ("o", "0.7071", "1.0000")
    finally:
        again.close()


def test_building_at_2x_scale_keeps_document_positions(window):
    window.appearance.set_scale(2.0)
    assert window.scene.theme.scale == 2.0
    ids = drop(window, "tanh", QPointF(600, 200))
    x, y = window.session.doc.nodes[ids[0]].pos
    assert abs(x - 300) <= 1 and abs(y - 100) <= 1  # scene units / 2
    xin = add(window, "input", 0, 200)
    ok, reason = wire(window, xin, ids[0], 0)
    assert ok, reason
    window.builder.add_entry({"key": "neuron", "nin": 1}, QPointF(0, 600))
    window.builder.set_collapsed("N1", True)
    box = window.scene.group_layer.item("N1")
    members = window.session.groups.get("N1")["nodes"]
    doc = window.session.doc
    cx = sum(doc.nodes[n].pos[0] for n in members) / len(members)
    assert box.x() == pytest.approx(cx * 2.0)
    window.appearance.set_scale(1.0)


def test_a_paste_never_lands_exactly_on_the_original(window):
    """Issue 17.5: Ctrl+C, Ctrl+V with the mouse still over what was copied drew the copy
    over its original; each further paste offsets again."""
    from app.graph.builder import fragment_text

    x, t = add(window, "input", 0, 0), add(window, "tanh", 400, 0)
    doc, builder = window.session.doc, window.builder
    originals = [doc.nodes[x].pos, doc.nodes[t].pos]
    mime = QMimeData()
    mime.setData(FRAGMENT_MIME, fragment_text(builder.fragment([x, t])).encode("utf-8"))
    QGuiApplication.clipboard().setMimeData(mime)
    centre = QPointF(*window.scene.to_scene_xy(sum(p[0] for p in originals) / 2, sum(p[1] for p in originals) / 2))
    first = builder.paste(centre)
    assert [doc.nodes[n].pos for n in first] == [(px + 40, py + 40) for px, py in originals]
    second = builder.paste(centre)
    assert [doc.nodes[n].pos for n in second] == [(px + 80, py + 80) for px, py in originals]
    far = builder.paste(QPointF(0, 900))  # somewhere free: exactly there
    assert sum(doc.nodes[n].pos[1] for n in far) / 2 == 900 / window.scene.theme.scale


@pytest.mark.parametrize("where", [QPoint(150, 120), QPoint(600, 400), QPoint(40, 300)])
def test_the_first_node_on_an_empty_canvas_lands_under_the_mouse(qtbot, where):
    # repro: on an empty canvas the first dropped node landed ~364 px from the mouse (the
    # scene's rect grew around it and the view centred the small scene)
    w = MainWindow(load_example=False)
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    qtbot.waitExposed(w)
    mime = w.palette.mime_for("input")
    event = QDropEvent(QPointF(where), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    w.view.dropEvent(event)
    (nid,) = w.builder.last_added
    qtbot.waitUntil(lambda: w.scene.node_item(nid) is not None, timeout=10000)
    QGuiApplication.processEvents()
    centre = w.view.mapFromScene(w.scene.node_item(nid).sceneBoundingRect().center())
    assert (centre - where).manhattanLength() <= 40, (centre, where)
    w.close()


def test_the_arrow_keys_walk_through_a_collapsed_block(window):
    # a walk must never select a node a collapsed block hides (nothing would show it)
    ids = window.builder.add_entry({"key": "neuron", "nin": 2, "activation": "tanh"}, QPointF(0, 0))
    gid = next(iter(window.session.groups))["id"]
    members = set(window.session.groups.get(gid)["nodes"])
    first_input = next(n for n in ids if n not in members)
    assert window.builder.set_collapsed(gid, True)
    window.scene.selection.select_node(first_input)
    walked = window.view.walk("right")  # into the block: its nodes are all hidden, so nowhere
    assert walked is None and window.scene.selection.selected_ids() == [first_input]
    assert window.builder.set_collapsed(gid, False)
    walked = window.view.walk("right")  # expanded: into the neuron's first op
    assert walked in members and window.scene.node_item(walked).isVisible()
