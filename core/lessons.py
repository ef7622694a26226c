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

Setups. `{"snippet": code}` reads micrograd-style code (core/expr.py, never
run); `{"example": "tutorial.json"}` opens a graph from resources/examples/;
`{"network": {TrainConfig fields}}` builds a training run (core/training.py)
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

A question's answer is never in the file either: it is the engine's value of
`node.quantity` -- for a grad, what a clean backward pass from the output gives,
whatever the grads show at the moment -- so a question can come before the
backward pass, or ask what a buggy grad should have been. A `claim` is a number
the text states in words; the tests check it against the engine.

Everything is checked when the file is loaded, without computing anything
heavy: a typo in an action, a label that is not in the graph, a placeholder
nothing can fill. The fault raises a `LessonError` that names the file, the
step and the field (`steps[2].actions[0].do`). Nothing is skipped silently.

`LessonRunner` is the headless state machine the lessons panel drives. Going
back replays the lesson from its first step, so the state is exactly the one
reached going forward; the result of each `train` action is remembered
(`Trainer.state()` plus the grads) so a replay need not train again.
"""

import json
import math
import os
import re
from dataclasses import dataclass

import numpy as np

from core.compile import compile_document, trace
from core.engine import Value, recompute, topological_order, zero_grad
from core.expr import ExprError, parse
from core.fileformat import FormatError, load as load_graph
from core.forward_stepper import ForwardStepper
from core.losses import LOSSES, l2_regularization
from core.nn import MLP
from core.stepper import BackwardStepper
from core.training import TrainConfig, Trainer

FORMAT = "backprop-studio.lesson"
SCHEMA_VERSION = 1
MAX_BYTES = 1024 * 1024

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

NUDGE_KEYS = ("nudge", "nudge.h", "nudge.before", "nudge.after")
NETWORK_KEYS = ("loss", "accuracy", "step", "params", "dead", "relus")
NODE_ATTRS = ("data", "grad", "status")
PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


class LessonError(ValueError):
    """A lesson file we will not load. `path`, `step` (an index or None) and
    `field` (e.g. 'actions[0].do') say where; `message` says what."""

    def __init__(self, path, message, step=None, field=None):
        self.path = path
        self.step = step
        self.field = field
        self.message = message
        where = [str(path)]
        if step is not None:
            where.append(f"steps[{step}]" + (f".{field}" if field else ""))
        elif field:
            where.append(field)
        super().__init__(": ".join(where) + f": {message}")


# -----------------------------------------------------------------------------
# The lesson model (plain, immutable data)

@dataclass(frozen=True)
class Setup:
    kind: str              # 'snippet', 'example' or 'network'
    source: str = ""       # the snippet's code, or the example file's path
    config: object = None  # the TrainConfig of a network


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
    setup: object = None   # a Setup, or None to keep the graph of the step before
    highlight: tuple = ()
    actions: tuple = ()
    question: object = None
    claims: tuple = ()


@dataclass(frozen=True)
class Lesson:
    id: str
    title: str
    summary: str
    order: int
    steps: tuple
    path: str = ""


# -----------------------------------------------------------------------------
# Loading: JSON -> Lesson, every field checked

def load_lesson(path):
    """Read and validate one lesson file; LessonError names the fault."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except OSError as e:
        raise LessonError(path, f"cannot read the file: {e.strerror}") from None
    if len(raw) > MAX_BYTES:
        raise LessonError(path, f"the file is over {MAX_BYTES // 1024} KB; a lesson is much smaller")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise LessonError(path, f"the file is not UTF-8 text (byte {e.start}); re-save it as UTF-8") from None
    try:
        data = json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=_object)
    except json.JSONDecodeError as e:
        raise LessonError(path, f"bad JSON at line {e.lineno}, column {e.colno}: {e.msg}") from None
    except ValueError as e:
        raise LessonError(path, str(e)) from None
    return lesson_from_dict(data, path)


def load_all(directory):
    """Every *.json lesson in `directory`, sorted by their `order` field."""
    directory = os.fspath(directory)
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".json"))
    except OSError as e:
        raise LessonError(directory, f"cannot list the lessons folder: {e.strerror}") from None
    lessons = [load_lesson(os.path.join(directory, name)) for name in names]
    seen_ids, seen_orders = {}, {}
    for lesson in lessons:
        if lesson.id in seen_ids:
            raise LessonError(lesson.path, f"the id {lesson.id!r} is also used by {seen_ids[lesson.id]}",
                              field="id")
        if lesson.order in seen_orders:
            raise LessonError(lesson.path, f"order {lesson.order} is also used by "
                                           f"{seen_orders[lesson.order]}", field="order")
        seen_ids[lesson.id] = seen_orders[lesson.order] = os.path.basename(lesson.path)
    return sorted(lessons, key=lambda lesson: lesson.order)


def _object(pairs):
    """A JSON object, refusing a key given twice (json would silently keep the last)."""
    result = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"the key {key!r} appears twice in one object")
        result[key] = value
    return result


def _refuse_constant(token):
    raise ValueError(f"{token} is not a number JSON allows; write a finite number")


def lesson_from_dict(data, path="<lesson>"):
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
        raise LessonError(path, f"schema_version {version} is newer than this program understands "
                                f"({SCHEMA_VERSION}); update Backprop Studio", field="schema_version")
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
        self.kind = None        # None (no setup yet), 'graph' or 'network'
        self.labels = {}        # label -> how many nodes carry it
        self.leaves = set()
        self.nudged = False
        self.stepping = False   # the debugger's statuses are meaningful

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
    built_actions = tuple(_action(a, k, scope, ran, lambda f, m: fail(f"actions[{k}]" + f, m))
                          for k, a in enumerate(actions))

    _check_placeholders(text, scope, ran, lambda m: fail("text", m))

    question = None
    if "question" in raw:
        question = _question(raw["question"], scope, ran, lambda f, m: fail(f"question.{f}" if f else "question", m))

    claims = raw.get("claims", [])
    if not isinstance(claims, list):
        fail("claims", "'claims' must be a list")
    built_claims = tuple(_claim(c, scope, lambda f, m, k=k: fail(f"claims[{k}]" + f, m))
                         for k, c in enumerate(claims))
    return Step(i, text, setup, tuple(highlight), built_actions, question, built_claims)


def _setup(raw, lesson_dir, scope, fail):
    if not isinstance(raw, dict) or len(raw) != 1 or next(iter(raw)) not in SETUP_KINDS:
        fail(None, "a setup is one of {\"snippet\": code}, {\"example\": \"file.json\"} "
                   "or {\"network\": {training settings}}")
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
        except OSError as e:
            fail("example", f"cannot open the example {value!r}: {e.strerror}")
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
        fail("the graph has no single output that can be computed "
             f"(unwired inputs: {compiled.missing or 'none'}; sinks: {doc.sinks()})")
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
    if name not in ACTIONS:
        fail(".do", f"unknown action {name!r} (known: {', '.join(ACTIONS)})")
    allowed = ACTIONS[name]
    _no_unknown_keys(raw, ("do",) + allowed, None, None, "", fail=lambda key: fail(
        f".{key}", f"{name} takes " + (", ".join(allowed) if allowed else "no arguments")))
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
    _no_unknown_keys(raw, ("prompt", "node", "quantity", "tolerance"), None, None, "",
                     fail=lambda key: fail(key, "a question has prompt, node, quantity and tolerance"))
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
    _no_unknown_keys(raw, ("node", "quantity", "value"), None, None, "",
                     fail=lambda key: fail(f".{key}", "a claim has node, quantity and value"))
    _check_label(scope, raw.get("node"), lambda m: fail(".node", m))
    if raw.get("quantity") not in QUANTITIES:
        fail(".quantity", "'quantity' must be \"grad\" or \"data\"")
    if not _is_number(raw.get("value")):
        fail(".value", "'value' must be a finite number")
    return Claim(raw["node"], raw["quantity"], float(raw["value"]))


def _check_label(scope, label, fail, leaf=False):
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
        return ("unknown placeholder; use {label.data}, {label.grad}, {label.status}, "
                f"or one of {', '.join(NUDGE_KEYS + ('forward', 'backward', 'nodes') + NETWORK_KEYS)}")
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
            raise LessonError(path, f"unknown field {key!r} (known: {', '.join(known)})", step,
                              field + key if step is not None else key)


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


# -----------------------------------------------------------------------------
# Formatting numbers for the screen

def fmt(x):
    """4 decimals; a tiny negative number shows as 0.0000, not -0.0000."""
    text = f"{x:.4f}"
    return "0.0000" if text == "-0.0000" else text


def parse_number(text):
    """A typed answer as a float: '-1.5', '−1.5', '1,5', '3/4' (None if it is not a number)."""
    t = str(text).strip().replace("−", "-").replace(" ", "")
    if "," in t and "." not in t:
        t = t.replace(",", ".")
    try:
        if t.count("/") == 1:
            top, bottom = t.split("/")
            number = float(top) / float(bottom)
        else:
            number = float(t)
    except (ValueError, ZeroDivisionError):
        return None
    return number if math.isfinite(number) else None


class Nudge:
    """The result of a nudge action: the slope (f(x+h) - f(x)) / h."""

    __slots__ = ("node", "h", "before", "after", "slope")

    def __init__(self, node, h, before, after):
        self.node, self.h, self.before, self.after = node, h, before, after
        self.slope = (after - before) / h


# -----------------------------------------------------------------------------
# The runner: a lesson's state, step by step

class LessonRunner:
    """Drive a lesson headless: the state behind the lessons panel.

    After `next()`, `back()` or `goto()` re-read everything (`root`, `values`,
    `document`, `stepper`...): a replay builds new Values.

    `train_limit` caps every train action (tests and previews); None trains
    as written.
    """

    def __init__(self, lesson, train_limit=None):
        self.lesson = lesson
        self.train_limit = train_limit
        self._checkpoints = {}  # (step, action) -> what a train action left behind
        self.index = -1
        self._clear()
        self.goto(0)

    # -- where we are ------------------------------------------------------------

    @property
    def step(self):
        return self.lesson.steps[self.index]

    @property
    def progress(self):
        """(k, n): step k of n, counting from 1."""
        return self.index + 1, len(self.lesson.steps)

    @property
    def at_start(self):
        return self.index == 0

    @property
    def at_end(self):
        return self.index == len(self.lesson.steps) - 1

    def next(self):
        """Enter the next step (runs its setup and actions); False at the end."""
        if self.at_end:
            return False
        self.goto(self.index + 1)
        return True

    def back(self):
        """Back one step: the lesson is replayed from the start; False at the start."""
        if self.at_start:
            return False
        self.goto(self.index - 1)
        return True

    def goto(self, index):
        for _ in self.goto_iter(index):
            pass

    def goto_iter(self, index):
        """`goto` as a generator that yields a short text after every action and
        training step, so a GUI can run it in a worker and show progress. Run it
        to the end; the state is only consistent once it is exhausted."""
        if not 0 <= index < len(self.lesson.steps):
            raise IndexError(f"step {index} is outside this lesson (0..{len(self.lesson.steps) - 1})")
        start = self.index + 1
        if index <= self.index:  # backwards, or the same step again: replay from scratch
            self._clear()
            start = 0
        for i in range(start, index + 1):
            self.index = i
            yield from self._enter(self.lesson.steps[i])

    # -- the state ----------------------------------------------------------------

    def _clear(self):
        self.kind = None          # None, 'graph' or 'network'
        self.trainer = None       # the Trainer of a network setup
        self.stepper = None       # the BackwardStepper, or None when grads did not come from it
        self.forward = None       # the ForwardStepper, or None when the forward pass is not being stepped
        self.last_nudge = None
        self.last_forward = []    # ForwardRecords run by this step
        self.last_backward = []   # StepRecords run by this step
        self._root = None
        self._document = None
        self._by_id = None
        self._by_label = None

    @property
    def root(self):
        """The output Value (a network's: the loss over the training set, built on demand)."""
        if self._root is None and self.kind == "network":
            self._root = _loss_graph(self.trainer)
        return self._root

    @property
    def document(self):
        """The GraphDocument shown on the canvas (a network's is traced, read-only, on demand)."""
        self._trace_network()
        return self._document

    @property
    def by_id(self):
        """{document node id: Value}: what the canvas paints each node with."""
        self._trace_network()
        return self._by_id or {}

    def _trace_network(self):
        if self._document is None and self.kind == "network":
            self._document, self._by_id = trace(self.root, self.trainer.params)

    @property
    def values(self):
        """{label: Value} for every labelled node (a network: its parameters and 'loss')."""
        if self._by_label is None and self.kind is not None:
            nodes = self._by_id.values() if self.kind == "graph" else topological_order(self.root)
            self._by_label = {v.label: v for v in nodes if v.label}
        return self._by_label or {}

    def node(self, label):
        if self.kind == "network" and self._root is None:
            for p in self.trainer.params:  # no need to build the loss graph for a weight
                if p.label == label:
                    return p
        try:
            return self.values[label]
        except KeyError:
            raise KeyError(f"no node labelled {label!r} in this step's graph") from None

    def highlight_ids(self):
        """The document ids of this step's highlighted nodes."""
        wanted = set(self.step.highlight)
        if not wanted:
            return []
        return [nid for nid, v in self.by_id.items() if v.label in wanted]

    # -- running a step -------------------------------------------------------------

    def _enter(self, step):
        self.last_forward, self.last_backward = [], []
        if step.setup is not None:
            self._set_up(step.setup)
            yield f"set up {step.setup.kind}"
        for k, action in enumerate(step.actions):
            if action.do == "train":
                yield from self._train(action.steps, (step.index, k))
            else:
                self._act(action)
            yield action.do

    def _set_up(self, setup):
        self._clear()
        if setup.kind == "network":
            self.kind = "network"
            self.trainer = Trainer(setup.config)
            return
        if setup.kind == "snippet":
            doc = parse(setup.source)
        else:
            doc, _meta = load_graph(setup.source)
        compiled = compile_document(doc)
        self.kind = "graph"
        self._document, self._by_id, self._root = doc, compiled.values, compiled.output

    def _act(self, action):
        do = action.do
        root = self.root
        if do in ("forward_step", "forward_all"):
            if self.forward is None:
                self.forward = ForwardStepper(root)
            count = action.count if do == "forward_step" else len(self.forward.order)
            for _ in range(count):
                record = self.forward.step()
                if record is not None:
                    self.last_forward.append(record)
        elif do in ("backward_step", "backward_all"):
            if self.stepper is None:
                self.stepper = BackwardStepper(root)
            count = action.count if do == "backward_step" else len(self.stepper.order)
            for _ in range(count):
                record = self.stepper.step()  # unlike run_to_end, never stops at inf or nan
                if record is not None:
                    self.last_backward.append(record)
        elif do == "reset_stepper":
            self.stepper = BackwardStepper(root)
        elif do == "backward_call":
            root.backward()
            self.stepper = None
        elif do == "zero_grad":
            zero_grad(root)
            self.stepper = None
        elif do == "nudge":
            self.last_nudge = self._nudge(self.node(action.node), action.h)
        elif do == "set_value":
            self.node(action.node).data = float(action.value)
            if self.kind == "network":
                self._forget_graph()
            else:
                recompute(root)
                zero_grad(root)  # grads of the old data would be stale
                self.stepper = self.forward = None
        else:
            raise ValueError(f"unknown action {do!r}")

    def _nudge(self, leaf, h):
        root = self.root
        order = topological_order(root)
        x, before = leaf.data, root.data
        leaf.data = x + h
        recompute(root, order)
        after = root.data
        leaf.data = x
        recompute(root, order)
        return Nudge(leaf, h, before, after)

    def _train(self, steps, key):
        trainer = self.trainer
        if key in self._checkpoints:  # a replay: restore what this action left behind
            state, grads, diverged = self._checkpoints[key]
            trainer.load_state(state)
            for p, grad in zip(trainer.params, grads):
                p.grad = grad
            trainer.diverged = diverged
        else:
            n = steps if self.train_limit is None else min(steps, self.train_limit)
            for k in range(n):
                if trainer.diverged:
                    break
                trainer.step()
                yield f"training step {k + 1} of {n}"
            self._checkpoints[key] = (trainer.state(), [p.grad for p in trainer.params], trainer.diverged)
        self._forget_graph()

    def _forget_graph(self):
        """The network changed: its loss graph (and all that hangs on it) is rebuilt on demand."""
        self._root = self._document = self._by_id = self._by_label = None
        self.stepper = self.forward = None

    # -- text -------------------------------------------------------------------------

    def render_text(self):
        """This step's Markdown with every placeholder filled in from the engine."""
        return self.fill(self.step.text)

    def render_prompt(self):
        question = self.step.question
        return None if question is None else self.fill(question.prompt)

    def fill(self, text):
        return PLACEHOLDER.sub(lambda m: self.placeholder(m.group(1)), text)

    def placeholder(self, name):
        """The text for one placeholder, e.g. 'x.grad' -> '3.0000'."""
        if name in NUDGE_KEYS:
            n = self.last_nudge
            if name == "nudge.h":
                return f"{n.h:g}"
            return fmt({"nudge": n.slope, "nudge.before": n.before, "nudge.after": n.after}[name])
        if name == "forward":
            return "\n".join(record.text for record in self.last_forward)
        if name == "backward":
            return "\n".join(line for record in self.last_backward for line in record.lines)
        if name == "nodes":
            return str(len(topological_order(self.root)))
        if name in NETWORK_KEYS:
            return self._network_number(name)
        label, _dot, attr = name.rpartition(".")
        node = self.node(label)
        if attr == "status":
            return self.stepper.status(node)
        return fmt(node.data if attr == "data" else node.grad)

    def _network_number(self, name):
        trainer = self.trainer
        if name == "loss" or name == "accuracy":
            loss, acc = self.metrics()
            return fmt(loss) if name == "loss" else f"{acc:.1%}"
        if name == "step":
            return str(trainer.steps_done)
        if name == "params":
            return str(len(trainer.params))
        dead, relus = dead_relus(trainer)
        return str(dead if name == "dead" else relus)

    def metrics(self):
        """(loss, accuracy) of the network now, on its training set."""
        with np.errstate(all="ignore"):  # a diverged model overflows: its loss is simply inf
            return self.trainer.evaluate(self.trainer.train_inputs, self.trainer.train_labels)

    # -- questions and claims ---------------------------------------------------------

    def check_answer(self, text):
        """(ok, explanation) for an answer typed to this step's question."""
        question = self.step.question
        if question is None:
            return False, "This step asks no question."
        given = parse_number(text)
        if given is None:
            return False, "Type a number, like -1.5 or 3/4."
        right, how = self.answer()
        ok = abs(given - right) <= question.tolerance
        head = "Right!" if ok else f"Not quite: you said {str(text).strip()}."
        return ok, f"{head} {question.node}.{question.quantity} = {fmt(right)}.\n{how}"

    def answer(self):
        """(the right answer, how the engine gets it) for this step's question."""
        question = self.step.question
        node = self.node(question.node)
        if question.quantity == "data":
            return node.data, self._explain_data(node)
        return self._clean_grad(node)

    def _explain_data(self, node):
        if not node._prev:
            return f"{node.label} is a leaf: its data is {fmt(node.data)}, as given."
        return "The forward pass computes it: " + ForwardStepper(self.root).describe(node)

    def _clean_grad(self, node):
        """node's grad after a clean backward pass from the output, and its chain-rule
        arithmetic; every grad in the graph is put back as it was."""
        root = self.root
        topo = topological_order(root)
        name = node.label
        if node is root:
            return 1.0, (f"{name} is the output: backpropagation starts by setting its grad "
                         f"to 1, since d{name}/d{name} = 1.")
        if node not in set(topo):
            return 0.0, f"{name} does not feed the output, so its grad is 0."
        saved = [v.grad for v in topo]
        scratch = BackwardStepper(root)
        scratch.seek(len(scratch.order))
        grad = node.grad
        history = scratch.history
        uses = sum(1 for record in history for child in record.children if child is node)
        for v, g in zip(topo, saved):
            v.grad = g
        on_path = set()  # node and every node whose gradient flows down to it
        for v in topo:
            if v is node or any(child in on_path for child in v._prev):
                on_path.add(v)
        lines = [line for record in history if record.node in on_path
                 for child, line in zip(record.children, record.lines) if child in on_path]
        if len(lines) > MAX_EXPLAIN_LINES:
            lines = lines[:3] + [f"... {len(lines) - 9} more steps ..."] + lines[-6:]
        text = f"By the chain rule, from the output back to {name}:\n" + "\n".join(lines)
        if uses > 1:
            text += f"\n{name} is used {uses} times, so its grad is the sum of {uses} contributions."
        return grad, text

    def claim_errors(self, tolerance=CLAIM_TOLERANCE):
        """Messages for this step's claims that the engine does not bear out."""
        errors = []
        for claim in self.step.claims:
            actual = getattr(self.node(claim.node), claim.quantity)
            if not abs(actual - claim.value) <= tolerance:
                errors.append(f"steps[{self.index}]: the text says {claim.node}.{claim.quantity} = "
                              f"{claim.value}, the engine gives {actual!r}")
        return errors


# -----------------------------------------------------------------------------
# A network's numbers

def _loss_graph(trainer):
    """The loss over the training set as a Value graph: the same calls as a
    training step's forward pass (see Trainer), labelled 'loss'."""
    cfg = trainer.cfg
    scores = [trainer.model([Value(f) for f in row]) for row in trainer.train_inputs]
    loss = LOSSES[cfg.loss](scores, trainer.train_labels)
    if cfg.l2_alpha > 0:
        loss = loss + l2_regularization(trainer.params, cfg.l2_alpha)
    loss.label = "loss"
    return loss


def dead_relus(trainer):
    """(dead, total): ReLU neurons whose output is 0 on every training point, and
    all ReLU neurons. A dead neuron passes no gradient back, so it never recovers."""
    with np.errstate(all="ignore"):
        outputs = trainer.model.activations_floats(trainer.train_inputs)
    dead = total = 0
    for layer, out in zip(trainer.model.layers, outputs):
        if layer.neurons and layer.neurons[0].activation == "relu":
            total += out.shape[1]
            dead += int(np.sum(~(out > 0.0).any(axis=0)))
    return dead, total


# -----------------------------------------------------------------------------
# Checking a whole lesson by running it

def verify_lesson(lesson, train_limit=None):
    """Run every step headless; return a list of problems (empty when all is well):
    claims the engine contradicts, placeholders that fail, questions without an answer."""
    problems = []
    runner = LessonRunner(lesson, train_limit)
    while True:
        where = f"{lesson.path}: steps[{runner.index}]"
        try:
            runner.render_text()
            runner.render_prompt()
            if runner.step.question is not None:
                right, _how = runner.answer()
                if not math.isfinite(right):
                    problems.append(f"{where}: the question's answer is {right}")
            runner.highlight_ids()
        except (KeyError, AttributeError, TypeError, ValueError) as e:
            problems.append(f"{where}: {e}")
        problems += [f"{lesson.path}: {error}" for error in runner.claim_errors()]
        if not runner.next():
            return problems
