"""The predict-the-grad quiz: a StepQuiz on a stepper alone, and in a debug session.

The quiz on a learner's own engine (graded against the chain rule, not their
grads) is tested with the replay, in test_foreign_replay.py.
"""

import math

import pytest

from core.debugger.quiz import QUIZ_HOLDS_STOP, StepQuiz, is_right, read_guess
from core.debugger.session import DebugSession
from core.debugger.stepper import BackwardStepper
from core.document.compile import compile_document
from core.document.expr import parse
from core.engine import Value
from core.format import parse_number

TUTORIAL = "x = Value(2.0, label='x')\ny = Value(3.0, label='y')\nf = x*y + y**2\n"
# parse(TUTORIAL): n1 x, n2 y, n3 (x·y), n4 (y^2), n5 f = n3 + n4


@pytest.fixture
def d():
    doc = parse(TUTORIAL)
    return DebugSession(doc, compile_document(doc))


# -----------------------------------------------------------------------------
# a StepQuiz on a stepper, no session


def square_plus():
    """f = x·x + y, stepped to just after x·x's step (x.grad 0 -> 2·x·1 = 4)."""
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    xx = x * x
    xx.label = "xx"
    f = xx + y
    stepper = BackwardStepper(f)
    stepper.step()  # f = xx + y
    record = stepper.step()  # xx = x·x
    assert record.node is xx
    return stepper, record, x


def test_a_step_quiz_hides_each_operand_once_and_grades_it_by_the_chain_rule():
    stepper, record, x = square_plus()
    quiz = StepQuiz()
    assert quiz.ask(record) == [] and quiz.hidden() == set()  # quiz mode off: nothing hidden
    quiz.on = True
    assert quiz.ask(record) == [x] and quiz.hidden() == {x}  # x·x: x asked once
    assert quiz.question(stepper, record) == "xx = x · x just ran its _backward. What is x.grad now? (It was 0.0000.)"
    child, ok, feedback = quiz.grade(stepper, record, read_guess("4"))
    assert (child, ok, feedback) == (x, True, "Right: x.grad = 4.0000.")
    assert quiz.score == [1, 1] and quiz.feedback == [(True, feedback)]
    assert quiz.hidden() == set() and quiz.question(stepper, record) == ""


def test_a_stop_reason_waits_while_a_question_is_open():
    _stepper, record, x = square_plus()
    quiz = StepQuiz()
    quiz.on = True
    assert quiz.shown_stop_reason("breakpoint at xx") == "breakpoint at xx"  # nothing asked yet
    quiz.ask(record)
    assert quiz.shown_stop_reason("breakpoint at xx") == QUIZ_HOLDS_STOP and quiz.shown_stop_reason("") == ""
    assert quiz.reveal() == [x]
    assert quiz.shown_stop_reason("breakpoint at xx") == "breakpoint at xx"


def test_reveal_keeps_the_steps_feedback_and_a_new_move_forgets_it():
    stepper, record, x = square_plus()
    quiz = StepQuiz()
    quiz.on = True
    quiz.ask(record)
    quiz.grade(stepper, record, 5.0)
    assert quiz.feedback[0][0] is False and quiz.score == [0, 1]
    quiz.ask(record)
    assert quiz.reveal() == [x] and len(quiz.feedback) == 1 and quiz.score == [0, 1]
    quiz.ask(record)
    assert quiz.clear() == [x] and quiz.feedback == [] and quiz.hidden() == set()


def test_a_guess_that_is_not_a_number_says_what_to_type():
    assert read_guess("3/4") == 0.75 and read_guess(" −0,5 ") == -0.5
    with pytest.raises(ValueError, match="'abc' is not a number: type the grad you expect, e.g. 3 or -0.5."):
        read_guess("abc")


# -----------------------------------------------------------------------------
# the quiz in a debug session


def test_the_quiz_hides_a_steps_grads_and_grades_each_answer(d):
    d.set_quiz_mode(True)
    d.run_to("n3")
    move = d.step()  # (x·y): x += 3, y += 2 -> 8
    x, y = d.value("n1"), d.value("n2")
    assert d.quiz_hidden() == {x, y} and move.touched == {"n1", "n2"}
    assert d.quiz_question() == "(x·y) just ran its _backward. What is x.grad now? (It was 0.0000.)"
    wrong_text = d.answer_quiz("abc")
    assert not wrong_text.ok and "is not a number" in wrong_text.message and d.quiz_score == [0, 0]
    right = d.answer_quiz("3")
    assert right.answer == (True, "Right: x.grad = 3.0000.") and right.touched == {"n1"}
    assert d.quiz_hidden() == {y}
    wrong = d.answer_quiz("2")
    ok, feedback = wrong.answer
    assert not ok and feedback.startswith("Not quite: you said 2, but y.grad = 8.0000, because y.grad +=")
    assert d.quiz_score == [1, 2] and d.quiz_question() == ""
    assert not d.answer_quiz("8").ok  # nothing left to ask


def test_the_next_move_reveals_and_forgets_an_open_question(d):
    d.set_quiz_mode(True)
    d.start()
    d.step()
    assert d.quiz_hidden()
    move = d.step()  # unanswered: shown again, a new question
    assert {"n3", "n4"} <= move.touched and d.quiz_hidden() == {d.value("n2")}
    d.set_quiz_mode(False)
    assert not d.quiz_hidden() and d.quiz_feedback == []


def test_quiz_tolerance():
    assert is_right(3.0005, 3.0) and not is_right(3.01, 3.0)
    assert is_right(0.0004, 0.0) and not is_right(0.001, 0.0)
    assert is_right(1000.9, 1000.0) and not is_right(1002.0, 1000.0)
    assert is_right(math.inf, math.inf) and not is_right(1e308, math.inf)
    assert is_right(math.nan, math.nan) and not is_right(0.0, math.nan)
    assert parse_number(" −0,5 ") == -0.5 and parse_number("inf") == math.inf and parse_number("x") is None
    assert parse_number("3/4") == 0.75  # the debugger's quiz takes fractions as the lessons do
