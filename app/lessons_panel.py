"""The Lessons panel: the guided track, one step at a time, with every number live.

The panel is a thin shell over `core.lesson_runner.LessonRunner`, which owns
all lesson state (the step, the graph, the debugger, the training run). The
panel shows what the runner says and turns clicks into runner moves:

* a list of the lessons (title and how far you got), the current step's
  Markdown in a large, readable font, "step k of n", Back and Next;
* the step's graph on the main canvas. For a graph lesson the canvas shows the
  runner's own Values (`GraphBridge`): the data and grads on screen ARE the
  runner's, so a partial backward pass, a nudge or the zero-grad bug shows
  exactly as the text describes it. The step's nodes glow (`scene.set_highlight`);
* a network lesson shows its numbers (step, loss, accuracy, parameters) and
  the decision boundary; its loss graph goes on the canvas only when it is
  small enough to read;
* a question: a prompt, an answer box, Check -> right or wrong and how the
  engine gets the answer (`runner.check_answer`);
* quiz mode: the debugger's own quiz (`set_quiz_mode`) hides each step's new
  grads until the student predicts them.

Moves that train (network lessons) run in a `LessonWorker` on a QThread, which
drives `runner.goto_iter` and reports progress; the window stays responsive,
Back/Next/Check are disabled meanwhile and Stop abandons the move. Nothing on
the GUI thread touches the runner while a worker holds it; the canvas is
detached from the runner's Values first (the session compiles its own copy).
A graph lesson's move takes milliseconds and runs in place.

Hooks: `open_lesson(id, step)`, `next()`, `back()`, `goto(i)`, `busy`,
`wait_idle()`, `shutdown()`; signals `stepShown(int)` and `busyChanged(bool)`.
"""

import math
import os
import threading
import time

from PySide6.QtCore import QRectF, QSize, Qt, QThread, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPen, QTextCursor, QTextFormat
from PySide6.QtWidgets import (QApplication, QBoxLayout, QCheckBox, QFrame, QHBoxLayout, QLabel, QLineEdit,
                               QListWidget, QListWidgetItem, QProgressBar, QPushButton, QSizePolicy,
                               QSplitter, QTextBrowser, QVBoxLayout, QWidget)

from app.theme import MONO_FAMILY, set_base_font
from core.compile import Compiled
from core.engine import topological_order
from core.graphdoc import GraphDocument
from core.lesson_runner import LessonRunner, fmt
from core.lessons import LessonError, load_all

LESSONS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "resources", "lessons")
READABLE_ZOOM = 0.5         # below this the canvas zooms in on the step's nodes
MAX_CANVAS_NODES = 600      # a network's loss graph goes on the canvas only up to this size
PROGRESS_KEY = "lessons/progress/"   # + lesson id -> the furthest step reached (0-based)
LAST_KEY = "lessons/last"
NEGATIVE, POSITIVE = QColor("#f59322"), QColor("#0877bd")   # class -1 / +1 (Playground colours)
TEXT_PX, TITLE_PX = 16, 20


# -----------------------------------------------------------------------------
# What the GUI needs after a move, gathered where the runner is (maybe a worker)

class Snapshot:
    """Plain results of a move; `runner` may be touched again only on the GUI
    thread once the move is over."""

    def __init__(self, runner):
        self.runner = runner
        self.index = runner.index
        self.progress = runner.progress
        self.kind = runner.kind
        self.text = runner.render_text()
        self.prompt = runner.render_prompt()
        self.metrics = None
        self.boundary = None
        self.points = None
        self.diverged = None
        self.show_graph = runner.kind == "graph"
        self.nodes = None
        if runner.kind == "network":
            trainer = runner.trainer
            loss, accuracy = runner.metrics()
            self.metrics = {"step": trainer.steps_done, "loss": fmt(loss),
                            "accuracy": f"{accuracy:.1%}", "params": len(trainer.params),
                            "finite": math.isfinite(loss)}
            self.diverged = trainer.diverged
            self.boundary = trainer.boundary()
            self.points = (list(trainer.train_points), list(trainer.train_labels))
            estimate = 2.5 * len(trainer.train_inputs) * len(trainer.params) + len(trainer.params)
            if estimate <= MAX_CANVAS_NODES:
                self.nodes = len(topological_order(runner.root))
                self.show_graph = self.nodes <= MAX_CANVAS_NODES
        self.highlight = runner.highlight_ids() if self.show_graph else []
        if self.show_graph:
            runner.document   # traced here, off the GUI thread, for a network
        self.statuses = None
        if self.show_graph and runner.stepper is not None:
            stepper = runner.stepper
            self.statuses = {nid: stepper.status(v) for nid, v in runner.by_id.items()}


def _moves_train(lesson, start, target):
    """Does going from step `start` to `target` (a replay from 0 when going back)
    involve a network? Building, training or restoring one belongs in a worker."""
    lo = 0 if target <= start else start + 1
    return any(step.setup is not None and step.setup.kind == "network" for step in lesson.steps[:target + 1]) \
        or any(a.do == "train" for step in lesson.steps[lo:target + 1] for a in step.actions)


class Stopped:
    """A move abandoned halfway: its runner is mid-step and must be replayed."""

    def __init__(self, runner):
        self.runner = runner


class LessonWorker(QThread):
    """Runs one move of a lesson off the GUI thread: makes the LessonRunner if
    there is none yet (its constructor enters step 0), then `goto_iter`."""

    progress = Signal(int, str)      # token, what is being done
    done = Signal(int, object)       # token, a Snapshot, a Stopped or the exception

    def __init__(self, token, runner, lesson, target, replay=False, train_limit=None, parent=None):
        super().__init__(parent)
        self.token, self.runner, self.lesson, self.target = token, runner, lesson, target
        self.replay, self.train_limit = replay, train_limit
        self.stop_event = threading.Event()

    def run(self):
        try:
            if self.runner is None:
                self.progress.emit(self.token, "setting up the lesson")
                self.runner = LessonRunner(self.lesson, self.train_limit)
            for text in _move(self.runner, self.target, self.replay):
                self.progress.emit(self.token, text)
                if self.stop_event.is_set():
                    self.done.emit(self.token, Stopped(self.runner))
                    return
            self.done.emit(self.token, Snapshot(self.runner))
        except Exception as e:   # a lesson bug is reported in the panel, never lost
            self.done.emit(self.token, e)


def _move(runner, target, replay):
    if replay and target > runner.index:
        yield from runner.goto_iter(0)   # start over: the Values were changed outside the lesson
    yield from runner.goto_iter(target)


# -----------------------------------------------------------------------------
# The runner's graph on the main canvas

class GraphBridge:
    """Shows a runner's graph in a MainWindow so the canvas reads the runner's Values.

    The document goes in as one undoable step (`window.show_document`), then the
    session's compiled Values are swapped for the runner's (`adopt`). An edit on
    the canvas recompiles from the document, which simply detaches the canvas
    from the lesson; the next lesson move shows the lesson's graph again.
    """

    def __init__(self, window):
        self.window = window
        self.session = window.session
        self.adopted = None          # the Compiled we put into the session
        self._adopting = False
        self._pending = None         # a (doc, by_id, root, highlight, statuses) waiting for a layout
        self.touched = False         # the runner's Values were changed from outside the lesson
        self.session.gradsChanged.connect(self._grads_changed)
        window.layoutFinished.connect(self._layout_finished)

    @property
    def showing_runner(self):
        return self.adopted is not None and self.session.compiled is self.adopted

    def _grads_changed(self, _ids):
        if not self._adopting and self.showing_runner:
            self.touched = True      # Backward, Zero Grads, the debugger: the lesson state moved

    def detach(self):
        """Stop showing the runner's Values (before a worker changes them)."""
        if self.showing_runner:
            self._adopting = True
            try:
                self.session.recompile()
            finally:
                self._adopting = False
        self.adopted = None

    def show(self, runner, highlight=(), statuses=None, label=""):
        doc = _with_leaf_values(runner.document, runner.by_id)
        by_id, root = runner.by_id, runner.root
        current = self.session.doc
        if _signature(current) == _signature(doc) and _leaf_values(current) == _leaf_values(doc):
            self._adopt(by_id, root, highlight, statuses)
            return
        if _signature(current) == _signature(doc):   # same graph, a leaf changed: keep the places
            for nid, node in doc.nodes.items():
                node.pos = current.nodes[nid].pos
            self.window.show_document(doc, f"Lesson: {label}", layout=False)
        else:
            self.window.show_document(doc, f"Lesson: {label}")
        if getattr(self.window, "layout_pending", False):
            self._pending = (by_id, root, highlight, statuses)
            return
        self._adopt(by_id, root, highlight, statuses)

    def _layout_finished(self):
        pending, self._pending = self._pending, None
        if pending is not None:
            self._adopt(*pending)

    def _adopt(self, by_id, root, highlight, statuses):
        value_to_id = {v: nid for nid, v in by_id.items()}
        order = [value_to_id[v] for v in topological_order(root) if v in value_to_id]
        compiled = Compiled(dict(by_id), root, {}, order)
        self._adopting = True
        try:
            self.session.flush()
            self.session.compiled = compiled
            self.adopted = compiled
            self.session.recompiled.emit()
        finally:
            self._adopting = False
        self.touched = False
        scene = self.window.scene
        scene.set_highlight(highlight)
        if statuses:
            scene.set_node_status(statuses)
        else:
            scene.clear_node_status()
        self._follow(highlight)

    def _follow(self, highlight):
        """Bring the step's nodes into view when the graph is too big to read whole
        (a network's loss graph): the camera follows the lesson."""
        view, scene = self.window.view, self.window.scene
        items = [scene.node_item(nid) for nid in highlight if scene.node_item(nid) is not None]
        if not items:
            return
        visible = view.mapToScene(view.viewport().rect()).boundingRect()
        readable = view.zoom() >= READABLE_ZOOM
        if readable and all(visible.contains(item.sceneBoundingRect()) for item in items):
            return
        view.center_on_node(items[0].nid, min_zoom=0.65)

    def clear_highlight(self):
        self.window.scene.set_highlight(())


def _signature(doc):
    """The structure of a document, without positions or leaf values."""
    nodes = tuple((nid, n.kind, n.op, n.param, n.label) for nid, n in doc.nodes.items())
    return nodes, tuple(sorted((e.src, e.dst, e.port) for e in doc.edges)), doc.output


def _leaf_values(doc):
    return {nid: n.value for nid, n in doc.nodes.items() if n.kind != "op"}


def _with_leaf_values(doc, by_id):
    """A fresh copy of doc whose leaves hold the Values' data now (a set_value
    action changes the Value, not the runner's document)."""
    copy = GraphDocument.from_dict(doc.to_dict())
    for nid, node in copy.nodes.items():
        v = by_id.get(nid)
        if node.kind != "op" and v is not None and math.isfinite(v.data):
            node.value = v.data
    return copy


# -----------------------------------------------------------------------------
# A network's decision boundary, drawn from the runner's float grid

class BoundaryView(QWidget):
    """The model's score over the plane (orange -1 .. blue +1) and the training points."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMinimumSize(160, 160)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Preferred)
        self.setToolTip("The network's decision boundary: orange where it says −1, blue where it "
                        "says +1; dots are the training points in their true colour")
        self._image = None
        self._points = ((), ())
        self._bounds = None

    def sizeHint(self):
        return QSize(240, 240)

    def heightForWidth(self, w):
        return w

    def hasHeightForWidth(self):
        return True

    def set_boundary(self, boundary, points):
        grid = boundary.grid
        rows, cols = grid.shape
        image = QImage(cols, rows, QImage.Format_RGB32)
        neutral = QColor("#f2f2f2")
        for j in range(rows):
            for i in range(cols):
                score = float(grid[j, i])
                t = max(-1.0, min(1.0, score / 2.0)) if math.isfinite(score) else 0.0
                end = POSITIVE if t > 0 else NEGATIVE
                a = abs(t) * 0.75
                c = QColor.fromRgbF(neutral.redF() + (end.redF() - neutral.redF()) * a,
                                    neutral.greenF() + (end.greenF() - neutral.greenF()) * a,
                                    neutral.blueF() + (end.blueF() - neutral.blueF()) * a)
                image.setPixelColor(i, rows - 1 - j, c)   # rows follow y upwards
        self._image = image
        self._bounds = (float(boundary.xs[0]), float(boundary.xs[-1]),
                        float(boundary.ys[0]), float(boundary.ys[-1]))
        self._points = points
        self.update()

    def paintEvent(self, event):
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        side = min(self.width(), self.height()) - 2
        r = QRectF((self.width() - side) / 2, 1, side, side)
        if self._image is None:
            p.end()
            return
        p.drawImage(r, self._image)
        x0, x1, y0, y1 = self._bounds
        dot = max(3.0, side / 60)
        points, labels = self._points
        p.setPen(QPen(QColor("#ffffff"), max(1.0, dot / 3)))
        for (x, y), label in zip(points, labels):
            px = r.left() + (x - x0) / (x1 - x0) * r.width()
            py = r.bottom() - (y - y0) / (y1 - y0) * r.height()
            p.setBrush(POSITIVE if label > 0 else NEGATIVE)
            p.drawEllipse(QRectF(px - dot, py - dot, 2 * dot, 2 * dot))
        p.setPen(QPen(self.palette().windowText().color(), 1))
        p.setBrush(Qt.NoBrush)
        p.drawRect(r)
        p.end()


# -----------------------------------------------------------------------------
# The panel

class LessonsPanel(QWidget):
    stepShown = Signal(int)        # a step is on screen (its index)
    busyChanged = Signal(bool)     # a move started / ended

    def __init__(self, window=None, lessons=None, train_limit=None, parent=None):
        super().__init__(parent)
        self.setObjectName("LessonsPanel")
        self.window = window
        self.bridge = GraphBridge(window) if window is not None else None
        self.train_limit = train_limit
        self.load_error = None
        if lessons is None:
            try:
                lessons = load_all(LESSONS_DIR)
            except LessonError as e:
                self.load_error = str(e)
                lessons = []
        self.lessons = list(lessons)
        self.runner = None
        self.snapshot = None
        self._token = 0
        self._worker = None
        self._workers = []
        self._last_answer = None
        self._needs_replay = False
        self._previous = (None, -1)
        self._build()
        self._fill_list()
        self._update_controls()

    # -- building ------------------------------------------------------------------------

    def _build(self):
        root = QVBoxLayout(self)
        root.setContentsMargins(8, 8, 8, 8)
        root.setSpacing(6)
        split = QSplitter(Qt.Vertical)
        split.setChildrenCollapsible(False)
        self.list = QListWidget()
        self.list.setToolTip("The lessons, in order; the numbers say how far you got. "
                             "Double-click (or Enter) to open one")
        self.list.itemActivated.connect(self._list_activated)
        self.list.setTextElideMode(Qt.ElideRight)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.list.setMinimumHeight(80)
        split.addWidget(self.list)

        page = QWidget()
        col = QVBoxLayout(page)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(6)
        self.title = QLabel("Choose a lesson")
        self.title.setWordWrap(True)
        set_base_font(self.title, TITLE_PX, bold=True)
        self.where = QLabel("")
        self.where.setToolTip("Where you are in this lesson")
        self.step_bar = QProgressBar()
        self.step_bar.setTextVisible(False)
        self.step_bar.setMaximumHeight(6)
        self.step_bar.setToolTip("Where you are in this lesson")
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.where, 0, Qt.AlignRight | Qt.AlignBottom)
        col.addLayout(head)
        col.addWidget(self.step_bar)

        self.text = QTextBrowser()
        self.text.setOpenExternalLinks(True)
        self.text.setToolTip("")   # a long tip over the reading area only gets in the way
        set_base_font(self.text, TEXT_PX)
        self.text.setMinimumHeight(120)
        self.body = QBoxLayout(QBoxLayout.TopToBottom)   # text and network: side by side when wide
        self.body.addWidget(self.text, 3)
        col.addLayout(self.body, 1)

        # the network's numbers and picture
        self.network_box = QFrame()
        self.network_box.setFrameShape(QFrame.StyledPanel)
        net = QVBoxLayout(self.network_box)
        net.setContentsMargins(8, 6, 8, 6)
        self.metrics_label = QLabel()
        self.metrics_label.setWordWrap(True)
        self.metrics_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.metrics_label.setToolTip("The network now, on its training set: updates done, loss, "
                                      "accuracy and parameters")
        set_base_font(self.metrics_label, TEXT_PX, mono=True)
        self.boundary_view = BoundaryView()
        net.addWidget(self.metrics_label)
        net.addWidget(self.boundary_view, 1)
        self.network_box.hide()
        self.body.addWidget(self.network_box, 2)

        # a question
        self.question_box = QFrame()
        self.question_box.setFrameShape(QFrame.StyledPanel)
        q = QVBoxLayout(self.question_box)
        q.setContentsMargins(8, 6, 8, 6)
        self.prompt = QLabel()
        self.prompt.setWordWrap(True)
        set_base_font(self.prompt, TEXT_PX, bold=True)
        row = QHBoxLayout()
        self.answer = QLineEdit()
        self.answer.setPlaceholderText("your answer, e.g. -1.5 or 3/4")
        self.answer.setToolTip("Type a number; fractions like 3/4 work too. Enter checks it")
        set_base_font(self.answer, TEXT_PX)
        self.answer.returnPressed.connect(self.check)
        self.check_button = QPushButton("Check")
        self.check_button.setToolTip("Compare your answer with the engine's (Enter)")
        self.check_button.clicked.connect(self.check)
        row.addWidget(self.answer, 1)
        row.addWidget(self.check_button)
        self.result = QLabel()
        self.result.setWordWrap(True)
        self.result.setTextInteractionFlags(Qt.TextSelectableByMouse)
        set_base_font(self.result, TEXT_PX - 1)
        q.addWidget(self.prompt)
        q.addLayout(row)
        q.addWidget(self.result)
        self.question_box.hide()
        col.addWidget(self.question_box)

        # a long move: what is happening, and a way out
        self.busy_box = QWidget()
        busy = QHBoxLayout(self.busy_box)
        busy.setContentsMargins(0, 0, 0, 0)
        self.busy_label = QLabel()
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Abandon this step and stay where you were")
        self.stop_button.clicked.connect(self.stop)
        busy.addWidget(self.busy_label, 1)
        busy.addWidget(self.stop_button)
        self.busy_box.hide()
        col.addWidget(self.busy_box)

        self.error = QLabel()
        self.error.setWordWrap(True)
        self._colors = {"right": "#007a45", "wrong": "#c8001e"}
        self.error.setStyleSheet(f"color: {self._colors['wrong']};")
        self.error.hide()
        col.addWidget(self.error)

        nav = QHBoxLayout()
        self.back_button = QPushButton("◀ Back")
        self.back_button.setToolTip("The step before (Page Up / Alt+Left)")
        self.back_button.clicked.connect(self.back)
        self.next_button = QPushButton("Next ▶")
        self.next_button.setToolTip("Run the next step (Page Down / Alt+Right)")
        self.next_button.clicked.connect(self.next)
        self.next_button.setDefault(True)
        self.quiz_check = QCheckBox("Quiz: predict each grad")
        self.quiz_check.setToolTip("While you step in the debugger, hide each new grad until "
                                   "you type a prediction")
        self.quiz_check.toggled.connect(self.set_quiz_mode)
        nav.addWidget(self.back_button)
        nav.addWidget(self.next_button)
        nav.addStretch(1)
        nav.addWidget(self.quiz_check)
        col.addLayout(nav)
        split.addWidget(page)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        split.setSizes([140, 600])
        root.addWidget(split)
        self.splitter = split

    def sizeHint(self):
        return QSize(420, 700)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        # tall (a side dock): the list above the step; wide (under the canvas): beside it
        wide = self.width() > 1.3 * self.height()
        orientation = Qt.Horizontal if wide else Qt.Vertical
        self.body.setDirection(QBoxLayout.LeftToRight if wide else QBoxLayout.TopToBottom)
        if self.splitter.orientation() != orientation:
            self.splitter.setOrientation(orientation)
            total = self.width() if wide else self.height()
            first = int(total * (0.24 if wide else 0.2))
            self.splitter.setSizes([first, total - first])

    # -- the lesson list -----------------------------------------------------------------

    def _fill_list(self):
        self.list.clear()
        if self.load_error:
            self._show_error(f"The lessons could not be loaded: {self.load_error}")
        for lesson in self.lessons:
            item = QListWidgetItem()
            item.setData(Qt.UserRole, lesson.id)
            item.setToolTip(lesson.summary)
            self.list.addItem(item)
        self._refresh_list()

    def _refresh_list(self):
        s = settings()
        for row, lesson in enumerate(self.lessons):
            item = self.list.item(row)
            n = len(lesson.steps)
            reached = _int(s.value(PROGRESS_KEY + lesson.id, -1), -1)
            if self.runner is not None and self.runner.lesson is lesson:
                reached = max(reached, self.runner.index)
            if reached >= n - 1:
                mark = "✓ done"
            elif reached >= 0:
                mark = f"{reached + 1}/{n}"
            else:
                mark = f"{n} steps"
            item.setText(f"{lesson.order}. {lesson.title}  —  {mark}")
            current = self.runner is not None and self.runner.lesson is lesson
            font = item.font()
            font.setBold(current)
            item.setFont(font)

    def _list_activated(self, item):
        self.open_lesson(item.data(Qt.UserRole))

    def lesson(self, lesson_id):
        for lesson in self.lessons:
            if lesson.id == lesson_id:
                return lesson
        known = ", ".join(lesson.id for lesson in self.lessons)
        raise KeyError(f"no lesson {lesson_id!r} (lessons: {known})")

    # -- moving ----------------------------------------------------------------------------

    @property
    def busy(self):
        return self._worker is not None

    def open_lesson(self, lesson_id, step=0):
        """Start a lesson (by id) at `step` (0-based; -1 for its last step)."""
        if self.busy:
            return False
        lesson = self.lesson(lesson_id)
        self._clear_error()
        if self.runner is not None and self.runner.lesson is not lesson:
            self.runner = self.snapshot = None
        target = step if step >= 0 else len(lesson.steps) + step
        settings().setValue(LAST_KEY, lesson.id)
        self._start(lesson, target)
        return True

    def next(self):
        """The next step; at the end of a lesson, the first step of the next one."""
        if self.busy or self.runner is None:
            return False
        if self.runner.at_end:
            following = self._following_lesson()
            if following is None:
                return False
            return self.open_lesson(following.id)
        return self.goto(self.runner.index + 1)

    def back(self):
        if self.busy or self.runner is None or self.runner.at_start:
            return False
        return self.goto(self.runner.index - 1)

    def goto(self, index):
        if self.busy or self.runner is None:
            return False
        self._start(self.runner.lesson, index)
        return True

    def _following_lesson(self):
        if self.runner is None:
            return None
        i = self.lessons.index(self.runner.lesson)
        return self.lessons[i + 1] if i + 1 < len(self.lessons) else None

    def _start(self, lesson, target):
        """Move to step `target` of `lesson`: in place when it is quick, else in a worker."""
        fresh = self.runner is None or self.runner.lesson is not lesson
        replay = not fresh and (self._needs_replay or bool(self.bridge and self.bridge.touched))
        start = -1 if fresh else self.runner.index
        self._token += 1
        self._clear_error()
        if not _moves_train(lesson, start, target):
            try:
                runner = LessonRunner(lesson, self.train_limit) if fresh else self.runner
                self.runner = runner
                for _ in _move(runner, target, replay):
                    pass
                snapshot = Snapshot(runner)
            except Exception as e:
                self._move_failed(e)
                return
            self._needs_replay = False
            self._show(snapshot)
            return
        if self.bridge is not None:
            self.bridge.detach()
        worker = LessonWorker(self._token, None if fresh else self.runner, lesson, target, replay,
                              self.train_limit, self)
        self._previous = (lesson, start)
        worker.progress.connect(self._worker_progress)
        worker.done.connect(self._worker_done)
        worker.finished.connect(lambda w=worker: self._reap(w))
        self._worker = worker
        self._workers.append(worker)
        self.busy_label.setText("Working…")
        self.busy_box.show()
        self._update_controls()
        self.busyChanged.emit(True)
        worker.start()

    def _worker_progress(self, token, text):
        if token == self._token:
            self.busy_label.setText(text[:1].upper() + text[1:] + "…")

    def _worker_done(self, token, result):
        if token != self._token:
            return   # a move the panel no longer waits for (shut down)
        self._worker = None
        self.busy_box.hide()
        self.busyChanged.emit(False)
        if isinstance(result, Stopped):
            self.runner = result.runner
            self._needs_replay = True
            lesson, previous = self._previous
            if previous < 0:
                self.runner = self.snapshot = None
                self._show_error("Stopped. Choose a lesson to start again.")
                self._update_controls()
            else:
                self._start(lesson, previous)
            return
        if isinstance(result, Exception):
            self._needs_replay = True
            self._move_failed(result)
            return
        self.runner = result.runner
        self._needs_replay = False
        self._show(result)

    def _reap(self, worker):
        if worker in self._workers:
            self._workers.remove(worker)
        worker.deleteLater()

    def stop(self):
        """Abandon the move in progress (the panel goes back to the step before)."""
        if self._worker is not None:
            self._worker.stop_event.set()

    def wait_idle(self, timeout_s=60.0):
        """Block (running the event loop) until no move is in progress; for scripts."""
        deadline = time.perf_counter() + timeout_s
        while self.busy and time.perf_counter() < deadline:
            QApplication.processEvents()
            for worker in list(self._workers):
                worker.wait(20)
        QApplication.processEvents()
        return not self.busy

    def shutdown(self):
        """Stop and join any worker (the window is closing)."""
        for worker in list(self._workers):
            worker.stop_event.set()
        for worker in list(self._workers):
            worker.wait()
        self._token += 1
        self._worker = None

    # -- showing a step ---------------------------------------------------------------------

    def _show(self, snapshot):
        self.snapshot = snapshot
        runner = self.runner
        lesson = runner.lesson
        k, n = snapshot.progress
        self.title.setText(lesson.title)
        self.where.setText(f"Step {k} of {n}")
        self.step_bar.setRange(0, n)
        self.step_bar.setValue(k)
        set_markdown(self.text, snapshot.text)
        self.text.verticalScrollBar().setValue(0)
        s = settings()
        if _int(s.value(PROGRESS_KEY + lesson.id, -1), -1) < snapshot.index:
            s.setValue(PROGRESS_KEY + lesson.id, snapshot.index)

        # the question
        self._last_answer = None
        self.question_box.setVisible(snapshot.prompt is not None)
        if snapshot.prompt is not None:
            self.prompt.setText(snapshot.prompt)
            self.answer.clear()
            self.result.clear()
            self.result.hide()

        # a network's numbers
        self.network_box.setVisible(snapshot.kind == "network")
        if snapshot.kind == "network":
            self.metrics_label.setText(self.metrics_text())
            self.boundary_view.set_boundary(snapshot.boundary, snapshot.points)
            if snapshot.diverged:
                self._show_error(f"The run diverged: {snapshot.diverged}")

        # the canvas
        if self.bridge is not None:
            if snapshot.show_graph:
                self.bridge.show(runner, snapshot.highlight, snapshot.statuses,
                                 f"{lesson.title}, step {k}")
                self.window.editor.set_source_note(f"lesson “{lesson.title}”, step {k} of {n}")
            else:
                self.bridge.detach()
                self.bridge.clear_highlight()
        self._refresh_list()
        self._update_controls()
        self.stepShown.emit(snapshot.index)

    def set_theme(self, theme):
        """The window's theme changed (fonts follow by themselves): the colours of
        right, wrong and errors come from its palette, readable on light and dark."""
        self._colors = {"right": theme.color("status_final").name(), "wrong": theme.color("nonfinite").name()}
        self.error.setStyleSheet(f"color: {self._colors['wrong']};")
        if self._last_answer is not None:
            self.check()

    def follow(self):
        """Zoom the canvas in on the step's nodes if the whole graph is too small to read."""
        if self.bridge is not None and self.snapshot is not None and self.snapshot.show_graph \
                and self.bridge.showing_runner:
            self.bridge._follow(self.snapshot.highlight)

    def metrics_text(self):
        m = self.snapshot.metrics if self.snapshot is not None else None
        if not m:
            return ""
        steps = "step" if m["step"] == 1 else "steps"
        return (f"after {m['step']} {steps}\nloss {m['loss']}\naccuracy {m['accuracy']}\n"
                f"{m['params']} parameters")

    def _update_controls(self):
        idle = not self.busy
        has = self.runner is not None and self.snapshot is not None
        self.back_button.setEnabled(idle and has and not self.runner.at_start)
        more = has and (not self.runner.at_end or self._following_lesson() is not None)
        self.next_button.setEnabled(idle and more)
        if has and self.runner.at_end and self._following_lesson() is not None:
            self.next_button.setText("Next lesson ▶")
            self.next_button.setToolTip(f"Start “{self._following_lesson().title}” "
                                        "(Page Down / Alt+Right)")
        else:
            self.next_button.setText("Next ▶")
            self.next_button.setToolTip("Run the next step (Page Down / Alt+Right)")
        self.check_button.setEnabled(idle and has)
        self.answer.setEnabled(idle and has)
        self.list.setEnabled(idle)

    # -- questions ---------------------------------------------------------------------------

    def check(self):
        """Check the typed answer; (ok, explanation), also shown under the box."""
        if self.busy or self.runner is None or self.snapshot is None or self.snapshot.prompt is None:
            return None
        ok, explanation = self.runner.check_answer(self.answer.text())
        self._last_answer = (ok, explanation)
        head, _, rest = explanation.partition("\n")
        color = self._colors["right" if ok else "wrong"]
        body = "<br>".join(_html(line) for line in rest.splitlines())
        mono = "font-family:'DejaVu Sans Mono'"
        self.result.setText(f"<b style='color:{color}'>{_html(head)}</b>"
                            + (f"<br><span style='{mono}'>{body}</span>" if body else ""))
        self.result.show()
        return ok, explanation

    # -- quiz mode (the debugger's) ------------------------------------------------------------

    def set_quiz_mode(self, on):
        """Quiz mode of the debugger: its new grads stay hidden until predicted."""
        debugger = getattr(self.window, "debugger", None) if self.window is not None else None
        if self.quiz_check.isChecked() != bool(on):
            self.quiz_check.setChecked(bool(on))   # re-enters through toggled
            return
        if debugger is None or not hasattr(debugger, "set_quiz_mode"):
            self._show_error("Quiz mode needs the debugger panel, which is not available.")
            return
        debugger.set_quiz_mode(bool(on))
        dock = getattr(self.window, "docks", {}).get("debugger")
        if on and dock is not None:
            dock.show()
            dock.raise_()

    def show_quiz_state(self, on):
        """The debugger's quiz mode changed (from its own button or menu)."""
        self.quiz_check.blockSignals(True)
        self.quiz_check.setChecked(bool(on))
        self.quiz_check.blockSignals(False)

    # -- errors ------------------------------------------------------------------------------

    def _move_failed(self, error):
        self._show_error(f"This step could not run: {error}")
        self._update_controls()

    def _show_error(self, text):
        self.error.setText(text)
        self.error.show()

    def _clear_error(self):
        self.error.clear()
        self.error.hide()

    def closeEvent(self, event):
        self.shutdown()
        super().closeEvent(event)


def set_markdown(browser, text):
    """Markdown in `browser`, readable from the back of a room: code takes the
    body's size (Qt's importer fixes it at the system's small monospace size, which
    would not follow the scale) and long code lines wrap instead of scrolling."""
    browser.setMarkdown(text)
    doc = browser.document()
    cursor = QTextCursor(doc)
    block = doc.begin()
    while block.isValid():
        fmt = block.blockFormat()
        if fmt.nonBreakableLines():
            fmt.setNonBreakableLines(False)
            cursor.setPosition(block.position())
            cursor.setBlockFormat(fmt)
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            char = fragment.charFormat()
            if char.hasProperty(QTextFormat.FontPointSize) or char.hasProperty(QTextFormat.FontPixelSize):
                char.clearProperty(QTextFormat.FontPointSize)   # only code has a size of its own
                char.clearProperty(QTextFormat.FontPixelSize)
                char.setFontFamilies([MONO_FAMILY])
                cursor.setPosition(fragment.position())
                cursor.setPosition(fragment.position() + fragment.length(), QTextCursor.KeepAnchor)
                cursor.setCharFormat(char)
            it += 1
        block = block.next()
    doc.setModified(False)


def settings():
    from app.file_actions import settings as app_settings
    return app_settings()


def _int(value, default):
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _html(text):
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))
