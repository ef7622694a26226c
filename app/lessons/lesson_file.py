"""File → Open Lesson…: a teacher's own lesson file, from disk.

The file is read by the same strict loader as the course's lessons
(core/lessons/format.py: plain JSON, never run), so a fault is refused with its
place: the file, the line, the field (`steps[2].actions[0].do`) and what is wrong.
A lesson whose steps build graphs is then run once headless
(core/lessons/check.py): a claim the engine contradicts or a placeholder that
cannot be filled is listed with its line when the lesson opens and flagged again
at the step it is on; the lesson still opens so the teacher can see the step. A
network lesson is not run ahead (it would train).

The lesson joins the panel's list for this session; opening the same file again
(after editing it) replaces it. Its id must not be one of the course's.
`open_lesson_file` is handed the window's Services (the dialogs' parent, the status
bar) and the window's `Opening` (the Lessons panel, and the dock it opens in).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from app.files import dialogs
from core.lessons.check import Problem, check_lesson
from core.lessons.format import Lesson, LessonError, load_lesson

if TYPE_CHECKING:
    from app.lessons.opening import Opening
    from app.services import Services

LESSON_FILTER = "Lesson (*.json);;All files (*)"


def open_lesson_file(services: Services, opening: Opening, path: str | None = None) -> Lesson | None:
    """Ask for a lesson file (or take `path`), check it and open it; the Lesson, or None
    when it was refused (the reason shown, with its line)."""
    parent = services.parent  # the dialogs' parent
    if path is None:
        path = dialogs.ask_open_path(parent, "Open Lesson", "", LESSON_FILTER)
        if not path:
            return None
    panel = opening.panel
    try:
        lesson = load_lesson(path)
    except LessonError as e:
        dialogs.show_error(parent, "Open Lesson", f"This lesson cannot be opened:\n\n{e}")
        return None
    path = os.path.abspath(path)
    same_file = [other for other in panel.lessons if os.path.abspath(other.path) == path]
    clash = [other for other in panel.lessons if other.id == lesson.id and other not in same_file]
    if clash:
        where = os.path.basename(clash[0].path)
        dialogs.show_error(
            parent,
            "Open Lesson",
            f"{path}: the id {lesson.id!r} is already the lesson “{clash[0].title}” ({where}); "
            "give your lesson an id of its own.",
        )
        return None
    if panel.busy:
        dialogs.show_error(parent, "Open Lesson", "A lesson step is still running; open the file when it is done.")
        return None
    problems = [] if _trains(lesson) else check_lesson(lesson)
    for old in same_file:
        if panel.runner is not None and panel.runner.lesson is old:
            panel.runner = panel.snapshot = None
        panel.lessons.remove(old)
    panel.lessons.append(lesson)
    panel._fill_list()
    opening.show_lessons(lesson.id, 0)
    panel.flag(lesson.id, problems)
    if problems:
        shown = "\n".join(_short(p) for p in problems[:6])
        shown += f"\n… and {len(problems) - 6} more" if len(problems) > 6 else ""
        panel._show_error(f"This lesson says things the engine does not (each flagged at its step):\n{shown}")
    services.say(f"Opened the lesson “{lesson.title}” ({len(lesson.steps)} steps) from {path}")
    return lesson


def _trains(lesson: Lesson) -> bool:
    return any(step.setup is not None and step.setup.kind == "network" for step in lesson.steps)


def _short(problem: Problem) -> str:
    line = f"line {problem.line}, " if problem.line is not None else ""
    return f"{line}step {problem.step + 1}: {problem.message}"
