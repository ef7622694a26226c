"""Lessons: a guided walk through backpropagation in which every number is computed live.

A lesson is a JSON file of steps. Each step has Markdown `text` for the lessons
panel and may set up a graph, point at nodes, do something to the graph, ask a
question, and state numbers that a test checks:

    {"format": "backprop-studio.lesson", "schema_version": 1,
     "id": "chain-rule", "title": "...", "summary": "...", "order": 3,
     "steps": [
       {"text": "Here is $L = (a b + c) f$. Press **Next** to step backward.",
        "setup": {"snippet": "a = Value(2.0)\\nb = Value(-3.0)\\n..."},
        "highlight": ["L"]},
       {"text": "One `_backward` call ran:\\n```\\n{backward}\\n```",
        "actions": [{"do": "backward_step"}],
        "claims": [{"node": "d", "quantity": "grad", "value": -2.0}],
        "question": {"prompt": "What is a.grad?", "node": "a", "quantity": "grad"}}]}

`text` (and a snippet) may also be a list of lines, joined with newlines, so a
lesson reads well in an editor.

Setups. `{"snippet": code}` reads micrograd-style code (core/document/expr.py, never
run); `{"example": "tutorial.json"}` opens a graph from resources/examples/;
`{"network": {TrainConfig fields}}` builds a training run (core/training/config.py)
whose graph is the loss over the training set, built only when something
looks at it. A setup replaces everything before it.

Actions (a closed vocabulary, run in order when the step is entered):

    forward_step [count]   forward_all       one / all nodes of the forward pass
    backward_step [count]  backward_all      one / all `_backward` calls (the debugger)
    reset_stepper          a fresh debugger: every grad 0, the output's grad 1
    backward_call          plain `root.backward()`, which zeroes nothing
    zero_grad              every grad of the graph back to 0
    nudge node [h]         slope (f(x+h) - f(x)) / h, the graph left as it was
    train steps            that many training steps (stops early if it diverges)
    set_value node value   change a leaf, re-run the forward pass, zero the grads

No number in a lesson is typed in by hand and shown unchecked. Text says
`{x.grad}` and the runner fills in the engine's value (4 decimals). The known
placeholders are

    {label.data} {label.grad} {label.status}      a node (status: untouched/partial/final)
    {nudge} {nudge.h} {nudge.before} {nudge.after} the last nudge: slope, h, f(x), f(x+h)
    {forward} {backward}      the arithmetic of this step's forward / backward steps
    {nodes}                   how many Values the graph has
    {loss} {accuracy} {step} {params} {dead} {relus}    a network: its training-set
                              loss and accuracy, updates done, parameters, ReLU
                              neurons dead on every training point, ReLU neurons
    {test_loss} {test_accuracy}    the same on the held-out test points (test_ratio > 0)

A question's answer is never in the file either: it is the engine's value of
`node.quantity` -- for a grad, what a clean backward pass from the output gives,
whatever the grads show at the moment -- so a question can come before the
backward pass, or ask what a buggy grad should have been. A `claim` is a number
the text states in words; the tests check it against the engine.

Everything is checked when the file is loaded, without computing anything
heavy: a typo in an action, a label that is not in the graph, a placeholder
nothing can fill. The fault raises a `LessonError` that names the file, the
step and the field (`steps[2].actions[0].do`). Nothing is skipped silently.

Running a lesson -- the state behind the lessons panel -- is core/lessons/runner.py.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from typing import Any, TypeGuard

from core.document.compile import compile_document
from core.document.expr import ExprError, parse
from core.files import strict_json
from core.files.graph_file import FormatError
from core.files.graph_file import load as load_graph
from core.nn import MLP
from core.training.config import TrainConfig

FORMAT = "backprop-studio.lesson"
SCHEMA_VERSION = 1
MAX_BYTES = 1024 * 1024
WHAT = "a lesson"

TOP_KEYS = ("format", "schema_version", "id", "title", "summary", "order", "steps")
STEP_KEYS = ("text", "setup", "highlight", "actions", "question", "claims")
SETUP_KINDS = ("snippet", "example", "network")
QUANTITIES = ("data", "grad")
DEFAULT_TOLERANCE = 0.01
CLAIM_TOLERANCE = 1e-4
MAX_EXPLAIN_LINES = 12

# action name -> the arguments it takes (count, h have defaults; the others are required)
ACTIONS = {
    "forward_step": ("count",),
    "forward_all": (),
    "backward_step": ("count",),
    "backward_all": (),
    "backward_call": (),
    "zero_grad": (),
    "reset_stepper": (),
    "nudge": ("node", "h"),
    "train": ("steps",),
    "set_value": ("node", "value"),
}
REQUIRED_ARGS = ("node", "steps", "value")
MAX_ACTION_REPEATS = 100_000  # training steps or debugger moves one action may ask for

NUDGE_KEYS = ("nudge", "nudge.h", "nudge.before", "nudge.after")
NETWORK_KEYS = ("loss", "accuracy", "step", "params", "dead", "relus", "test_loss", "test_accuracy")
NODE_ATTRS = ("data", "grad", "status")
PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def allowed_error(right: float, tolerance: float) -> float:
    """How far an answer may be from `right`: the question's absolute `tolerance`, but
    never more than 2 % of the answer (lesson 17 accepted 0.0032 for 0.0022 with 0.001
    alone, 45 % off), and never less than half the last of the 4 decimals the studio
    shows (typing what the canvas shows is right)."""
    return max(min(tolerance, 0.02 * abs(right)), 0.5e-4)


def within(given: float, right: float, tolerance: float) -> bool:
    """Is an answer close enough? (`allowed_error`)"""
    return abs(given - right) <= allowed_error(right, tolerance)


class LessonError(ValueError):
    """A lesson file we will not load. `path`, `step` (an index or None) and
    `field` (e.g. 'actions[0].do') say where; `message` says what."""

    def __init__(
        self, path: str, message: str, step: int | None = None, field: str | None = None, line: int | None = None
    ) -> None:
        self.path = path
        self.step = step
        self.field = field
        self.message = message
        self.line = line  # the line in the file, when known (core/lessons/lines.py)
        where = [str(path)] + ([f"line {line}"] if line is not None else [])
        if step is not None:
            where.append(f"steps[{step}]" + (f".{field}" if field else ""))
        elif field:
            where.append(field)
        super().__init__(": ".join(where) + f": {message}")


# -----------------------------------------------------------------------------
# The lesson model (plain, immutable data)


@dataclass(frozen=True)
class Setup:
    kind: str  # 'snippet', 'example' or 'network'
    source: str = ""  # the snippet's code, or the example file's path
    config: TrainConfig | None = None  # the TrainConfig of a network


@dataclass(frozen=True)
class Action:
    do: str
    count: int = 1
    node: str = ""
    h: float = 0.001
    steps: int = 0
    value: float = 0.0


@dataclass(frozen=True)
class Question:
    prompt: str
    node: str
    quantity: str
    tolerance: float = DEFAULT_TOLERANCE


@dataclass(frozen=True)
class Claim:
    node: str
    quantity: str
    value: float


@dataclass(frozen=True)
class Step:
    index: int
    text: str
    setup: Setup | None = None  # None keeps the graph of the step before
    highlight: tuple[str, ...] = ()
    actions: tuple[Action, ...] = ()
    question: Question | None = None
    claims: tuple[Claim, ...] = ()


@dataclass(frozen=True)
class Lesson:
    id: str
    title: str
    summary: str
    order: int
    steps: tuple[Step, ...]
    path: str = ""


# -----------------------------------------------------------------------------
# Loading: JSON -> Lesson, every field checked


def load_lesson(path: str | os.PathLike[str]) -> Lesson:
    """Read and validate one lesson file; LessonError names the fault.

    The strict reader (core.files.strict_json) refuses a FIFO, a device, a folder
    or a missing path before reading, reads at most MAX_BYTES, and refuses bad
    UTF-8, duplicate keys, NaN and nesting too deep to parse."""
    path = os.fspath(path)
    try:
        data = strict_json.load(path, MAX_BYTES, WHAT)
    except strict_json.JSONFileError as e:
        raise LessonError(path, e.message) from None
    try:
        return lesson_from_dict(data, path)
    except LessonError as e:
        if e.step is None and e.field is None:
            raise
        raise _with_line(e) from None


def _with_line(error: LessonError) -> LessonError:
    """The same fault with the line of the file it is on, for a teacher's editor."""
    from core.lessons.lines import line_of

    try:
        with open(error.path, encoding="utf-8") as f:
            text = f.read(MAX_BYTES + 1)
    except (OSError, UnicodeDecodeError):
        return error
    line = line_of(text, error.step, error.field)
    return LessonError(error.path, error.message, error.step, error.field, line)


def load_all(directory: str | os.PathLike[str]) -> list[Lesson]:
    """Every *.json lesson in `directory`, sorted by their `order` field."""
    directory = os.fspath(directory)
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".json"))
    except OSError as e:
        raise LessonError(directory, f"cannot list the lessons folder: {e.strerror}") from None
    lessons = [load_lesson(os.path.join(directory, name)) for name in names]
    seen_ids: dict[str, str] = {}  # lesson id -> the file that has it
    seen_orders: dict[int, str] = {}
    for lesson in lessons:
        if lesson.id in seen_ids:
            raise LessonError(lesson.path, f"the id {lesson.id!r} is also used by {seen_ids[lesson.id]}", field="id")
        if lesson.order in seen_orders:
            raise LessonError(
                lesson.path, f"order {lesson.order} is also used by {seen_orders[lesson.order]}", field="order"
            )
        seen_ids[lesson.id] = seen_orders[lesson.order] = os.path.basename(lesson.path)
    return sorted(lessons, key=lambda lesson: lesson.order)


def lesson_from_dict(data: Any, path: str = "<lesson>") -> Lesson:
    """Validate parsed JSON and build a Lesson (the checks the loader runs)."""
    if not isinstance(data, dict):
        raise LessonError(path, "a lesson file holds one JSON object {...}")
    _no_unknown_keys(data, TOP_KEYS, path, None, "")
    if data.get("format") != FORMAT:
        raise LessonError(path, f"this is not a lesson: 'format' must be {FORMAT!r}", field="format")
    version = data.get("schema_version")
    if not _is_int(version) or version < 1:
        raise LessonError(path, "'schema_version' must be a whole number >= 1", field="schema_version")
    if version > SCHEMA_VERSION:
        raise LessonError(
            path,
            f"schema_version {version} is newer than this program understands "
            f"({SCHEMA_VERSION}); update Backprop Studio",
            field="schema_version",
        )
    lesson_id = data.get("id")
    if not isinstance(lesson_id, str) or not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", lesson_id):
        raise LessonError(path, "'id' must be lower-case letters, digits, '-' or '_'", field="id")
    for key in ("title", "summary"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise LessonError(path, f"'{key}' must be non-empty text", field=key)
    if not _is_int(data.get("order")):
        raise LessonError(path, "'order' must be a whole number (lessons are sorted by it)", field="order")
    steps = data.get("steps")
    if not isinstance(steps, list) or not steps:
        raise LessonError(path, "'steps' must be a non-empty list", field="steps")
    lesson_dir = os.path.dirname(os.path.abspath(path)) if path != "<lesson>" else os.getcwd()
    scope = _Scope()
    built = tuple(_step(raw, i, path, lesson_dir, scope) for i, raw in enumerate(steps))
    return Lesson(lesson_id, data["title"], data["summary"], data["order"], built, path)


# -----------------------------------------------------------------------------
# Validating a step: what each step can refer to depends on the steps before it


class _Scope:
    """What exists when a step runs: the graph's labels, a nudge, a live debugger."""

    def __init__(self):
        self.kind = None  # None (no setup yet), 'graph' or 'network'
        self.labels = {}  # label -> how many nodes carry it
        self.leaves = set()
        self.nudged = False
        self.stepping = False  # the debugger's statuses are meaningful

    def reset(self, kind, labels, leaves):
        self.kind, self.labels, self.leaves = kind, labels, leaves
        self.nudged = self.stepping = False


def _step(raw, i, path, lesson_dir, scope):
    def fail(field, message):
        raise LessonError(path, message, i, field)

    if not isinstance(raw, dict):
        fail(None, "a step must be a JSON object {...}")
    _no_unknown_keys(raw, STEP_KEYS, path, i, "")
    if "text" not in raw:
        fail("text", "every step needs text (Markdown shown in the lessons panel)")
    text = _text(raw.get("text"), lambda m: fail("text", m))
    if not text.strip():
        fail("text", "every step needs text (Markdown shown in the lessons panel)")

    setup = None
    if "setup" in raw:
        setup = _setup(raw["setup"], lesson_dir, scope, lambda f, m: fail(f"setup.{f}" if f else "setup", m))

    highlight = raw.get("highlight", [])
    if not isinstance(highlight, list) or not all(isinstance(h, str) for h in highlight):
        fail("highlight", "'highlight' must be a list of node labels")
    for k, label in enumerate(highlight):
        _check_label(scope, label, lambda m, k=k: fail(f"highlight[{k}]", m))

    actions = raw.get("actions", [])
    if not isinstance(actions, list):
        fail("actions", "'actions' must be a list")
    ran = set()
    built_actions = tuple(
        _action(a, k, scope, ran, lambda f, m, k=k: fail(f"actions[{k}]" + f, m)) for k, a in enumerate(actions)
    )

    _check_placeholders(text, scope, ran, lambda m: fail("text", m))

    question = None
    if "question" in raw:
        question = _question(raw["question"], scope, ran, lambda f, m: fail(f"question.{f}" if f else "question", m))

    claims = raw.get("claims", [])
    if not isinstance(claims, list):
        fail("claims", "'claims' must be a list")
    built_claims = tuple(_claim(c, scope, lambda f, m, k=k: fail(f"claims[{k}]" + f, m)) for k, c in enumerate(claims))
    return Step(i, text, setup, tuple(highlight), built_actions, question, built_claims)


def _setup(raw, lesson_dir, scope, fail):
    if not isinstance(raw, dict) or len(raw) != 1 or next(iter(raw)) not in SETUP_KINDS:
        fail(
            None,
            "a setup is one of {\"snippet\": code}, {\"example\": \"file.json\"} or {\"network\": {training settings}}",
        )
    kind, value = next(iter(raw.items()))
    if kind == "snippet":
        code = _text(value, lambda m: fail("snippet", m))
        try:
            doc = parse(code)
        except ExprError as e:
            fail("snippet", f"the snippet does not read as a graph: {e}")
        scope.reset("graph", *_graph_labels(doc, lambda m: fail("snippet", m)))
        return Setup("snippet", code)
    if kind == "example":
        if not isinstance(value, str) or os.path.basename(value) != value or not value.endswith(".json"):
            fail("example", "name a file in resources/examples/, like \"tutorial.json\"")
        example = os.path.join(os.path.dirname(lesson_dir), "examples", value)
        try:
            doc, _meta = load_graph(example)
        except FormatError as e:
            fail("example", f"the example {value!r} does not load: {e}")
        scope.reset("graph", *_graph_labels(doc, lambda m: fail("example", m)))
        return Setup("example", example)
    if not isinstance(value, dict):
        fail("network", "give the training settings to change as an object, like {\"lr\": 0.1}")
    try:
        config = TrainConfig.from_dict(value)
    except (TypeError, ValueError) as e:
        fail("network", f"bad training settings: {e}")
    model = MLP(len(config.features), list(config.hidden_sizes) + [1], config.activation)
    params = [p.label for p in model.parameters()]
    labels = {label: 1 for label in params}
    labels["loss"] = 1
    scope.reset("network", labels, set(params))
    return Setup("network", config=config)


def _graph_labels(doc, fail):
    """(label counts, leaf labels) of the nodes that compute, as the runner will see them."""
    compiled = compile_document(doc)
    if compiled.output is None:
        fail(
            "the graph has no single output that can be computed "
            f"(unwired inputs: {compiled.missing or 'none'}; sinks: {doc.sinks()})"
        )
    labels, leaves = {}, set()
    for nid in compiled.order:
        node = doc.nodes[nid]
        if node.label:
            labels[node.label] = labels.get(node.label, 0) + 1
            if node.kind != "op":
                leaves.add(node.label)
    return labels, leaves


def _action(raw, k, scope, ran, fail):
    if isinstance(raw, str):
        raw = {"do": raw}
    if not isinstance(raw, dict):
        fail("", "an action is {\"do\": name, ...arguments} or a bare name like \"backward_all\"")
    name = raw.get("do")
    if not isinstance(name, str) or name not in ACTIONS:  # a list or an object is not hashable
        fail(".do", f"unknown action {name!r} (known: {', '.join(ACTIONS)})")
    allowed = ACTIONS[name]
    _no_unknown_keys(
        raw,
        ("do",) + allowed,
        None,
        None,
        "",
        fail=lambda key: fail(f".{key}", f"{name} takes " + (", ".join(allowed) if allowed else "no arguments")),
    )
    for key in REQUIRED_ARGS:
        if key in allowed and key not in raw:
            fail(f".{key}", f"{name} needs '{key}'")
    args = {}
    for key in allowed:
        if key not in raw:
            continue
        value = raw[key]
        if key in ("count", "steps") and not (_is_int(value) and value >= 1):
            fail(f".{key}", f"'{key}' must be a whole number >= 1")
        if key in ("count", "steps") and value > MAX_ACTION_REPEATS:
            fail(
                f".{key}",
                f"'{key}' is {value:,}: a lesson step may ask for at most "
                f"{MAX_ACTION_REPEATS:,} (a class waits for every one of them)",
            )
        if key == "h" and not (_is_number(value) and value != 0):
            fail(".h", "'h' must be a finite number other than 0")
        if key == "value" and not _is_number(value):
            fail(".value", "'value' must be a finite number")
        if key == "node":
            _check_label(scope, value, lambda m: fail(".node", m), leaf=True)
        args[key] = value

    if scope.kind is None:
        fail(".do", "there is no graph yet: give this step or an earlier one a setup")
    if name == "train" and scope.kind != "network":
        fail(".do", "train needs a network setup ({\"network\": {...}})")
    if name in ("backward_step", "backward_all", "reset_stepper"):
        scope.stepping = True
    if name in ("backward_call", "zero_grad", "set_value", "train"):
        scope.stepping = False  # grads no longer come from the debugger
    if name == "nudge":
        scope.nudged = True
    ran.add(name)
    return Action(name, **args)


def _question(raw, scope, ran, fail):
    if not isinstance(raw, dict):
        fail(None, "a question is {\"prompt\", \"node\", \"quantity\", \"tolerance\"}")
    if "answer" in raw:
        fail("answer", "never type the answer: the engine computes it from 'node' and 'quantity'")
    _no_unknown_keys(
        raw,
        ("prompt", "node", "quantity", "tolerance"),
        None,
        None,
        "",
        fail=lambda key: fail(key, "a question has prompt, node, quantity and tolerance"),
    )
    prompt = _text(raw.get("prompt"), lambda m: fail("prompt", m))
    if not prompt.strip():
        fail("prompt", "the question needs a prompt")
    _check_placeholders(prompt, scope, ran, lambda m: fail("prompt", m))
    _check_label(scope, raw.get("node"), lambda m: fail("node", m))
    if raw.get("quantity") not in QUANTITIES:
        fail("quantity", "'quantity' must be \"grad\" or \"data\"")
    tolerance = raw.get("tolerance", DEFAULT_TOLERANCE)
    if not (_is_number(tolerance) and tolerance > 0):
        fail("tolerance", "'tolerance' must be a number > 0")
    return Question(prompt, raw["node"], raw["quantity"], float(tolerance))


def _claim(raw, scope, fail):
    if not isinstance(raw, dict):
        fail("", "a claim is {\"node\": label, \"quantity\": \"data\" or \"grad\", \"value\": number}")
    _no_unknown_keys(
        raw,
        ("node", "quantity", "value"),
        None,
        None,
        "",
        fail=lambda key: fail(f".{key}", "a claim has node, quantity and value"),
    )
    _check_label(scope, raw.get("node"), lambda m: fail(".node", m))
    if raw.get("quantity") not in QUANTITIES:
        fail(".quantity", "'quantity' must be \"grad\" or \"data\"")
    if not _is_number(raw.get("value")):
        fail(".value", "'value' must be a finite number")
    return Claim(raw["node"], raw["quantity"], float(raw["value"]))


def _check_label(scope, label, fail, leaf: bool = False) -> None:
    if scope.kind is None:
        fail("there is no graph yet: give this step or an earlier one a setup")
    if not isinstance(label, str) or not label:
        fail("name a node by its label (text)")
    if label not in scope.labels:
        known = ", ".join(sorted(scope.labels)[:12])
        fail(f"no node is labelled {label!r} (labels here: {known})")
    if scope.labels[label] > 1:
        fail(f"{scope.labels[label]} nodes are labelled {label!r}; give them different labels")
    if leaf and label not in scope.leaves:
        fail(f"{label!r} is computed by an op; only a leaf (an input or a weight) can be changed")


def _check_placeholders(text, scope, ran, fail):
    for name in PLACEHOLDER.findall(text):
        problem = _placeholder_problem(name, scope, ran)
        if problem:
            fail(f"placeholder {{{name}}}: {problem}")
    if "{" in PLACEHOLDER.sub("", text) or "}" in PLACEHOLDER.sub("", text):
        fail("a lone '{' or '}': braces are only for placeholders like {x.grad}")


def _placeholder_problem(name, scope, ran):
    """Why {name} cannot be filled at this point of the lesson ('' if it can)."""
    if scope.kind is None:
        return "there is no graph yet"
    if name in NUDGE_KEYS:
        return "" if scope.nudged else "no nudge action has run since the setup"
    if name == "forward":
        return "" if ran & {"forward_step", "forward_all"} else "this step runs no forward action"
    if name == "backward":
        return "" if ran & {"backward_step", "backward_all"} else "this step runs no backward_step/backward_all"
    if name == "nodes":
        return ""
    if name in NETWORK_KEYS:
        return "" if scope.kind == "network" else "this needs a network setup"
    label, dot, attr = name.rpartition(".")
    if not dot or attr not in NODE_ATTRS:
        return (
            "unknown placeholder; use {label.data}, {label.grad}, {label.status}, "
            f"or one of {', '.join(NUDGE_KEYS + ('forward', 'backward', 'nodes') + NETWORK_KEYS)}"
        )
    if label not in scope.labels:
        return f"no node is labelled {label!r}"
    if scope.labels[label] > 1:
        return f"{scope.labels[label]} nodes are labelled {label!r}"
    if attr == "status" and not scope.stepping:
        return "a status needs the debugger: run backward_step, backward_all or reset_stepper first"
    return ""


def _text(value, fail):
    """Text given as a string or as a list of lines."""
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return "\n".join(value)
    if not isinstance(value, str):
        fail("text must be a string or a list of strings (lines)")
    return value


def _no_unknown_keys(raw, known, path, step, field, fail=None):
    for key in raw:
        if key not in known:
            if fail is not None:
                fail(key)
            raise LessonError(
                path,
                f"unknown field {key!r} (known: {', '.join(known)})",
                step,
                field + key if step is not None else key,
            )


def _is_int(x: object) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x):
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:  # an integer of hundreds of digits
        return False
