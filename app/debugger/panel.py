"""The debugger dock: controls, timeline, step list, explanation, breakpoints, gradient check.

`DebuggerPanel` is a thin view over a `DebuggerController` (controller.py),
which in turn forwards to core's headless `DebugSession`. The moves and the state live on the
controller, the one API a lesson or a test drives:

    panel.controller.reset()  step()  step_back()  seek(k)  run_to_end()  run_to(nid)
    panel.controller.play()  pause()  forward_reset()  forward_step()  forward_all()  stop()
    panel.controller.toggle_breakpoint(nid)  answer_quiz(text)  reveal_quiz()

The panel itself adds only what is drawn:

    panel.stepped(record)       a signal after every move
    panel.set_quiz_mode(on)  panel.explanation_text()  panel.set_theme(theme)
    panel.run_gradient_check()  panel.climb_hint()
    panel.actions               {'step': QAction, ...} for menus and toolbars

Keys: F10 step (from "Debugger ready" the first press runs step 1; at the end it
says the pass is done), Shift+F10 step back, F5 run to
the end, Ctrl+F10 run to the selected node, F8 play/pause, F9 breakpoint, F7 /
Shift+F7 / Ctrl+F7 forward step / back / all, Ctrl+Shift+F5 reset, Shift+F5 stop.
"""

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QPainter, QPixmap, QTextDocument
from PySide6.QtWidgets import (
    QCheckBox,
    QDockWidget,
    QDoubleSpinBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QScrollBar,
    QSlider,
    QSplitter,
    QStyle,
    QStyleOptionSlider,
    QTabWidget,
    QTextBrowser,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.debugger.controller import BACKWARD, FORWARD, IDLE, DebuggerController
from app.debugger.explain import Style, describe, describe_head
from app.debugger.gradcheck_view import GradcheckView
from app.debugger.step_list import StepListModel, StepListView
from app.look.theme import DEFAULT

# key, text, shortcut, tip, controller method
ACTIONS = (
    ("reset", "Reset", "Ctrl+Shift+F5", "Start the backward pass again: every grad 0, the output's grad 1", "reset"),
    ("step back", "◀ Step Back", "Shift+F10", "Undo the last _backward call (Shift+F10)", "step_back"),
    ("step", "Step ▶", "F10", "Run the next _backward call (F10)", "step_or_start"),
    ("run to end", "Run to End", "F5", "Run every remaining step; breakpoints stop the run (F5)", "run_to_end"),
    (
        "run to selected",
        "Run to Selected",
        "Ctrl+F10",
        "Run until the selected node's _backward is next, or a leaf's grad is final (Ctrl+F10)",
        "run_to",
    ),
    ("play", "▶ Play", "F8", "Step on a timer at the chosen speed; press again to pause (F8)", "toggle_play"),
    ("forward step", "Forward Step", "F7", "Compute the next node of the forward pass (F7)", "forward_step_or_start"),
    (
        "forward back",
        "Forward Back",
        "Shift+F7",
        "Un-compute the last node of the forward pass (Shift+F7)",
        "forward_step_back",
    ),
    (
        "forward all",
        "Forward All",
        "Ctrl+F7",
        "Compute every remaining node of the forward pass (Ctrl+F7)",
        "forward_all",
    ),
    (
        "toggle breakpoint",
        "Toggle Breakpoint",
        "F9",
        "Stop runs before the selected node's _backward (F9)",
        "toggle_breakpoint",
    ),
    ("stop", "Stop Debugging", "Shift+F5", "Leave the debugger: the graph shows a full backward pass", "stop"),
)


PHASE_TIP = "Forward pass: compute every node's data. Backward pass: every node's grad, one _backward at a time."


class DebuggerPanel(QWidget):
    stepped = Signal(object)  # the StepRecord / ForwardRecord shown after a move (None at a start)

    def __init__(self, session, scene=None, view=None, theme=None, parent=None):
        super().__init__(parent)
        self.session, self.scene, self.view = session, scene, view
        self.theme = theme or (scene.theme if scene is not None else DEFAULT)
        self.controller = ctrl = DebuggerController(session, scene, view, self)
        self._style = Style(self.theme)
        self._plan = None
        self._syncing = False

        self.actions = {}
        for key, text, shortcut, tip, method in ACTIONS:
            action = QAction(text, self)
            action.setShortcut(QKeySequence(shortcut))
            action.setToolTip(f"{tip}")
            action.setStatusTip(tip)
            action.triggered.connect(lambda _checked=False, m=method: getattr(ctrl, m)())
            self.addAction(action)
            self.actions[key] = action
        self.actions["play"].setCheckable(True)
        quiz = QAction("Quiz Mode", self)
        quiz.setCheckable(True)
        quiz.setShortcut(QKeySequence("Ctrl+Shift+Q"))
        quiz.setToolTip(
            "Hide each step's new grads until you predict them; type the number, Enter checks (Ctrl+Shift+Q)"
        )
        quiz.toggled.connect(ctrl.set_quiz_mode)
        self.actions["quiz"] = quiz
        gradcheck = QAction("Gradient Check", self)
        gradcheck.setShortcut(QKeySequence("Ctrl+Shift+K"))
        gradcheck.setToolTip("Compare every leaf's grad with a finite difference (Ctrl+Shift+K)")
        gradcheck.triggered.connect(self.run_gradient_check)
        self.actions["gradient check"] = gradcheck
        hint = QAction("Hint", self)
        hint.setToolTip(
            "A learner's engine stopped at a wrong gradient: one more hint (where, which, a question, the fix)"
        )
        hint.triggered.connect(self.climb_hint)
        self.actions["hint"] = hint

        self._build()
        ctrl.stateChanged.connect(self._sync)
        ctrl.stepped.connect(self._on_stepped)
        ctrl.renamed.connect(self.model.rename)
        ctrl.renamed.connect(self._render_explanation)
        ctrl.quizAnswered.connect(lambda *_: self._show_quiz_score())
        self.actions["quiz"].toggled.connect(lambda _on: self._show_quiz_score())
        session.currentChanged.connect(self._on_current_changed)
        if scene is not None:
            scene.context_menu.add_node_menu_hook(self._node_menu)
        self._sync()
        self._on_stepped(None)

    # -- the panel's own (moves and state: self.controller, one API over DebugSession) --------

    def set_quiz_mode(self, on):
        self.actions["quiz"].setChecked(bool(on))

    def climb_hint(self):
        """One more rung of the hint ladder for a learner's engine stopped at a fault."""
        replay = getattr(self.controller.stepper, "replay", None)
        if replay is not None and replay.next_hint():
            self._render_explanation()
            self._sync()

    def explanation_text(self):
        return self.explanation.toPlainText()

    def set_theme(self, theme):
        """A new palette or scale (the window calls this for every dock)."""
        self.theme = theme
        self._style = Style(theme)
        self.model.set_theme(theme)
        self.step_list.apply_theme(theme)
        self.gradcheck.model.theme = theme
        self.legend.setText(self._legend_html())
        self.legend.show()  # a new scale: the stripes' key is back until the += lines need its room
        self.phase_label.setToolTip(PHASE_TIP)
        self._sync()
        self._render_explanation()

    # -- building ----------------------------------------------------------------------

    def _build(self):
        ctrl = self.controller
        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 4, 6, 4)
        outer.setSpacing(4)

        bar = QToolBar("Debug")  # overflows into a » menu when the dock is narrow
        bar.setToolButtonStyle(Qt.ToolButtonTextOnly)
        bar.setMovable(False)
        bar.setFloatable(False)
        self.phase_label = QLabel()
        self.phase_label.setTextFormat(Qt.RichText)
        self.phase_label.setToolTip(PHASE_TIP)
        bar.addWidget(self.phase_label)
        bar.addSeparator()
        self.buttons = {}
        for key in ("reset", "step back", "step", "run to end", "run to selected", "play"):
            bar.addWidget(self._button(key))
        self.speed = QSlider(Qt.Horizontal)
        self.speed.setRange(1, 20)
        self.speed.setValue(round(ctrl.speed))
        self.speed.setFixedWidth(90)
        self.speed.setToolTip("Play speed: steps per second")
        self.speed.valueChanged.connect(self._speed_changed)
        self.speed_label = QLabel()
        bar.addWidget(self.speed)
        bar.addWidget(self.speed_label)
        bar.addSeparator()
        for key in ("forward step", "forward all"):
            bar.addWidget(self._button(key))
        bar.addSeparator()
        bar.addWidget(self._button("quiz"))
        self._hint_slot = bar.addWidget(self._button("hint"))  # a toolbar hides its widgets through this
        bar.addWidget(self._button("stop"))
        outer.addWidget(bar)

        line = QHBoxLayout()
        self.timeline = QSlider(Qt.Horizontal)
        self.timeline.setToolTip("Scrub to any step of the backward pass")
        self.timeline.setPageStep(1)
        self.timeline.valueChanged.connect(self._timeline_moved)
        self.position_label = QLabel()
        # fixed size: a label whose text changes every step must not re-lay out the window
        fm = self.position_label.fontMetrics()
        self.position_label.setFixedSize(fm.horizontalAdvance("step 00000 / 00000") + 8, fm.height() + 4)
        line.addWidget(QLabel("Timeline"))
        line.addWidget(self.timeline, 1)
        line.addWidget(self.position_label)
        # the quiz's score, in view while Quiz Mode is on (it used to be kept where nobody saw it)
        self.quiz_score_label = QLabel()
        self.quiz_score_label.setToolTip("Quiz Mode: predictions right of those checked, since it was turned on")
        self.quiz_score_label.hide()
        line.addWidget(self.quiz_score_label)
        outer.addLayout(line)
        self._fit_timer = QTimer(self)
        self._fit_timer.setSingleShot(True)
        self._fit_timer.setInterval(0)
        self._fit_timer.timeout.connect(self.fit_explanation)
        self._seek_timer = QTimer(self)  # a drag's many values settle into one seek
        self._seek_timer.setSingleShot(True)
        self._seek_timer.setInterval(0)
        self._seek_timer.timeout.connect(lambda: ctrl.seek(self.timeline.value()))

        split = QSplitter(Qt.Horizontal)
        self.model = StepListModel(ctrl, self.theme, self)
        self.step_list = StepListView(self.model)
        self.step_list.clicked.connect(self._row_clicked)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.step_list, "Steps")
        # scrolled, so that their options never make the dock taller than the canvas can spare
        self.tabs.addTab(_scrolled(self._build_breaks()), "Breakpoints")
        self.gradcheck = GradcheckView(ctrl, self.theme)
        self.tabs.addTab(_scrolled(self.gradcheck), "Gradient check")
        split.addWidget(self.tabs)

        middle = QWidget()
        mid = QVBoxLayout(middle)
        mid.setContentsMargins(0, 0, 0, 0)
        self.explanation = QTextBrowser()
        self.explanation.setOpenLinks(False)
        self.explanation.anchorClicked.connect(self._link)
        self.explanation.setFrameShape(QFrame.StyledPanel)
        # a scroll bar that came and went with the text's length re-laid out the dock each step
        self.explanation.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOn)
        self.explanation.setVerticalScrollBar(CachedScrollBar(Qt.Vertical))
        self.explanation.viewport().installEventFilter(self)  # narrower or shorter: fit again
        mid.addWidget(self.explanation, 1)
        self.quiz_box = QWidget()
        quiz = QHBoxLayout(self.quiz_box)
        quiz.setContentsMargins(0, 0, 0, 0)
        self.quiz_edit = QLineEdit()
        self.quiz_edit.setPlaceholderText("your prediction, e.g. 3 or -0.5")
        self.quiz_edit.returnPressed.connect(self._check_answer)
        check = QPushButton("Check")
        check.clicked.connect(self._check_answer)
        reveal = QPushButton("Reveal")
        reveal.clicked.connect(ctrl.reveal_quiz)
        self.quiz_prompt = QLabel()
        quiz.addWidget(self.quiz_prompt)
        quiz.addWidget(self.quiz_edit, 1)
        quiz.addWidget(check)
        quiz.addWidget(reveal)
        mid.addWidget(self.quiz_box)
        split.addWidget(middle)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 5)
        split.setSizes([440, 1000])
        outer.addWidget(split, 1)

        self.legend = QLabel(self._legend_html())
        self.legend.setTextFormat(Qt.RichText)
        self.legend.setWordWrap(True)
        outer.addWidget(self.legend)

    def _button(self, key):
        button = QToolButton()
        button.setDefaultAction(self.actions[key])
        button.setToolButtonStyle(Qt.ToolButtonTextOnly)
        if key == "step":
            font = button.font()
            font.setBold(True)
            button.setFont(font)
        self.buttons[key] = button
        return button

    def _build_breaks(self):
        ctrl = self.controller
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(8, 6, 8, 6)
        hint = QLabel(
            "A run (F5, Play, Run to Selected) stops <b>before</b> a node with a breakpoint "
            "(F9 or right-click a node), or after a step that:"
        )
        hint.setWordWrap(True)
        layout.addWidget(hint)
        self.nonfinite_check = QCheckBox("makes a grad inf or nan")
        self.nonfinite_check.setChecked(ctrl.break_on_nonfinite)
        self.nonfinite_check.toggled.connect(ctrl.set_break_on_nonfinite)
        layout.addWidget(self.nonfinite_check)
        row = QHBoxLayout()
        self.threshold_check = QCheckBox("makes |grad| larger than")
        self.threshold_spin = QDoubleSpinBox()
        self.threshold_spin.setRange(0.0, 1e12)
        self.threshold_spin.setDecimals(3)
        self.threshold_spin.setValue(10.0)
        self.threshold_spin.setToolTip("Stop a run when any |grad| exceeds this")
        self.threshold_check.toggled.connect(self._threshold_changed)
        self.threshold_spin.valueChanged.connect(self._threshold_changed)
        row.addWidget(self.threshold_check)
        row.addWidget(self.threshold_spin)
        layout.addLayout(row)
        self.relu_check = QCheckBox("is about to run a dead ReLU")
        self.relu_check.setToolTip("A ReLU whose input is ≤ 0 passes no gradient back")
        self.relu_check.toggled.connect(ctrl.set_break_on_dead_relu)
        layout.addWidget(self.relu_check)
        self.follow_check = QCheckBox("Scroll the graph to follow each step")
        self.follow_check.setChecked(ctrl.follow)
        self.follow_check.toggled.connect(lambda on: setattr(ctrl, "follow", on))
        layout.addWidget(self.follow_check)
        layout.addWidget(self._button("toggle breakpoint"))
        self.breakpoints_label = QLabel()
        self.breakpoints_label.setWordWrap(True)
        layout.addWidget(self.breakpoints_label)
        layout.addStretch(1)
        return page

    def _legend_html(self):
        t = self.theme

        def swatch(role, text):
            return f"<span style='color:{t.color(role).name()}; font-size:15px'>■</span>&nbsp;{text}&nbsp;&nbsp;&nbsp;"

        return (
            "<span style='color:gray'>stripe:</span>&nbsp; "
            + swatch("status_untouched", "untouched (no gradient yet)")
            + swatch("status_partial", "partial (some uses have passed theirs back)")
            + swatch("status_final", "final (every use has)")
            + swatch(
                "highlight",
                "this step: the node running _backward, the grads it adds to (+=) and the wires carrying gradient",
            )
            + swatch("nonfinite", "● breakpoint")
        )

    # -- following the controller ------------------------------------------------------

    def _sync(self):
        ctrl = self.controller
        if ctrl.stepper is not self._plan:
            self._plan = ctrl.stepper
            self.model.reload()
            self._render_explanation()  # a new plan: "nothing to step yet" no longer holds
        elif ctrl.phase == IDLE:
            self._render_explanation()  # the grads on the canvas may have changed (Zero Grads)
        total, position = ctrl.total, ctrl.position
        self._syncing = True
        try:
            self.timeline.setRange(0, total)
            self.timeline.setValue(position)
        finally:
            self._syncing = False
        self.model.set_position(position)
        self.position_label.setText(f"step {position} / {total}" if ctrl.phase == BACKWARD else f"— / {total} steps")
        self.phase_label.setText(self._phase_html())
        has = ctrl.stepper is not None
        backward = ctrl.phase == BACKWARD
        done = backward and ctrl.stepper.done
        for key in (
            "step",
            "run to end",
            "play",
            "run to selected",
            "forward step",
            "forward all",
            "reset",
            "toggle breakpoint",
        ):
            self.actions[key].setEnabled(has)
        # F10 stays live at the end, so pressing it says the pass is done (a dead key said nothing)
        self.actions["run to end"].setEnabled(has and not done)
        self.actions["step back"].setEnabled(
            has and ((backward and position > 0) or (ctrl.phase == FORWARD and ctrl.forward_stepper.position > 0))
        )
        self.actions["forward back"].setEnabled(ctrl.phase == FORWARD)
        self.actions["stop"].setEnabled(ctrl.phase != "idle")
        play = self.actions["play"]
        play.blockSignals(True)
        play.setChecked(ctrl.playing)
        play.setText("⏸ Pause" if ctrl.playing else "▶ Play")
        play.blockSignals(False)
        self.speed_label.setText(f"{ctrl.speed:g}/s")
        replay = getattr(ctrl.stepper, "replay", None)
        climbable = replay is not None and bool(replay.fault) and replay.hints_shown < 4
        self._hint_slot.setVisible(replay is not None and bool(replay.fault))
        self.actions["hint"].setEnabled(climbable)
        question = ctrl.quiz_question()
        asked = bool(question) and not self.quiz_box.isVisible()
        self.quiz_box.setVisible(bool(question))
        if asked and self.isVisible():  # the answer is typed at once: no click into the box first
            self.quiz_edit.setFocus(Qt.OtherFocusReason)
        self.quiz_prompt.setText("Your prediction:")
        self._show_quiz_score()
        names = sorted(self.session.doc.nodes[n].label or n for n in ctrl.breakpoint_ids if n in self.session.doc.nodes)
        self.breakpoints_label.setText("Breakpoints: " + (", ".join(names) if names else "none"))
        if self.gradcheck.model.checks and not has:
            self.gradcheck.clear()

    def run_gradient_check(self):
        """Ctrl+Shift+K: the Gradient check tab, run now."""
        self.tabs.setCurrentWidget(self.tabs.widget(self.tabs.count() - 1))
        return self.gradcheck.run()

    def _show_quiz_score(self):
        on = self.actions["quiz"].isChecked()
        self.quiz_score_label.setVisible(on)
        if on:
            right, asked = self.controller.quiz_score
            self.quiz_score_label.setText(f"<b>Quiz: {right} of {asked} right</b>")

    def _phase_html(self):
        ctrl = self.controller
        s = self._style

        def chip(text, on, done=False):
            if on:
                return f"<span style='background-color:{s.highlight}; font-weight:bold'>&nbsp;{text}&nbsp;</span>"
            color = s.good if done else s.muted
            return f"<span style='color:{color}'>&nbsp;{text}{' ✓' if done else ''}&nbsp;</span>"

        forward_done = ctrl.phase == BACKWARD or (ctrl.phase == FORWARD and ctrl.forward_stepper.done)
        backward_done = ctrl.phase == BACKWARD and ctrl.stepper.done
        return (
            chip("1 Forward", ctrl.phase == FORWARD, forward_done and ctrl.phase != FORWARD)
            + " ▸ "
            + chip("2 Backward", ctrl.phase == BACKWARD and not backward_done, backward_done)
        )

    def _render_explanation(self):
        self.explanation.setHtml(describe(self.controller, self._style))
        self.explanation.verticalScrollBar().setValue(0)  # the step's += lines are at the top
        self._fit_timer.start()  # once the layout has settled: the += lines must show whole

    def eventFilter(self, watched, event):
        if event.type() == QEvent.Resize and watched is self.explanation.viewport():
            self._fit_timer.start()
        return False

    def head_height(self):
        """Pixels the explanation needs to show the step's title and its `+=` lines
        whole at the pane's width (0 when no step is shown)."""
        head = describe_head(self.controller, self._style)
        if head is None:
            return 0
        shown = self.explanation.document()
        doc = QTextDocument()
        doc.setDefaultFont(shown.defaultFont())
        doc.setDefaultStyleSheet(shown.defaultStyleSheet())
        doc.setDocumentMargin(shown.documentMargin())
        doc.setTextWidth(self.explanation.viewport().width())
        doc.setHtml(head)
        return int(doc.size().height()) + 2

    def fit_explanation(self):
        """Give the explanation the room its `+=` lines need (the dock grows, up to half
        the window): at 2x a ~91 px pane showed 13-24 % of them."""
        need = self.head_height()
        have = self.explanation.viewport().height()
        if need:
            self.explanation.verticalScrollBar().setValue(0)
        dock, window = self.parentWidget(), self.window()
        if need <= have or not isinstance(dock, QDockWidget) or dock.isFloating() or window is self:
            return False
        wanted = dock.height() + need - have
        most = int(window.height() * 0.55)
        if wanted > most and self.legend.isVisible():  # at 3x: the stripes' key gives its lines
            self.legend.hide()
            self.phase_label.setToolTip(self.legend.text())
            wanted -= self.legend.height() + 4
        target = min(wanted, most)
        if target <= dock.height():
            return False
        window.resizeDocks([dock], [target], Qt.Vertical)
        return True

    def _on_stepped(self, record):
        self._render_explanation()
        ctrl = self.controller
        if ctrl.phase == BACKWARD and ctrl.position:
            self.step_list.show_row(ctrl.position - 1)
        self.stepped.emit(record)

    def _on_current_changed(self, nid):
        self.step_list.select_row(self.controller.row_of(nid) if nid is not None else None)

    # -- gestures ------------------------------------------------------------------------

    def _link(self, url):
        action = {"debug:reset": self.controller.reset, "debug:forward": self.controller.forward_reset}.get(
            url.toString()
        )
        if action is not None:
            action()

    def _row_clicked(self, index):
        row = index.row()
        node = self.model.node(row)
        if node is None:
            return
        self.controller.seek(row + 1)
        nid = self.controller.nid(node)
        if self.scene is not None:
            self.scene.selection.select_node(nid)
        else:
            self.session.select(nid)

    def _timeline_moved(self, value):
        if not self._syncing:
            self._seek_timer.start()

    def _speed_changed(self, value):
        self.controller.set_speed(value)
        self.speed_label.setText(f"{value}/s")

    def _threshold_changed(self, *_):
        on = self.threshold_check.isChecked()
        self.controller.set_grad_threshold(self.threshold_spin.value() if on else None)

    def _check_answer(self):
        text = self.quiz_edit.text()
        if self.controller.answer_quiz(text) is not None:
            self.quiz_edit.clear()

    def _node_menu(self, menu, nid):
        ctrl = self.controller
        node = self.session.doc.nodes.get(nid)
        if node is None:
            return
        if node.kind == "op":
            on = nid in ctrl.breakpoint_ids
            menu.addAction(
                "Remove Breakpoint" if on else "Add Breakpoint (F9)", lambda: ctrl.set_breakpoint(nid, not on)
            )
        menu.addAction("Run to Here (Ctrl+F10)", lambda: ctrl.run_to(nid))

    def hideEvent(self, event):
        self.controller.pause()
        super().hideEvent(event)


class CachedScrollBar(QScrollBar):
    """A scroll bar that keeps the pictures of the last few states it drew.

    The explanation's text is replaced on every step, which resets its scroll bar
    (the range goes to 0 and back) and repaints it; Fusion takes 1.3-3 ms to draw
    one, as long as a whole canvas update. The states repeat (text that fits, text
    that overflows by so much), so most repaints are a copy. While the mouse is
    over it or it is being dragged, it is drawn as usual (hover and press looks).
    """

    KEEP = 16  # states remembered

    def __init__(self, orientation, parent=None):
        super().__init__(orientation, parent)
        self._pictures = {}

    def paintEvent(self, event):
        if self.underMouse() or self.isSliderDown():
            super().paintEvent(event)
            return
        option = QStyleOptionSlider()
        self.initStyleOption(option)
        option.subControls = QStyle.SC_All  # what QScrollBar.paintEvent draws
        option.activeSubControls = QStyle.SC_None
        ratio = self.devicePixelRatioF()
        key = (
            option.minimum,
            option.maximum,
            option.sliderPosition,
            option.pageStep,
            int(option.state.value),
            self.width(),
            self.height(),
            ratio,
            self.palette().cacheKey(),
            self.style().name(),
        )
        picture = self._pictures.get(key)
        if picture is None:
            if len(self._pictures) >= self.KEEP:
                self._pictures.clear()
            picture = QPixmap(round(self.width() * ratio), round(self.height() * ratio))
            picture.setDevicePixelRatio(ratio)
            picture.fill(Qt.transparent)
            painter = QPainter(picture)
            self.style().drawComplexControl(QStyle.CC_ScrollBar, option, painter, self)
            painter.end()
            self._pictures[key] = picture
        painter = QPainter(self)
        painter.drawPixmap(0, 0, picture)
        painter.end()


def _scrolled(widget):
    """widget in a frameless scroll area: the dock may be shorter than its contents."""
    area = QScrollArea()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.NoFrame)
    # wrap to the tab's width instead: a sideways scroll cut the breakpoint help mid-line
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
    return area
