"""Small fixes of issue 28: the divergence message said once; the lesson panel refits
when the presenter scale changes."""

from app.lessons.panel import diverged_message
from app.lessons.tour import in_view, settle
from app.main_window import MainWindow


def test_the_divergence_message_is_said_once():
    # repro: "The run diverged: The run diverged: the loss became inf at step 6 ..."
    text = "The run diverged: the loss became inf at step 6. The learning rate (5) is too high"
    assert diverged_message(text) == text
    assert diverged_message("loss is nan").startswith("The run diverged: loss is nan")


def test_the_lesson_panel_follows_a_change_of_presenter_scale(qtbot):
    window = MainWindow()
    window.files.prompt_on_close = False
    qtbot.addWidget(window)
    window.resize(1920, 1080)
    window.show()
    qtbot.waitExposed(window)
    window.appearance.set_presenter(True, 2, full_screen=False)
    window.opening.show_lessons("chain-rule", 2)
    qtbot.waitUntil(lambda: window.lessons.snapshot is not None, timeout=30000)
    settle(window)
    before = window.docks["lessons"].height()
    window.appearance.set_scale(3)
    qtbot.waitUntil(lambda: not window.presenter_fit.timer.isActive(), timeout=10000)
    settle(window)
    facts = in_view(window)
    assert facts["panel"] and facts["question"] and facts["next"], facts
    assert window.docks["lessons"].height() > before  # 3x text needs more room
    window.appearance.set_presenter(False)
    window.close()
