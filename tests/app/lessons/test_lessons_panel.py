"""The Lessons panel: every lesson runs through it, and what it shows is the runner's."""

import math

import pytest
from PySide6.QtCore import Qt

from app import window_actions
from app.lessons.panel import LESSONS_DIR, LessonsPanel
from app.lessons.presenter_layout import size_presenter_docks
from app.lessons.reading import set_markdown
from app.lessons.tour import settle
from app.look.theme import format_number
from app.main_window import MainWindow
from core.lessons.format import load_all
from core.lessons.runner import fmt

LESSONS = load_all(LESSONS_DIR)
TRAIN_LIMIT = 2  # keeps the network lessons quick


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    w.files.prompt_on_close = False
    w.lessons.train_limit = TRAIN_LIMIT
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.close()


def wait(qtbot, panel):
    qtbot.waitUntil(lambda: not panel.busy, timeout=30000)


def check_screen(window, panel):
    """Everything on screen for this step is the runner's own."""
    runner, snap = panel.runner, panel.snapshot
    settle(window)  # a step longer than the side dock is in pages (app/lessons/side_fit.py)
    assert snap.index == runner.index
    where = f"Step {runner.index + 1} of {len(runner.lesson.steps)}"
    pages = len(panel.pages)
    assert panel.where.text() == (where if pages == 1 else f"{where}, page 1 of {pages}")
    assert snap.text == runner.render_text()
    shown = panel.text.toPlainText()
    for _ in range(pages - 1):  # every page of it, as More shows them (Next then goes to the next step)
        assert panel.next_page()
        shown += "\n" + panel.text.toPlainText()
    for number in _numbers(runner.render_text()):
        assert number in shown, f"{number} is in the lesson text but not on screen"
    if snap.show_graph:
        session, scene = window.session, window.scene
        assert panel.bridge.showing_runner
        by_id = runner.by_id
        assert set(session.values) == set(by_id)
        for nid, value in by_id.items():
            assert session.values[nid] is value  # the very same Value objects
            item = scene.node_item(nid)
            assert item.data_text == format_number(value.data)
            assert item.grad_text == format_number(value.grad)
        highlighted = {nid for nid, item in scene.node_items().items() if item.highlighted}
        assert highlighted == set(runner.highlight_ids())
        for nid, node in session.doc.nodes.items():  # the inspector's leaf values agree too
            if node.kind != "op" and math.isfinite(by_id[nid].data):
                assert node.value == by_id[nid].data
    if runner.kind == "network":
        text = panel.metrics_label.text()
        assert f"loss {runner.placeholder('loss')}" in text
        assert f"accuracy {runner.placeholder('accuracy')}" in text
        assert f"after {runner.trainer.steps_done} step" in text
        assert f"{len(runner.trainer.params)} parameters" in text
        assert panel.network_view.isVisibleTo(panel)


def _numbers(text):
    """The 4-decimal numbers a lesson text states (what the runner filled in)."""
    import re

    return re.findall(r"-?\d+\.\d{4}", text)


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.id for lesson in LESSONS])
def test_every_lesson_and_every_step_runs_through_the_panel(window, qtbot, lesson):
    panel = window.lessons
    window.opening.show_lessons(lesson.id)
    wait(qtbot, panel)
    seen = []
    while True:
        assert panel.error.isHidden(), panel.error.text()
        check_screen(window, panel)
        seen.append(panel.runner.index)
        step = panel.runner.step
        if step.question is not None:
            assert panel.question_box.isVisibleTo(panel)
            assert panel.prompt.text() == panel.runner.render_prompt()
            right, _how = panel.runner.answer()
            panel.answer.setText(repr(right))
            ok, explanation = panel.check()
            assert ok and "Right" in explanation and fmt(right) in panel.result.text()
            panel.answer.setText(repr(right + 10 * step.question.tolerance + 1.0))
            ok, _ = panel.check()
            assert not ok and "Not quite" in panel.result.text()
        else:
            assert not panel.question_box.isVisibleTo(panel)
        if panel.runner.at_end:
            break
        assert panel.next_button.isEnabled()
        qtbot.mouseClick(panel.next_button, Qt.LeftButton)
        wait(qtbot, panel)
    assert seen == list(range(len(lesson.steps)))


def test_back_replays_to_the_same_numbers(window, qtbot):
    panel = window.lessons
    window.opening.show_lessons("chain-rule", 3)
    wait(qtbot, panel)
    before = {nid: (v.data, v.grad) for nid, v in panel.runner.by_id.items()}
    assert panel.back()
    wait(qtbot, panel)
    assert panel.runner.index == 2
    check_screen(window, panel)
    assert panel.next()
    wait(qtbot, panel)
    check_screen(window, panel)
    assert {nid: (v.data, v.grad) for nid, v in panel.runner.by_id.items()} == before


def test_keys_and_toolbar_move_the_lesson(window, qtbot):
    panel = window.lessons
    window.opening.show_lessons("value-and-graph")
    wait(qtbot, panel)
    window.actions["lesson next"].trigger()
    wait(qtbot, panel)
    assert panel.runner.index == 1
    assert window.actions["lesson back"].isEnabled()
    window.actions["lesson back"].trigger()
    wait(qtbot, panel)
    assert panel.runner.index == 0 and not window.actions["lesson back"].isEnabled()


def test_next_at_the_end_starts_the_next_lesson(window, qtbot):
    panel = window.lessons
    first, second = LESSONS[0], LESSONS[1]
    window.opening.show_lessons(first.id, -1)
    wait(qtbot, panel)
    assert panel.runner.at_end and panel.next_button.text().startswith("Next lesson")
    panel.next()
    wait(qtbot, panel)
    assert panel.runner.lesson.id == second.id and panel.runner.index == 0
    check_screen(window, panel)


def test_grads_changed_outside_the_lesson_are_replayed(window, qtbot):
    """Backward on the lesson's graph changes the runner's Values; the next move
    replays the lesson so what it says is still true."""
    panel = window.lessons
    window.opening.show_lessons("zero-grad-bug", 0)
    wait(qtbot, panel)
    window_actions.backward(window)
    window_actions.backward(window)
    assert panel.bridge.touched
    panel.next()
    wait(qtbot, panel)
    assert not panel.bridge.touched
    check_screen(window, panel)
    assert panel.runner.claim_errors() == []


def test_an_edit_detaches_the_canvas_and_the_next_step_brings_the_lesson_back(window, qtbot):
    panel = window.lessons
    window.opening.show_lessons("chain-rule", 0)
    wait(qtbot, panel)
    window.run_expression("x = Value(1.0, label='x')\ny = x * x\n")
    assert not panel.bridge.showing_runner
    panel.next()
    wait(qtbot, panel)
    check_screen(window, panel)


def test_a_long_step_runs_in_a_worker_and_can_be_stopped(window, qtbot, monkeypatch):
    import threading

    panel = window.lessons
    panel.train_limit = None  # train as written: the 80-step move
    window.opening.show_lessons("training-moons", 2)
    wait(qtbot, panel)
    steps_before = panel.runner.trainer.steps_done
    # the move's second training step waits until Stop was pressed: the move cannot end first,
    # however fast the worker runs (it once did, under load: the lesson moved on to step 3)
    stopped = threading.Event()
    trainer_class = type(panel.runner.trainer)
    step = trainer_class.step
    taken = []

    def held_step(trainer, *args, **kwargs):
        taken.append(1)
        if len(taken) > 1:
            stopped.wait(120)
        return step(trainer, *args, **kwargs)

    monkeypatch.setattr(trainer_class, "step", held_step)
    while panel.next_page():  # a step in pages (a side dock): Next shows them first
        pass
    with qtbot.waitSignal(panel.busyChanged, timeout=5000):
        panel.next()
    assert panel.busy and not panel.next_button.isEnabled() and not panel.back_button.isEnabled()
    assert panel.busy_box.isVisibleTo(panel)
    qtbot.waitUntil(lambda: "training step" in panel.busy_label.text().lower(), timeout=20000)
    panel.stop()
    stopped.set()
    wait(qtbot, panel)
    assert panel.runner.index == 2 and panel.runner.trainer.steps_done == steps_before
    check_screen(window, panel)


def test_the_network_view_shows_the_boundary(window, qtbot):
    panel = window.lessons
    window.opening.show_lessons("training-moons", 1)
    wait(qtbot, panel)
    assert panel.boundary_view._image is not None
    # tens of thousands of Values: the numbers and the boundary here, and on the canvas one of
    # the network's own neurons -- never the graph of the lesson before, never nothing (issue 17)
    assert panel.snapshot.show_graph and panel.snapshot.nodes <= 20
    assert "L0.n0" in panel.snapshot.canvas_note
    image = panel.boundary_view.grab().toImage()
    assert image.width() > 50


def test_small_network_graph_goes_on_the_canvas(window, qtbot):
    panel = window.lessons
    window.opening.show_lessons("mlp-loss-graph", 1)
    wait(qtbot, panel)
    assert panel.snapshot.show_graph and panel.snapshot.nodes <= 600
    check_screen(window, panel)


def test_quiz_mode_drives_the_debuggers_quiz(window, qtbot):
    panel = window.lessons
    quiz = window.debugger.actions["quiz"]
    shown = window.docks["debugger"].isVisible()
    panel.quiz_check.setChecked(True)
    # the lesson's feature: the debugger follows for stepping by hand, its dock is not opened
    assert quiz.isChecked() and window.docks["debugger"].isVisible() == shown
    quiz.setChecked(False)
    assert not panel.quiz_check.isChecked()
    window.opening.show_lessons("chain-rule", 0)
    wait(qtbot, panel)
    panel.set_quiz_mode(True)
    record = window.debugger.controller.step()
    assert record is not None
    question = window.debugger.controller.quiz_question()
    assert question  # the new grad is hidden until predicted
    panel.set_quiz_mode(False)


def test_progress_is_remembered(window, qtbot):
    panel = window.lessons
    window.opening.show_lessons("value-and-graph", 2)
    wait(qtbot, panel)
    row = [lesson.id for lesson in LESSONS].index("value-and-graph")
    assert "3/4" in panel.list.item(row).text()
    other = LessonsPanel(None, LESSONS)
    qtbot.addWidget(other)
    assert "3/4" in other.list.item(row).text()


def test_markdown_code_follows_the_body_font(qtbot):
    from PySide6.QtGui import QTextFormat
    from PySide6.QtWidgets import QTextBrowser

    browser = QTextBrowser()
    qtbot.addWidget(browser)
    set_markdown(browser, "Text with `code`.\n\n```\na.grad += 1.0000 * 2.0000 (a long line of code)\n```\n")
    block = browser.document().begin()
    while block.isValid():
        assert not block.blockFormat().nonBreakableLines()  # code wraps instead of scrolling
        it = block.begin()
        while not it.atEnd():
            fmt_ = it.fragment().charFormat()
            assert not fmt_.hasProperty(QTextFormat.FontPointSize)
            assert not fmt_.hasProperty(QTextFormat.FontPixelSize)
            it += 1
        block = block.next()


# -----------------------------------------------------------------------------
# issue 17: the canvas is the graph the text speaks of; the quiz keeps score; no dirty document


def canvas_matches_runner(window, panel):
    """The canvas's items are the runner's graph now: same nodes, and each shows what
    the runner says the canvas shows (numbers, or '?' for what is not known yet)."""
    runner, scene = panel.runner, window.scene
    items = scene.node_items()
    assert items, "the canvas is blank"
    assert set(items) == set(runner.by_id), "the canvas shows another graph than the step's"
    shown = runner.shown(panel.quiz.hidden())
    for nid, item in items.items():
        _name, data, grad = item.texts()
        assert (data, grad) == shown[nid], f"{item.name}: canvas {data, grad}, runner {shown[nid]}"
        assert item.name == runner.names[nid]


@pytest.mark.parametrize("lesson", LESSONS, ids=[lesson.id for lesson in LESSONS])
def test_every_step_shows_the_runners_graph_never_stale_never_empty(window, qtbot, lesson):
    panel = window.lessons
    window.opening.show_lessons(lesson.id)
    wait(qtbot, panel)
    while True:
        qtbot.waitUntil(lambda: panel.bridge.showing_runner, timeout=30000)  # a layout may be pending
        canvas_matches_runner(window, panel)
        if panel.runner.at_end:
            break
        panel.next()
        wait(qtbot, panel)


def test_a_lesson_never_marks_the_document_modified(window, qtbot):
    panel = window.lessons
    assert not window.files.modified
    window.opening.show_lessons("chain-rule", 0)
    wait(qtbot, panel)
    panel.next()
    wait(qtbot, panel)
    window.opening.show_lessons("training-moons", 0)
    wait(qtbot, panel)
    qtbot.waitUntil(lambda: panel.bridge.showing_runner, timeout=30000)
    assert not window.files.modified  # was: quitting asked to save the lesson's graph
    assert window.files.path is None  # and Save would never write it over the user's file


def test_the_debugger_never_claims_a_full_pass_while_a_lesson_shows_a_partial_one(window, qtbot):
    panel = window.lessons
    window.opening.show_lessons("chain-rule", 2)  # two backward steps done: e.grad is still 0 on the canvas
    wait(qtbot, panel)
    qtbot.waitUntil(lambda: panel.bridge.showing_runner, timeout=30000)
    text = window.debugger.explanation_text()
    assert "full backward()" not in text  # was: "The graph shows the grads of a full backward() from L"
    assert "lesson" in text


def test_quiz_hides_values_until_answered_and_keeps_score(window, qtbot, tmp_path):
    panel = window.lessons
    panel.quiz_check.setChecked(True)
    window.opening.show_lessons("chain-rule", 1)  # one backward step: d.grad and f.grad are new
    wait(qtbot, panel)
    runner = panel.runner
    d = runner.nid_of_label("d")
    assert (d, "grad") in panel.quiz.hidden()
    assert window.scene.node_item(d).texts()[2] == "?"
    assert "-2.0000" not in panel.text.toPlainText()  # the text does not give it away either
    canvas_matches_runner(window, panel)
    # first item: wrong once (a hint, no answer), then right -> "after a hint"
    item = panel.quiz.current
    panel.answer.setText(repr(item.truth + 5))
    ok, explanation = panel.check()
    assert not ok and "Hint" in explanation and fmt(item.truth) not in explanation
    panel.answer.setText(repr(item.truth))
    ok, _ = panel.check()
    assert ok
    assert window.scene.node_item(item.nid).texts()[2] == fmt(item.truth)  # revealed once answered
    while panel.quiz.current is not None:  # the rest: shown without an answer
        panel.reveal()
    assert panel.quiz.hidden() == set()
    canvas_matches_runner(window, panel)
    summary = panel.quiz.summary()
    row = summary["lessons"][0]
    assert row["id"] == "chain-rule" and row["hint"] == 1 and row["revealed"] == row["asked"] - 1
    dialog = panel.show_score()
    qtbot.addWidget(dialog)
    assert dialog.table.rowCount() == 2 and dialog.table.item(0, 3).text() == "1"
    path = tmp_path / "score.json"
    dialog.save(path)
    import json

    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["format"] == "backprop-studio.quiz-score" and saved["total"]["hint"] == 1
    panel.quiz_check.setChecked(False)


def test_a_long_answer_scrolls_instead_of_being_cut_off(window, qtbot):
    panel = window.lessons
    window.opening.show_lessons("derivatives-as-nudges", 3)
    wait(qtbot, panel)
    panel.answer.setText("14")
    ok, explanation = panel.check()
    assert ok and "now 14.0000" in panel.result.text()
    assert panel.question_box.result_area.widget() is panel.result


def test_a_big_networks_canvas_output_is_the_neuron_shown(window, qtbot):
    panel = window.lessons
    window.opening.show_lessons("training-moons", 0)
    wait(qtbot, panel)
    qtbot.waitUntil(lambda: panel.bridge.showing_runner, timeout=30000)
    shown_out = panel.runner.by_id[panel.runner.document.output]
    assert window.session.compiled.output is shown_out  # was: the loss, which is not on the canvas


def test_opening_any_lesson_never_widens_or_heightens_the_window(window, qtbot):
    # repro (issue 16): lesson 10's long canvas note made a 1280-px window 1471 px wide
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.width() == 1280)
    for lesson_id in ("training-moons", "mlp-loss-graph", "chain-rule"):
        window.opening.show_lessons(lesson_id, 1)
        window.lessons.wait_idle()
        assert window.wait_for_layout()
        assert (window.width(), window.height()) == (1280, 720), lesson_id


def test_a_lesson_opened_in_presenter_mode_goes_under_the_canvas_with_its_question_in_view(window, qtbot):
    window.resize(1920, 1080)
    window.appearance.set_presenter(True, 2, full_screen=False)
    try:
        panel = window.lessons
        window.opening.show_lessons("zero-grad-bug", 1)  # a step that asks a question
        wait(qtbot, panel)
        qtbot.waitUntil(lambda: panel.bridge.showing_runner, timeout=30000)
        dock = window.docks["lessons"]
        # was: the side column, ~310 px wide at 2x, every line of the lesson cut to a few letters
        assert window.dockWidgetArea(dock) == Qt.BottomDockWidgetArea
        qtbot.waitUntil(lambda: dock.width() > window.width() // 2, timeout=30000)  # the main window's relayout
        size_presenter_docks(window)
        answer = panel.answer
        # the whole answer box in view, not cut off by the bottom of the window (it was with a third
        # of the height for the lesson); waits for the relayout, fails after the timeout
        qtbot.waitUntil(lambda: answer.visibleRegion().boundingRect() == answer.rect(), timeout=15000)
    finally:
        window.appearance.set_presenter(False)


def test_the_last_step_of_write_your_own_value_checks_the_bundled_class_from_its_link(window, qtbot):
    """Issue 18 item 7: the lesson ends with a class checked by the studio, from a click."""
    from PySide6.QtCore import QUrl
    from PySide6.QtWidgets import QApplication

    from app.foreign.engine_dialog import EngineCheckDialog

    panel = window.lessons
    lesson = next(lesson for lesson in LESSONS if lesson.id == "write-your-own-value")
    window.opening.show_lessons(lesson.id, len(lesson.steps) - 1)
    wait(qtbot, panel)
    assert "studio:check-engine?file=tutorial_value.py" in panel.text.toHtml()
    with qtbot.waitSignal(panel.engineCheckAsked, timeout=30_000) as asked:
        assert panel.follow_link(QUrl("studio:check-engine?file=tutorial_value.py"))
    assert asked.args[0].endswith("resources/engines/tutorial_value.py")

    def dialog():
        shown = [w for w in QApplication.topLevelWidgets() if isinstance(w, EngineCheckDialog)]
        return shown[-1] if shown else None

    qtbot.waitUntil(lambda: dialog() is not None and dialog().report is not None, timeout=300_000)
    assert dialog().report["fault"]["case"] == "x**2 at x=-1.5"
    qtbot.waitUntil(lambda: bool(window.debugger.controller.stop_reason), timeout=60_000)
    assert "**" in window.debugger.controller.stop_reason
    dialog().close()
    # only the studio's own classes: a lesson file cannot make it run anything else
    assert not panel.follow_link(QUrl("studio:check-engine?file=../../main.py"))
    assert not panel.follow_link(QUrl("studio:check-engine?file=other.py"))


def test_a_file_link_in_lesson_text_is_refused_not_opened(window, qtbot, monkeypatch):
    """Repro (issue 32 item 7): a click on [x](file:///etc/passwd) in a lesson opened the file."""
    from PySide6.QtCore import QUrl
    from PySide6.QtGui import QDesktopServices

    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toString()))
    panel = window.lessons
    for url in ("file:///etc/passwd", "smb://server/share", "javascript:alert(1)", "vscode://x"):
        assert not panel.follow_link(QUrl(url))
    assert opened == []
    panel.follow_link(QUrl("https://karpathy.ai"))
    assert opened == ["https://karpathy.ai"]
