"""A lesson in a laptop's window (app/lessons/side_fit.py, issue 38 item 1): at 1280x720,
not in presenter mode, the step's text, what an answer revealed and the verdict are
all in view -- nothing scrolled away -- the side dock reaching the window's bottom and
a step longer than it in pages at the text's own size, Next reading "More"."""

import pytest
from PySide6.QtCore import Qt

from app.lessons.side_fit import fit_side, in_side_dock, side_cut
from app.lessons.tour import facts, problems, settle, visible_rect
from app.main_window import MainWindow


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    w.files.prompt_on_close = False
    w.lessons.train_limit = 2
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    qtbot.waitExposed(w)
    w.wait_for_layout()
    yield w
    w.appearance.set_presenter(False)
    w.close()


def open_step(window, qtbot, lesson, step, quiz=False):
    window.lessons.quiz_check.setChecked(quiz)
    window.opening.show_lessons(lesson, step)
    qtbot.waitUntil(lambda: not window.lessons.busy and window.lessons.snapshot is not None, timeout=30000)
    settle(window)


def answer(window, qtbot):
    panel = window.lessons
    while panel.quiz.current is not None:
        panel.answer.setText(repr(panel.quiz.current.truth))
        panel.check_button.click()
    settle(window)


def test_chain_rule_step_4_answered_with_the_quiz_scrolls_nothing_away(window, qtbot):
    # repro: 176 px of the text and 79 px of the verdict scrolled away in a 406 px dock
    # under the debugger's (61 of 67 views of the tour's sample with the Quiz)
    open_step(window, qtbot, "chain-rule", 3, quiz=True)
    assert in_side_dock(window)
    answer(window, qtbot)
    panel = window.lessons
    assert panel.verdict.isVisible()
    seen = dict(facts(window), answered=True)
    assert problems(seen, "chain-rule step 4") == []
    assert side_cut(window) == 0 and seen["text_cut"] == 0 and seen["verdict_cut"] == 0
    assert seen["revealed_seen"]  # the page shown holds the += line the answer revealed
    # the side column reaches the window's bottom: the debugger keeps the canvas's width
    dock = window.docks["lessons"]
    assert dock.height() >= 0.8 * window.height()  # was 406 of 720 px
    debugger = window.docks["debugger"]
    if debugger.isVisible():
        assert debugger.x() >= dock.x() + dock.width()
    # every page is whole: More shows each, the text never scrolls
    while panel.next_page_left():
        before = (panel.page, panel.verdict_page)
        assert panel.next_button.text().startswith("More")
        panel.next_button.click()
        settle(window)
        assert (panel.page, panel.verdict_page) != before
        assert side_cut(window) == 0, (panel.page, panel.verdict_page)


@pytest.mark.parametrize("lesson, step", [("mlp-loss-graph", 0), ("mlp-loss-graph", 3), ("single-neuron", 3)])
def test_a_long_step_is_in_pages_at_the_texts_own_size(window, qtbot, lesson, step):
    open_step(window, qtbot, lesson, step)
    panel = window.lessons
    seen = facts(window)
    assert problems(seen, f"{lesson} step {step + 1}") == []
    assert panel.text.document().defaultFont().pixelSize() == panel.text.font().pixelSize()  # not made smaller
    lines = visible_rect(panel.text.viewport(), window).height() / panel.text.fontMetrics().height()
    assert lines >= 5  # a page is a page, not two lines
    if panel.network_view.isVisible():  # the boundary still readable beside the text
        assert min(panel.boundary_view.width(), panel.boundary_view.height()) >= 90


def test_the_side_fit_follows_the_dock_out_of_presenter_mode_and_back(window, qtbot):
    open_step(window, qtbot, "chain-rule", 3)
    panel = window.lessons
    window.appearance.set_presenter(True, 2, full_screen=False)
    settle(window)
    assert not in_side_dock(window) and not panel.side_sized
    window.appearance.set_presenter(False)
    qtbot.waitUntil(lambda: window.dockWidgetArea(window.docks["lessons"]) == Qt.LeftDockWidgetArea)
    settle(window)
    fit_side(window)
    settle(window)
    assert in_side_dock(window) and panel.side_sized
    assert side_cut(window) == 0


def test_closing_the_lesson_gives_the_debugger_the_windows_width_again(window, qtbot):
    """Repro (noticed in session 11): after the lesson closed, the debugger's dock kept the
    canvas's width -- the corner lent to the lesson's column stayed lent."""
    debugger = window.docks["debugger"]
    before = debugger.width()
    open_step(window, qtbot, "chain-rule", 3)
    qtbot.waitUntil(lambda: debugger.width() < before, timeout=30000)  # the column reaches the bottom
    window.docks["lessons"].close()
    qtbot.waitUntil(lambda: debugger.width() == before, timeout=30000)
    assert window.corner(Qt.Corner.BottomLeftCorner) == Qt.DockWidgetArea.BottomDockWidgetArea
