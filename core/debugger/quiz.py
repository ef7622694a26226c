"""The predict-the-grad quiz of a debugging session.

Watching grads appear one `_backward` call at a time teaches little if the
learner only watches. In quiz mode the debugger asks first: after a single
step, the new grads of that step's operands stay hidden ('?' on the canvas)
until the learner types what they expect each one to be:

    step 3   (x·y) just ran its _backward. What is x.grad now? (It was 0.0000.)
             you type 3     ->  Right: x.grad = 3.0000.
             you type 2     ->  Not quite: you said 2, but y.grad = 8.0000,
                                because y.grad += x.data · out.grad = ...

    hidden     the step's operands (`record.children`), each once, in order;
               the first is asked now, the next after its answer
    graded     against the chain rule: `grad += local derivative · out.grad`.
               A guess within QUIZ_REL (relative) or QUIZ_ABS (absolute) of
               the right grad is right (`is_right`); an inf or nan grad must be
               named exactly
    score      [right, asked], over the whole session
    giving up  `reveal` shows every hidden grad, unscored; any other move of
               the debugger (a step, a seek, an edit) forgets an open question

What is "the right grad"? The studio's own engine ran the studio's own
`_backward`, so the grad it left is right. A learner's own engine is replayed
(core/debugger/foreign_replay.py): the canvas shows the grads THEIR code left,
which may be wrong -- so the quiz grades against what a correct `_backward`
gives (`ReplayStepper.should_be`), asks for that grad by name ("By the chain
rule, what should h.grad be now?"), and where their engine disagrees the
feedback names both numbers and says whether this is the bug the debugger
stops at. A stop reason would give the answer away (it says what the grad
should be), so it waits while a question is open (`shown_stop_reason`).

The quiz knows Values and StepRecords only. The session (session.py) owns
one `StepQuiz`, asks it after each single step, and turns what it says into
node ids and Moves for the views:

    quiz = StepQuiz()
    quiz.on = True
    record = stepper.step()                 # (x·y): x.grad += 3, y.grad += 2
    quiz.ask(record)                        # [x, y]: their new grads are hidden
    quiz.question(stepper, record)          # '(x·y) just ran its _backward. What is x.grad now? ...'
    quiz.grade(stepper, record, read_guess("3"))   # (x, True, 'Right: x.grad = 3.0000.')
"""

from __future__ import annotations

import math

from core.debugger.foreign_replay import ReplayStepper
from core.debugger.step_names import headline
from core.debugger.stepper import BackwardStepper, StepRecord, field_of
from core.engine import Value
from core.format import format_number, parse_number

QUIZ_REL, QUIZ_ABS = 1e-3, 5e-4  # a prediction within this of the truth is right
QUIZ_HOLDS_STOP = "here, after this step. Predict the grad first: the reason shows after your answer."
# the status line while a question is open: it replaces any earlier message there (an earlier
# stop's reason names the grad the question asks for)
QUIZ_ASKS = "Quiz: predict the new grad, then press Check (or Reveal to see it)."


def is_right(guess: float, truth: float) -> bool:
    """Whether a predicted grad counts as right: within QUIZ_REL relative or QUIZ_ABS
    absolute of the truth; an inf or nan grad must be named exactly."""
    if math.isfinite(truth):
        return math.isclose(guess, truth, rel_tol=QUIZ_REL, abs_tol=QUIZ_ABS)
    return guess == truth or (math.isnan(guess) and math.isnan(truth))


def read_guess(text: str) -> float:
    """The number a learner typed ('3', '-0.5', '3/4', 'inf'); ValueError saying what
    to type when it is not one."""
    guess = parse_number(text)
    if guess is None:
        raise ValueError(f"'{text}' is not a number: type the grad you expect, e.g. 3 or -0.5.")
    return guess


# -----------------------------------------------------------------------------
# The quiz of one session


class StepQuiz:
    """Which grads are hidden now, what the answers to the step shown were told,
    and the score (see the module docstring).

    on        quiz mode: each single step hides its operands' new grads
    pending   the Values whose new grad is hidden, the first asked now
    feedback  [(right?, text)] for the step shown
    score     [right, asked]
    """

    def __init__(self) -> None:
        self.on = False
        self.pending: list[Value] = []
        self.feedback: list[tuple[bool, str]] = []
        self.score = [0, 0]

    def ask(self, record: StepRecord) -> list[Value]:
        """A single step just ran: in quiz mode its operands' new grads are hidden.
        The Values hidden now ([] with the quiz off)."""
        if not self.on:
            return []
        self.pending = list(dict.fromkeys(record.children))
        return list(self.pending)

    def hidden(self) -> set[Value]:
        """The Values whose new grads are hidden now."""
        return set(self.pending)

    def question(self, stepper: BackwardStepper, record: StepRecord) -> str:
        """The question waiting for an answer about step `record` ('' when none)."""
        if not self.pending:
            return ""
        child = self.pending[0]
        before = format_number(record.grads_before[record.children.index(child)])
        grad = field_of(stepper.name(child))
        if isinstance(stepper, ReplayStepper):  # their engine may be wrong: the question says which grad counts
            return (
                f"{headline(stepper, record.node)} just ran your _backward. By the chain rule, what should "
                f"{grad} be now? (It was {before}.)"
            )
        return f"{headline(stepper, record.node)} just ran its _backward. What is {grad} now? (It was {before}.)"

    def shown_stop_reason(self, stop_reason: str) -> str:
        """The stop reason a view may show now. While a question is open it waits:
        a stop after a step names that step's numbers (a learner's wrong step says
        what the grad should be), and the screen never gives an answer away."""
        if stop_reason and self.pending:
            return QUIZ_HOLDS_STOP
        return stop_reason

    def grade(self, stepper: BackwardStepper, record: StepRecord, guess: float) -> tuple[Value, bool, str]:
        """Grade a prediction for the first hidden grad of step `record`, which is
        shown from now on: (that operand, right?, feedback). Scored and kept in
        `feedback`. Call it only while a question is open (`pending`)."""
        child = self.pending.pop(0)
        truths = _right_grads(stepper, record, child)
        ok = any(is_right(guess, truth) for truth in truths)
        truth = next((t for t in truths if is_right(guess, t)), truths[0])
        self.score[0] += ok
        self.score[1] += 1
        feedback = _feedback(stepper, record, child, guess, ok, truth)
        self.feedback.append((ok, feedback))
        return child, ok, feedback

    def reveal(self) -> list[Value]:
        """Show every hidden grad without an answer: the Values that were hidden."""
        hidden, self.pending = self.pending, []
        return hidden

    def clear(self) -> list[Value]:
        """A new move: the question and its feedback go. The Values that were hidden."""
        hidden, self.pending = self.pending, []
        self.feedback = []
        return hidden


# -----------------------------------------------------------------------------
# The right grad, and what an answer is told


def _right_grads(stepper: BackwardStepper, record: StepRecord, child: Value) -> list[float]:
    """The grads child may have after `record` by the chain rule. The studio's own
    stepper ran the studio's `_backward`, so its grad is right; a replayed learner's
    pass knows what a correct `_backward` gives (their code may have left another)."""
    if isinstance(stepper, ReplayStepper):
        return stepper.should_be(record, child)
    return [child.grad]


def _feedback(stepper: BackwardStepper, record: StepRecord, child: Value, guess: float, ok: bool, truth: float) -> str:
    """What an answer is told: right or not against the chain rule, and -- when the
    learner's engine left another grad (the one the canvas shows) -- that it did."""
    grad, right = field_of(stepper.name(child)), format_number(truth)
    because = "; then ".join(line for c, line in zip(record.children, record.lines) if c is child)
    if not isinstance(stepper, ReplayStepper) or child not in stepper.wrong_operands(record):
        if ok:
            return f"Right: {grad} = {right}."
        return f"Not quite: you said {guess:g}, but {grad} = {right}, because {because}"
    theirs = format_number(child.grad)
    at_fault = record.index == stepper.replay.fault_step
    if ok:
        bug = "that is the bug the debugger stops at." if at_fault else "it is wrong here too."
        return f"Right: {grad} should become {right}. Your engine made it {theirs} — {bug}"
    if is_right(guess, child.grad):
        bug = "that is the bug the debugger stops at" if at_fault else "it is wrong here too"
        return (
            f"Not quite: {guess:g} is what your engine made {grad}, and {bug}. By the chain rule "
            f"it should become {right}, because {because}"
        )
    return f"Not quite: you said {guess:g}, but by the chain rule {grad} should become {right}, because {because}"
