"""A debugging session without a window: everything the debugger decides.

The steppers (stepper.py, forward_stepper.py) know how to take one step. A
`DebugSession` decides which step to take and when to stop, for one graph the
user is editing:

    phase         'idle'      the graph shows a full backward pass; the stepper
                              is only a plan (its order and names), no grad touched
                  'forward'   nodes are computed one at a time, operands first;
                              the rest are not known yet
                  'backward'  grads flow back one `_backward` call at a time
    breakpoints   by node id, because ids outlive a recompile and Values do not;
                  a run stops *before* a node with a breakpoint
    break options a run also stops after a step that makes a grad inf or nan, or
                  one larger than `grad_threshold`, or before a ReLU whose
                  input is <= 0 (a "dead" ReLU: no gradient flows through it)
    quiz          after each single step the operands' new grads are hidden
                  until the learner predicts them (`answer_quiz`) or gives up
                  (`reveal_quiz`), graded against the chain rule: the session
                  owns a `StepQuiz` (core/debugger/quiz.py) and hands it each step

Any edit of the document ends a session: the Values the steppers hold belong to
the old compile. Tell the session about every document event
(`document_changed`) and hand it every new compile (`load`); it works out
whether only a leaf's value changed (and says so) or the graph did.

Every move returns a `Move`: plain data saying what changed -- which node ids
may look different now (their grads, their status, a hidden quiz grad), which
record to show, a note for the status bar -- so that a view redraws exactly
that and decides nothing itself. No move ever calls `_backward` except through
a stepper.

A session in a test, without any window:

    session = DebugSession(doc, compile_document(doc))
    session.toggle_breakpoint("n4")
    session.run_to_end()      # stops before n4's step
    session.stop_reason       # 'breakpoint at (x·y)'
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from core.debugger.foreign_replay import ForeignReplay
from core.debugger.forward_stepper import ForwardRecord, ForwardStepper
from core.debugger.quiz import QUIZ_ASKS, StepQuiz, read_guess
from core.debugger.step_names import display_names
from core.debugger.step_names import formula as _formula
from core.debugger.stepper import BackwardStepper, StepRecord
from core.document.compile import Compiled
from core.document.graph import GraphDocument
from core.engine import Value
from core.format import format_number

IDLE, FORWARD, BACKWARD = "idle", "forward", "backward"

NOTHING_TO_STEP = "Nothing to step: the graph needs one output node with every input wired."
ALL_STEPS_RUN = "The backward pass is done: every step has run. Step back, scrub the timeline, or Reset."
PASS_DONE = "That was the last step: the backward pass is done and every grad is final."
FORWARD_DONE = "The forward pass is done: press F10 for the backward pass."
SELECT_A_NODE = "Select a node of the output's graph first, then Run to Selected."
SELECT_AN_OP = "Select an op node first, then F9 toggles a breakpoint on it."
NO_LEAF_BREAKPOINTS = (
    "A breakpoint stops a run before a node's _backward, and a leaf has none. "
    "Select the leaf and use Run to Selected to run until its grad is final."
)
GRAPH_CHANGED = "The graph changed, so the debugger was reset."
GRADS_CHANGED = "The grads were changed outside the debugger (Backward or Zero Grads), so the debugger was reset."


# -----------------------------------------------------------------------------
# What a move changed


REPLAY_DOES_NOT_FIT = "Your engine's recorded backward pass is for another graph: it is not stepped on this one."


class Move:
    """What one move of the debugger changed: what a view redraws, and what it says.

    ok        the move was made (False: refused, and `message` may say why)
    moved     what the debugger shows changed: show the state anew
    record    the StepRecord / ForwardRecord to show after the move (None at a start)
    records   the records of the steps this move ran or undid (a run's are built
              only when read)
    touched   node ids whose look may have changed: their grads or data, their
              status (untouched / partial / final), a quiz grad hidden or shown
    started   the phase a pass (re)started in, when every node's look changed:
              'backward', 'forward' or 'idle' (debugging stopped); '' otherwise
    new_plan  the plan was rebuilt for a new compile: marks of the old one go
    ended     why the debug session ended ('' if it did not)
    message   a one-line note for the status bar ('' for none)
    answer    (right?, feedback) after a quiz answer, else None
    go_on     after a beat of play: whether playing goes on
    """

    __slots__ = (
        "ok",
        "moved",
        "record",
        "records",
        "touched",
        "started",
        "new_plan",
        "ended",
        "message",
        "answer",
        "go_on",
    )

    def __init__(
        self,
        moved: bool = True,
        record: StepRecord | ForwardRecord | None = None,
        records: Sequence[StepRecord | ForwardRecord] = (),
        touched: Iterable[str] = (),
        started: str = "",
        new_plan: bool = False,
        ended: str = "",
        message: str = "",
        answer: tuple[bool, str] | None = None,
        go_on: bool = False,
        ok: bool = True,
    ) -> None:
        self.ok = ok
        self.moved = moved
        self.record = record
        self.records = records
        self.touched = set(touched)
        self.started = started
        self.new_plan = new_plan
        self.ended = ended
        self.message = message
        self.answer = answer
        self.go_on = go_on

    def __repr__(self) -> str:
        return (
            f"Move(ok={self.ok}, moved={self.moved}, record={self.record!r}, touched={sorted(self.touched)}, "
            f"started={self.started!r}, message={self.message!r})"
        )


def _refused(message: str = "") -> Move:
    return Move(ok=False, moved=False, message=message)


# -----------------------------------------------------------------------------
# The session


class DebugSession:
    """The debugger's state and decisions for one document (see the module docstring).

    `doc` is the GraphDocument being edited; `compiled` its compile (or None).
    """

    def __init__(
        self, doc: GraphDocument, compiled: Compiled | None = None, names: Mapping[Value, str] | None = None
    ) -> None:
        """`names`: what to call each Value, given (a big graph's, core/scopes/debug.py) instead of
        worked out from the document; a compile with a `topo` list is stepped in that order."""
        self.doc = doc
        self._given_names = names
        self.compiled: Compiled | None = None
        self.phase = IDLE
        self.stepper: BackwardStepper | None = None  # of the output (a plan while idle)
        self.forward_stepper: ForwardStepper | None = None
        self.last_record: StepRecord | None = None  # the StepRecord shown (None: at step 0)
        self.last_forward: ForwardRecord | None = None  # the ForwardRecord shown
        self.stop_reason = ""  # why the last run stopped
        self.notice = ""  # why the last session ended
        self.grad_max: float | None = None  # largest finite |grad| of the finished pass (see start)
        self.breakpoint_ids: set[str] = set()
        self.break_on_nonfinite = True
        self.grad_threshold: float | None = None
        self.break_on_dead_relu = False
        self.quiz = StepQuiz()  # the predict-the-grad quiz (core/debugger/quiz.py)
        self._play_first = False  # the next beat of play is its first
        self._names: dict[Value, str] = {}  # shared with the steppers
        self._nid: dict[Value, str] = {}  # {Value: node id}
        self._in_graph: set[Value] | None = None  # the Values the output depends on, when first asked
        self._edits: dict[str, str | None] = {}  # kind -> node id, the document edits since the last compile
        # a learner's recorded pass (core/debugger/foreign_replay.py): load(compiled, replay)
        self.replay: ForeignReplay | None = None
        self.load(compiled)

    # -- reading -----------------------------------------------------------------------

    @property
    def position(self) -> int:
        """The backward step shown (0 before the first and whenever not stepping backward)."""
        return self.stepper.position if self.stepper is not None and self.phase == BACKWARD else 0

    @property
    def total(self) -> int:
        return len(self.stepper.order) if self.stepper is not None else 0

    def nid(self, value: Value) -> str | None:
        """The node id of a Value of the current compile (None if it has none)."""
        return self._nid.get(value)

    def value(self, nid: str) -> Value | None:
        """The Value of node nid in the current compile (None if it was not computed)."""
        return self.compiled.values.get(nid) if self.compiled is not None else None

    def name(self, value: Value) -> str:
        return self.stepper.name(value) if self.stepper is not None else ""

    def formula(self, value: Value) -> str:
        return _formula(self.stepper, value) if self.stepper is not None else ""

    def row_of(self, nid: str) -> int | None:
        """The index of node nid's step (None for a leaf or an unknown id)."""
        value = self.value(nid)
        if value is None or self.stepper is None:
            return None
        return self.stepper.step_index(value)

    def ids_of(self, values: Iterable[Value]) -> list[str]:
        """The node ids of these Values, in their order (Values of no node left out)."""
        nid = self._nid
        return [nid[v] for v in values if v in nid]

    def concealed(self, nid: str) -> dict[str, str]:
        """Why node nid's numbers must not be shown now: {} when they may, else
        {'grad': why} or {'grad': why, 'data': why}. A view (the inspector) that
        shows numbers hides what the canvas hides, and says why."""
        value = self.value(nid)
        if value is None or self.stepper is None or value not in self._graph():
            return {}
        if self.phase == FORWARD:
            if not self._forward_stepper().computed(value):
                reason = "the forward pass has not computed it yet"
                return {"grad": reason, "data": reason}
            return {"grad": "the backward pass comes after the forward pass"}
        if value in self.quiz.pending:
            return {"grad": "quiz: predict it in the debugger"}
        return {}

    def _backward_stepper(self) -> BackwardStepper:
        """The stepper, for a move that has made sure there is one (a graph to step)."""
        if self.stepper is None:
            raise RuntimeError("the debugger has no graph to step: the move should have been refused")
        return self.stepper

    def _forward_stepper(self) -> ForwardStepper:
        """The forward stepper, in the forward pass (which makes one)."""
        if self.forward_stepper is None:
            raise RuntimeError("the forward pass has not started: the move should have started it")
        return self.forward_stepper

    def _ids(self, values):
        nid = self._nid
        return {nid[v] for v in values if v in nid}

    def _operand_ids(self, start, end):
        """The ids of the nodes whose grads steps start .. end-1 change: their operands.
        (Read from the order, not from records: a long jump builds none.)"""
        return self._ids({child for node in self.stepper.order[start:end] for child in node._prev})

    # -- the backward pass -----------------------------------------------------------

    def start(self) -> Move:
        """Start (or restart) the backward pass: every grad 0, the output's grad 1, step 0."""
        if self.stepper is None:
            return _refused(NOTHING_TO_STEP)
        touched = self._clear_quiz()
        self._begin_backward()
        return Move(touched=touched, started=BACKWARD)

    def _begin_backward(self):
        st = self.stepper
        self.phase = BACKWARD
        # The finished pass's largest |grad|, so a view can colour every step on one
        # scale: otherwise each step that brought a new largest |grad| would re-tint
        # every node. The stepper runs to the end for it, then starts from 0.
        st.reset()
        st.seek(len(st.order))
        self.grad_max = max((abs(v.grad) for v in st.topo if math.isfinite(v.grad)), default=0.0) or None
        st.reset()
        self.last_record = None
        self.stop_reason = self.notice = ""

    def _ensure_backward(self):
        """Start the backward pass unless it is on: BACKWARD if it started now, ''
        if it was on, None if there is nothing to step."""
        if self.phase == BACKWARD:
            return ""
        if self.stepper is None:
            return None
        self._clear_quiz()
        self._begin_backward()
        return BACKWARD

    def step(self) -> Move:
        """Run exactly one `_backward` call (starting the backward pass if needed)."""
        started = self._ensure_backward()
        if started is None:
            return _refused(NOTHING_TO_STEP)
        touched = self._clear_quiz()
        st = self._backward_stepper()
        if st.done:
            return Move(
                moved=bool(started or touched),
                record=self.last_record,
                touched=touched,
                started=started,
                message=ALL_STEPS_RUN,
            )
        record = st.step()
        assert record is not None  # not done: a step is left
        self.stop_reason = st.check(record)
        move = self._after(self._ids(record.children) | touched, started, [record], quiz=True)
        if st.done and not self.stop_reason:
            move.message = PASS_DONE
        return move

    def step_or_start(self) -> Move:
        """What F10 does: one `_backward` call per press. From idle ("Debugger ready",
        the grads of a full pass on show) the first press starts the pass and runs
        step 1 -- a press that changed nothing visible read as a dead key. After the
        forward pass it starts at step 0: every grad 0, the output's 1, as that
        pass's last note promises. At the end it says the pass is done."""
        if self.phase == FORWARD:
            return self.start()
        return self.step()

    def step_back(self) -> Move:
        """Undo the last step (in the forward pass: un-compute the last node)."""
        if self.phase == FORWARD:
            return self.forward_step_back()
        st = self.stepper
        if self.phase != BACKWARD or st is None or not st.position:
            return _refused()
        touched = self._clear_quiz()
        record = st.step_back()
        assert record is not None  # st.position > 0: a step to undo
        self.stop_reason = ""
        return self._after(self._ids(record.children) | touched, "", [record])

    def seek(self, position: int) -> Move:
        """Go to step `position` (0 .. total) directly: the timeline and the step list."""
        started = self._ensure_backward()
        if started is None:
            return _refused(NOTHING_TO_STEP)
        touched = self._clear_quiz()
        st = self._backward_stepper()
        position = max(0, min(position, len(st.order)))
        old = st.position
        if position != old:
            st.seek(position)
            self.stop_reason = ""
            touched |= self._operand_ids(min(old, position), max(old, position))
        return self._after(touched, started, [])

    def run_to_end(self) -> Move:
        """Run every remaining step, stopping at a breakpoint or a break condition."""
        started = self._ensure_backward()
        if started is None:
            return _refused(NOTHING_TO_STEP)
        touched = self._clear_quiz()
        st = self._backward_stepper()
        start = st.position
        records = st.run_to_end()
        return self._finish_run(start, records, touched, started)

    def run_to(self, nid: str | None) -> Move:
        """Run until node nid's step is next -- or, for a leaf, until its grad is
        final. A node already passed is sought back to."""
        value = self.value(nid) if nid is not None else None
        if self.stepper is None or value is None or value not in self._graph():
            return _refused(SELECT_A_NODE)
        started = self._ensure_backward()
        touched = self._clear_quiz()
        st = self.stepper
        index = st.step_index(value)
        if index is not None and index < st.position:
            move = self.seek(index)
            move.touched |= touched
            move.started = move.started or started
            return move
        start = st.position
        records = st.run_to(value)
        return self._finish_run(start, records, touched, started)

    def _graph(self):
        if self._in_graph is None:
            self._in_graph = set(self.stepper.topo)
        return self._in_graph

    def _finish_run(self, start, records, touched, started):
        st = self.stepper
        self.stop_reason = st.stop_reason
        move = self._after(touched | self._operand_ids(start, st.position), started, records)
        if self.stop_reason:
            move.message = f"Stopped: {self.stop_reason}"
        return move

    def _after(self, touched, started, records, quiz: bool = False):
        """The Move of backward steps run or undone: the record now shown, and in
        quiz mode the new grads of a single step hidden."""
        st = self._backward_stepper()
        self.last_record = st.history[-1] if st.position else None
        asked = self.quiz.ask(self.last_record) if quiz and self.last_record is not None else []
        touched |= self._ids(asked)
        move = Move(record=self.last_record, records=records, touched=touched, started=started)
        if asked:
            move.message = QUIZ_ASKS
        return move

    # -- playing -----------------------------------------------------------------------

    def play(self) -> Move:
        """Begin playing (a view calls `play_step` on a timer): from step 0 unless
        the backward pass is on and not done."""
        if self.stepper is None:
            return _refused(NOTHING_TO_STEP)
        move = Move(moved=False)
        if self.phase != BACKWARD or self.stepper.done:
            move = self.start()
        self._play_first = True
        move.go_on = True
        return move

    def play_step(self) -> Move:
        """One beat of play. `go_on` is False when playing must stop: done, at a
        breakpoint or after a break condition. A beat waits (does nothing) while
        a quiz question is open; the first beat never stops at a breakpoint, so
        playing again gets past the one it stopped at."""
        st = self.stepper
        if self.phase != BACKWARD or st is None or st.done:
            return Move(moved=False, go_on=False)
        if self.quiz.pending:
            return Move(moved=False, go_on=True)
        reason = "" if self._play_first else st.pause_reason()
        self._play_first = False
        if reason:
            self.stop_reason = reason
            return Move(record=self.last_record, message=f"Stopped: {reason}", go_on=False)
        record = st.step()
        assert record is not None  # not done: a step is left
        self.stop_reason = st.check(record)
        move = self._after(self._ids(record.children), "", [record], quiz=True)
        move.go_on = not (self.stop_reason or st.done)
        return move

    # -- the forward pass ----------------------------------------------------------------

    def forward_start(self) -> Move:
        """Start the forward pass: leaves known, every op node unknown until computed."""
        if self.stepper is None:
            return _refused(NOTHING_TO_STEP)
        self._begin_forward()
        return Move(started=FORWARD)

    def _in_forward(self):
        """Be in the forward pass, starting it if needed: FORWARD if it started now,
        "" if it was running, None if there is nothing to step."""
        if self.phase == FORWARD:
            return ""
        if self.stepper is None:
            return None
        self._begin_forward()
        return FORWARD

    def _begin_forward(self):
        self._clear_quiz()
        self.phase = FORWARD
        self.forward_stepper = ForwardStepper(self.stepper.root, names=self._names)
        self.last_record = self.last_forward = None
        self.stop_reason = self.notice = ""

    def forward_step(self) -> Move:
        """Compute the next node of the forward pass (starting it if needed)."""
        started = self._in_forward()
        if started is None:
            return _refused(NOTHING_TO_STEP)
        record = self._forward_stepper().step()
        if record is None:
            return Move(moved=bool(started), started=started, message=FORWARD_DONE)
        self.last_forward = record
        return Move(record=record, records=[record], touched=self._ids([record.node]), started=started)

    def forward_step_or_start(self) -> Move:
        """What F7 does: start the forward pass the first time, then one node per press."""
        if self.phase != FORWARD:
            return self.forward_start()
        return self.forward_step()

    def forward_step_back(self) -> Move:
        """Un-compute the last node of the forward pass."""
        fs = self.forward_stepper
        if self.phase != FORWARD or fs is None or not fs.position:
            return _refused()
        node = fs.order[fs.position - 1]
        fs.step_back()
        p = fs.position
        self.last_forward = ForwardRecord(p - 1, fs.order[p - 1], fs.describe(fs.order[p - 1])) if p else None
        undone = ForwardRecord(p, node, fs.describe(node))
        return Move(record=self.last_forward, records=[undone], touched=self._ids([node]))

    def forward_all(self) -> Move:
        """Compute every remaining node of the forward pass."""
        started = self._in_forward()
        if started is None:
            return _refused(NOTHING_TO_STEP)
        records = self._forward_stepper().run_to_end()
        if records:
            self.last_forward = records[-1]
        return Move(
            record=self.last_forward, records=records, touched=self._ids([r.node for r in records]), started=started
        )

    # -- ending ------------------------------------------------------------------------

    def stop(self) -> Move:
        """End debugging: the graph shows a full backward pass again.

        The stepper runs its remaining steps rather than anyone a new backward():
        the same `_backward` calls in the same order, so the same grads to the
        last bit."""
        if self.phase == IDLE:
            self._plan()
            return Move(moved=False, started=IDLE, new_plan=True)
        st = self._backward_stepper()  # a session going on has one
        st.seek(len(st.order))
        self._plan(same_compile=True)
        return Move(started=IDLE)

    def load(self, compiled: Compiled | None, replay: ForeignReplay | None = None) -> Move:
        """A new compile of the document: a new plan, back to idle. If a session was
        going on it ends, and `notice` says why (a leaf's new value, or an edit).

        `replay`: a learner's recorded backward pass (core/debugger/foreign_replay.py)
        to step instead of the studio's, THEIR grads. It is kept for later compiles of
        the same graph and dropped at the first that is another graph. Refused (ok
        False, `message` says why) if it does not fit `compiled`."""
        if replay is not None:
            if not replay.fits(compiled):
                return _refused(REPLAY_DOES_NOT_FIT)
            self.replay = replay
        elif self.replay is not None and not self.replay.fits(compiled):
            self.replay = None  # another graph: the studio's own stepper from now on
        was = self.phase != IDLE
        edits, self._edits = self._edits, {}
        self.compiled = compiled
        self._plan()
        if replay is not None:
            return Move(moved=True, started=IDLE, new_plan=True)
        if not was:
            self.notice = ""
            return Move(moved=False, started=IDLE, new_plan=True)
        if "value" in edits and "structure" not in edits:
            nid = edits["value"]
            node = self.doc.nodes.get(nid) if nid is not None else None
            what = f"{node.label or nid} = {format_number(node.value)}" if node is not None else "A value"
            self.notice = (
                f"{what} now, so the forward pass was recomputed and every data updated. "
                f"The debugger was reset: press F10 to step the backward pass again."
            )
        else:
            self.notice = GRAPH_CHANGED
        return Move(started=IDLE, new_plan=True, ended=self.notice, message=self.notice)

    def document_changed(self, event: str, *details: Any) -> bool:
        """Note an event of the document (its `changed` signal). True when a label
        changed, so every text naming nodes is stale (the names are updated)."""
        if event == "reset":
            self.breakpoint_ids.clear()  # a new graph: old ids mean other nodes
            self._edits["structure"] = None
        elif event == "node_changed":
            nid, field = details
            if field == "label":
                return self._rename()
            if field == "value":
                self._edits.setdefault("value", nid)
            elif field != "pos":
                self._edits["structure"] = nid
        else:
            self._edits["structure"] = None
        return False

    def grads_changed_elsewhere(self) -> Move:
        """Someone else set the grads (Backward, Zero Grads): a session going on ends."""
        if self.phase == IDLE:
            return _refused()
        self._plan()
        self.notice = GRADS_CHANGED
        return Move(started=IDLE, new_plan=True, ended=self.notice, message=self.notice)

    def _rename(self) -> bool:
        """A label changed: names in texts follow (the steppers share this dict)."""
        if self.compiled is not None and self._names and self._given_names is None:
            self._names.update(display_names(self.doc, self.compiled))
            return True
        return False

    def _plan(self, same_compile: bool = False) -> None:
        """A plan for the compile (no grad touched); back to idle. On the same
        compile (debugging stopped) the names stand."""
        self._clear_quiz()
        compiled = self.compiled
        root = compiled.output if compiled is not None else None  # None too without a compile
        self.phase = IDLE
        self.forward_stepper = None
        self.last_record = self.last_forward = None
        self.stop_reason = ""
        self._in_graph = None
        if root is None or compiled is None:
            self.stepper, self._names, self._nid = None, {}, {}
        else:
            if not same_compile:
                given = self._given_names
                self._names = given if given is not None else display_names(self.doc, compiled)  # type: ignore[assignment]
            self._nid = compiled.value_to_node
            if self.replay is not None:  # it fits: load() keeps only one that does
                self.stepper = self.replay.stepper(root, compiled, self._names)  # THEIR grads, replayed
            else:
                topo = getattr(compiled, "topo", None)  # a big graph's own order (core/scopes/debug.py)
                self.stepper = BackwardStepper(root, names=self._names, reset=False, topo=topo)
        self._apply_options()

    # -- breakpoints and break conditions ------------------------------------------------

    def toggle_breakpoint(self, nid: str | None) -> Move:
        if nid is None:
            return _refused(SELECT_AN_OP)
        return self.set_breakpoint(nid, nid not in self.breakpoint_ids)

    def set_breakpoint(self, nid: str, on: bool = True) -> Move:
        """A breakpoint on op node nid (on) or none (off). A leaf takes none: it has no step."""
        node = self.doc.nodes.get(nid)
        if node is None:
            return _refused()
        if on and node.kind != "op":
            return _refused(NO_LEAF_BREAKPOINTS)
        if on:
            self.breakpoint_ids.add(nid)
        else:
            self.breakpoint_ids.discard(nid)
        self._apply_options()
        return Move(moved=False)

    def set_break_on_nonfinite(self, on: bool) -> None:
        self.break_on_nonfinite = bool(on)
        self._apply_options()

    def set_grad_threshold(self, threshold: float | None) -> None:
        """Stop a run when a step makes any |grad| exceed threshold (None: never)."""
        self.grad_threshold = None if threshold is None else float(threshold)
        self._apply_options()

    def set_break_on_dead_relu(self, on: bool) -> None:
        self.break_on_dead_relu = bool(on)
        self._apply_options()

    def _apply_options(self):
        """The stepper stops where the options say: the one place they are handed on."""
        self.breakpoint_ids = {nid for nid in self.breakpoint_ids if nid in self.doc.nodes}
        st = self.stepper
        if st is not None:
            values = self.compiled.values
            st.breakpoints = {values[nid] for nid in self.breakpoint_ids if nid in values}
            st.break_on_nonfinite = self.break_on_nonfinite
            st.grad_threshold = self.grad_threshold
            st.break_on_dead_relu = self.break_on_dead_relu

    # -- quiz (core/debugger/quiz.py) -------------------------------------------------------

    @property
    def quiz_feedback(self) -> list[tuple[bool, str]]:
        """[(right?, text)] for the step shown."""
        return self.quiz.feedback

    @property
    def quiz_score(self) -> list[int]:
        """[right, asked]"""
        return self.quiz.score

    def set_quiz_mode(self, on: bool) -> Move:
        """While on, each single step hides its operands' new grads until answered."""
        self.quiz.on = bool(on)
        if not on:
            return self.reveal_quiz()
        return Move(moved=False)

    def quiz_hidden(self) -> set[Value]:
        """The Values whose new grads are hidden now."""
        return self.quiz.hidden()

    def quiz_question(self) -> str:
        """The question waiting for an answer ('' when none)."""
        if not self.quiz.pending or self.last_record is None:
            return ""
        return self.quiz.question(self._backward_stepper(), self.last_record)

    @property
    def shown_stop_reason(self) -> str:
        """The stop reason a view may show now (it waits while a quiz question is open)."""
        return self.quiz.shown_stop_reason(self.stop_reason)

    def answer_quiz(self, text: str) -> Move:
        """Check a prediction for the first hidden grad. `answer` is (right?, feedback);
        a text that is not a number changes nothing and the message says so."""
        record = self.last_record  # the step whose grads are hidden
        if not self.quiz.pending or record is None:
            return _refused()
        try:
            guess = read_guess(text)
        except ValueError as error:
            return _refused(str(error))
        child, ok, feedback = self.quiz.grade(self._backward_stepper(), record, guess)
        return Move(record=record, touched=self._ids([child]), answer=(ok, feedback))

    def reveal_quiz(self) -> Move:
        """Show every hidden grad without an answer."""
        hidden = self.quiz.reveal()
        if not hidden:
            return Move(moved=False)
        return Move(moved=self.phase == BACKWARD, record=self.last_record, touched=self._ids(hidden))

    def _clear_quiz(self):
        """A new move: the question and its feedback go; the ids whose grads were hidden."""
        return self._ids(self.quiz.clear())
