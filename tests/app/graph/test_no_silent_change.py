"""No number changes behind the learner's back (issue 29 item 3): the node editor and the
inspector show every digit, and an Enter that edits nothing records nothing."""

from PySide6.QtCore import Qt

NEURON = (
    "x1 = Value(2.0, label='x1')\nx2 = Value(0.0, label='x2')\nw1 = Value(-3.0, label='w1')\n"
    "w2 = Value(1.0, label='w2')\nb = Value(6.8813735870195432, label='b')\nn = x1*w1 + x2*w2 + b\no = n.tanh()\n"
)


def neuron(window):
    window.editor.set_text(NEURON)
    assert window.run_expression()
    window.undo_stack.clear()
    return {node.label: nid for nid, node in window.session.doc.nodes.items() if node.label}


def test_double_click_b_and_enter_changes_nothing(window, qtbot):
    """Repro: b became 6.881374, o 0.70710699, with an undo step 'Set b = 6.88137'."""
    ids = neuron(window)
    o_before = window.session.value(ids["o"]).data
    window.builder.edit_node(ids["b"])
    editor = window.builder.node_editor
    assert editor.isVisible() and editor.number_edit.text() == "6.881373587019543"
    qtbot.keyClick(editor.number_edit, Qt.Key_Return)
    assert not editor.isVisible()
    assert window.session.doc.nodes[ids["b"]].value == 6.8813735870195432
    assert window.session.value(ids["o"]).data == o_before
    assert window.undo_stack.count() == 0


def test_the_node_editor_takes_every_digit(window, qtbot):
    ids = neuron(window)
    window.builder.edit_node(ids["x1"])
    editor = window.builder.node_editor
    editor.number_edit.lineEdit().selectAll()
    qtbot.keyClicks(editor.number_edit.lineEdit(), "0.1234567890123456789")
    qtbot.keyClick(editor.number_edit, Qt.Key_Return)
    assert window.session.doc.nodes[ids["x1"]].value == 0.1234567890123456789  # the float nearest to it
    assert window.undo_stack.count() == 1


def test_the_inspector_shows_every_digit_and_records_no_empty_step(window, qtbot):
    ids = neuron(window)
    window.session.select(ids["b"])
    field = window.inspector.value_edit
    assert field.text() == "6.881373587019543"
    field.setValue(field.value())  # what leaving the box unedited does
    field.editingFinished.emit()
    assert window.undo_stack.count() == 0
    field.setValue(7.25)
    assert window.session.doc.nodes[ids["b"]].value == 7.25 and window.undo_stack.count() == 1


def test_a_move_that_moves_nothing_is_no_step(window):
    from core.document.commands import MoveNodes

    ids = neuron(window)
    pos = window.session.doc.nodes[ids["b"]].pos
    assert window.session.push(MoveNodes({ids["b"]: (pos, pos)})) == (True, None)
    assert window.undo_stack.count() == 0
