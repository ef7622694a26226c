"""Run as Python in the window: lecture code pasted as it is opens as a graph; the safe
Run points to it; a typo is an error on its line; a formula's inputs are said (issue 29)."""

from PySide6.QtCore import Qt

from tests.core.lecture import cells


def run_as_python(window, qtbot, text):
    window.editor.set_text(text)
    qtbot.keyClick(window.editor.editor, Qt.Key_Return, Qt.ControlModifier | Qt.ShiftModifier)
    assert window.code_runner.running or window.code_runner.job is None
    qtbot.waitUntil(lambda: not window.code_runner.running, timeout=60_000)
    window.wait_for_layout()


def labelled(window, label):
    return [item for item in window.scene.node_items().values() if item.label == label]


def test_the_neuron_cell_runs_as_python_and_opens_with_its_names(window, qtbot):
    run_as_python(window, qtbot, cells.NEURON)
    (o,) = labelled(window, "o")
    assert o.data_text == "0.7071" and o.is_output
    (x1,) = labelled(window, "x1")
    assert x1.grad_text == "0.0000"  # the cell never called backward(): the notebook's grads are 0
    assert window.undo_stack.undoText() == "Run as Python"
    assert window.editor.error_text() == ""
    assert "Ran as Python: 10 nodes" in window.statusBar().currentMessage()
    assert window.editor.code_button.isEnabled() and window.editor.code_button.text() == "Run as Python"


def test_plain_run_of_lecture_code_points_to_run_as_python(window, qtbot):
    before = len(window.session.doc.nodes)
    window.editor.set_text(cells.CLASSES)
    qtbot.keyClick(window.editor.editor, Qt.Key_Return, Qt.ControlModifier)
    assert "To run it as Python code, press Run as Python (Ctrl+Shift+Enter)." in window.editor.error_text()
    assert len(window.session.doc.nodes) == before  # the graph stays


def test_cells_one_after_another_and_forgetting_them(window, qtbot):
    run_as_python(window, qtbot, cells.CLASSES)
    assert "defines Neuron, Layer, MLP (kept for your next cells)" in window.editor.note_text()
    assert window.editor.error_text() == ""
    assert "1 cell kept for your next Run as Python" in window.editor.note_text()
    run_as_python(window, qtbot, cells.USE_MLP)
    assert labelled(window, "n(x)") and "Ran after 1 earlier cell" in window.editor.note_text()
    window.editor.note_label.linkActivated.emit("forget")
    assert window.code_runner.notebook.cells == []
    run_as_python(window, qtbot, cells.USE_MLP)
    assert "'MLP' has no value yet" in window.editor.error_text()
    assert window.editor.error_text().startswith("Line 2:")


def test_what_the_code_prints_is_shown(window, qtbot):
    run_as_python(window, qtbot, cells.README)
    notes = window.editor.note_text()
    assert "Your code printed:" in notes and "24.7041" in notes and "645.5773" in notes
    (g,) = [item for item in labelled(window, "g") if item.is_output]
    assert g.data_text == "24.7041"


def test_a_typo_is_an_error_on_its_line_not_an_input(window, qtbot):
    before = len(window.session.doc.nodes)
    window.editor.set_text("x = Value(2.0, label='x')\ny = Value(3.0, label='y')\nf = x*y + z**2\n")
    qtbot.keyClick(window.editor.editor, Qt.Key_Return, Qt.ControlModifier)
    assert window.editor.error_text().startswith("Line 3, column 11: 'z' has no value")
    assert len(window.session.doc.nodes) == before


def test_a_formulas_inputs_are_said_on_screen(window, qtbot):
    window.editor.set_text("f = x*y + z**2")
    qtbot.keyClick(window.editor.editor, Qt.Key_Return, Qt.ControlModifier)
    assert window.editor.error_text() == ""
    assert "Inputs made from the formula's names: x = 2.0 (from the Inputs table)" in window.editor.note_text()
    assert window.editor.note_box.isVisible()


# -- the canvas is the notebook's state (issue 42) -------------------------------------------------


def test_manual_backprop_cells_show_their_grads_lit_and_the_chain_rules_a_click_away(window, qtbot):
    for cell in (cells.NEURON, "o.grad = 1.0\n", "o._backward()\n"):
        run_as_python(window, qtbot, cell)
    (n,) = labelled(window, "n")
    (x1,) = labelled(window, "x1")
    (o,) = labelled(window, "o")
    assert (n.grad_text, x1.grad_text, o.grad_text) == ("0.5000", "0.0000", "1.0000")
    assert o.is_output and len(window.session.doc.nodes) == 10
    assert window.scene.marks.highlighted_nodes() == {n.nid}  # what this cell touched
    assert "Show the chain rule's grads" in window.editor.note_text()
    window.editor.note_label.linkActivated.emit("reference")
    assert x1.grad_text == "-1.5000"  # the chain rule's, on request
    assert "show yours again" in window.editor.note_text()
    window.editor.note_label.linkActivated.emit("reference")
    assert x1.grad_text == "0.0000"


def test_a_grad_the_chain_rule_disagrees_with_is_marked_on_its_node(window, qtbot):
    for cell in (cells.NEURON, "o.grad = 1.0\no._backward()\n", "n._backward()\nn._backward()\n"):
        run_as_python(window, qtbot, cell)
    (b,) = labelled(window, "b")
    assert b.grad_text == "1.0000"  # piled up: their number stays on the canvas
    assert b.debug_mark == "target" and "chain rule: 0.5" in b.debug_tag
    assert "twice without zeroing" in window.editor.note_text()


def test_the_cells_out_is_shown_as_a_notebook_shows_it(window, qtbot):
    run_as_python(window, qtbot, "def f(x):\n  return 3*x**2 - 4*x + 5\n")
    run_as_python(window, qtbot, "f(3.0)\n")
    assert "Out: 20.0" in window.editor.note_text()


def test_stop_ends_a_long_cell_where_it_is(window, qtbot):
    window.editor.set_text("k = 0\nwhile True:\n    k += 1\n")
    window.editor.code_button.click()
    assert window.code_runner.running and window.editor.code_button.text() == "Stop"
    qtbot.waitUntil(lambda: "line" in window.statusBar().currentMessage(), timeout=60_000)
    assert "Running your code as Python" in window.statusBar().currentMessage()
    window.editor.code_button.click()
    qtbot.waitUntil(lambda: not window.code_runner.running, timeout=60_000)
    assert "you stopped your code" in window.editor.error_text()
    assert window.editor.code_button.text() == "Run as Python"


def test_a_big_graph_opens_collapsed_and_a_plot_in_the_plots_window(window, qtbot):
    from tests.core.lecture.test_run import BIG
    from tests.core.lecture.test_standins import BOUNDARY

    run_as_python(window, qtbot, BIG)
    qtbot.waitUntil(lambda: window.scope_page.current is not None, timeout=60_000)
    page = window.scope_page.current
    qtbot.waitUntil(lambda: page.graph is not None and page.graph.n > 3_000, timeout=60_000)
    qtbot.waitUntil(lambda: getattr(page, "_values_job", None) is not None, timeout=60_000)
    qtbot.waitUntil(page._values_job.isFinished, timeout=60_000)
    assert window.training.stack.currentWidget() is page
    assert window.docks["editor"].isVisible()  # the next cell, and Stop, stay at hand
    run_as_python(window, qtbot, BOUNDARY)
    run_as_python(window, qtbot, cells.NEURON)
    assert window.training.stack.currentWidget() is not page  # a small graph: the canvas again
    assert labelled(window, "o")
    plots = window.code_runner.plots
    assert plots is not None and plots.isVisible() and len(plots.figures) == 1


def test_a_lecture_script_opens_like_its_pasted_text_on_the_normal_canvas(window, qtbot, tmp_path):
    script = tmp_path / "neuron.py"
    helper = tmp_path / "my_helpers.py"  # a module beside the script imports, as with `python neuron.py`
    helper.write_text("SCALE = 1.0\n")
    script.write_text(
        "import matplotlib.pyplot as plt\nfrom my_helpers import SCALE\n" + cells.NEURON + "o.backward()\n"
    )
    assert window.open_file(str(script))
    qtbot.waitUntil(lambda: not window.code_runner.running, timeout=60_000)
    window.wait_for_layout()
    assert window.editor.error_text() == ""
    assert window.scope_page.current is None  # 10 nodes: the normal canvas
    (x1,) = labelled(window, "x1")
    assert x1.grad_text == "-1.5000" and len(window.session.doc.nodes) == 10
    assert "neuron.py" in window.editor.hint.text()


def test_stop_keeps_the_values_as_they_were(window, qtbot):
    window.editor.set_text("x = Value(2.0, label='x')\nk = 0\nwhile True:\n    y = x * 3; y.label = 'y'\n    k += 1\n")
    window.editor.code_button.click()
    qtbot.waitUntil(lambda: "line" in window.statusBar().currentMessage(), timeout=60_000)
    window.editor.code_button.click()
    qtbot.waitUntil(lambda: not window.code_runner.running, timeout=60_000)
    window.wait_for_layout()
    (y,) = labelled(window, "y")
    assert y.data_text == "6.0000"
    assert "You stopped your code at line" in window.editor.note_text()
    assert window.code_runner.notebook.cells == []  # a stopped cell is not kept


def test_a_graph_laid_out_on_a_worker_shows_their_numbers_too(window, qtbot):
    # more than layout_runner.ASYNC_LAYOUT_NODES: the numbers are set once the layout has landed
    run_as_python(window, qtbot, cells.CLASSES + "n = MLP(3, [20, 20, 1])\nout = n([2.0, 3.0, -1.0])\n")
    assert len(window.session.doc.nodes) > 400
    (out,) = labelled(window, "out")
    assert out.grad_text == "0.0000"  # no backward() in the notebook yet: the studio's would be 1
    assert all(v.grad == 0.0 for v in window.session.values.values())
