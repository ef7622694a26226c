"""A step longer than presenter mode's room is shown in pages (app/lessons/paging.py):
at 3x on 1920x1080 the text of chain-rule step 4 scrolled (171 px cut after answering);
now each page is whole, says which it is, Next reads "More" and shows the next one."""

import pytest

from app.lessons.tour import facts, settle
from app.main_window import MainWindow


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    w.files.prompt_on_close = False
    qtbot.addWidget(w)
    w.resize(1920, 1080)
    w.show()
    qtbot.waitExposed(w)
    w.wait_for_layout()
    w.appearance.set_presenter(True, 3, full_screen=False)
    yield w
    w.appearance.set_presenter(False)
    w.close()


def show(window, lesson, index):
    window.opening.show_lessons(lesson, index)
    window.lessons.wait_idle()
    settle(window)


def test_a_long_step_at_3x_is_in_whole_pages(window):
    panel = window.lessons
    show(window, "write-your-own-value", 3)
    count = len(panel.pages)
    assert count > 1
    texts = []
    for k in range(count):
        seen = facts(window)
        assert seen["text_cut"] == 0, (k, seen)
        assert f"page {k + 1} of {count}" in panel.where.text()
        assert panel.next_button.text().startswith("More") == (k + 1 < count)
        texts.append(panel.text.toPlainText())
        if k + 1 < count:
            panel.next_button.click()
            settle(window)
    assert panel.runner.index == 3  # the last page's Next ...
    assert "backward" in " ".join(texts) and "topo" in " ".join(texts)
    panel.next_button.click()
    settle(window)
    assert panel.runner.index == 4  # ... the next step


def test_back_shows_the_page_before_then_the_step_before(window):
    panel = window.lessons
    show(window, "write-your-own-value", 3)
    panel.next_button.click()
    settle(window)
    assert panel.page == 1
    panel.back_button.click()
    settle(window)
    assert panel.page == 0 and panel.runner.index == 3
    panel.back_button.click()
    panel.wait_idle()
    assert panel.runner.index == 2


def test_leaving_presenter_mode_shows_the_whole_text(window):
    panel = window.lessons
    show(window, "write-your-own-value", 3)
    assert len(panel.pages) > 1
    window.appearance.set_presenter(False)
    settle(window)
    assert len(panel.pages) == 1 and "def backward" in panel.text.toPlainText()
    assert "page" not in panel.where.text() and panel.title.text() == panel.runner.lesson.title


def test_a_long_verdict_comes_in_parts(window):
    panel = window.lessons
    show(window, "softmax-cross-entropy", 1)
    while panel.next_page_left():
        panel.next_button.click()
        settle(window)
    panel.answer.setText("-0.2946")
    panel.check_button.click()
    settle(window)
    assert len(panel.verdict_lines) > 1 and facts(window)["verdict_cut"] == 0
    shown = []
    while True:
        shown.extend(panel.verdict_lines[panel.verdict_page])
        assert facts(window)["verdict_cut"] == 0
        if not panel.verdict_page + 1 < len(panel.verdict_lines):
            break
        assert panel.next_button.text().startswith("More")
        panel.next_button.click()
        settle(window)
    assert shown == panel.question_box._shown[0].splitlines()  # every line of the working, in order
