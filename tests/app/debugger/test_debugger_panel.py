"""The debugger dock end to end: keys and clicks in, grads and pixels' state out.

The reference for every number is core: a BackwardStepper on a fresh copy of
the same graph, or backward() itself.
"""

import pytest
from PySide6.QtCore import Qt

from app import window_actions
from core.debugger.stepper import BackwardStepper
from core.document.commands import SetValue
from core.engine import Value, topological_order

TUTORIAL = "x = Value(2.0, label='x')\ny = Value(3.0, label='y')\nf = x*y + y**2\n"


def tutorial_values():
    x = Value(2.0, label="x")
    y = Value(3.0, label="y")
    f = x * y + y**2
    return x, y, f


def press(window, qtbot, key, modifier=Qt.NoModifier, times=1):
    for _ in range(times):
        qtbot.keyClick(window.view, key, modifier)


def by_label(window, label):
    (nid,) = [nid for nid, n in window.session.doc.nodes.items() if n.label == label]
    return nid


def mul_id(window):
    (nid,) = [nid for nid, n in window.session.doc.nodes.items() if n.op == "mul"]
    return nid


def grads_by_topo(root):
    return [v.grad for v in topological_order(root)]


def shown_grads(window):
    """The grad text of every node, as drawn."""
    return {nid: item.texts()[2] for nid, item in window.scene.node_items().items()}


# -----------------------------------------------------------------------------
# stepping


def test_f10_steps_equal_the_core_stepper(window, qtbot):
    dbg = window.debugger
    root = window.session.output_value
    _x, _y, f = tutorial_values()
    reference = BackwardStepper(f)
    for n in range(1, 4):  # the first press from "Debugger ready" runs step 1
        press(window, qtbot, Qt.Key_F10)
        reference.step()
        assert dbg.controller.phase == "backward" and dbg.controller.stepper.position == n
        assert grads_by_topo(root) == grads_by_topo(f)
    x_item = window.scene.node_item(by_label(window, "x"))
    assert x_item.texts()[2] == "3.0000"  # the canvas shows the new grad in place
    assert "backward pass is done" in window.statusBar().currentMessage()
    window.statusBar().clearMessage()
    press(window, qtbot, Qt.Key_F10)  # F10 at the end: not a dead key, it says so
    assert dbg.controller.stepper.position == 3 and "backward pass is done" in window.statusBar().currentMessage()


def test_reset_still_starts_at_step_zero(window):
    dbg = window.debugger
    dbg.controller.reset()
    assert dbg.controller.phase == "backward" and dbg.controller.stepper.position == 0
    root = window.session.output_value
    assert [v.grad for v in topological_order(root)] == [0, 0, 0, 0, 1.0]


def test_step_back_restores_every_grad(window, qtbot):
    dbg = window.debugger
    dbg.controller.reset()
    root = window.session.output_value
    start = grads_by_topo(root)
    before = shown_grads(window)
    dbg.controller.step()
    dbg.controller.step()
    press(window, qtbot, Qt.Key_F10, Qt.ShiftModifier, times=2)
    assert dbg.controller.stepper.position == 0
    assert grads_by_topo(root) == start and shown_grads(window) == before


def test_run_to_end_equals_backward(window, qtbot):
    root = window.session.output_value
    expected = grads_by_topo(root)  # the session ran backward() after compiling
    window.debugger.controller.reset()
    assert grads_by_topo(root) != expected
    press(window, qtbot, Qt.Key_F5)
    assert window.debugger.controller.stepper.done and grads_by_topo(root) == expected
    assert "Done." in window.debugger.explanation_text()


def test_a_step_notifies_only_the_nodes_it_changed(window, qtbot):
    dbg = window.debugger
    dbg.controller.reset()
    dbg.controller.step()  # f: its two inputs
    seen = []
    window.session.gradsChanged.connect(seen.append)
    record = dbg.controller.step()  # y^2: y only
    assert seen == [[dbg.controller.nid(record.children[0])]]


def test_the_current_node_its_targets_and_wires_are_marked(window, qtbot):
    dbg = window.debugger
    dbg.controller.reset()
    f_item = window.scene.node_item(by_label(window, "f"))
    assert f_item.debug_mark == "current" and f_item.debug_tag == "grad = 1"
    record = dbg.controller.step()
    ids = [dbg.controller.nid(c) for c in record.children]
    assert f_item.debug_mark == "current" and f_item.debug_tag == "_backward"
    for nid in ids:
        item = window.scene.node_item(nid)
        assert item.debug_mark == "target" and item.debug_tag == "+= 1.0000"
        assert item.status == "final"
    wires = [e for e in window.scene.edge_items() if e.highlighted]
    assert sorted(w.edge[0] for w in wires) == sorted(ids)
    y = window.scene.node_item(by_label(window, "y"))
    assert y.status == "untouched"
    dbg.controller.step()
    assert y.status == "partial" and y.debug_mark == "target"
    assert f_item.debug_mark is None and not any(e.highlighted for e in window.scene.edge_items(dst=f_item.nid))


def test_the_mul_step_explains_the_chain_rule_in_numbers(window, qtbot):
    dbg = window.debugger
    dbg.controller.run_to(mul_id(window))
    record = dbg.controller.step()
    assert record.node._op == "*"
    text = dbg.explanation_text()
    assert "Step 3 of 3 · (x·y) runs its _backward" in text
    assert "∂(x·y)/∂x = y.data = 3.0000" in text
    assert "x.grad += y.data · (x·y).grad = 3.0000 · 1.0000 = 3.0000" in text
    assert "(was 0.0000, now 3.0000)" in text
    assert "y.grad += x.data · (x·y).grad = 2.0000 · 1.0000 = 2.0000" in text
    # y is used twice: its grad is the sum of both contributions
    assert "y is used twice" in text
    assert "y.grad = 6.0000 (from (y^2)) + 2.0000 (from (x·y)) = 8.0000" in text


def test_a_value_used_twice_in_one_op(window, qtbot):
    window.editor.set_text("a = Value(3.0, label='a')\nb = a + a\n")
    window.run_expression()
    dbg = window.debugger
    dbg.controller.reset()
    dbg.controller.step()
    text = dbg.explanation_text()
    assert "a is used twice (by b (twice))" in text
    assert window.session.value(by_label(window, "a")).grad == 2.0


# -----------------------------------------------------------------------------
# timeline, step list, selection


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_scrubbing_the_timeline_equals_k_single_steps(window, qtbot, k):
    dbg = window.debugger
    dbg.controller.reset()
    dbg.controller.run_to_end()
    dbg.timeline.setValue(k)
    qtbot.waitUntil(lambda: dbg.controller.stepper.position == k)
    _x, _y, f = tutorial_values()
    reference = BackwardStepper(f)
    for _ in range(k):
        reference.step()
    assert grads_by_topo(window.session.output_value) == grads_by_topo(f)
    assert dbg.position_label.text() == f"step {k} / 3"


def test_clicking_a_step_row_seeks_there_and_selects_the_node(window, qtbot):
    dbg = window.debugger
    view = dbg.step_list
    rect = view.visualRect(dbg.model.index(2, 1))
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=rect.center())
    assert dbg.controller.stepper.position == 3
    assert window.session.current_id == mul_id(window)
    assert window.scene.node_item(mul_id(window)).isSelected()


def test_selecting_a_node_selects_its_row(window, qtbot):
    dbg = window.debugger
    window.scene.selection.select_node(mul_id(window))
    rows = dbg.step_list.selectionModel().selectedRows()
    assert [r.row() for r in rows] == [2]
    assert dbg.controller.stepper.position == 0 and dbg.controller.phase == "idle"  # selecting is not seeking
    window.scene.selection.select_node(by_label(window, "x"))  # a leaf has no row
    assert not dbg.step_list.selectionModel().selectedRows()


# -----------------------------------------------------------------------------
# breakpoints and break conditions


def test_a_breakpoint_stops_the_run_before_its_node(window, qtbot):
    dbg = window.debugger
    nid = mul_id(window)
    window.scene.selection.select_node(nid)
    press(window, qtbot, Qt.Key_F9)
    assert nid in dbg.controller.breakpoint_ids and window.scene.node_item(nid).breakpoint
    assert dbg.model.data(dbg.model.index(2, 0)).startswith("●")
    press(window, qtbot, Qt.Key_F5)
    assert dbg.controller.stepper.current is window.session.value(nid)
    assert dbg.controller.stepper.position == 2
    assert "Stopped: breakpoint at (x·y)" in dbg.explanation_text()
    press(window, qtbot, Qt.Key_F5)  # continue past it
    assert dbg.controller.stepper.done
    press(window, qtbot, Qt.Key_F9)
    assert not window.scene.node_item(nid).breakpoint


def test_play_runs_on_a_timer_and_stops_at_a_breakpoint(window, qtbot):
    dbg = window.debugger
    dbg.controller.set_breakpoint(mul_id(window))
    dbg.speed.setValue(20)
    dbg.controller.play()
    assert dbg.controller.playing
    qtbot.waitUntil(lambda: not dbg.controller.playing, timeout=3000)
    assert dbg.controller.stepper.position == 2 and "breakpoint" in dbg.controller.stop_reason
    dbg.controller.play()
    qtbot.waitUntil(lambda: dbg.controller.stepper.done, timeout=3000)
    assert not dbg.controller.playing


def test_threshold_and_dead_relu_stop_a_run(window, qtbot):
    dbg = window.debugger
    dbg.threshold_check.setChecked(True)
    dbg.threshold_spin.setValue(5.0)
    dbg.controller.run_to_end()
    assert "|grad| of y is 6.0000 > 5" in dbg.controller.stop_reason and dbg.controller.stepper.position == 2
    window.editor.set_text("z = Value(-1.0, label='z')\nr = (z * 2.0).relu() + z\n")
    window.run_expression()
    dbg.threshold_check.setChecked(False)
    dbg.relu_check.setChecked(True)
    dbg.controller.run_to_end()
    assert "dead ReLU" in dbg.controller.stop_reason and dbg.controller.stepper.current._op == "relu"


def test_a_nonfinite_grad_stops_a_run(window, qtbot):
    window.editor.set_text("x = Value(0.0, label='x')\ny = x.log() + 1.0\n")
    window.run_expression()
    dbg = window.debugger
    dbg.controller.run_to_end()
    assert "non-finite" in dbg.controller.stop_reason
    assert "Stopped: non-finite grad" in dbg.explanation_text()


# -----------------------------------------------------------------------------
# edits end the session


def test_editing_the_graph_resets_the_debugger_with_a_message(window, qtbot):
    dbg = window.debugger
    dbg.controller.reset()
    dbg.controller.step()
    window.editor.set_text("a = Value(1.0, label='a')\nb = a * 2.0\n")
    window.run_expression()
    assert dbg.controller.phase == "idle" and dbg.controller.stepper.root is window.session.output_value
    assert "The graph changed, so the debugger was reset" in dbg.explanation_text()
    assert "debugger was reset" in window.statusBar().currentMessage()
    assert len(dbg.controller.stepper.order) == dbg.model.rowCount() == 1
    assert all(item.debug_mark is None for item in window.scene.node_items().values())


def test_changing_a_leaf_recomputes_and_offers_to_step_again(window, qtbot):
    dbg = window.debugger
    dbg.controller.reset()
    dbg.controller.step()
    x = by_label(window, "x")
    window.session.push(SetValue(x, 5.0))
    assert dbg.controller.phase == "idle"
    text = dbg.explanation_text()
    assert "x = 5.0000 now" in text and "press F10 to step the backward pass again" in text
    f = window.session.output_value
    assert f.data == 5.0 * 3.0 + 9.0
    assert "Step through it again" in text
    from PySide6.QtCore import QUrl

    dbg.explanation.anchorClicked.emit(QUrl("debug:reset"))  # the offer in the notice
    assert dbg.controller.phase == "backward" and dbg.controller.stepper.position == 0
    press(window, qtbot, Qt.Key_F10, times=3)
    assert dbg.controller.stepper.done and window.session.value(x).grad == 3.0


def test_backward_from_the_graph_menu_ends_the_session(window, qtbot):
    dbg = window.debugger
    dbg.controller.reset()
    window_actions.backward(window)
    assert dbg.controller.phase == "idle" and "outside the debugger" in dbg.explanation_text()


def test_the_idle_text_says_what_the_grads_on_the_canvas_are(window, qtbot):
    dbg = window.debugger
    assert "grads of a full backward()" in dbg.explanation_text()
    window.session.zero_grads()  # was: still "the graph shows the grads of a full backward()"
    assert "Every grad is 0 now" in dbg.explanation_text()
    assert "full backward()" not in dbg.explanation_text()
    window_actions.backward(window)
    assert "grads of a full backward()" in dbg.explanation_text()


# -----------------------------------------------------------------------------
# forward pass


def test_forward_stepping_shows_pending_nodes(window, qtbot):
    dbg = window.debugger
    press(window, qtbot, Qt.Key_F7)
    assert dbg.controller.phase == "forward"
    items = window.scene.node_items()
    ops = [nid for nid, n in window.session.doc.nodes.items() if n.kind == "op"]
    assert all(items[nid].texts()[1] == "?" and items[nid].dimmed for nid in ops)
    assert items[by_label(window, "x")].texts()[1] == "2.0000"
    assert "1 Forward" in dbg.phase_label.text()
    press(window, qtbot, Qt.Key_F7)
    first = dbg.controller.forward_stepper.order[0]
    nid = dbg.controller.nid(first)
    assert items[nid].texts()[1] == "6.0000" and not items[nid].dimmed
    assert "Forward 1 of 3 · (x·y) is computed" in dbg.explanation_text()
    assert "x · y = 2.0000 · 3.0000 = 6.0000" in dbg.explanation_text()
    assert sum(items[n].texts()[1] == "?" for n in ops) == 2
    dbg.controller.forward_all()
    assert not any(items[n].dimmed for n in ops)
    assert "Forward pass done" in dbg.explanation_text()
    press(window, qtbot, Qt.Key_F10)  # on to the backward pass
    assert dbg.controller.phase == "backward" and items[nid].texts()[2] == "0.0000"


def test_forward_step_back_makes_a_node_pending_again(window, qtbot):
    dbg = window.debugger
    dbg.controller.forward_reset()
    record = dbg.controller.forward_step()
    item = window.scene.node_item(dbg.controller.nid(record.node))
    assert item.texts()[1] == "6.0000"
    press(window, qtbot, Qt.Key_F10, Qt.ShiftModifier)
    assert item.texts()[1] == "?" and dbg.controller.forward_stepper.position == 0


# -----------------------------------------------------------------------------
# any root, quiz, gradient check


def test_any_value_root_opened_by_another_panel(window, qtbot):
    x1, w1, b = Value(2.0, label="x1"), Value(-3.0, label="w1"), Value(0.5, label="b")
    out = (x1 * w1 + b).tanh()
    window.open_value(out, [w1, b])
    window.wait_for_layout()
    dbg = window.debugger
    assert dbg.controller.stepper.root is window.session.output_value
    dbg.controller.run_to_end()
    out.backward()
    assert grads_by_topo(window.session.output_value) == grads_by_topo(out)


def test_the_explanation_follows_a_graph_opened_after_an_empty_one(window, qtbot):
    """Bug repro: the text kept saying "nothing to step yet" while the timeline had the
    steps, because it was redrawn only after a step, not when the plan changed."""
    from core.document.graph import GraphDocument
    from core.nn import MLP

    window.show_document(GraphDocument(), "New graph")
    window.wait_for_layout()
    assert "nothing to step yet" in window.debugger.explanation_text()
    model = MLP(2, [8, 8, 1])
    window.open_value(model([Value(0.5), Value(-1.0)]), model.parameters())
    window.wait_for_layout()
    text = window.debugger.explanation_text()
    assert "nothing to step yet" not in text
    assert "F10" in text and f"{len(window.debugger.controller.stepper.order)} steps" in text


def test_quiz_hides_the_next_grads_until_answered(window, qtbot):
    dbg = window.debugger
    dbg.set_quiz_mode(True)
    dbg.controller.run_to(mul_id(window))
    dbg.controller.step()
    x, y = (window.scene.node_item(by_label(window, n)) for n in "xy")
    assert x.texts()[2] == "?" and y.texts()[2] == "?" and x.debug_tag == "+= ?"
    assert dbg.quiz_box.isVisible()
    assert "What is x.grad now?" in dbg.explanation_text()
    assert dbg.controller.answer_quiz("abc") is None and x.texts()[2] == "?"
    dbg.quiz_edit.setText("3")
    qtbot.keyClick(dbg.quiz_edit, Qt.Key_Return)
    assert x.texts()[2] == "3.0000" and y.texts()[2] == "?"
    assert "Right: x.grad = 3.0000" in dbg.explanation_text()
    assert dbg.controller.answer_quiz("2") is False
    assert y.texts()[2] == "8.0000" and not dbg.quiz_box.isVisible()
    assert "Not quite" in dbg.explanation_text()
    assert dbg.controller.quiz_score == [1, 2]


def test_gradient_check_table_and_the_debugger_state_survive(window, qtbot):
    dbg = window.debugger
    dbg.controller.reset()
    dbg.controller.step()
    root = window.session.output_value
    mid = grads_by_topo(root)
    dbg.gradcheck.run_now()
    checks = dbg.gradcheck.model.checks
    assert [dbg.controller.name(c.leaf) for c in checks] == ["x", "y"]
    assert all(c.ok for c in checks)
    assert abs(checks[1].numeric - 8.0) < 1e-6 and checks[1].analytic == 8.0
    assert "All 2 leaves agree" in dbg.gradcheck.summary.text()
    assert grads_by_topo(root) == mid and dbg.controller.stepper.position == 1


def test_standalone_panel_without_a_canvas(qtbot):
    from app.debugger.panel import DebuggerPanel
    from app.session import GraphSession
    from core.document.expr import parse

    session = GraphSession()
    session.replace(parse(TUTORIAL, {}))
    panel = DebuggerPanel(session)
    qtbot.addWidget(panel)
    panel.controller.reset()
    panel.controller.run_to_end()
    assert session.value("n1").grad == 3.0 and session.value("n2").grad == 8.0
    panel.close()


# -----------------------------------------------------------------------------
# context menu, renames, a failing gradient check, a big graph


def test_a_node_context_menu_offers_breakpoint_and_run_to_here(window, qtbot):
    from PySide6.QtCore import QPointF
    from PySide6.QtWidgets import QMenu

    nid = mul_id(window)
    menu = window.scene.context_menu.fill(QMenu(), ("node", nid), QPointF())
    texts = [a.text() for a in menu.actions()]
    assert "Add Breakpoint (F9)" in texts and "Run to Here (Ctrl+F10)" in texts
    next(a for a in menu.actions() if a.text() == "Add Breakpoint (F9)").trigger()
    assert window.scene.node_item(nid).breakpoint
    menu = window.scene.context_menu.fill(QMenu(), ("node", nid), QPointF())
    next(a for a in menu.actions() if a.text() == "Run to Here (Ctrl+F10)").trigger()
    assert window.debugger.controller.stepper.current is window.session.value(nid)
    menu.deleteLater()


def test_a_rename_shows_in_the_step_list_and_the_explanation(window, qtbot):
    from core.document.commands import SetLabel

    dbg = window.debugger
    dbg.controller.run_to(mul_id(window))
    dbg.controller.step()
    window.session.push(SetLabel(mul_id(window), "m"))
    assert dbg.controller.phase == "backward"  # a label is not an edit of any number
    assert dbg.model.data(dbg.model.index(2, 2)) == "m = x · y"
    assert "Step 3 of 3 · m = x · y runs its _backward" in dbg.explanation_text()


def test_gradient_check_marks_a_kink_red(window, qtbot):
    window.editor.set_text("x = Value(0.0, label='x')\ny = x.relu()\n")
    window.run_expression()
    dbg = window.debugger
    dbg.gradcheck.run_now()
    (check,) = dbg.gradcheck.model.checks
    assert not check.ok and check.analytic == 0.0 and abs(check.numeric - 0.5) < 1e-6
    assert dbg.gradcheck.model.data(dbg.gradcheck.model.index(0, 4)) == "✘ differ"
    assert "1 of 1 leaves differ" in dbg.gradcheck.summary.text()


def test_presenter_scale_and_palette_reach_the_explanation(window, qtbot):
    from app.look.theme import DARK

    dbg = window.debugger
    dbg.controller.reset()
    dbg.controller.step()
    window.apply_theme(window.theme.with_(palette=DARK, scale=2.0))
    html = dbg.explanation.toHtml()
    assert "font-size:40px" in html.replace(" ", "")  # the title, 20 px at scale 1
    assert DARK.label_text in html.lower() or "#e8ebf0" in html.lower()
    assert "Step 1 of 3" in dbg.explanation_text()


def test_quiz_hides_the_grad_in_the_inspector_too(window, qtbot):
    """Regression: the inspector showed the very grad the quiz asks the student to predict."""
    dbg = window.debugger
    dbg.set_quiz_mode(True)
    dbg.controller.run_to(mul_id(window))
    dbg.controller.step()
    window.session.select(by_label(window, "x"))
    assert window.inspector.grad_label.text().startswith("?")
    assert "3.0000" not in window.inspector.collected_label.text()
    dbg.controller.answer_quiz("3")
    assert window.inspector.grad_label.text() == "3.0000"


def test_the_explanation_scroll_bar_draws_what_a_plain_one_does(qtbot):
    """The explanation's scroll bar repaints on every step (its text is replaced):
    it copies the pictures of states it drew before, which must look the same."""
    from PySide6.QtWidgets import QScrollBar, QWidget

    from app.debugger.panel import CachedScrollBar

    parent = QWidget()
    qtbot.addWidget(parent)
    parent.resize(60, 300)
    cached, plain = CachedScrollBar(Qt.Vertical, parent), QScrollBar(Qt.Vertical, parent)
    for x, bar in enumerate((cached, plain)):
        bar.setGeometry(20 * x, 0, 14, 284)
        bar.setPageStep(284)
    parent.show()
    qtbot.waitExposed(parent)
    for maximum in (0, 89, 0, 89, 300):
        for bar in (cached, plain):
            bar.setRange(0, maximum)
        a, b = cached.grab().toImage(), plain.grab().toImage()
        worst = max(
            abs(a.pixelColor(x, y).value() - b.pixelColor(x, y).value())
            for y in range(a.height())
            for x in range(a.width())
        )
        assert worst <= 2, maximum  # the same picture, up to rounding
    assert len(cached._pictures) == 3  # 0 and 89 were drawn once each


def test_inspector_during_the_forward_pass_says_why_numbers_are_hidden(window, qtbot):
    """Regression: stepping forward, the inspector claimed a quiz was running and showed
    the value of a node the forward pass had not computed yet."""
    dbg = window.debugger
    press(window, qtbot, Qt.Key_F7)
    first = dbg.controller.forward_stepper.order[0]
    nid = dbg.controller.nid(first)
    window.session.select(nid)
    inspector = window.inspector
    assert inspector.data_label.text() == "?  (the forward pass has not computed it yet)"
    assert "quiz" not in inspector.grad_label.text()
    press(window, qtbot, Qt.Key_F7)
    assert inspector.data_label.text() == "6.0000"
    assert inspector.grad_label.text() == "?  (the backward pass comes after the forward pass)"


# -----------------------------------------------------------------------------
# texts that fit (issue 17.5: clipped gradient-check headers and breakpoint help)


def test_the_gradient_check_and_the_breakpoint_help_fit_at_1280x720(window, qtbot):
    window.resize(1280, 720)
    dbg = window.debugger
    dbg.tabs.setCurrentIndex(1)
    area = dbg.tabs.widget(1)
    qtbot.waitUntil(lambda: area.isVisible() and area.viewport().width() > 0, timeout=5000)
    # the help wraps to the tab: no part of a line hidden off to the right
    qtbot.waitUntil(lambda: area.widget().width() <= area.viewport().width(), timeout=5000)
    dbg.tabs.setCurrentIndex(2)
    table = dbg.gradcheck.table
    dbg.gradcheck.run_now()
    header = table.horizontalHeader()

    def whole(column):
        need = max(header.sectionSizeFromContents(column).width(), table.sizeHintForColumn(column))
        return header.sectionSize(column) >= need

    qtbot.waitUntil(lambda: all(whole(c) for c in range(1, 5)), timeout=5000)


@pytest.mark.parametrize("scale", [2.0, 3.0])
def test_the_step_lists_op_column_follows_presenter_scale(window, scale):
    # repro: at presenter 2x the op column, sized once at 1x, cut 'tanh' to 't…'
    window.appearance.set_presenter(True, scale, full_screen=False)
    view = window.debugger.step_list
    fm = view.fontMetrics()
    assert view.columnWidth(1) >= fm.horizontalAdvance("tanh") + 8
    assert view.columnWidth(0) >= fm.horizontalAdvance("● 000") + 8
    window.appearance.set_presenter(False)
