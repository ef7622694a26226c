"""The lesson quiz asks in the backward pass's order (issue 38 item 3)."""

import pytest

from core.engine import topological_order
from core.lessons.format import load_all
from core.lessons.quiz import LessonQuiz
from core.lessons.runner import LessonRunner
from core.resources import shipped

LESSONS = [lesson for lesson in load_all(shipped("lessons")) if lesson.steps[0].setup.kind != "network"]


def feeds(a, b):
    """Does a's value flow into b (a is an operand of b, at any depth)?"""
    return a in set(topological_order(b)) and a is not b


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.id)
def test_a_grad_is_asked_only_after_the_grads_it_depends_on(lesson):
    runner = LessonRunner(lesson, train_limit=2)
    while True:
        quiz = LessonQuiz()
        quiz.on = True
        quiz.enter(runner)
        asked = [runner.by_id[i.nid] for i in quiz.items if i.quantity == "grad" and i.nid in runner.by_id]
        for k, early in enumerate(asked):
            for late in asked[k + 1 :]:
                # early's grad needs late's when late is one of the nodes early feeds
                assert not feeds(early, late), (runner.index, [i.prompt for i in quiz.items])
        if not runner.next():
            break


def test_chain_rule_step_4_asks_this_steps_grads_before_the_next_steps_question():
    lesson = next(lesson for lesson in LESSONS if lesson.id == "chain-rule")
    runner = LessonRunner(lesson)
    runner.goto(3)
    quiz = LessonQuiz()
    quiz.on = True
    quiz.enter(runner)
    prompts = [item.prompt for item in quiz.items]
    assert "a.grad" in prompts[-1], prompts  # a.grad needs e.grad, which this step computes
    assert any("e.grad" in p for p in prompts[:-1]), prompts
