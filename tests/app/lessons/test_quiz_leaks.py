"""A quiz that never leaks (issue 28): while a question is open, the value it asks for
is hidden everywhere the window could show it, quiz box ticked or not; once answered,
it shows again; and the feedback reads once and right."""

import pytest

from app.files import image_export
from app.main_window import MainWindow
from core.format import format_number


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    w.files.prompt_on_close = False
    w.lessons.train_limit = 2
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.close()


def open_step(window, qtbot, lesson_id, index):
    window.opening.show_lessons(lesson_id, index)
    qtbot.waitUntil(lambda: not window.lessons.busy and window.lessons.snapshot is not None, timeout=30000)
    return window.lessons


def node(window, label):
    runner = window.lessons.runner
    nid = runner.nid_of_label(label)
    return nid, runner.by_id[nid], window.scene.node_item(nid)


def test_the_final_assessment_hides_its_answer_on_the_canvas_without_the_quiz_box(window, qtbot):
    # repro: 'Forward pass: what is n.data?' showed n.data on the canvas unless Quiz was ticked
    panel = open_step(window, qtbot, "final-assessment", 0)
    assert not panel.quiz_check.isChecked()
    nid, value, item = node(window, "n")
    assert item.texts()[1] == "?"
    assert format_number(value.data) not in panel.text.toPlainText()
    panel.answer.setText(repr(value.data))
    ok, _ = panel.check()
    assert ok and item.texts()[1] == format_number(value.data)  # answered: shown again


def test_the_status_bar_does_not_give_the_output_away(window, qtbot):
    # repro: 'output L = 2.1378' in the status bar under "What is L.data?"
    open_step(window, qtbot, "final-assessment", 1)
    nid, value, item = node(window, "L")
    assert item.texts()[1] == "?"
    assert format_number(value.data) not in window.output_label.text()
    assert window.output_label.text().endswith("= ?")
    window.lessons.answer.setText(repr(value.data))
    window.lessons.check()
    assert format_number(value.data) in window.output_label.text()


def test_the_tool_tip_does_not_give_it_away_at_full_precision(window, qtbot):
    open_step(window, qtbot, "final-assessment", 1)
    nid, value, item = node(window, "L")
    tip = item.tooltip()
    assert repr(value.data)[:6] not in tip and format_number(value.data) not in tip
    assert "data ?" in tip


def test_the_inspector_does_not_give_it_away(window, qtbot):
    open_step(window, qtbot, "final-assessment", 1)
    nid, value, item = node(window, "L")
    window.session.select(nid)
    text = window.inspector.text()
    assert format_number(value.data) not in text and "data ?" in text
    window.lessons.answer.setText(repr(value.data))
    window.lessons.check()
    assert format_number(value.data) in window.inspector.text()


def test_the_grad_scale_does_not_give_a_hidden_grad_away(qtbot, window):
    # the legend's ends are the largest |grad| on the canvas: a hidden one must not set them
    panel = open_step(window, qtbot, "chain-rule", 0)
    panel.set_quiz_mode(True)
    panel.goto(1)
    qtbot.waitUntil(lambda: not panel.busy, timeout=30000)
    hidden = window.scene.marks.grad_masked()
    assert hidden, "the quiz hides this step's new grads"
    shown = [abs(v.grad) for nid, v in window.session.values.items() if nid not in hidden]
    assert window.scene.grad_max == pytest.approx(max(shown + [0.0]))
    panel.set_quiz_mode(False)


def test_feedback_reads_once_and_right(window, qtbot):
    # repro: "Right! Right! ..." and, after Show me, "Revealed: Right! ..."
    panel = open_step(window, qtbot, "final-assessment", 0)
    right, _ = panel.runner.answer()
    panel.answer.setText(repr(right))
    ok, explanation = panel.check()
    assert ok and explanation.startswith("Right! n.data = ") and explanation.count("Right") == 1
    panel.goto(1)
    qtbot.waitUntil(lambda: not panel.busy, timeout=30000)
    explanation = panel.reveal()
    assert explanation.startswith("Revealed: L.data = ") and "Right" not in explanation
    assert "Right" not in panel.result.text()


def test_the_debugger_quiz_score_is_on_screen(window, qtbot):
    # repro: the predict-the-grad quiz kept a score nobody could see
    window.debugger.controller.reset()
    window.debugger.set_quiz_mode(True)
    window.debugger.controller.step()
    label = window.debugger.quiz_score_label
    assert label.isVisibleTo(window.debugger) and "0 of 0" in label.text()
    question = window.debugger.controller.quiz_question()
    assert question
    window.debugger.controller.answer_quiz("12345")
    assert "0 of 1" in label.text()
    window.debugger.set_quiz_mode(False)


def test_an_export_while_the_question_is_open_keeps_the_answer_hidden(window, qtbot, tmp_path):
    open_step(window, qtbot, "final-assessment", 1)
    nid, value, item = node(window, "L")
    path = tmp_path / "graph.svg"
    assert image_export.export_svg(window.services(), str(path))
    svg = path.read_text(encoding="utf-8")
    assert format_number(value.data) not in svg and ">?<" in svg.replace(" ", "")
    window.lessons.answer.setText(repr(value.data))
    window.lessons.check()
    assert image_export.export_svg(window.services(), str(path))
    assert format_number(value.data) in path.read_text(encoding="utf-8")


def test_the_debugger_quiz_does_not_show_the_passs_largest_grad_on_the_scale(window, qtbot):
    # the debugger pins the colour scale to the pass's final largest |grad| (8 for the tutorial's
    # y.grad): under "What is y.grad now?" the legend's +8.0000 gave the answer away
    import os

    examples = os.path.join(os.path.dirname(__file__), "..", "..", "..", "resources", "examples")
    window.open_file(os.path.join(examples, "tutorial.json"))
    window.debugger.controller.reset()
    window.debugger.set_quiz_mode(True)
    while not window.debugger.controller.stepper.done and window.debugger.controller.quiz_question() == "":
        window.debugger.controller.step()
    window.debugger.controller.step()
    assert window.debugger.controller.quiz_question()
    hidden = window.scene.marks.grad_masked()
    assert hidden
    shown = [abs(v.grad) for nid, v in window.session.values.items() if nid not in hidden]
    assert window.scene.grad_max == pytest.approx(max(shown))
    window.debugger.set_quiz_mode(False)


def test_the_debugger_quiz_does_not_evaluate_the_local_derivative_it_asks_about(window, qtbot):
    # with out.grad = 1 the local derivative's value is the answer: '∂(y^2)/∂y = 2·y.data = 6.0000'
    # under 'What is y.grad now?'
    import os

    examples = os.path.join(os.path.dirname(__file__), "..", "..", "..", "resources", "examples")
    window.open_file(os.path.join(examples, "tutorial.json"))
    window.debugger.controller.reset()
    window.debugger.set_quiz_mode(True)
    window.debugger.controller.step()
    window.debugger.controller.answer_quiz("1")
    window.debugger.controller.step()
    assert "y.grad" in window.debugger.controller.quiz_question()
    text = window.debugger.explanation.toPlainText()
    assert "2·y.data" in text and "6.0000" not in text
    window.debugger.controller.reveal_quiz()
    assert "6.0000" in window.debugger.explanation.toPlainText()
    window.debugger.set_quiz_mode(False)


def test_the_minimap_does_not_colour_a_hidden_grad(window, qtbot):
    import os

    from PySide6.QtGui import QImage

    examples = os.path.join(os.path.dirname(__file__), "..", "..", "..", "resources", "examples")
    window.open_file(os.path.join(examples, "tutorial.json"))
    window.debugger.controller.reset()
    window.debugger.set_quiz_mode(True)
    window.debugger.controller.step()
    window.debugger.controller.answer_quiz("1")
    window.debugger.controller.step()  # 'What is y.grad now?' (y.grad is 6 behind the '?')
    nid = next(n for n, v in window.session.values.items() if v.label == "y")
    item = window.scene.node_item(nid)
    assert item.grad_mask is not None and item.grad == 6.0
    minimap = window.view.minimap
    theme = window.scene.theme
    asked = []
    real = theme.grad_color
    theme.grad_color = lambda g, gmax: asked.append(g) or real(g, gmax)
    try:
        minimap._paint_blocks(QImage(50, 50, QImage.Format_ARGB32), [item])
    finally:
        del theme.grad_color
    assert asked == [0.0]
    window.debugger.set_quiz_mode(False)


def test_the_inspector_of_a_consumer_does_not_give_its_operands_hidden_numbers_away(window, qtbot):
    # 'Forward pass: what is n.data?': selecting o = tanh(n) listed 'port 0: n = -0.5000'
    open_step(window, qtbot, "final-assessment", 0)
    n_id, n_value, _item = node(window, "n")
    o_id, _o, _ = node(window, "o")
    window.session.select(o_id)
    text = window.inspector.text() + window.inspector.inputs_label.text() + window.inspector.derivative_label.text()
    assert format_number(n_value.data) not in text
