"""The debugger in the window: a Qt adapter over core's headless DebugSession.

Every decision -- phases, which step runs, where a run stops, breakpoints and
break options, quiz grading, when an edit ends the session -- is made by
`core.debugger.session.DebugSession`, which is tested without Qt. This
controller only does what needs Qt:

* it forwards gestures to the session and turns each returned `Move` into the
  smallest change on the canvas (app/debugger/canvas.py does the drawing): a
  step touches only the node ids the Move names; a long jump (a start, a seek
  over many steps, stopping) redraws everything, in chunks;
* it plays: a QTimer asks the session for one beat of play at a time;
* it follows the GraphSession: the document's events and each new compile go
  to the DebugSession, and its verdicts come back out as signals (`ended`,
  `message`, `renamed`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.debugger.canvas import BACKWARD, FORWARD, IDLE, CanvasSync
from core.debugger.session import DebugSession, Move

if TYPE_CHECKING:
    from core.debugger.foreign_replay import ForeignReplay
    from core.debugger.forward_stepper import ForwardRecord
    from core.debugger.stepper import StepRecord
    from core.engine import Value

FULL_REFRESH = 300  # a move touching more nodes than this redraws all of them

__all__ = ["BACKWARD", "FORWARD", "IDLE", "DebuggerController"]


class DebuggerController(QObject):
    stepped = Signal(object)  # after every move: the StepRecord / ForwardRecord shown, or None
    stateChanged = Signal()  # phase, plan, options or quiz changed
    ended = Signal(str)  # the debug session ended, and why
    message = Signal(str)  # a one-line note for the status bar
    quizAnswered = Signal(bool, str)  # (right?, feedback)
    renamed = Signal()  # a label changed: texts naming nodes are stale

    def __init__(self, session: Any, scene: Any = None, view: Any = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session, self.scene, self.view = session, scene, view
        self.debug = DebugSession(session.doc)
        self.follow = True  # scroll the current node into view
        self.speed = 3.0  # steps per second while playing
        self._play = QTimer(self)
        self._play.timeout.connect(self._tick)
        self.canvas = CanvasSync(self)
        session.recompiled.connect(self._on_recompiled)
        session.gradsChanged.connect(self._on_grads_changed)
        session.doc.changed.connect(self._on_doc_changed)
        self._apply(self.debug.load(session.compiled))

    # -- reading (the session's state) --------------------------------------------------
    # phase, stepper, position, name(value) ...: the names in READS are read from the
    # DebugSession itself (see the end of this module), never written out here again

    @property
    def playing(self) -> bool:
        return self._play.isActive()

    @property
    def refreshing(self) -> bool:
        """True while a long jump's redraw of off-screen nodes is still going on."""
        return self.canvas.refreshing

    # -- a learner's engine ---------------------------------------------------------------

    def load_replay(self, replay: ForeignReplay) -> bool:
        """Step a learner's recorded backward pass (core/debugger/foreign_replay.py) on
        the graph shown: True if it fits that graph, else False and the status bar says why."""
        return self._apply(self.debug.load(self.session.compiled, replay=replay)).ok

    # -- backward ------------------------------------------------------------------

    def reset(self) -> bool:
        """Start (or restart) the backward pass: every grad 0, the output's grad 1, step 0."""
        return self._apply(self.debug.start()).ok

    def step(self) -> StepRecord | None:
        """Run exactly one `_backward` call (starting the backward pass if needed)."""
        return _first(self._apply(self.debug.step()).records)

    def step_or_start(self) -> StepRecord | bool:
        """What F10 does: one step per press (see DebugSession.step_or_start)."""
        move = self._apply(self.debug.step_or_start())
        return _first(move.records) if move.records else move.ok

    def step_back(self) -> StepRecord | Value | None:
        move = self._apply(self.debug.step_back())
        record = _first(move.records)
        return record.node if record is not None and self.phase == FORWARD else record

    def seek(self, position: int) -> bool:
        """Go to step `position` (0 .. total) directly: the timeline and the step list."""
        return self._apply(self.debug.seek(position)).ok

    def run_to_end(self) -> Sequence[StepRecord | ForwardRecord]:
        """Run every remaining step, stopping at a breakpoint or a break condition."""
        return self._apply(self.debug.run_to_end()).records or []

    def run_to(self, nid: str | None = None) -> Sequence[StepRecord | ForwardRecord]:
        """Run until node nid (default: the selected one) is next -- or, for a leaf,
        until its grad is final. A node already passed is sought back to."""
        nid = self.session.current_id if nid is None else nid
        return self._apply(self.debug.run_to(nid)).records or []

    # -- playing -----------------------------------------------------------------------

    def play(self) -> bool:
        """Step on a timer (`speed` steps a second) until paused, done or stopped."""
        move = self._apply(self.debug.play())
        if not move.ok:
            return False
        self._play.start(max(15, round(1000 / self.speed)))
        self.stateChanged.emit()
        return True

    def pause(self) -> None:
        if self._play.isActive():
            self._play.stop()
            self.stateChanged.emit()

    def toggle_play(self) -> None:
        self.pause() if self.playing else self.play()

    def set_speed(self, steps_per_second: float) -> None:
        self.speed = max(0.25, float(steps_per_second))
        if self._play.isActive():
            self._play.setInterval(max(15, round(1000 / self.speed)))

    def _tick(self) -> None:
        move = self.debug.play_step()
        if not move.go_on:
            self.pause()
        if move.moved:  # a beat that waits for a quiz answer changes nothing
            self._apply(move)

    # -- forward ---------------------------------------------------------------------

    def forward_reset(self) -> bool:
        """Start the forward pass: leaves known, every op node '?' until computed."""
        self.pause()
        return self._apply(self.debug.forward_start()).ok

    def forward_step(self) -> ForwardRecord | None:
        """Compute the next node of the forward pass (starting it if needed)."""
        self.pause()
        return _first(self._apply(self.debug.forward_step()).records)

    def forward_step_or_start(self) -> ForwardRecord | bool:
        """What F7 does: start the forward pass the first time, then one node per press."""
        self.pause()
        move = self._apply(self.debug.forward_step_or_start())
        return _first(move.records) if move.records else move.ok

    def forward_step_back(self) -> Value | None:
        record = _first(self._apply(self.debug.forward_step_back()).records)
        return record.node if record is not None else None

    def forward_all(self) -> list[StepRecord | ForwardRecord]:
        """Compute every remaining node of the forward pass."""
        self.pause()
        return list(self._apply(self.debug.forward_all()).records)

    # -- ending ----------------------------------------------------------------------

    def stop(self) -> None:
        """End debugging: the graph shows a full backward pass again, redrawn in
        chunks like after any long jump, not all 5,000 nodes in one go."""
        was_stepping = self.phase != IDLE
        move = self.debug.stop()
        if was_stepping:
            self.session.grads_shown = "full"  # the stepper ran its remaining steps
        self._apply(move)

    # -- breakpoints and break conditions ---------------------------------------------

    def toggle_breakpoint(self, nid: str | None = None) -> bool:
        nid = self.session.current_id if nid is None else nid
        return self._apply(self.debug.toggle_breakpoint(nid)).ok

    def set_breakpoint(self, nid: str, on: bool = True) -> bool:
        return self._apply(self.debug.set_breakpoint(nid, on)).ok

    def set_break_on_nonfinite(self, on: bool) -> None:
        self.debug.set_break_on_nonfinite(on)

    def set_grad_threshold(self, threshold: float | None) -> None:
        """Stop a run when a step makes any |grad| exceed threshold (None: never)."""
        self.debug.set_grad_threshold(threshold)

    def set_break_on_dead_relu(self, on: bool) -> None:
        self.debug.set_break_on_dead_relu(on)

    # -- quiz ----------------------------------------------------------------------------

    def set_quiz_mode(self, on: bool) -> None:
        """While on, each single step hides its operands' new grads until answered."""
        self._apply(self.debug.set_quiz_mode(on))

    def answer_quiz(self, text: str) -> bool | None:
        """Check a prediction for the first hidden grad: True / False, None if not a number."""
        move = self._apply(self.debug.answer_quiz(text))
        if move.answer is None:
            return None
        ok, feedback = move.answer
        self.quizAnswered.emit(ok, feedback)
        return ok

    def reveal_quiz(self) -> None:
        """Show every hidden grad without an answer."""
        self._apply(self.debug.reveal_quiz())

    # -- following the session ---------------------------------------------------------

    def _on_doc_changed(self, event: str, *details: Any) -> None:
        if self.debug.document_changed(event, *details):
            self.renamed.emit()
            self.stateChanged.emit()

    def _on_recompiled(self) -> None:
        self._apply(self.debug.load(self.session.compiled))

    def _on_grads_changed(self, ids: Any) -> None:
        if self.canvas.notifying or ids is not None:
            return
        if self.phase == IDLE:
            self.stateChanged.emit()  # the idle text says what the grads on the canvas are
            return
        self._apply(self.debug.grads_changed_elsewhere())

    # -- a Move on the canvas (app/debugger/canvas.py does the drawing) -------------------

    def _apply(self, move: Move) -> Move:
        """Show what a move of the DebugSession changed, at the cost of what it changed."""
        if not move.ok:  # refused before anything changed
            if move.message:
                self.message.emit(move.message)
            return move
        canvas = self.canvas
        if move.started == IDLE:
            self._play.stop()
            if move.new_plan or self.stepper is None:
                canvas.clear()  # a new compile: every mark of the old one goes at once
            else:
                canvas.leave()  # debugging stopped on the same graph: redrawn in chunks
            canvas.breakpoints(self.breakpoint_ids)
        elif move.started == BACKWARD:
            canvas.pin_grad_scale(self.debug.grad_max)
            canvas.redraw_all(BACKWARD)  # also takes off the forward pass's '?'
        elif move.started == FORWARD:
            canvas.hold_grad_scale()
            canvas.redraw_all(FORWARD)
        else:
            canvas.breakpoints(self.breakpoint_ids)
        if move.touched and self.stepper is not None:
            if len(move.touched) > FULL_REFRESH:
                canvas.redraw_all(self.phase)
            else:
                canvas.changed(move.touched)
        if move.moved:
            self._show()
        else:
            self.stateChanged.emit()
        if move.ended:
            self.ended.emit(move.ended)
        if move.message:
            self.message.emit(move.message)
        return move

    def _show(self) -> None:
        debug = self.debug
        record: StepRecord | ForwardRecord | None = None
        if debug.phase == FORWARD:
            record = debug.last_forward
            self.canvas.show_forward(record)
        elif debug.phase == BACKWARD and debug.stepper is not None:
            record = debug.last_record
            if record is None:
                self.canvas.show_start(debug.stepper.root)
            else:
                self.canvas.show_step(record, debug.quiz_hidden())
        self.stateChanged.emit()
        self.stepped.emit(record)


def _first(records: Any) -> Any:
    return records[0] if records else None


# What the controller reads from its DebugSession, by name: one property each, made here,
# so that the session's state has one API (DebugSession) and the controller adds only the
# moves that change the canvas.
READS = (
    "phase",
    "stepper",
    "forward_stepper",
    "last_record",
    "last_forward",
    "stop_reason",
    "shown_stop_reason",
    "notice",
    "breakpoint_ids",
    "break_on_nonfinite",
    "quiz_score",
    "quiz_feedback",
    "position",
    "total",
    "nid",
    "name",
    "formula",
    "row_of",
    "quiz_hidden",
    "quiz_question",
)


def _read(name: str) -> property:
    """A property reading `name` from the controller's DebugSession."""
    return property(lambda self: getattr(self.debug, name), doc=f"DebugSession.{name}")


for _name in READS:
    setattr(DebuggerController, _name, _read(_name))
