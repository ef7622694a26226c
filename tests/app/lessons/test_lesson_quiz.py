"""The lesson's Quiz (issue 38 item 3): a lesson feature that does not open the
debugger, asks in the backward pass's order and grades the question the box shows."""

import pytest

from app.lessons.tour import settle
from app.main_window import MainWindow


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    w.files.prompt_on_close = False
    qtbot.addWidget(w)
    w.resize(1920, 1080)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.appearance.set_presenter(False)
    w.close()


def test_ticking_quiz_in_presenter_mode_leaves_the_debugger_closed(window, qtbot):
    # repro: an idle debugger ("Debugger ready", "Quiz: 0 of 0 right") took half the width
    window.appearance.set_presenter(True, 2, full_screen=False)
    window.opening.show_lessons("chain-rule", 3)
    qtbot.waitUntil(lambda: window.lessons.snapshot is not None, timeout=30000)
    settle(window)
    window.lessons.quiz_check.setChecked(True)
    settle(window)
    assert not window.docks["debugger"].isVisible()
    assert window.debugger.actions["quiz"].isChecked()  # stepping by hand still quizzes


def test_check_grades_the_question_the_box_shows(window, qtbot):
    # repro: after every item of chain-rule step 4 the box said "what is e.grad now?" and
    # Check graded the typed -2 against a.grad: "Not quite"
    panel = window.lessons
    window.opening.show_lessons("chain-rule", 3)
    qtbot.waitUntil(lambda: panel.snapshot is not None, timeout=30000)
    panel.quiz_check.setChecked(True)
    asked = []
    while panel.quiz.current is not None:
        item = panel.quiz.current
        asked.append(item.prompt)
        assert panel.prompt.text() == item.prompt
        panel.answer.setText(repr(item.truth))
        ok, _text = panel.check()
        assert ok
    last = panel.prompt.text()
    assert last == asked[-1] and "a.grad" in last  # the step's question comes after e.grad and c.grad
    panel.answer.setText("6")  # a.grad, what the box asks
    ok, text = panel.check()
    assert ok and text.startswith("Right!"), text
    panel.answer.setText("-2")
    ok, _text = panel.check()
    assert not ok


@pytest.mark.parametrize("size, presenter", [((1920, 1080), 2), ((1280, 720), 2), ((1280, 720), None)])
def test_answering_keeps_the_text_and_shows_the_verdict(window, qtbot, size, presenter):
    # repro: the verdict grew under the question and the text's viewport dropped to 0 px
    from app.lessons.tour import visible_rect

    window.resize(*size)
    if presenter:
        window.appearance.set_presenter(True, presenter, full_screen=False)
    panel = window.lessons
    window.opening.show_lessons("chain-rule", 3)
    qtbot.waitUntil(lambda: panel.snapshot is not None, timeout=30000)
    settle(window)
    panel.answer.setText("6")
    assert panel.check()[0]
    settle(window)
    text = visible_rect(panel.text.viewport(), window).height()
    verdict = visible_rect(panel.verdict.viewport(), window).height()
    line = panel.text.fontMetrics().height()
    assert text >= 2 * line and verdict >= 2 * line, (text, verdict)
    if presenter and size == (1920, 1080):  # beside the text, both whole
        assert panel.text_cut() == 0 and panel.verdict.verticalScrollBar().maximum() == 0
