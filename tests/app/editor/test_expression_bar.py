"""The editor dock: Ctrl+Enter, error underlines, the inputs table."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCharFormat

from app.editor.expression_bar import EXAMPLES, ExpressionBar, free_values
from app.session import GraphSession
from core.document.expr import ExprError, parse
from core.document.graph import GraphDocument, Node


@pytest.fixture
def bar(qtbot):
    session = GraphSession()
    bar = ExpressionBar(session)
    qtbot.addWidget(bar)
    bar.show()
    yield session, bar
    bar.close()


def test_ctrl_enter_and_run_button_emit_the_text(bar, qtbot):
    _session, bar = bar
    bar.set_text("x*y")
    with qtbot.waitSignal(bar.runRequested) as blocker:
        qtbot.keyClick(bar.editor, Qt.Key_Return, Qt.ControlModifier)
    assert blocker.args == ["x*y"]
    assert bar.text() == "x*y"  # Ctrl+Enter does not insert a line break
    with qtbot.waitSignal(bar.runRequested):
        qtbot.keyClick(bar.editor, Qt.Key_Enter, Qt.ControlModifier)  # keypad Enter
    with qtbot.waitSignal(bar.runRequested):
        bar.run_button.click()


def test_plain_enter_and_tab_edit_the_text(bar, qtbot):
    _session, bar = bar
    bar.set_text("")
    qtbot.keyClicks(bar.editor, "f")
    qtbot.keyClick(bar.editor, Qt.Key_Return)
    qtbot.keyClick(bar.editor, Qt.Key_Tab)
    assert bar.text() == "f\n    "


def test_error_underlines_the_reported_spot(bar):
    _session, bar = bar
    text = "a = 1\nb = a +* 2\n"
    bar.set_text(text)
    with pytest.raises(ExprError) as info:
        parse(text)
    e = info.value
    bar.show_error(e.message, e.line, e.col, e.end_col)
    (selection,) = bar.editor.extraSelections()
    assert selection.format.underlineStyle() == QTextCharFormat.WaveUnderline
    assert selection.cursor.block().blockNumber() == e.line - 1
    assert selection.cursor.selectionStart() - selection.cursor.block().position() == e.col - 1
    assert f"Line {e.line}, column {e.col}" in bar.error_text()
    bar.editor.insertPlainText(" ")  # editing drops the stale underline
    assert bar.editor.extraSelections() == []
    bar.clear_error()
    assert bar.error_text() == ""


def test_error_at_the_end_of_a_line_still_underlines(bar):
    _session, bar = bar
    bar.set_text("x * (y +")
    bar.show_error("'(' was never closed", 1, 9)
    assert len(bar.editor.extraSelections()) == 1
    bar.set_text("")
    bar.show_error("empty", 1, 1)
    assert bar.editor.extraSelections() == []  # nothing to underline, message still shown
    assert "empty" in bar.error_text()


def _cell(bar, row, column):
    return bar.inputs.index(row, column)


def test_inputs_table_lists_inputs_and_edits_values(bar, qtbot):
    session, bar = bar
    session.replace(parse("x = Value(2.0, label='x')\ny = Value(3.0, label='y')\nf = x*y\n"))
    assert bar.table.model().rowCount() == 2
    assert [_cell(bar, r, 0).data() for r in range(2)] == ["x", "y"]
    assert bar.inputs.flags(_cell(bar, 0, 1)) & Qt.ItemIsEditable
    assert not bar.inputs.flags(_cell(bar, 0, 0)) & Qt.ItemIsEditable  # names are edited on the canvas
    assert bar.inputs.setData(_cell(bar, 0, 1), "4")  # what the view's editor does on Enter
    assert session.doc.nodes["n1"].value == 4.0
    assert session.value("n3").data == 12.0
    assert not bar.inputs.setData(_cell(bar, 0, 1), "not a number")
    assert session.doc.nodes["n1"].value == 4.0
    assert "not a number" in bar.error_text()
    assert _cell(bar, 0, 1).data() == "4.0"
    assert not bar.inputs.setData(_cell(bar, 1, 1), "inf")  # the document refuses it, and says why
    assert session.doc.nodes["n2"].value == 3.0 and "finite" in bar.error_text()
    session.undo_stack.undo()
    assert _cell(bar, 0, 1).data() == "2.0"  # the table follows the document, undo included


def test_a_value_typed_into_the_table_recomputes_the_graph(bar, qtbot):
    from PySide6.QtWidgets import QLineEdit

    session, bar = bar
    session.replace(parse("x = Value(2.0, label='x')\ny = Value(3.0, label='y')\nf = x*y\n"))
    index = _cell(bar, 1, 1)
    bar.table.setCurrentIndex(index)
    bar.table.edit(index)  # what a double-click or a key press starts
    editor = bar.table.findChild(QLineEdit)
    assert editor is not None and editor.text() == "3.0"
    editor.setText("5")
    qtbot.keyClick(editor, Qt.Key_Return)
    qtbot.waitUntil(lambda: session.doc.nodes["n2"].value == 5.0)
    assert session.value("n3").data == 10.0
    assert session.undo_stack.undoText().startswith("Set")


def test_enter_on_an_unedited_value_changes_nothing_and_every_digit_shows(bar, qtbot):
    """Repro (issue 29): F2 + Enter in the table rounded b = 6.8813735870195432 to 6.88137
    and recorded an undo step; the lecture's bias could not even be shown whole."""
    from PySide6.QtWidgets import QLineEdit

    session, bar = bar
    session.replace(parse("b = Value(6.8813735870195432, label='b')\no = b.tanh()\n"))
    session.undo_stack.clear()
    before = session.value("n2").data
    index = _cell(bar, 0, 1)
    assert index.data() == "6.881373587019543"  # the shortest text that reads back as the same float
    bar.table.setCurrentIndex(index)
    bar.table.edit(index)
    editor = bar.table.findChild(QLineEdit)
    assert editor.text() == "6.881373587019543"
    qtbot.keyClick(editor, Qt.Key_Return)
    qtbot.waitUntil(lambda: bar.table.findChild(QLineEdit) is None or not bar.table.findChild(QLineEdit).isVisible())
    assert session.doc.nodes["n1"].value == 6.8813735870195432
    assert session.value("n2").data == before
    assert not session.undo_stack.canUndo()
    assert bar.inputs.setData(index, "6.881373587019543")  # typed in full: still no change, no step
    assert not session.undo_stack.canUndo()
    assert bar.inputs.setData(index, "1e-7")
    assert index.data() == "1e-07" and session.undo_stack.count() == 1


def test_inputs_table_lists_every_input_of_a_large_graph(bar, qtbot):
    # it stopped at 500 rows when each row was two table items made on every recompile
    session, bar = bar
    doc = GraphDocument()
    for i in range(1200):
        doc.add_node(Node(None, "input", value=float(i), label=f"w{i}"))
    session.replace(doc)
    assert bar.inputs.rowCount() == 1200
    assert _cell(bar, 1199, 0).data() == "w1199" and _cell(bar, 1199, 1).data() == "1199.0"


def test_free_values_keep_table_numbers_only_for_unassigned_names():
    table = {"x": 5.0, "w": 0.5}
    assert free_values("x = 2\nf = x * w", table) == {"w": 0.5}
    assert free_values("f = x * w", table) == table
    assert free_values("x += 1\nf = x", {"x": 3.0}) == {}
    assert free_values("f = (", table) == {}


def test_every_example_parses():
    for name, text in EXAMPLES.items():
        doc = parse(text)
        assert doc.nodes, name


def test_an_example_never_discards_typed_text_without_asking(bar, qtbot, monkeypatch):
    """Issue 17.5: the Examples menu replaced typed, not-yet-run text with no prompt and no undo."""
    import app.editor.expression_bar as expression_bar

    _session, bar = bar
    asked = []
    monkeypatch.setattr(expression_bar, "ask_replace_text", lambda parent, title: asked.append(title) or False)
    bar.set_text("")
    qtbot.keyClicks(bar.editor, "my work")
    ran = []
    bar.runRequested.connect(ran.append)
    bar.examples.activated.emit(1)  # the user says Cancel
    assert asked == [bar.examples.itemText(1)] and bar.text() == "my work" and ran == []
    monkeypatch.setattr(expression_bar, "ask_replace_text", lambda parent, title: asked.append(title) or True)
    bar.examples.activated.emit(1)  # the user says Replace
    first = list(EXAMPLES.values())[0]
    assert bar.text() == first and ran == [first]
    bar.editor.undo()  # and the editor's undo brings the work back
    assert bar.text() == "my work"


def test_an_example_replaces_run_or_untouched_text_without_asking(bar, monkeypatch):
    import app.editor.expression_bar as expression_bar

    _session, bar = bar
    monkeypatch.setattr(expression_bar, "ask_replace_text", lambda parent, title: pytest.fail("asked"))
    bar.set_text("x*y")  # set by the app: nothing typed
    bar.examples.activated.emit(2)
    bar.editor.setPlainText("a + b")
    bar.run()  # typed, then run: nothing would be lost
    bar.examples.activated.emit(1)
    assert bar.text() == list(EXAMPLES.values())[0]
