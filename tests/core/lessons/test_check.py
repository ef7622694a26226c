"""`--check-lesson`: every claim the engine contradicts, with its step and line."""

import json

from core.lessons.check import check_lesson
from core.lessons.format import load_all, load_lesson
from core.resources import shipped


def write(tmp_path, steps):
    lesson = {
        "format": "backprop-studio.lesson",
        "schema_version": 1,
        "id": "mine",
        "title": "Mine",
        "summary": "S",
        "order": 1,
        "steps": steps,
    }
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(lesson, indent=1), encoding="utf-8")
    return path


def test_a_contradicted_claim_names_its_step_and_line(tmp_path):
    path = write(
        tmp_path,
        [
            {"text": "f", "setup": {"snippet": "x = 2.0; y = 3.0; f = x * y"}, "actions": ["backward_all"]},
            {"text": "x.grad", "claims": [{"node": "x", "quantity": "grad", "value": 3.0}]},
            {"text": "y.grad", "claims": [{"node": "y", "quantity": "grad", "value": 9.0}]},
        ],
    )
    problems = check_lesson(load_lesson(path))
    assert len(problems) == 1
    problem = problems[0]
    line = next(k for k, row in enumerate(path.read_text().splitlines(), 1) if '"value": 9.0' in row)
    assert problem.step == 2 and problem.field == "claims[0]"
    assert line - 4 <= problem.line <= line  # the claim's object starts a few lines above its value
    assert (
        "y.grad = 9" in str(problem)
        and "2.0000" in str(problem)
        and f"mine.json:{problem.line}: step 3" in str(problem)
    )


def test_the_course_agrees_with_the_engine():
    for lesson in load_all(shipped("lessons")):
        if not any(step.setup is not None and step.setup.kind == "network" for step in lesson.steps):
            assert check_lesson(lesson) == [], lesson.id
