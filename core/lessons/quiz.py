"""A lesson quiz that keeps score: predict each value before you see it.

A lesson step may ask a question (its `question`); in quiz mode the class is
also asked every grad the step's backward moves computed. Until an item is
answered its value is hidden -- on the canvas and in the text alike (the
runner's `shown` and `render_text` take the hidden set) -- so the screen never
gives the answer away.

Each item ends in one of three ways, and that is its score:

    first      right at the first try
    hint       wrong once, shown a hint (never the answer), then right
    revealed   wrong twice, or the learner asked to see it

Scores are kept per lesson, first outcome only: going back to a step and
answering again does not count twice. The summary is plain data, shown to the
class in a small table and saved as JSON (core.files.atomic's writer):

    {"format": "backprop-studio.quiz-score", "schema_version": 1,
     "lessons": [{"id": "chain-rule", "title": "...", "asked": 3,
                  "first": 2, "hint": 1, "revealed": 0}, ...],
     "total": {"asked": 3, "first": 2, "hint": 1, "revealed": 0}}

Typed answers are read by the one parser of typed numbers (core/format.py's
`parse_number`, fractions included, finite only); a question's answer is
right within its tolerance, a predicted grad within the debugger's quiz
tolerance (core/debugger/quiz.py's `is_right`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from core.debugger.quiz import is_right
from core.engine import Value, topological_order
from core.files.atomic import write_atomically
from core.format import parse_number
from core.lessons.format import within
from core.lessons.runner import LessonRunner, fmt

FORMAT = "backprop-studio.quiz-score"
SCHEMA_VERSION = 1
OUTCOMES = ("first", "hint", "revealed")


class QuizItem:
    """One value to predict: a step's question, or a grad a backward move computed."""

    __slots__ = ("key", "nid", "quantity", "prompt", "truth", "tolerance", "hint", "explain", "hide")

    def __init__(
        self,
        key: str,
        nid: str | None,
        quantity: str,
        prompt: str,
        truth: float,
        tolerance: float | None,
        hint: str,
        explain: Callable[[], str],
        hide: bool,
    ) -> None:
        self.key = key  # 'step:node id:quantity', unique within a lesson
        self.nid = nid  # the canvas node it asks about (None if not on the canvas)
        self.quantity = quantity  # 'data' or 'grad'
        self.prompt = prompt
        self.truth = truth
        self.tolerance = tolerance  # None: the debugger's quiz tolerance
        self.hint = hint
        self.explain = explain  # a function: the right answer and how the engine gets it
        self.hide = hide  # is its value kept off the screen until answered?

    def right(self, guess: float) -> bool:
        if self.tolerance is None:
            return is_right(guess, self.truth)
        return within(guess, self.truth, self.tolerance)


class LessonQuiz:
    """The quiz of a class session: the items of the step on screen and every score."""

    def __init__(self) -> None:
        self.on = False
        self.items: list[QuizItem] = []  # the step's items still waiting for an answer, first is asked now
        self.tries = 0  # wrong answers to the first item so far
        self.lesson: tuple[str, str] | None = None  # (id, title) of the lesson on screen
        self.scores: dict[str, dict[str, Any]] = {}  # lesson id -> {"title": str, "items": {key: outcome}}

    # -- a step comes on screen ----------------------------------------------------

    def enter(self, runner: LessonRunner) -> None:
        """Gather the items of runner's current step (the state must be exhausted)."""
        lesson = runner.lesson
        self.lesson = (lesson.id, lesson.title)
        scored = self.scores.get(lesson.id, {}).get("items", {})
        self.items, self.tries = [], 0
        step = runner.step
        question = step.question
        if question is not None:
            key = f"{step.index}:{question.node}:{question.quantity}"
            if key not in scored:
                truth, _how = runner.answer()
                nid = runner.nid_of_label(question.node)
                node = runner.node(question.node)
                shown = getattr(node, question.quantity)
                # the canvas must not show the answer while the question is open, quiz or not
                hide = nid is not None and fmt(shown) == fmt(truth)
                self.items.append(
                    QuizItem(
                        key,
                        nid,
                        question.quantity,
                        runner.fill(question.prompt),  # render_prompt(), known to have a question
                        truth,
                        question.tolerance,
                        runner.hint(),
                        runner.explain_answer,
                        hide,
                    )
                )
        if self.on:
            for nid in runner.new_grads:
                key = f"{step.index}:{nid}:grad"
                if key in scored or any(item.nid == nid for item in self.items):
                    continue
                value = runner.by_id[nid]
                name = runner.name_of(value)
                before = _grad_before(runner, value)
                self.items.append(
                    QuizItem(
                        key,
                        nid,
                        "grad",
                        f"Predict: what is {name}.grad now? (It was {fmt(before)}.)",
                        value.grad,
                        None,
                        _grad_hint(runner, value),
                        _grad_explanation(name, value.grad),
                        True,
                    )
                )
        self.items.sort(key=_backward_rank(runner))

    # -- what the screen may show --------------------------------------------------

    def hidden(self) -> set[tuple[str, str]]:
        """{(node id, quantity)} kept off the canvas and out of the text now."""
        return {(item.nid, item.quantity) for item in self.items if item.hide and item.nid is not None}

    @property
    def current(self) -> QuizItem | None:
        return self.items[0] if self.items else None

    # -- answering -------------------------------------------------------------------

    def answer(self, text: str) -> tuple[str, str]:
        """(verdict, message) for a typed answer to the current item; verdict is one of
        'first', 'hint' (right after a hint), 'wrong' (a hint is shown), 'revealed',
        'invalid' (not a number: nothing changes) or 'none' (nothing is asked)."""
        item = self.current
        if item is None:
            return "none", "Nothing is asked here."
        guess = parse_number(text, finite=True)
        if guess is None:
            return "invalid", "Type a number, like -1.5 or 3/4."
        if item.right(guess):
            outcome = "first" if self.tries == 0 else "hint"
            self._score(item, outcome)
            return outcome, "Right! " + item.explain()
        self.tries += 1
        if self.tries == 1:
            return "wrong", f"Not quite: you said {str(text).strip()}. Hint: {item.hint}"
        self._score(item, "revealed")
        return "revealed", f"Not quite: you said {str(text).strip()}. " + item.explain()

    def reveal(self) -> tuple[str, str]:
        """Show the current item's value without an answer (scored 'revealed')."""
        item = self.current
        if item is None:
            return "none", "Nothing is asked here."
        self._score(item, "revealed")
        return "revealed", "Revealed: " + item.explain()

    def _score(self, item: QuizItem, outcome: str) -> None:
        assert self.lesson is not None  # an item to score was gathered by enter(), which set it
        lesson_id, title = self.lesson
        record = self.scores.setdefault(lesson_id, {"title": title, "items": {}})
        record["items"].setdefault(item.key, outcome)  # the first outcome counts
        self.items.remove(item)
        self.tries = 0

    # -- the summary -------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """Plain data: per lesson (in the order first answered) and in total."""
        lessons = []
        total = dict.fromkeys(("asked",) + OUTCOMES, 0)
        for lesson_id, record in self.scores.items():
            outcomes = list(record["items"].values())
            row = {"id": lesson_id, "title": record["title"], "asked": len(outcomes)}
            for outcome in OUTCOMES:
                row[outcome] = outcomes.count(outcome)
            for key in total:
                total[key] += row[key]
            lessons.append(row)
        return {"format": FORMAT, "schema_version": SCHEMA_VERSION, "lessons": lessons, "total": total}

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the summary as JSON, atomically (a crash never leaves half a file)."""
        text = json.dumps(self.summary(), indent=2, sort_keys=True, allow_nan=False, ensure_ascii=False)
        write_atomically(os.fspath(path), text + "\n")

    def reset(self) -> None:
        self.scores.clear()
        self.items, self.tries = [], 0


def _backward_rank(runner: LessonRunner) -> Callable[[QuizItem], tuple[int, int]]:
    """The order the backward pass settles values in, as a sort key: a node's grad is
    asked only after the grads of every node it feeds (reverse topological order, the
    order `_backward` runs in), and a question about data (the forward pass) first.
    A step's question about a grad the next step computes so comes after this step's
    own grads, which it depends on."""
    rank = {}
    if runner.kind == "graph" and runner.root is not None:  # never a network's big loss graph
        topo = topological_order(runner.root)
        value_rank = {v: i for i, v in enumerate(reversed(topo))}
        rank = {nid: value_rank.get(v, len(topo)) for nid, v in runner.by_id.items()}

    def key(item: QuizItem) -> tuple[int, int]:
        if item.quantity == "data":
            return (0, 0)
        return (1, rank.get(item.nid, len(rank)) if item.nid is not None else len(rank))

    return key


def _grad_before(runner: LessonRunner, value: Value) -> float:
    """value's grad before this step's backward moves first touched it."""
    for record in runner.last_backward:
        for child, before in zip(record.children, record.grads_before):
            if child is value:
                return before
    return 0.0


def _grad_explanation(name: str, grad: float) -> Callable[[], str]:
    """The text revealing a predicted grad (made per item: the loop's names change)."""
    return lambda: f"{name}.grad = {fmt(grad)}."


def _grad_hint(runner: LessonRunner, value: Value) -> str:
    users = [r.node for r in runner.last_backward if any(c is value for c in r.children)]
    names = ", ".join(dict.fromkeys(runner.name_of(u) for u in users)) or "the nodes it feeds"
    return f"{runner.name_of(value)} gets (local derivative) × (grad) from {names}, added to what it had before."
