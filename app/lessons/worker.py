"""A lesson move: going to step k of a lesson, in place or on a QThread.

A move that builds, trains or restores a network (`_moves_train`) can take
seconds, so `LessonWorker` runs it off the GUI thread: it makes the
`LessonRunner` if there is none yet, drives `runner.goto_iter` and reports
each stage. What the GUI needs afterwards is gathered into a `Snapshot` while
still on the worker, so the GUI thread never touches the runner mid-move.
Stop asks the job to end; it answers with `Stopped` and the runner, which is
then mid-step and must be replayed.
"""

import math

from app.jobs import Job
from core.lessons.runner import LessonRunner, fmt

# -----------------------------------------------------------------------------
# What the GUI needs after a move, gathered where the runner is (maybe a worker)


class Snapshot:
    """Plain results of a move; `runner` may be touched again only on the GUI
    thread once the move is over."""

    def __init__(self, runner):
        self.runner = runner
        self.index = runner.index
        self.progress = runner.progress
        self.kind = runner.kind
        self.text = runner.render_text()
        self.prompt = runner.render_prompt()
        self.metrics = None
        self.boundary = None
        self.points = None
        self.diverged = None
        self.nodes = None
        if runner.kind == "network":
            trainer = runner.trainer
            loss, accuracy = runner.metrics()
            self.metrics = {
                "step": trainer.steps_done,
                "loss": fmt(loss),
                "accuracy": f"{accuracy:.1%}",
                "params": len(trainer.params),
                "finite": math.isfinite(loss),
            }
            self.diverged = trainer.diverged
            self.boundary = trainer.boundary()
            self.points = (list(trainer.train_points), list(trainer.train_labels))
        # the canvas always shows the graph the step speaks of: the graph itself, or for a
        # network too big to draw one of its neurons (traced here, off the GUI thread)
        document = runner.document
        self.show_graph = document is not None
        self.nodes = len(document.nodes) if document is not None else None
        self.canvas_note = runner.canvas_note
        self.highlight = runner.highlight_ids() if self.show_graph else []
        self.statuses = None
        if self.show_graph and runner.stepper is not None:
            stepper = runner.stepper
            self.statuses = {nid: stepper.status(v) for nid, v in runner.by_id.items()}


def _moves_train(lesson, start, target):
    """Does going from step `start` to `target` (a replay from 0 when going back)
    involve a network? Building, training or restoring one belongs in a worker."""
    lo = 0 if target <= start else start + 1
    return any(step.setup is not None and step.setup.kind == "network" for step in lesson.steps[: target + 1]) or any(
        a.do == "train" for step in lesson.steps[lo : target + 1] for a in step.actions
    )


class Stopped:
    """A move abandoned halfway: its runner is mid-step and must be replayed."""

    def __init__(self, runner):
        self.runner = runner


class LessonWorker(Job):
    """Runs one move of a lesson off the GUI thread (a Job, app/jobs.py): makes the
    LessonRunner if there is none yet (its constructor enters step 0), then
    `goto_iter`, reporting each stage. Its outcome is a Snapshot, a Stopped or the
    exception the move raised."""

    def __init__(self, token, runner, lesson, target, replay=False, train_limit=None, parent=None):
        super().__init__(token, parent=parent, name="lesson-move")
        self.runner, self.lesson, self.target = runner, lesson, target
        self.replay, self.train_limit = replay, train_limit

    def work(self):
        if self.runner is None:
            self.report("setting up the lesson")
            self.runner = LessonRunner(self.lesson, self.train_limit)
        for text in _move(self.runner, self.target, self.replay):
            self.report(text)
            if self.stopped:
                return Stopped(self.runner)
        return Snapshot(self.runner)


def _move(runner, target, replay):
    if replay and target > runner.index:
        yield from runner.goto_iter(0)  # start over: the Values were changed outside the lesson
    yield from runner.goto_iter(target)
