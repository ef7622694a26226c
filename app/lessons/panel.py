"""The Lessons panel: the guided track, one step at a time, with every number live.

The panel is a thin shell over `core.lessons.runner.LessonRunner`, which owns
all lesson state (the step, the graph, the debugger, the training run). The
panel shows what the runner says and turns clicks into runner moves:

* a list of the lessons (title and how far you got), the current step's
  Markdown in a large, readable font, "step k of n", Back and Next;
* the step's graph on the main canvas. For a graph lesson the canvas shows the
  runner's own Values (`GraphBridge`): the data and grads on screen ARE the
  runner's, so a partial backward pass, a nudge or the zero-grad bug shows
  exactly as the text describes it. The step's nodes glow (`scene.marks.set_highlight`);
* a network lesson shows its numbers (step, loss, accuracy, parameters) and
  the decision boundary; its loss graph goes on the canvas only when it is
  small enough to read;
* a question: a prompt, an answer box, Check -> right or wrong and how the
  engine gets the answer (`runner.check_answer`);
* quiz mode (`set_quiz_mode`, core/lessons/quiz.py): the text and the canvas
  hide each value the step asks or computes until it is answered; answers are
  scored per lesson (right first time, after a hint, revealed) and the score
  can be shown to the class and saved (`show_score`). The debugger's own quiz
  follows the same box, for stepping by hand.

Moves that train (network lessons) run in a `LessonWorker` on a QThread, which
drives `runner.goto_iter` and reports progress; the window stays responsive,
Back/Next/Check are disabled meanwhile and Stop abandons the move. A graph
lesson's move takes milliseconds and runs in place. That half of the panel is
`app.lessons.moves.LessonMoves`; this module builds the panel and shows a step.

The panel is handed what it uses, never the window: the `GraphBridge` to the canvas
(None: a panel without a canvas, as in tests) and the debugger's quiz switch
(`debugger_quiz`); app/lessons/install.py makes both from the window's Services.

Hooks: `open_lesson(id, step)`, `next()`, `back()`, `goto(i)`, `busy`,
`wait_idle()`, `shutdown()`; signals `stepShown(int)` and `busyChanged(bool)`.
"""

import os
from collections.abc import Callable

from PySide6.QtCore import QSize, Qt, QTimer, QUrlQuery, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QBoxLayout,
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.lessons.fitting import StepFit
from app.lessons.graph_bridge import GraphBridge
from app.lessons.lesson_list import LessonList, record_step
from app.lessons.lesson_network import LessonNetworkView
from app.lessons.moves import LessonMoves
from app.lessons.paging import StepPages
from app.lessons.question_box import QuestionBox
from app.lessons.reading import TEXT_PX, TITLE_PX, LessonBrowser
from app.look.theme import set_base_font
from core.format import parse_number
from core.lessons.format import LessonError, load_all
from core.lessons.links import classify
from core.lessons.quiz import LessonQuiz
from core.lessons.runner import PENDING
from core.resources import shipped

LESSONS_DIR = shipped("lessons")
ENGINES_DIR = shipped("engines")  # classes a lesson may check


def diverged_message(diverged):
    """The trainer's message says what diverged already ('The run diverged: loss is
    inf at step 3 ...'): said once, not 'The run diverged: The run diverged: ...'."""
    text = str(diverged).strip()
    return text if text.lower().startswith("the run diverged") else f"The run diverged: {text}"


def _check_box_style(theme):
    """Fusion draws a check box's frame darker than the window: on a dark window it
    vanished (black on dark grey). On the dark and high-contrast themes the box gets a
    frame in the text's colour (3:1 and more against the window) and fills when ticked."""
    if theme.palette.name not in ("dark", "high-contrast"):
        return ""
    side = max(12, round(14 * theme.scale))
    ink, fill, on = theme.color("overlay_text").name(), theme.color("background").name(), theme.color("selection")
    return (
        f"QCheckBox::indicator {{ width: {side}px; height: {side}px; border: {max(2, round(theme.scale * 1.5))}px "
        f"solid {ink}; background: {fill}; }} QCheckBox::indicator:checked {{ background: {on.name()}; }}"
    )


class PageLayout(QVBoxLayout):
    """The column of title, text and network. `fixed` (presenter mode, its title on
    one line): its height is the room the dock gives, not what its wrapped labels
    would like at this width -- the scroll area around it made it that tall and the
    step scrolled (mlp-loss-graph at 3x: 105 px, at 2x on 1280x720: 85 px)."""

    fixed = False

    def hasHeightForWidth(self):  # noqa: N802 -- Qt's name
        return False if self.fixed else super().hasHeightForWidth()


# -----------------------------------------------------------------------------
# The panel


class LessonsPanel(LessonMoves, StepFit, StepPages, QWidget):
    stepShown = Signal(int)  # a step is on screen (its index)
    roomChanged = Signal()  # the step needs another height (a verdict shown)
    pageShown = Signal()  # another page of the step's text or verdict (app/lessons/paging.py)
    busyChanged = Signal(bool)  # a move started / ended
    engineCheckAsked = Signal(str)  # a lesson's "check this engine" link: a bundled engine's path

    def __init__(
        self,
        bridge: GraphBridge | None = None,
        lessons=None,
        train_limit=None,
        parent=None,
        debugger_quiz: Callable[[bool], None] | None = None,
    ):
        super().__init__(parent)
        self.setObjectName("LessonsPanel")
        self.bridge = bridge  # the step's graph on the window's canvas (None: no canvas)
        self.debugger_quiz = debugger_quiz  # the debugger's quiz mode, which follows the lesson's
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
        self._workers: list = []
        self._last_answer = None
        self._asked = None  # the QuizItem the question box shows (None: the step's own question)
        self._needs_replay = False
        self._previous = (None, -1)
        self.quiz = LessonQuiz()
        self.side_sized = False  # in a side dock, sized to its room (app/lessons/side_fit.py)
        # lesson id -> {step index: [problem text]} (a teacher's lesson, core/lessons/check.py)
        self.flags: dict[str, dict[int, list[str]]] = {}
        self._build()
        self._init_pages()
        self._fill_list()
        self._update_controls()

    # -- building ------------------------------------------------------------------------

    def _build(self):
        root = QVBoxLayout(self)
        root.setContentsMargins(8, 8, 8, 8)
        root.setSpacing(6)
        split = QSplitter(Qt.Vertical)
        split.setChildrenCollapsible(False)
        self.list = LessonList()
        self.list.itemActivated.connect(self._list_activated)
        split.addWidget(self.list)

        page = QWidget()
        col = PageLayout(page)
        self.page_layout = col
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

        self.text = LessonBrowser()  # images only through its loader (app/lessons/reading.py)
        self.text.setOpenLinks(False)  # web links open in the browser; studio: links act here
        self.text.anchorClicked.connect(self.follow_link)
        self.text.setToolTip("")  # a long tip over the reading area only gets in the way
        set_base_font(self.text, TEXT_PX)
        self.text.setMinimumHeight(48)  # the panel is sized to its text (wanted_height)
        self.body = QBoxLayout(QBoxLayout.TopToBottom)  # text and network: side by side when wide
        self.body.addWidget(self.text, 3)
        col.addLayout(self.body, 1)

        # the network's numbers and picture
        self.network_view = LessonNetworkView()
        self.metrics_label = self.network_view.metrics_label
        self.boundary_view = self.network_view.boundary_view
        self.network_view.hide()
        self.body.addWidget(self.network_view, 3)  # as wide as the text: its numbers in two lines at 2x

        # a question
        self.question_box = QuestionBox()
        self.prompt, self.answer = self.question_box.prompt, self.question_box.answer
        self.check_button, self.result = self.question_box.check_button, self.question_box.result
        self.answer.returnPressed.connect(self.check)
        self.check_button.clicked.connect(self.check)
        self.question_box.reveal_button.clicked.connect(self.reveal)
        self.question_box.hide()
        # the verdict and its working sit in the body, beside the text when the panel is
        # wide (presenter mode) and under it when tall: answering never takes the text's
        # room (it used to grow under the question and squeeze the text to 0 px)
        self.verdict = self.question_box.result_area
        self.verdict.setMaximumHeight(16777215)
        self.verdict.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Ignored)
        self.body.insertWidget(1, self.verdict, 2)
        # the question, its answer box and Next never scroll away: they sit under the
        # scrolled text (at 1280x720 the text may scroll, the question never hides)
        self.bottom = QWidget()
        fixed = QVBoxLayout(self.bottom)
        fixed.setContentsMargins(0, 0, 0, 0)
        fixed.setSpacing(6)
        fixed.addWidget(self.question_box)

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
        fixed.addWidget(self.busy_box)

        self.error = QLabel()
        self.error.setWordWrap(True)
        self._colors = {"right": "#007a45", "wrong": "#c8001e"}
        self.error.setStyleSheet(f"color: {self._colors['wrong']};")
        self.error.hide()
        fixed.addWidget(self.error)

        nav = QHBoxLayout()
        self.back_button = QPushButton("◀ Back")
        self.back_button.setToolTip("The step before (Page Up / Alt+Left)")
        self.back_button.clicked.connect(self.back)
        self.next_button = QPushButton("Next ▶")
        self.next_button.setToolTip("Run the next step (Page Down / Alt+Right)")
        self.next_button.clicked.connect(self.next)
        self.next_button.setDefault(True)
        self.quiz_check = QCheckBox("Quiz")
        self.quiz_check.setToolTip(
            "Hide each value this step asks or computes, on the canvas and in the "
            "text, until you predict it; answers are scored (predict each grad)"
        )
        self.quiz_check.toggled.connect(self.set_quiz_mode)
        self.score_button = QPushButton("Score…")
        self.score_button.setToolTip("The quiz score of each lesson: show it to the class, or save it")
        self.score_button.clicked.connect(self.show_score)
        nav.addWidget(self.back_button)
        nav.addWidget(self.next_button)
        nav.addStretch(1)
        nav.addWidget(self.quiz_check)
        nav.addWidget(self.score_button)
        fixed.addLayout(nav)
        # scrolled: in a short window the step's text and network never make the dock
        # (and so the window) taller than the screen; the question and Next stay put
        scroller = QScrollArea()
        scroller.setWidget(page)
        scroller.setWidgetResizable(True)
        scroller.setFrameShape(QFrame.NoFrame)
        self.scroller = scroller
        side = QWidget()
        side_col = QVBoxLayout(side)
        side_col.setContentsMargins(0, 0, 0, 0)
        side_col.setSpacing(6)
        side_col.addWidget(scroller, 1)
        side_col.addWidget(self.bottom, 0)
        split.addWidget(side)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        split.setSizes([140, 600])
        root.addWidget(split)
        self.splitter = split

    def sizeHint(self):
        return QSize(420, 700)

    def resizeEvent(self, event):
        super().resizeEvent(event)
        QTimer.singleShot(0, self, self.fit_title)  # the title's row follows the width, once laid out
        # tall (a side dock): the list above the step; wide (under the canvas): beside it
        # (and wide enough for text beside the verdict: ~60 characters of the lesson's font)
        wide = self.width() > 1.3 * self.height() and self.width() > 60 * self.text.fontMetrics().averageCharWidth()
        orientation = Qt.Horizontal if wide else Qt.Vertical
        self.body.setDirection(QBoxLayout.LeftToRight if wide else QBoxLayout.TopToBottom)
        if self.splitter.orientation() != orientation:
            self.splitter.setOrientation(orientation)
            total = self.width() if wide else self.height()
            first = int(total * (0.24 if wide else 0.2))
            self.splitter.setSizes([first, total - first])

    # -- the lesson list -----------------------------------------------------------------

    def _fill_list(self):
        if self.load_error:
            self._show_error(f"The lessons could not be loaded: {self.load_error}")
        self.list.fill(self.lessons)
        self._refresh_list()

    def _refresh_list(self):
        self.list.refresh(self.lessons, self.runner)

    def _list_activated(self, item):
        self.open_lesson(item.data(Qt.UserRole))

    def lesson(self, lesson_id):
        for lesson in self.lessons:
            if lesson.id == lesson_id:
                return lesson
        known = ", ".join(lesson.id for lesson in self.lessons)
        raise KeyError(f"no lesson {lesson_id!r} (lessons: {known})")

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
        record_step(lesson.id, snapshot.index)
        self.quiz.enter(runner)
        self._last_answer = None
        self._show_text()
        self.text.verticalScrollBar().setValue(0)
        self._ask()

        # a network's numbers
        self.network_view.setVisible(snapshot.kind == "network")
        if snapshot.kind == "network":
            self.show_metrics()
            self.boundary_view.set_boundary(snapshot.boundary, snapshot.points)
            if snapshot.diverged:
                self._show_error(diverged_message(snapshot.diverged))

        # the canvas
        if self.bridge is not None:
            if snapshot.show_graph:
                self.bridge.show(
                    runner, snapshot.highlight, snapshot.statuses, f"{lesson.title}, step {k}", self.masks()
                )
                note = f"lesson “{lesson.title}”, step {k} of {n}"
                self.bridge.set_note(note + (f". {snapshot.canvas_note}" if snapshot.canvas_note else ""))
            else:
                self.bridge.detach()
                self.bridge.clear_highlight()
        flagged = self.flags.get(lesson.id, {}).get(snapshot.index)
        if flagged:  # before the class reads a number the engine contradicts
            self._show_error("This step says what the engine does not:\n" + "\n".join(flagged))
        self._refresh_list()
        self._update_controls()
        self.stepShown.emit(snapshot.index)

    def flag(self, lesson_id, problems):
        """Remember what a check of a teacher's lesson found, to flag at each step."""
        steps = {}
        for problem in problems:
            line = f"line {problem.line}: " if problem.line is not None else ""
            steps.setdefault(problem.step, []).append(line + problem.message)
        self.flags[lesson_id] = steps

    def masks(self):
        """What the canvas must not show yet: '?' for a value the forward pass has not
        reached or the quiz keeps back (the runner's `shown` decides, as for the text)."""
        if self.runner is None:
            return {}
        masks = {}
        for nid, (data, grad) in self.runner.shown(self.quiz.hidden()).items():
            if PENDING in (data, grad):
                pending = data == PENDING and grad == PENDING and self.runner.pending(self.runner.by_id[nid])
                masks[nid] = (data if data == PENDING else None, grad if grad == PENDING else None, pending)
        return masks

    def _show_text(self, keep_page=False):
        """The step's text, with the values the quiz keeps back as '?' (in pages where
        presenter mode's room is short: app/lessons/paging.py; `keep_page` after an
        answer: the page holding what it revealed)."""
        text = self.runner.render_text(self.quiz.hidden())
        if self.snapshot is not None and self.snapshot.canvas_note:
            text += "\n\n*" + self.snapshot.canvas_note + "*"
        self.set_step_text(text, keep_page)

    def _ask(self):
        """The question box: the quiz's current item, or the step's answered question."""
        item = self.quiz.current
        self._asked = item  # what Check grades: always the question the box shows
        prompt = item.prompt if item is not None else (self.snapshot.prompt if self.snapshot else None)
        self.question_box.setVisible(prompt is not None)
        self.verdict.hide()
        self.verdict_lines, self.verdict_page = [], 0
        sizes = getattr(self, "_list_sizes", None)
        if sizes is not None and not self.list.isVisible() and not getattr(self, "_presenting", False):
            self.list.show()  # put away while a verdict showed: back at the height it had
            self.splitter.setSizes(sizes)
        self._list_sizes = None
        self._cap_list()
        self.body.setStretchFactor(self.text, 3)  # beside the network's picture, as built
        self.body.setStretchFactor(self.verdict, 2)
        self.body.setStretchFactor(self.network_view, 3)
        self.share_text()
        if prompt is not None:
            self.question_box.ask(prompt)
        self.question_box.reveal_button.setEnabled(item is not None)

    def set_theme(self, theme):
        """The window's theme changed (fonts follow by themselves): the colours of
        right, wrong and errors come from its palette, readable on light and dark."""
        self._colors = {"right": theme.color("status_final").name(), "wrong": theme.color("nonfinite").name()}
        self.error.setStyleSheet(f"color: {self._colors['wrong']};")
        self.quiz_check.setStyleSheet(_check_box_style(theme))
        if self._last_answer is not None:
            self.check()

    def focus_ids(self):
        """The canvas nodes this step talks about: its highlighted nodes and the node its
        question asks about; without either, the nodes whose grads it changed; without
        those, every node (presenter mode frames them, app/lessons/presenter_layout.py)."""
        snapshot, runner = self.snapshot, self.runner
        if snapshot is None or runner is None or not snapshot.show_graph or self.busy:
            return []
        ids = list(snapshot.highlight)
        question = runner.step.question
        nid = runner.nid_of_label(question.node) if question is not None else None
        if nid is not None and nid not in ids:
            ids.append(nid)
        if not ids:
            ids = [nid for nid in runner.new_grads if nid in runner.by_id]
        if not ids:  # the whole graph, its output first (where backprop starts)
            output = runner.document.output
            ids = [output] + [nid for nid in runner.by_id if nid != output]
        return ids

    def follow(self):
        """Zoom the canvas in on the step's nodes if the whole graph is too small to read."""
        if (
            self.bridge is not None
            and self.snapshot is not None
            and self.snapshot.show_graph
            and self.bridge.showing_runner
            and not self.bridge.presenting  # there the step is framed for the room (frame_step)
        ):
            self.bridge._follow(self.snapshot.highlight)

    def metrics_text(self):
        m = self.snapshot.metrics if self.snapshot is not None else None
        if not m:
            return ""
        steps = "step" if m["step"] == 1 else "steps"
        # two lines, so the boundary under them keeps its room in a short panel
        return f"after {m['step']} {steps} · loss {m['loss']}\naccuracy {m['accuracy']} · {m['params']} parameters"

    def _update_controls(self):
        idle = not self.busy
        has = self.runner is not None and self.snapshot is not None
        paging = has and (self.page > 0 or self.verdict_page > 0)
        self.back_button.setEnabled(idle and has and (paging or not self.runner.at_start))
        more = has and (not self.runner.at_end or self._following_lesson() is not None)
        left = has and (self.page + 1 < len(self.pages) or self.verdict_page + 1 < len(self.verdict_lines))
        self.next_button.setEnabled(idle and (more or left))
        if left:  # presenter mode on a small screen: the step's text (or verdict) goes on
            part = "verdict" if self.verdict_page + 1 < len(self.verdict_lines) else "text"
            self.next_button.setText("More ▼")
            self.next_button.setToolTip(f"The rest of this step's {part} (Page Down / Alt+Right)")
        elif has and self.runner.at_end and self._following_lesson() is not None:
            self.next_button.setText("Next lesson ▶")
            self.next_button.setToolTip(f"Start “{self._following_lesson().title}” (Page Down / Alt+Right)")
        else:
            self.next_button.setText("Next ▶")
            self.next_button.setToolTip("Run the next step (Page Down / Alt+Right)")
        self.check_button.setEnabled(idle and has)
        self.answer.setEnabled(idle and has)
        self.list.setEnabled(idle)

    # -- questions ---------------------------------------------------------------------------

    def check(self):
        """Check the typed answer; (ok, explanation), also shown under the box. The
        quiz scores it; a wrong first try gets a hint, a second one the answer."""
        if self.busy or self.runner is None or self.snapshot is None:
            return None
        if self.quiz.current is not None:
            verdict, explanation = self.quiz.answer(self.answer.text())
            ok = verdict in ("first", "hint")
            self._answered(verdict, ok, explanation)
            return ok, explanation
        if self._asked is not None:  # the box still shows an answered item: grade that one, unscored
            ok, explanation = self._regrade(self._asked)
            self._last_answer = (ok, explanation)
            self._show_verdict(explanation, ok)
            return ok, explanation
        if self.snapshot.prompt is None:
            return None
        ok, explanation = self.runner.check_answer(self.answer.text())
        self._last_answer = (ok, explanation)
        self._show_verdict(explanation, ok)
        return ok, explanation

    def _show_verdict(self, explanation, ok):
        # beside the text, each gets the width its length asks (a short step and a long
        # working: the working wide, rather than both small)
        text, verdict = len(self.markdown), len(explanation)  # the whole step's, not a page's
        share = min(8, max(3, round(10 * text / max(1, text + verdict))))
        if self.network_view.isVisibleTo(self):  # three columns: the numbers need two lines, the working its own
            share = 5
        self.body.setStretchFactor(self.text, share)
        self.body.setStretchFactor(self.verdict, 10 - share)
        self.body.setStretchFactor(self.network_view, 6)  # its numbers on two lines beside both
        self.question_box.show_result(explanation, self._colors["right" if ok else "wrong"])
        self.verdict_lines, self.verdict_page = [], 0  # presenter mode cuts it again if it must
        # never squeezed below two lines (a tall panel with a network's picture left it 0 px)
        self.verdict.setMinimumHeight(min(self.verdict_height(), 2 * self.result.fontMetrics().height() + 12))
        self.share_text()
        self._room_for_the_step()
        self.roomChanged.emit()

    def _cap_list(self):
        """A tall panel gives the list of lessons at most a fifth of its height while a
        step is on screen (at 1280x720 its default share left the step's text no line)."""
        if self.splitter.orientation() != Qt.Vertical or not self.list.isVisible():
            return
        first, second = self.splitter.sizes()
        most = max(self.list.minimumSizeHint().height(), int(0.2 * (first + second)))
        if first > most:
            self.splitter.setSizes([most, first + second - most])

    def _room_for_the_step(self):
        """A tall panel (a side dock on a laptop) puts the list of lessons away while a
        verdict shows: the step's text and the verdict need its room (at 1280x720 the
        list's share left them a line or less); the next step brings it back."""
        if self.splitter.orientation() == Qt.Vertical and self.list.isVisible():
            self._list_sizes = self.splitter.sizes()
            self.list.hide()

    def _regrade(self, item):
        """(ok, explanation) for an answer to an item already scored (typed again)."""
        guess = parse_number(self.answer.text(), finite=True)
        if guess is None:
            return False, "Type a number, like -1.5 or 3/4."
        ok = item.right(guess)
        head = "Right!" if ok else f"Not quite: you said {self.answer.text().strip()}."
        return ok, f"{head} {item.explain()}"

    def reveal(self):
        """Show the value asked now, scored as revealed."""
        if self.busy or self.quiz.current is None:
            return None
        verdict, explanation = self.quiz.reveal()
        self._answered(verdict, False, explanation)
        return explanation

    def _answered(self, verdict, ok, explanation):
        self._last_answer = (ok, explanation)
        if verdict in ("first", "hint", "revealed"):  # the item is done: its value may show now
            self._show_text(keep_page=True)
            if self.bridge is not None and self.bridge.showing_runner:
                self.bridge.set_masks(self.masks())
            following = self.quiz.current
            if following is not None:
                self._asked = following
                self.question_box.prompt.setText(following.prompt)
                self.answer.clear()
            self.question_box.reveal_button.setEnabled(following is not None)
        self._show_verdict(explanation, ok)

    def show_score(self):
        """The quiz's score per lesson, large enough for the class, with Save."""
        from app.lessons.score_dialog import ScoreDialog

        dialog = ScoreDialog(self.quiz, self)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        dialog.show()
        return dialog

    # -- links in the lesson text --------------------------------------------------------

    def follow_link(self, url):
        """A web link opens in the browser. `studio:check-engine?file=NAME.py` checks a class
        the studio ships (resources/engines/NAME.py) as File → Debug my engine… does: only
        those, so a lesson file can never make the studio run other code."""
        kind, why = classify(url.toString())
        if kind == "refused":
            self._show_error(f"This lesson's link was not opened: {why}.")
            return False
        if kind == "web":
            QDesktopServices.openUrl(url)
            return False
        name = QUrlQuery(url).queryItemValue("file")
        path = os.path.join(ENGINES_DIR, os.path.basename(name))
        if url.path() != "check-engine" or not name.endswith(".py") or not os.path.isfile(path):
            self._show_error(f"This lesson's link cannot be followed: {url.toString()}")
            return False
        self.engineCheckAsked.emit(path)
        return True

    # -- quiz mode (the debugger's) ------------------------------------------------------------

    def set_quiz_mode(self, on):
        """Quiz mode: the step's values stay hidden until predicted (the lesson's quiz),
        and so do the debugger's new grads when stepping by hand."""
        if self.quiz_check.isChecked() != bool(on):
            self.quiz_check.setChecked(bool(on))  # re-enters through toggled
            return
        self.quiz.on = bool(on)
        if self.runner is not None and self.snapshot is not None and not self.busy:
            self._show(self.snapshot)  # the step again, with its values hidden or shown
        if self.debugger_quiz is None:
            self._show_error("Quiz mode needs the debugger panel, which is not available.")
            return
        # the lesson's feature: the debugger follows along for stepping by hand, but its
        # dock is not opened (an idle debugger over half the screen took the lesson's room)
        self.debugger_quiz(bool(on))

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
