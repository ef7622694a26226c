"""The debugger's brain: one BackwardStepper (and ForwardStepper) for the session's output.

`DebuggerController` holds no numbers of its own. The steppers in core own the
debugger state (position, history, grads); the controller turns their moves
into the smallest possible change on the canvas and tells the panel to redraw:

* a step changes the grads of the stepped node's operands only, so only those
  node ids are sent to `session.notify_grads(ids)` and get a new status stripe;
* the node whose `_backward` ran is marked 'current', its operands 'target'
  with a chip saying what was added ('+= 3.0000'), and the wires between them
  glow -- all through the scene's diffing hooks, never a loop over every item;
* a long jump (a seek, a run to the end) redraws everything, in chunks; it
  never builds the StepRecords of the steps it passes (thousands of them), it
  only reads which operands those steps touch (`stepper.order[i]._prev`).

The drawing itself is app/debugger/canvas.py; this module is the logic.

Phases: 'idle' (the graph shows a full backward pass; nothing is being
stepped), 'forward' (nodes are computed one at a time; the rest show '?'),
'backward' (grads flow back one `_backward` call at a time).

Any edit of the graph ends a debug session: the Values the steppers hold are
replaced by the new compile. A changed leaf value says so and offers to step
again. Grads changed by someone else (Backward, Zero Grads) end it too.

Quiz mode: after each single step the operands' new grads show '?' until the
student types a prediction (`answer_quiz`) or gives up (`reveal_quiz`).
"""

import math

from PySide6.QtCore import QObject, QTimer, Signal

from app.debugger.canvas import BACKWARD, FORWARD, IDLE, NO_GRAD, PENDING, CanvasSync
from app.debugger.explain import display_names, formula, headline
from app.look.theme import format_number
from core.debugger.forward_stepper import ForwardRecord, ForwardStepper
from core.debugger.stepper import BackwardStepper

FULL_REFRESH = 300        # a move touching more nodes than this redraws all of them
QUIZ_REL, QUIZ_ABS = 1e-3, 5e-4   # a prediction within this of the truth is right


class DebuggerController(QObject):
    stepped = Signal(object)          # after every move: the StepRecord / ForwardRecord shown, or None
    stateChanged = Signal()           # phase, plan, options or quiz changed
    ended = Signal(str)               # the debug session ended, and why
    message = Signal(str)             # a one-line note for the status bar
    quizAnswered = Signal(bool, str)  # (right?, feedback)
    renamed = Signal()                # a label changed: texts naming nodes are stale

    def __init__(self, session, scene=None, view=None, parent=None):
        super().__init__(parent)
        self.session, self.scene, self.view = session, scene, view
        self.phase = IDLE
        self.stepper = None            # BackwardStepper of the output (a plan while idle)
        self.forward_stepper = None
        self.last_record = None        # the StepRecord shown (None: at step 0)
        self.last_forward = None
        self.stop_reason = ""
        self.notice = ""               # why the last session ended
        self.follow = True             # scroll the current node into view
        self.breakpoint_ids = set()
        self.break_on_nonfinite = True
        self.grad_threshold = None
        self.break_on_dead_relu = False
        self.quiz_mode = False
        self.quiz_feedback = []        # [(right?, text)] for the step shown
        self.quiz_score = [0, 0]       # right, asked
        self._quiz_pending = []        # Values whose new grad is hidden
        self.speed = 3.0               # steps per second while playing
        self._playing_first = False
        self._play = QTimer(self)
        self._play.timeout.connect(self._tick)
        self.canvas = CanvasSync(self)
        self._edits = {}               # kind -> node id, for the document edits since the last compile
        self._names = {}
        self._nid = {}
        session.recompiled.connect(self._on_recompiled)
        session.gradsChanged.connect(self._on_grads_changed)
        session.doc.changed.connect(self._on_doc_changed)
        self._rebuild()

    # -- reading ---------------------------------------------------------------------

    @property
    def position(self):
        return self.stepper.position if self.stepper is not None and self.phase == BACKWARD else 0

    @property
    def total(self):
        return len(self.stepper.order) if self.stepper is not None else 0

    @property
    def playing(self):
        return self._play.isActive()

    @property
    def refreshing(self):
        """True while a long jump's redraw of off-screen nodes is still going on."""
        return self.canvas.refreshing

    def nid(self, value):
        """The node id of a Value of the current compile (None if it has none)."""
        return self._nid.get(value)

    def name(self, value):
        return self.stepper.name(value) if self.stepper is not None else ""

    def formula(self, value):
        return formula(self.stepper, value)

    def row_of(self, nid):
        """The step-list row of node nid (None for a leaf or an unknown id)."""
        value = self.session.value(nid)
        if value is None or self.stepper is None:
            return None
        return self.stepper.step_index(value)

    # -- backward ------------------------------------------------------------------

    def reset(self):
        """Start (or restart) the backward pass: every grad 0, the output's grad 1, step 0."""
        if not self._ready():
            return False
        self.phase = BACKWARD
        self.canvas.pin_grad_scale()
        self.stepper.reset()
        self.last_record = None
        self.stop_reason = self.notice = ""
        self._clear_quiz()
        self.canvas.redraw_all()   # also takes off the forward pass's '?'
        self._show()
        return True

    def step(self):
        """Run exactly one `_backward` call (starting the backward pass if needed)."""
        if self.phase != BACKWARD and not self.reset():
            return None
        self._clear_quiz()
        if self.stepper.done:
            self.message.emit("Every step has run: step back, scrub the timeline, or Reset.")
            return None
        record = self.stepper.step()
        self.stop_reason = self.stepper.check(record)
        self._after(record.children, quiz=True)
        return record

    def step_or_start(self):
        """What F10 does: start at step 0 the first time, then one step per press."""
        if self.phase != BACKWARD:
            return self.reset()
        return self.step()

    def step_back(self):
        if self.phase == FORWARD:
            return self.forward_step_back()
        if self.phase != BACKWARD or not self.stepper.history:
            return None
        self._clear_quiz()
        record = self.stepper.step_back()
        self.stop_reason = ""
        self._after(record.children)
        return record

    def seek(self, position):
        """Go to step `position` (0 .. total) directly: the timeline and the step list."""
        if self.phase != BACKWARD and not self.reset():
            return False
        self._clear_quiz()
        st = self.stepper
        position = max(0, min(position, len(st.order)))
        old = st.position
        if position == old:
            return True
        st.seek(position)
        self.stop_reason = ""
        self._after(self._operands(min(old, position), max(old, position)))
        return True

    def run_to_end(self):
        """Run every remaining step, stopping at a breakpoint or a break condition."""
        if self.phase != BACKWARD and not self.reset():
            return []
        self._clear_quiz()
        start = self.stepper.position
        records = self.stepper.run_to_end()
        self._finish_run(start)
        return records

    def run_to(self, nid=None):
        """Run until node nid (default: the selected one) is next -- or, for a leaf,
        until its grad is final. A node already passed is sought back to."""
        nid = self.session.current_id if nid is None else nid
        value = self.session.value(nid) if nid is not None else None
        if self.stepper is None or value is None or value not in self.stepper._topo_index:
            self.message.emit("Select a node of the output's graph first, then Run to Selected.")
            return []
        if self.phase != BACKWARD:
            self.reset()
        self._clear_quiz()
        index = self.stepper.step_index(value)
        if index is not None and index < self.stepper.position:
            self.seek(index)
            return []
        start = self.stepper.position
        records = self.stepper.run_to(value)
        self._finish_run(start)
        return records

    def _finish_run(self, start):
        self.stop_reason = self.stepper.stop_reason
        self._after(self._operands(start, self.stepper.position))
        if self.stop_reason:
            self.message.emit(f"Stopped: {self.stop_reason}")

    # -- playing -----------------------------------------------------------------------

    def play(self):
        """Step on a timer (`speed` steps a second) until paused, done or stopped."""
        if not self._ready():
            return False
        if self.phase != BACKWARD or self.stepper.done:
            self.reset()
        self._playing_first = True
        self._play.start(max(15, round(1000 / self.speed)))
        self.stateChanged.emit()
        return True

    def pause(self):
        if self._play.isActive():
            self._play.stop()
            self.stateChanged.emit()

    def toggle_play(self):
        self.pause() if self.playing else self.play()

    def set_speed(self, steps_per_second):
        self.speed = max(0.25, float(steps_per_second))
        if self._play.isActive():
            self._play.setInterval(max(15, round(1000 / self.speed)))

    def _tick(self):
        st = self.stepper
        if self.phase != BACKWARD or st is None or st.done:
            self.pause()
            return
        if self._quiz_pending:   # wait for the student's answer
            return
        reason = "" if self._playing_first else st.pause_reason()
        self._playing_first = False
        if reason:
            self.stop_reason = reason
            self.pause()
            self._show()
            self.message.emit(f"Stopped: {reason}")
            return
        record = st.step()
        self.stop_reason = st.check(record)
        self._after(record.children, quiz=True)
        if self.stop_reason or st.done:
            self.pause()

    # -- forward ---------------------------------------------------------------------

    def forward_reset(self):
        """Start the forward pass: leaves known, every op node '?' until computed."""
        if not self._ready():
            return False
        self.pause()
        self._clear_quiz()
        self.canvas.hold_grad_scale()
        self.phase = FORWARD
        self.forward_stepper = ForwardStepper(self.stepper.root, names=self._names)
        self.last_record = self.last_forward = None
        self.stop_reason = self.notice = ""
        self.canvas.redraw_all(FORWARD)
        self._show_forward()
        return True

    def forward_step(self):
        """Compute the next node of the forward pass (starting it if needed)."""
        if self.phase != FORWARD and not self.forward_reset():
            return None
        record = self.forward_stepper.step()
        if record is None:
            self.message.emit("The forward pass is done: press F10 for the backward pass.")
            return None
        self.last_forward = record
        self.canvas.masks({record.node: (None, NO_GRAD, False)})
        self.canvas.notify([self._nid.get(record.node)])
        self._show_forward()
        return record

    def forward_step_or_start(self):
        """What F7 does: start the forward pass the first time, then one node per press."""
        if self.phase != FORWARD:
            return self.forward_reset()
        return self.forward_step()

    def forward_step_back(self):
        fs = self.forward_stepper
        if self.phase != FORWARD or not fs.position:
            return None
        node = fs.order[fs.position - 1]
        fs.step_back()
        self.canvas.masks({node: (PENDING, NO_GRAD, True)})
        p = fs.position
        self.last_forward = ForwardRecord(p - 1, fs.order[p - 1], fs.describe(fs.order[p - 1])) if p else None
        self._show_forward()
        return node

    def forward_all(self):
        """Compute every remaining node of the forward pass."""
        if self.phase != FORWARD and not self.forward_reset():
            return []
        records = self.forward_stepper.run_to_end()
        if len(records) > FULL_REFRESH:
            self.canvas.redraw_all(FORWARD)
        else:
            self.canvas.masks({r.node: (None, NO_GRAD, False) for r in records})
            self.canvas.notify([self._nid.get(r.node) for r in records])
        if records:
            self.last_forward = records[-1]
        self._show_forward()
        return records

    # -- ending ----------------------------------------------------------------------

    def stop(self):
        """End debugging: the graph shows a full backward pass again.

        The stepper runs its remaining steps rather than the session a new
        backward(): the same `_backward` calls in the same order, so the same grads
        to the last bit, but the canvas is then redrawn in chunks like after any
        long jump, not all 5,000 nodes in one go."""
        if self.phase == IDLE:
            self._rebuild()
            return
        self.stepper.seek(len(self.stepper.order))
        self._rebuild(same_compile=True)
        self.stepped.emit(None)

    # -- breakpoints and break conditions ---------------------------------------------

    def toggle_breakpoint(self, nid=None):
        nid = self.session.current_id if nid is None else nid
        if nid is None:
            self.message.emit("Select an op node first, then F9 toggles a breakpoint on it.")
            return False
        return self.set_breakpoint(nid, nid not in self.breakpoint_ids)

    def set_breakpoint(self, nid, on=True):
        node = self.session.doc.nodes.get(nid)
        if node is None:
            return False
        if on and node.kind != "op":
            self.message.emit("A breakpoint stops a run before a node's _backward, and a leaf has none. "
                              "Select the leaf and use Run to Selected to run until its grad is final.")
            return False
        (self.breakpoint_ids.add if on else self.breakpoint_ids.discard)(nid)
        self._apply_options()
        self.stateChanged.emit()
        return True

    def set_break_on_nonfinite(self, on):
        self.break_on_nonfinite = bool(on)
        self._apply_options()

    def set_grad_threshold(self, threshold):
        """Stop a run when a step makes any |grad| exceed threshold (None: never)."""
        self.grad_threshold = None if threshold is None else float(threshold)
        self._apply_options()

    def set_break_on_dead_relu(self, on):
        self.break_on_dead_relu = bool(on)
        self._apply_options()

    def _apply_options(self):
        st = self.stepper
        values = self.session.values
        self.breakpoint_ids &= set(self.session.doc.nodes)
        if st is not None:
            st.breakpoints = {values[nid] for nid in self.breakpoint_ids if nid in values}
            st.break_on_nonfinite = self.break_on_nonfinite
            st.grad_threshold = self.grad_threshold
            st.break_on_dead_relu = self.break_on_dead_relu
        self.canvas.breakpoints(self.breakpoint_ids)

    # -- quiz ----------------------------------------------------------------------------

    def set_quiz_mode(self, on):
        """While on, each single step hides its operands' new grads until answered."""
        self.quiz_mode = bool(on)
        if not on:
            self.reveal_quiz()
        self.stateChanged.emit()

    def quiz_hidden(self):
        return set(self._quiz_pending)

    def quiz_question(self):
        """The question waiting for an answer ('' when none)."""
        if not self._quiz_pending or self.last_record is None:
            return ""
        child, record = self._quiz_pending[0], self.last_record
        before = record.grads_before[record.children.index(child)]
        return (f"{headline(self.stepper, record.node)} just ran its _backward. What is "
                f"{self.name(child)}.grad now? (It was {format_number(before)}.)")

    def answer_quiz(self, text):
        """Check a prediction for the first hidden grad: True / False, None if not a number."""
        if not self._quiz_pending:
            return None
        try:
            guess = float(str(text).strip().replace("−", "-").replace(",", "."))
        except ValueError:
            self.message.emit(f"'{text}' is not a number: type the grad you expect, e.g. 3 or -0.5.")
            return None
        child = self._quiz_pending.pop(0)
        truth = child.grad
        if math.isfinite(truth):
            ok = math.isclose(guess, truth, rel_tol=QUIZ_REL, abs_tol=QUIZ_ABS)
        else:
            ok = guess == truth or (guess != guess and truth != truth)
        self.quiz_score[0] += ok
        self.quiz_score[1] += 1
        name = self.name(child)
        line = next((ln for c, ln in zip(self.last_record.children, self.last_record.lines) if c is child), "")
        if ok:
            feedback = f"Right: {name}.grad = {format_number(truth)}."
        else:
            feedback = (f"Not quite: you said {guess:g}, but {name}.grad = {format_number(truth)}, "
                        f"because {line}")
        self.quiz_feedback.append((ok, feedback))
        self._unmask([child])
        self._show()
        self.quizAnswered.emit(ok, feedback)
        return ok

    def reveal_quiz(self):
        """Show every hidden grad without an answer."""
        if self._quiz_pending:
            hidden, self._quiz_pending = self._quiz_pending, []
            self._unmask(hidden)
            if self.phase == BACKWARD:
                self._show()

    def _clear_quiz(self):
        if self._quiz_pending:
            self._unmask(self._quiz_pending)
        self._quiz_pending = []
        self.quiz_feedback = []

    def _unmask(self, values):
        self.canvas.masks({v: None for v in values})

    # -- following the session ---------------------------------------------------------

    def _on_doc_changed(self, event, *details):
        if event == "reset":
            self.breakpoint_ids.clear()   # a new graph: old ids mean other nodes
            self._edits["structure"] = None
        elif event == "node_changed":
            nid, field = details
            if field == "label":
                self._rename()
            elif field == "value":
                self._edits.setdefault("value", nid)
            elif field != "pos":
                self._edits["structure"] = nid
        else:
            self._edits["structure"] = None

    def _on_recompiled(self):
        was = self.phase != IDLE
        edits, self._edits = self._edits, {}
        self._rebuild()
        if not was:
            self.notice = ""
            return
        if "value" in edits and "structure" not in edits:
            nid = edits["value"]
            node = self.session.doc.nodes.get(nid)
            what = f"{node.label or nid} = {format_number(node.value)}" if node is not None else "A value"
            self.notice = (f"{what} now, so the forward pass was recomputed and every data updated. "
                           f"The debugger was reset: press F10 to step the backward pass again.")
        else:
            self.notice = "The graph changed, so the debugger was reset."
        self.stateChanged.emit()
        self.stepped.emit(None)
        self.ended.emit(self.notice)
        self.message.emit(self.notice)

    def _on_grads_changed(self, ids):
        if self.canvas.notifying or self.phase == IDLE or ids is not None:
            return
        self._rebuild()
        self.notice = ("The grads were changed outside the debugger (Backward or Zero Grads), "
                       "so the debugger was reset.")
        self.stateChanged.emit()
        self.stepped.emit(None)
        self.ended.emit(self.notice)
        self.message.emit(self.notice)

    def _rename(self):
        """A label changed: names in texts follow (the steppers share this dict)."""
        compiled = self.session.compiled
        if compiled is not None and self._names:
            self._names.update(display_names(self.session.doc, compiled))
            self.renamed.emit()
            self.stateChanged.emit()

    def _rebuild(self, same_compile=False):
        """A plan for the new compile (no grad touched); back to idle. On the same
        compile (debugging stopped) the names stand and the canvas is redrawn in
        chunks; after a new one every mark goes at once."""
        self._play.stop()
        self.canvas.cancel()
        self._clear_quiz()
        compiled = self.session.compiled
        root = self.session.output_value
        self.phase = IDLE
        self.forward_stepper = None
        self.last_record = self.last_forward = None
        self.stop_reason = ""
        if root is None:
            self.stepper, self._names, self._nid = None, {}, {}
        else:
            if not same_compile:
                self._names = display_names(self.session.doc, compiled)
            self._nid = compiled.value_to_node
            self.stepper = BackwardStepper(root, names=self._names, reset=False)
        if same_compile and self.stepper is not None:
            self.canvas.leave()
        else:
            self.canvas.clear()
        self._apply_options()
        self.stateChanged.emit()

    def _ready(self):
        if self.stepper is None:
            self.message.emit("Nothing to step: the graph needs one output node with every input wired.")
            return False
        return True

    # -- the canvas (app/debugger/canvas.py does the drawing) ---------------------------

    def _operands(self, start, end):
        """The Values whose grads steps start .. end-1 change: their nodes' operands."""
        return {child for node in self.stepper.order[start:end] for child in node._prev}

    def _after(self, changed, quiz=False):
        """Redraw the Values in `changed` (the operands of the steps run or undone),
        then the marks."""
        st = self.stepper
        self.last_record = st.history[-1] if st.history else None
        changed = set(changed)
        if len(changed) > FULL_REFRESH:
            self.canvas.redraw_all()
        else:
            self.canvas.changed(changed)
        if quiz and self.quiz_mode and self.last_record is not None:
            self._quiz_pending = list(dict.fromkeys(self.last_record.children))
            self.canvas.masks({c: (None, PENDING, False) for c in self._quiz_pending})
        self._show()

    def _show(self):
        if self.last_record is None:
            self.canvas.show_start(self.stepper.root)
        else:
            self.canvas.show_step(self.last_record, self.quiz_hidden())
        self.stateChanged.emit()
        self.stepped.emit(self.last_record)

    def _show_forward(self):
        self.canvas.show_forward(self.last_forward)
        self.stateChanged.emit()
        self.stepped.emit(self.last_forward)
