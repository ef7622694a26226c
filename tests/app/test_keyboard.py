"""Keyboard first (issue 29 item 5): find by label or formula, F6 to the canvas, the arrow
keys along the wires, shortcuts for Quiz and the gradient check, answers typed at once."""

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from app import window_actions
from app.help.dialogs import shortcut_rows

LECTURE = """x1 = Value(2.0, label='x1'); w1 = Value(-3.0, label='w1')
x2 = Value(0.0, label='x2'); w2 = Value(1.0, label='w2')
b = Value(6.8813735870195432, label='b')
n = x1*w1 + x2*w2 + b
o = n.tanh()
"""


def lecture(window, qtbot):
    assert window.run_expression(LECTURE)
    qtbot.waitUntil(lambda: not window.layout_pending, timeout=60000)
    return {item.name: nid for nid, item in window.scene.node_items().items()}


def test_find_an_unlabelled_node_by_its_formula(window, qtbot):
    # repro: Ctrl+F could not find 'x1·w1', and a find said the node's id
    by = lecture(window, qtbot)
    assert window_actions.find_node(window, "x1*w1") == by["x1·w1"]
    assert window.scene.node_item(by["x1·w1"]).isSelected()
    assert "Found x1·w1 (1 of 2" in window.statusBar().currentMessage()
    assert window_actions.find_node(window, "x1*w1") == by["x1·w1 + x2·w2"]  # Enter again: the next


def test_f6_puts_the_keyboard_on_the_canvas_and_arrows_walk_the_wires(window, qtbot):
    by = lecture(window, qtbot)
    window.actions["find"].trigger()
    assert window.find_box.hasFocus()
    qtbot.keyClick(window.find_box, Qt.Key_Escape)  # Esc in the find box: back to the canvas
    assert window.view.hasFocus()
    window.scene.selection.select_node(None)
    window.actions["canvas"].trigger()  # F6
    assert window.view.hasFocus()
    assert window.scene.selection.selected_ids() == [by["o"]]  # the walk starts at the output
    assert "On the canvas at o" in window.statusBar().currentMessage()
    walked = []
    for key in (Qt.Key_Left, Qt.Key_Left, Qt.Key_Left, Qt.Key_Left):
        qtbot.keyClick(window.view, key)
        walked.append(window.scene.node_item(window.scene.selection.selected_ids()[0]).name)
    assert walked[:2] == ["n", "x1·w1 + x2·w2"]
    assert walked[2] in ("x1·w1", "x2·w2") and walked[3] in ("x1", "w1", "x2", "w2")
    qtbot.keyClick(window.view, Qt.Key_Right)
    assert window.scene.node_item(window.scene.selection.selected_ids()[0]).name == walked[2]
    assert window.session.current_id == window.scene.selection.selected_ids()[0]  # the inspector follows


def test_quiz_and_gradient_check_have_shortcuts_listed_in_help(window):
    rows = {(text, keys) for _where, text, keys in shortcut_rows(window.menuBar(), window)}
    assert ("Quiz Mode", "Ctrl+Shift+Q") in rows and ("Gradient Check", "Ctrl+Shift+K") in rows
    assert ("Go to Canvas", "F6") in rows and ("Find Node", "Ctrl+F") in rows
    assert "Ctrl+Shift+Q" in window.debugger.actions["quiz"].toolTip()


def test_the_gradient_check_shortcut_runs_it(window, qtbot):
    window.debugger.actions["gradient check"].trigger()
    gc = window.debugger.gradcheck
    qtbot.waitUntil(lambda: not gc.running and "leaves agree" in gc.summary.text(), timeout=60000)
    assert window.debugger.tabs.currentIndex() == window.debugger.tabs.count() - 1


def test_a_quiz_question_takes_the_answer_without_a_click(window, qtbot):
    # repro: every answer needed a click into the box first
    window.debugger.actions["quiz"].setChecked(True)
    window.debugger.actions["step"].trigger()
    qtbot.waitUntil(lambda: window.debugger.quiz_box.isVisible(), timeout=10000)
    QApplication.processEvents()
    assert QApplication.focusWidget() is window.debugger.quiz_edit
