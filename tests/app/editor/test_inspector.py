"""The inspector: the selected node's numbers and its local derivatives, written out."""

import pytest

from app.editor.inspector import InspectorPanel, derivative_lines
from app.session import GraphSession
from core.document.compile import compile_document
from core.document.expr import parse


@pytest.fixture
def panel(qtbot):
    session = GraphSession()
    panel = InspectorPanel(session)
    qtbot.addWidget(panel)
    panel.show()
    yield session, panel
    panel.close()


def load(session, text):
    ok, error = session.replace(parse(text))
    assert ok, error


TUTORIAL = "x = Value(2.0, label='x')\ny = Value(3.0, label='y')\nf = x*y + y**2\n"


def test_derivative_lines_name_operands_and_give_numbers():
    doc = parse("a = Value(2.0, label='a')\nb = Value(3.0, label='b')\nc = a*b\n")
    compiled = compile_document(doc)
    c = compiled.values["n3"]
    c.backward()
    lines = derivative_lines(doc.nodes["n3"], ["a", "b"], "c", c, c.grad)
    assert lines[0][0] == "d(a·b)/da = b = 3.0000"
    assert lines[1][0] == "d(a·b)/db = a = 2.0000"
    assert lines[0][1] == "a.grad += 3.0000 · c.grad 1.0000 = 3.0000"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("a = Value(3.0, label='a')\nb = a**2", "d(a^2)/da = 2·a = 6.0000"),
        ("a = Value(3.0, label='a')\nb = a**3", "d(a^3)/da = 3·a^2 = 27.0000"),
        ("a = Value(0.0, label='a')\nb = a.tanh()", "d(tanh(a))/da = 1 − tanh(a)² = 1.0000"),
        ("a = Value(-1.0, label='a')\nb = a.relu()", "d(relu(a))/da = 1 if a > 0 else 0 = 0.0000"),
        ("a = Value(4.0, label='a')\nb = a.log()", "d(ln(a))/da = 1/a = 0.2500"),
        ("a = Value(1.0, label='a')\nb = -a", "d(−a)/da = −1"),
    ],
)
def test_unary_derivatives(text, expected):
    doc = parse(text)
    compiled = compile_document(doc)
    out_id = doc.effective_output()
    value = compiled.values[out_id]
    lines = derivative_lines(doc.nodes[out_id], ["a"], "b", value, 1.0)
    assert lines[0][0] == expected


def test_shows_the_selected_node(panel):
    session, panel = panel
    load(session, TUTORIAL)
    assert panel.empty.isVisibleTo(panel)
    session.select("n3")  # x*y
    text = panel.text()
    assert panel.title.text() == "x·y"
    assert "data 6.0000" in text and "grad 1.0000" in text
    assert "d(x·y)/dx = y = 3.0000" in text
    assert "d(x·y)/dy = x = 2.0000" in text
    assert "port 0: x = 2.0000" in text and "port 1: y = 3.0000" in text
    assert "f (port 0, add)" in text


def test_a_leaf_shows_where_its_grad_comes_from(panel):
    session, panel = panel
    load(session, TUTORIAL)
    session.select("n2")  # y, used twice
    text = panel.text()
    assert panel.title.text() == "y"
    assert "grad 8.0000" in text
    assert "2.0000 (from x·y) + 6.0000 (from y^2) = 8.0000" in text


def test_follows_backward_and_zero(panel):
    session, panel = panel
    load(session, TUTORIAL)
    session.select("n1")
    session.zero_grads()
    assert panel.grad_label.text() == "0.0000"
    session.backward()
    assert panel.grad_label.text() == "3.0000"


def test_editing_label_and_value_are_undoable(panel, qtbot):
    session, panel = panel
    load(session, TUTORIAL)
    session.select("n1")
    panel.label_edit.setText("x0")
    panel.label_edit.editingFinished.emit()
    assert session.doc.nodes["n1"].label == "x0"
    assert panel.title.text() == "x0"
    panel.value_edit.setValue(5.0)
    assert session.value("n5").data == 5.0 * 3.0 + 9.0
    session.undo_stack.undo()
    assert session.value("n5").data == 15.0
    session.undo_stack.undo()
    assert session.doc.nodes["n1"].label == "x"


def test_removed_node_clears_the_panel(panel):
    session, panel = panel
    load(session, TUTORIAL)
    session.select("n5")
    load(session, "q = Value(1.0, label='q')")
    assert session.current_id is None
    assert panel.empty.isVisibleTo(panel)
