"""Checking a teacher's lesson before the class sees it.

A lesson says numbers: its `claims` ("d.grad is -2 here"), its text's placeholders
and its questions' answers. `check_lesson` runs the lesson headless, step by step,
exactly as the panel will, and lists every place where the engine disagrees -- a
claim it contradicts, a placeholder it cannot fill, a question with no finite
answer -- each with its step and the line of the file it is on, so a teacher can
fix the file before the lecture:

    python main.py --check-lesson my_lesson.json
    my_lesson.json:23: step 4 (steps[3].claims[0]): the text says d.grad = -3.0, the engine gives -2.0

The panel flags the same problems at the step they are on when the lesson is
opened (app/lessons/lesson_file.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.format import format_number
from core.lessons.format import CLAIM_TOLERANCE, MAX_BYTES, Lesson
from core.lessons.lines import field_lines, path_of
from core.lessons.runner import LessonRunner


@dataclass(frozen=True)
class Problem:
    """One thing the lesson says that the engine does not bear out."""

    path: str  # the lesson file
    step: int  # 0-based
    field: str  # where in the step ('claims[0]', 'question', 'text')
    line: int | None  # the line of the file (None when the file cannot be read again)
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: step {self.step + 1} (steps[{self.step}].{self.field}): {self.message}"


def check_lesson(lesson: Lesson, train_limit: int | None = None) -> list[Problem]:
    """Run every step headless; every claim, placeholder and question the engine
    contradicts or cannot compute, in step order (an empty list: all is well)."""
    lines = _lines(lesson.path)
    problems = []

    def add(step: int, field: str, message: str) -> None:
        line = _line(lines, step, field)
        problems.append(Problem(str(lesson.path), step, field, line, message))

    runner = LessonRunner(lesson, train_limit)
    while True:
        i, step = runner.index, runner.step
        try:
            runner.render_text()
        except (KeyError, AttributeError, TypeError, ValueError) as e:
            add(i, "text", f"a placeholder cannot be filled: {e}")
        if step.question is not None:
            try:
                right, _how = runner.answer()
                if not math.isfinite(right):
                    add(i, "question", f"the question's answer is {right}")
            except (KeyError, AttributeError, TypeError, ValueError) as e:
                add(i, "question", str(e))
        for k, claim in enumerate(step.claims):
            try:
                actual = getattr(runner.node(claim.node), claim.quantity)
            except KeyError as e:
                add(i, f"claims[{k}]", str(e))
                continue
            if not abs(actual - claim.value) <= CLAIM_TOLERANCE:
                add(
                    i,
                    f"claims[{k}]",
                    f"the lesson says {claim.node}.{claim.quantity} = {claim.value:g}, "
                    f"the engine gives {format_number(actual)}",
                )
        if not runner.next():
            return problems


def _lines(path: str) -> dict[tuple, int]:
    try:
        with open(path, encoding="utf-8") as f:
            return field_lines(f.read(MAX_BYTES + 1))
    except (OSError, UnicodeDecodeError):
        return {}


def _line(lines: dict[tuple, int], step: int, field: str) -> int | None:
    path = path_of(step, field)
    while path:
        if path in lines:
            return lines[path]
        path = path[:-1]
    return None
