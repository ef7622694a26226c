"""Lesson slides (issue 28 item 6): a backward pass, or the step on screen, as a PNG per
step, one PDF and an animated GIF; the GIF writer (core/files/gif.py) checked against
Qt's own GIF reader; File → Open Lesson… with its errors named by line."""

import os
import re

import numpy as np
import pytest
from PySide6.QtGui import QImage, QImageReader

from app.lessons.lesson_file import open_lesson_file
from app.lessons.slides import SlideExport
from app.main_window import MainWindow
from core.files.gif import write_gif

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "resources", "examples")


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    w.files.prompt_on_close = False
    w.lessons.train_limit = 2
    qtbot.addWidget(w)
    w.resize(1440, 880)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.close()


def pdf_pages(path):
    return len(re.findall(rb"/Type\s*/Page[^s]", open(path, "rb").read()))


def gif_frames(path):
    reader = QImageReader(str(path))
    frames = []
    while True:
        image = reader.read()
        if image.isNull():
            return frames, reader
        frames.append(image)


def test_the_tutorials_backward_pass_as_pngs_a_pdf_and_a_gif(window, tmp_path):
    window.open_file(os.path.join(EXAMPLES, "tutorial.json"))
    window.wait_for_layout()
    paths = SlideExport(window, str(tmp_path / "tutorial.pdf"), backward=True).run()
    steps = len(window.debugger.controller.stepper.order)
    pngs = sorted(p for p in paths if p.endswith(".png"))
    assert len(pngs) == steps + 1  # before the first _backward, then one per step
    assert pdf_pages(tmp_path / "tutorial.pdf") == steps + 1
    frames, _reader = gif_frames(tmp_path / "tutorial.gif")
    assert len(frames) == steps + 1
    last = QImage(pngs[-1])
    assert last.width() > 800 and frames[-1].width() <= 1280
    assert window.debugger.controller.phase == "idle"  # put back as it was


def test_a_lesson_exports_its_whole_deck(window, qtbot, tmp_path):
    # repro (issue 38): six exports of a lesson gave six one-page decks
    panel = window.lessons
    window.opening.show_lessons("chain-rule", 2)
    qtbot.waitUntil(lambda: not panel.busy and panel.snapshot is not None, timeout=30000)
    panel.answer.setText("-2")  # the class's own answer: its score stays as it is
    panel.check()
    scores = {k: dict(v["items"]) for k, v in panel.quiz.scores.items()}
    paths = SlideExport(window, str(tmp_path / "deck.pdf")).run()
    lesson = panel.runner.lesson
    asking = sum(1 for step in lesson.steps if step.question is not None)
    pngs = [p for p in paths if p.endswith(".png")]
    assert len(pngs) == len(lesson.steps) + asking  # every step, and again answered where it asks
    assert pdf_pages(tmp_path / "deck.pdf") == len(pngs)
    assert len(gif_frames(tmp_path / "deck.gif")[0]) == len(pngs)
    qtbot.waitUntil(lambda: not panel.busy and panel.runner.index == 2, timeout=30000)  # back where it was
    assert {k: dict(v["items"]) for k, v in panel.quiz.scores.items()} == scores
    images = [QImage(p) for p in pngs]
    assert len({bytes(image.constBits()) for image in images}) == len(images)  # each slide shows its own step


def test_a_lesson_deck_from_the_command_line_with_the_quiz(tmp_path, qapp):
    from app.startup import slides_main

    assert slides_main(["--lesson", "chain-rule", str(tmp_path / "c.pdf"), "--quiz", "--size", "1280x720"]) == 0
    pngs = sorted(tmp_path.glob("c-*.png"))
    assert len(pngs) == pdf_pages(tmp_path / "c.pdf") and len(pngs) > 6  # the quiz asks in steps 2-5


@pytest.mark.parametrize("kind", ["flat", "noise"])
def test_the_gif_writer_round_trips_through_qts_reader(tmp_path, kind, qapp):
    rng = np.random.default_rng(1)
    if kind == "noise":  # more than 4096 LZW codes: the table is cleared and started again
        palette = rng.integers(0, 256, (200, 3)).astype(np.uint8)
        frames = [palette[rng.integers(0, 200, (90, 130))] for _ in range(2)]
    else:
        a = np.full((60, 80, 3), 255, np.uint8)
        a[10:30, 20:50] = (255, 140, 0)
        b = a.copy()
        b[40:55, 5:70] = (8, 119, 189)
        frames = [a, b]
    path = tmp_path / "t.gif"
    write_gif(path, frames, delay_ms=700)
    images, reader = gif_frames(path)
    assert len(images) == len(frames) and reader.loopCount() == -1
    for image, frame in zip(images, frames):
        rgb = image.convertToFormat(QImage.Format_RGB888)
        got = np.frombuffer(rgb.constBits(), np.uint8).reshape(rgb.height(), rgb.bytesPerLine())
        got = got[:, : rgb.width() * 3].reshape(rgb.height(), rgb.width(), 3)
        assert np.abs(got.astype(int) - frame.astype(int)).max() <= 8  # 5-bit bins: within 8 a channel


BAD_LESSON = """{"format": "backprop-studio.lesson", "schema_version": 1,
 "id": "mine", "title": "Mine", "summary": "s", "order": 99,
 "steps": [
  {"text": "# Hello {x.data}",
   "setup": {"snippet": "x = Value(2.0, label='x')\\ny = x*x"}},
  {"text": "next",
   "actions": [
     "backward_all",
     {"do": "zap"}
   ]}
 ]}
"""


def test_open_lesson_names_the_line_of_a_fault(window, tmp_path, isolated_files):
    path = tmp_path / "mine.json"
    path.write_text(BAD_LESSON, encoding="utf-8")
    assert open_lesson_file(window.services(), window.opening, str(path)) is None
    title, text = isolated_files[-1]
    assert "line 9" in text and "steps[1].actions[1].do" in text and "unknown action 'zap'" in text
    assert window.lessons.runner is None


def test_open_lesson_opens_a_teachers_own_lesson_and_reopens_it_edited(window, qtbot, tmp_path, isolated_files):
    path = tmp_path / "mine.json"
    path.write_text(BAD_LESSON.replace('{"do": "zap"}', '"zero_grad"'), encoding="utf-8")
    lesson = open_lesson_file(window.services(), window.opening, str(path))
    assert lesson is not None and window.lessons.runner.lesson is lesson
    assert "2.0000" in window.lessons.text.toPlainText()
    assert window.docks["lessons"].isVisible()
    path.write_text(BAD_LESSON.replace('{"do": "zap"}', '"zero_grad"').replace("2.0", "3.0"), encoding="utf-8")
    again = open_lesson_file(window.services(), window.opening, str(path))
    assert again is not None and [x.id for x in window.lessons.lessons].count("mine") == 1
    assert "3.0000" in window.lessons.text.toPlainText()
    assert not isolated_files


def test_open_lesson_refuses_the_id_of_a_course_lesson(window, tmp_path, isolated_files):
    path = tmp_path / "copy.json"
    path.write_text(BAD_LESSON.replace('"mine"', '"chain-rule"').replace('{"do": "zap"}', '"zero_grad"'))
    assert open_lesson_file(window.services(), window.opening, str(path)) is None
    assert "already the lesson" in isolated_files[-1][1]


def test_open_lesson_reports_a_claim_the_engine_contradicts(window, qtbot, tmp_path, isolated_files):
    path = tmp_path / "claims.json"
    text = BAD_LESSON.replace('{"do": "zap"}', '"zero_grad"').replace(
        '"text": "next",', '"text": "next", "claims": [{"node": "y", "quantity": "data", "value": 5.0}],'
    )
    path.write_text(text, encoding="utf-8")
    assert open_lesson_file(window.services(), window.opening, str(path)) is not None
    assert window.lessons.error.isVisibleTo(window.lessons)
    assert "y.data" in window.lessons.error.text() or "y" in window.lessons.error.text()


def test_open_lesson_refuses_a_fifo_without_hanging(window, tmp_path, isolated_files):
    fifo = tmp_path / "lesson.json"
    os.mkfifo(fifo)
    assert open_lesson_file(window.services(), window.opening, str(fifo)) is None
    assert "cannot be opened" in isolated_files[-1][1]


def test_a_graph_too_big_for_a_deck_exports_the_view_only(window, tmp_path):
    from app.lessons.slides import MAX_SLIDES, exports_backward_pass

    window.open_file(os.path.join(EXAMPLES, "tutorial.json"))
    assert exports_backward_pass(window)
    from core.document.expr import parse

    terms = " + ".join(f"x*{k}" for k in range(1, MAX_SLIDES))  # more nodes than slides
    window.session.replace(parse(f"x = Value(1.0, label='x')\nf = {terms}"))
    window.session.flush()
    assert len(window.session.values) > MAX_SLIDES
    assert not exports_backward_pass(window)


def test_a_contradicted_claim_is_flagged_at_its_step_with_its_line(window, qtbot, tmp_path, isolated_files):
    # repro (issue 38): shown once, in red, on step 1, without a line number
    path = tmp_path / "claims.json"
    text = BAD_LESSON.replace('{"do": "zap"}', '"zero_grad"').replace(
        '"text": "next",', '"text": "next", "claims": [{"node": "y", "quantity": "data", "value": 5.0}],'
    )
    path.write_text(text, encoding="utf-8")
    line = next(k for k, row in enumerate(text.splitlines(), 1) if '"claims"' in row)
    panel = window.lessons
    assert open_lesson_file(window.services(), window.opening, str(path)) is not None
    assert f"line {line}, step 2" in panel.error.text()
    panel.next()
    qtbot.waitUntil(lambda: panel.runner.index == 1, timeout=10000)
    assert panel.error.isVisibleTo(panel) and f"line {line}:" in panel.error.text()
    assert "y.data = 5" in panel.error.text()
    panel.back()
    qtbot.waitUntil(lambda: panel.runner.index == 0, timeout=10000)
    assert not panel.error.isVisibleTo(panel)  # step 1 says nothing wrong
