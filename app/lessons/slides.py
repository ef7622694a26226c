"""Lesson slides: the step on screen, or a whole backward pass, as pictures to hand out
or put in a lecture -- a PNG per step, one PDF of them all, and an animated GIF.

File → Export Lesson Slides… asks for the PDF's name; `NAME-01.png`, `NAME-02.png`,
… and `NAME.gif` go beside it. What is exported:

* a lesson on screen: its deck -- every step, paged as in class (a step in pages,
  presenter mode on a small screen: a slide a page), and for a step that asks
  something a slide with every question answered (the verdict, a slide a part, and
  the values the quiz revealed); the class's scores and the step on screen are kept;
* a graph of at most MAX_SLIDES nodes outside a lesson, or a lesson's graph the
  debugger is stepping: the whole backward pass, stepped from the start -- one
  slide before the first `_backward`, one after each, with the canvas's glow and
  `+=` marks and the explanation's arithmetic; the debugger is put back as it was;
* otherwise the view on screen, as one slide.

A slide is the window below its toolbar and above its status bar: the canvas and the
panels, as the class sees them -- so a question that is open stays hidden in the
slide too (the canvas and the text show '?').

The pictures are taken on the GUI thread, one step per event-loop turn; the PNGs,
the PDF (QPdfWriter, a page per slide) and the GIF (core/files/gif.py: Qt writes no
GIF and Pillow is not a dependency) are written on a worker thread.

    python main.py --export-slides GRAPH.json OUT.pdf [--presenter 2] [--size 1920x1080]
    python main.py --export-slides --lesson chain-rule OUT.pdf [--presenter 2] [--quiz]

(the command line is app/startup.py's `slides_main`: a lesson module never builds a window)
"""

import os
import threading

from PySide6.QtCore import QMarginsF, QObject, QRect, QRectF, QSizeF, Qt, QTimer, Signal
from PySide6.QtGui import QImage, QPageLayout, QPageSize, QPainter, QPdfWriter

from app.files import dialogs

GIF_MAX_WIDTH = 1280  # the GIF is scaled down to this width (LZW in Python: ~0.5 s a frame)
GIF_DELAY_MS = 1800
MAX_SLIDES = 60  # a backward pass longer than this is not a slide deck (a 130,000-node graph)


def slide_image(window):
    """The window below the toolbar and above the status bar, as a QImage."""
    top = window.menuBar().geometry().bottom() + 1 if window.menuBar().isVisible() else 0
    bar = window.toolbar
    if bar.isVisible() and window.toolBarArea(bar) == Qt.TopToolBarArea:
        top = max(top, bar.geometry().bottom() + 1)
    bottom = window.statusBar().geometry().top() if window.statusBar().isVisible() else window.height()
    return window.grab(QRect(0, top, window.width(), bottom - top)).toImage()


def _settle(window):
    from PySide6.QtWidgets import QApplication

    for _ in range(3):
        QApplication.processEvents()
    debugger = getattr(window, "debugger", None)
    if debugger is not None:
        debugger.fit_explanation()
    QApplication.processEvents()


def exports_backward_pass(window):
    """Is there a graph whose backward pass the debugger can step (else: the current step)?
    A lesson step exports itself unless the debugger is in use on its graph."""
    snapshot = window.lessons.snapshot
    if window.session.output_value is None or (snapshot is not None and not snapshot.show_graph):
        return False
    if len(window.session.values) > MAX_SLIDES:  # more _backward steps than slides: this view only
        return False
    return snapshot is None or window.debugger.controller.phase != "idle"


def backward_pass_slides(window):
    """Step the debugger through the whole backward pass; yield a slide before the first
    step and after each. The debugger is put back where it was afterwards."""
    debugger = window.debugger
    ctrl = debugger.controller
    was = (ctrl.phase, ctrl.position if ctrl.phase == "backward" else None)
    window.docks["debugger"].show()
    ctrl.reset()
    _settle(window)
    yield slide_image(window)
    while not ctrl.stepper.done:
        ctrl.step()
        _settle(window)
        yield slide_image(window)
    if was[0] == "backward" and was[1] is not None:
        ctrl.seek(was[1])
    elif was[0] == "idle":
        ctrl.stop()
    _settle(window)


def exports_lesson(window):
    """A lesson on screen and the debugger not stepping it: the whole lesson's deck."""
    panel = window.lessons
    return panel.runner is not None and panel.snapshot is not None and window.debugger.controller.phase == "idle"


def lesson_slides(window):
    """Every step of the lesson on screen, paged as the class sees it: a slide of each
    step, and of each step that asks something a second one with every question
    answered (its verdict and the values it revealed). Yields None while a step that
    trains is running (call again). The class's quiz scores are left as they were and
    the lesson goes back to the step it was on."""
    from app.lessons.tour import settle

    panel = window.lessons
    lesson, start = panel.runner.lesson, panel.runner.index
    scores, panel.quiz.scores = panel.quiz.scores, {}  # every question asked, none scored for the class
    try:
        for index in range(len(lesson.steps)):
            if index != panel.runner.index or index == 0:
                panel.goto(index)
            while panel.busy:
                yield None
            if panel.runner is None or panel.runner.index != index:
                raise RuntimeError(f"step {index + 1} of “{lesson.title}” could not be shown")
            settle(window)
            _settle(window)
            yield slide_image(window)
            while panel.next_page_left():  # presenter mode on a small screen: every page of the step
                panel.next_page()
                settle(window)
                _settle(window)
                yield slide_image(window)
            asked = 0
            while panel.quiz.current is not None and asked < 100:
                panel.answer.setText(repr(panel.quiz.current.truth))
                panel.check()
                asked += 1
            if asked:
                settle(window)
                _settle(window)
                yield slide_image(window)
                while panel.verdict_page + 1 < len(panel.verdict_lines):  # a verdict in parts: each
                    panel.next_page()
                    settle(window)
                    _settle(window)
                    yield slide_image(window)
    finally:
        panel.quiz.scores = scores
        if panel.runner is not None and panel.runner.lesson is lesson and panel.runner.index != start:
            panel.goto(start)


def write_slides(images, pdf_path, delay_ms=GIF_DELAY_MS):
    """Write NAME-01.png …, NAME.pdf and NAME.gif for the QImages; the paths written.
    Safe on a worker thread (QImage and QPdfWriter only, no widgets)."""
    import numpy as np

    from core.files.gif import write_gif

    stem = os.path.splitext(os.fspath(pdf_path))[0]
    written = []
    for i, image in enumerate(images, start=1):
        path = f"{stem}-{i:02d}.png"
        if not image.save(path, "PNG"):
            raise OSError(f"could not write {path}")
        written.append(path)
    writer = QPdfWriter(os.fspath(pdf_path))
    writer.setResolution(96)
    first = images[0]
    writer.setPageSize(QPageSize(QSizeF(first.width(), first.height()), QPageSize.Point, "slide"))
    writer.setPageMargins(QMarginsF(0, 0, 0, 0), QPageLayout.Point)
    writer.setTitle("Backprop Studio slides")
    painter = QPainter()
    if not painter.begin(writer):
        raise OSError(f"could not write {pdf_path}")
    try:
        for i, image in enumerate(images):
            if i:
                writer.newPage()
            page = QRectF(painter.viewport())
            scale = min(page.width() / image.width(), page.height() / image.height())
            target = QRectF(0, 0, image.width() * scale, image.height() * scale)
            painter.drawImage(target, image)
    finally:
        painter.end()
    written.append(os.fspath(pdf_path))
    frames = []
    for image in images:
        small = image if image.width() <= GIF_MAX_WIDTH else image.scaledToWidth(GIF_MAX_WIDTH, Qt.SmoothTransformation)
        rgb = small.convertToFormat(QImage.Format_RGB888)
        line = rgb.bytesPerLine()
        raw = np.frombuffer(rgb.constBits(), dtype=np.uint8, count=line * rgb.height()).reshape(rgb.height(), line)
        frames.append(raw[:, : rgb.width() * 3].reshape(rgb.height(), rgb.width(), 3).copy())
    gif = stem + ".gif"
    write_gif(gif, frames, delay_ms)
    written.append(gif)
    return written


class SlideExport(QObject):
    """One export: pictures on the GUI thread (one per event-loop turn), files on a thread."""

    finished = Signal(object)  # the paths written, or an Exception

    def __init__(self, window, pdf_path, backward=None):
        super().__init__(window)
        self.window = window
        self.pdf_path = pdf_path
        self.backward = exports_backward_pass(window) if backward is None else backward
        self.lesson = not self.backward and exports_lesson(window)
        self.images = []
        self.result = None
        if self.backward:
            self._frames = backward_pass_slides(window)
        elif self.lesson:
            self._frames = lesson_slides(window)
        else:
            self._frames = iter([slide_image(window)])
        self._thread = None

    def start(self):
        QTimer.singleShot(0, self._next)

    def _next(self):
        try:
            image = next(self._frames, False)
        except Exception as e:  # a step that fails ends the export, reported
            self._done(e)
            return
        if image is None:  # a lesson step still training: look again shortly
            QTimer.singleShot(20, self._next)
            return
        if image is not False:
            self.images.append(image)
            QTimer.singleShot(0, self._next)
            return
        if not self.images:
            self._done(RuntimeError("there was nothing to put on a slide"))
            return
        self._thread = threading.Thread(target=self._write, daemon=True)
        self._thread.start()

    def _write(self):
        try:
            result = write_slides(self.images, self.pdf_path)
        except Exception as e:
            result = e
        self.finished.emit(result)

    def _done(self, result):
        self.finished.emit(result)

    def run(self, timeout_s=300.0):
        """Export and wait (scripts, tests): the paths written; raises what failed."""
        import time

        from PySide6.QtWidgets import QApplication

        box = []
        self.finished.connect(box.append)
        self.start()
        deadline = time.monotonic() + timeout_s
        while not box and time.monotonic() < deadline:
            QApplication.processEvents()
            if self._thread is not None:
                self._thread.join(0.02)
        QApplication.processEvents()
        if not box:
            raise TimeoutError("the slides were not written in time")
        if isinstance(box[0], Exception):
            raise box[0]
        return box[0]


def export_slides_dialog(window):
    """File → Export Lesson Slides…: ask for the PDF's name, then export in the background."""
    path = dialogs.ask_save_path(window, "Export Lesson Slides", "slides.pdf", "PDF (*.pdf)")
    if not path:
        return None
    if not path.lower().endswith(".pdf"):
        path += ".pdf"
    job = SlideExport(window, path)
    what = "the backward pass" if job.backward else "every step of the lesson" if job.lesson else "this step"
    window.show_message(f"Exporting {what} as slides…")

    def done(result):
        if isinstance(result, Exception):
            dialogs.show_error(window, "Export Lesson Slides", f"The slides could not be written: {result}")
        else:
            window.show_message(f"Exported {len(result) - 2} slide(s): {path}, the PNGs and the GIF beside it")
        job.deleteLater()

    job.finished.connect(done)
    job.start()
    return job
