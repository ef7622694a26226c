"""Running a lesson: the headless state machine behind the lessons panel.

`LessonRunner` enters a lesson's steps one by one: it applies each step's setup
(a snippet, an example graph, or a training run), runs its actions on the
engine (forward and backward steps, nudges, training), and fills the text's
placeholders with the engine's numbers. Going back replays the lesson from its
first step, so the state is exactly the one reached going forward; the result
of each `train` action is remembered (`Trainer.state()` plus the grads) so a
replay need not train again.

The lesson files, their schema and their validation are core/lessons/format.py.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterator
from typing import Any

import numpy as np

from core.debugger.forward_stepper import ForwardStepper
from core.debugger.stepper import BackwardStepper
from core.document.compile import compile_document, trace
from core.document.expr import parse
from core.document.graph import GraphDocument
from core.document.names import node_names
from core.engine import Value, recompute, topological_order, zero_grad
from core.files.graph_file import load as load_graph
from core.format import format_number as fmt
from core.format import parse_number
from core.lessons.format import (
    CLAIM_TOLERANCE,
    MAX_EXPLAIN_LINES,
    NETWORK_KEYS,
    NUDGE_KEYS,
    PLACEHOLDER,
    Lesson,
    Question,
    Step,
    within,
)
from core.lessons.neuron_view import live_neuron, neuron_view  # noqa: F401 (live_neuron: tests)
from core.training.trainer import Trainer

PENDING = "?"  # what the canvas and the text show for a value not known (or not revealed) yet
MAX_CANVAS_NODES = 600  # a network's loss graph goes on the canvas only up to this size

# -----------------------------------------------------------------------------
# Nudges


class Nudge:
    """The result of a nudge action: the slope (f(x+h) - f(x)) / h."""

    __slots__ = ("node", "h", "before", "after", "slope")

    def __init__(self, node: Value, h: float, before: float, after: float) -> None:
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

    def __init__(self, lesson: Lesson, train_limit: int | None = None) -> None:
        self.lesson = lesson
        self.train_limit = train_limit
        # (step, action) -> what a train action left behind: (trainer state, grads, diverged)
        self._checkpoints: dict[tuple[int, int], tuple[Any, list[float], bool]] = {}
        self.index = -1
        self._clear()
        self.goto(0)

    # -- where we are ------------------------------------------------------------

    @property
    def step(self) -> Step:
        return self.lesson.steps[self.index]

    @property
    def progress(self) -> tuple[int, int]:
        """(k, n): step k of n, counting from 1."""
        return self.index + 1, len(self.lesson.steps)

    @property
    def at_start(self) -> bool:
        return self.index == 0

    @property
    def at_end(self) -> bool:
        return self.index == len(self.lesson.steps) - 1

    def next(self) -> bool:
        """Enter the next step (runs its setup and actions); False at the end."""
        if self.at_end:
            return False
        self.goto(self.index + 1)
        return True

    def back(self) -> bool:
        """Back one step: the lesson is replayed from the start; False at the start."""
        if self.at_start:
            return False
        self.goto(self.index - 1)
        return True

    def goto(self, index: int) -> None:
        for _ in self.goto_iter(index):
            pass

    def goto_iter(self, index: int) -> Iterator[str]:
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
        self.kind = None  # None, 'graph' or 'network'
        self.trainer = None  # the Trainer of a network setup
        self.stepper = None  # the BackwardStepper, or None when grads did not come from it
        self.forward = None  # the ForwardStepper, or None when the forward pass is not being stepped
        self.last_nudge = None
        self.last_forward = []  # ForwardRecords run by this step
        self.last_backward = []  # StepRecords run by this step
        self._root = None
        self._document = None
        self._by_id = None
        self._by_label = None
        self._names = None
        self.new_grads = []  # labels/ids whose grad this step's actions changed (the quiz asks them)
        self.canvas_note = ""  # what the canvas shows when it is not the whole graph

    @property
    def root(self) -> Value | None:
        """The output Value (a network's: the loss over the training set, built on demand)."""
        if self._root is None and self.kind == "network":
            self._root = self.trainer.loss_graph()
        return self._root

    @property
    def document(self) -> GraphDocument | None:
        """The GraphDocument shown on the canvas (a network's is traced, read-only, on demand)."""
        self._trace_network()
        return self._document

    @property
    def by_id(self) -> dict[str, Value]:
        """{document node id: Value}: what the canvas paints each node with."""
        self._trace_network()
        return self._by_id or {}

    def _trace_network(self):
        if self._document is None and self.kind == "network":
            if self.network_fits():
                self._document, self._by_id = trace(self.root, self.trainer.params)
                self.canvas_note = ""
            else:
                view = self._neuron_view()
                self._document, self._by_id = trace(view, self._neuron_params)

    def network_fits(self) -> bool:
        """Is a network's whole loss graph small enough to read on the canvas? (An
        estimate from its size, so the big graph is never built just to count it.)"""
        trainer = self.trainer
        n, p = len(trainer.train_inputs), len(trainer.params)
        return 2.5 * n * p + p <= MAX_CANVAS_NODES and len(topological_order(self._output())) <= MAX_CANVAS_NODES

    def _neuron_view(self):
        """One live neuron of a network too big to draw (core/lessons/neuron_view.py)."""
        out, self._neuron_params, self.canvas_note = neuron_view(self.trainer)
        return out

    @property
    def names(self) -> dict[str, str]:
        """{document node id: the name the canvas shows} (core/document/names.py)."""
        if self._names is None and self.document is not None:
            self._names = node_names(self.document)
        return self._names or {}

    @property
    def value_names(self) -> dict[Value, str]:
        """{Value: the name the canvas shows}: what the steppers call each node in text.
        A formula is bracketed, so `(x·y).grad` reads as one node's grad."""
        names = self.names
        return {v: _bracketed(names[nid]) for nid, v in self.by_id.items() if nid in names}

    def name_of(self, value: Value) -> str:
        return self.value_names.get(value) or value.label or "a node"

    def pending(self, value: Value) -> bool:
        """True while the forward pass is being stepped and has not reached this node:
        its data is not known yet, whatever the Value holds."""
        return self.forward is not None and not self.forward.computed(value)

    def shown(self, hidden: Collection[tuple[str, str]] = ()) -> dict[str, tuple[str, str]]:
        """{node id: (data text, grad text)}: exactly what the canvas shows now. A node
        the forward pass has not reached shows '?' for both; `hidden` is a set of
        (node id, 'data' or 'grad') the quiz keeps back until answered."""
        result = {}
        for nid, v in self.by_id.items():
            if self.pending(v):
                result[nid] = (PENDING, PENDING)
                continue
            data = PENDING if (nid, "data") in hidden else fmt(v.data)
            grad = PENDING if (nid, "grad") in hidden else fmt(v.grad)
            result[nid] = (data, grad)
        return result

    def nid_of_label(self, label: str) -> str | None:
        """The document id of the node with this label on the canvas (None if not shown)."""
        for nid, v in self.by_id.items():
            if v.label == label:
                return nid
        return None

    @property
    def values(self) -> dict[str, Value]:
        """{label: Value} for every labelled node (a network: its parameters and 'loss')."""
        if self._by_label is None and self.kind is not None:
            nodes = self._by_id.values() if self.kind == "graph" else topological_order(self._output())
            self._by_label = {v.label: v for v in nodes if v.label}
        return self._by_label or {}

    def node(self, label: str) -> Value:
        if self.kind == "network" and self._root is None:
            for p in self.trainer.params:  # no need to build the loss graph for a weight
                if p.label == label:
                    return p
        try:
            return self.values[label]
        except KeyError:
            raise KeyError(f"no node labelled {label!r} in this step's graph") from None

    def _output(self) -> Value:
        """The output Value, for what needs one (a step before any setup has none)."""
        root = self.root
        if root is None:
            raise ValueError(f"steps[{self.index}] has no graph yet: a setup (snippet, example or network) comes first")
        return root

    def _question(self) -> Question:
        question = self.step.question
        if question is None:
            raise ValueError(f"steps[{self.index}] asks no question")
        return question

    def highlight_ids(self) -> list[str]:
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
        before = self._grads() if self.kind == "graph" else {}
        for k, action in enumerate(step.actions):
            if action.do == "train":
                yield from self._train(action.steps, (step.index, k))
            else:
                self._act(action)
            yield action.do
        after = self._grads() if self.kind == "graph" else {}
        self.new_grads = [
            nid
            for nid, g in after.items()
            if nid in before
            and g != before[nid]
            and self.by_id[nid] is not self.root
            and any(a.do.startswith("backward") for a in step.actions)
        ]

    def _grads(self):
        return {nid: v.grad for nid, v in self.by_id.items()}

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
                self.forward = ForwardStepper(root, self.value_names)
            count = action.count if do == "forward_step" else len(self.forward.order)
            for _ in range(count):
                record = self.forward.step()
                if record is not None:
                    self.last_forward.append(record)
        elif do in ("backward_step", "backward_all"):
            if self.stepper is None:
                self.stepper = BackwardStepper(root, names=self.value_names)
            count = action.count if do == "backward_step" else len(self.stepper.order)
            for _ in range(count):
                record = self.stepper.step()  # unlike run_to_end, never stops at inf or nan
                if record is not None:
                    self.last_backward.append(record)
        elif do == "reset_stepper":
            self.stepper = BackwardStepper(root, names=self.value_names)
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
        self._root = self._document = self._by_id = self._by_label = self._names = None
        self.stepper = self.forward = None

    # -- text -------------------------------------------------------------------------

    def render_text(self, hidden: Collection[tuple[str, str]] = ()) -> str:
        """This step's Markdown with every placeholder filled in from the engine;
        a value the canvas does not show (see `shown`) reads '?' here too."""
        return self.fill(self.step.text, hidden)

    def render_prompt(self, hidden: Collection[tuple[str, str]] = ()) -> str | None:
        question = self.step.question
        return None if question is None else self.fill(question.prompt, hidden)

    def fill(self, text: str, hidden: Collection[tuple[str, str]] = ()) -> str:
        return PLACEHOLDER.sub(lambda m: self.placeholder(m.group(1), hidden), text)

    def placeholder(self, name: str, hidden: Collection[tuple[str, str]] = ()) -> str:
        """The text for one placeholder, e.g. 'x.grad' -> '3.0000'."""
        if name in NUDGE_KEYS:
            n = self.last_nudge
            if name == "nudge.h":
                return f"{n.h:g}"
            return fmt({"nudge": n.slope, "nudge.before": n.before, "nudge.after": n.after}[name])
        if name == "forward":
            return "\n".join(record.text for record in self.last_forward)
        if name == "backward":
            hidden_values = {self.by_id.get(nid) for nid, quantity in hidden if quantity == "grad"}
            return "\n".join(
                line if child not in hidden_values else f"{self.name_of(child)}.grad += … (hidden: predict it)"
                for record in self.last_backward
                for child, line in zip(record.children, record.lines)
            )
        if name == "nodes":
            return str(len(topological_order(self._output())))
        if name in NETWORK_KEYS:
            return self._network_number(name)
        label, _dot, attr = name.rpartition(".")
        node = self.node(label)
        if attr == "status":
            return self.stepper.status(node)
        nid = self.nid_of_label(label) if self.kind == "graph" or self._document is not None else None
        if self.pending(node) or (nid, attr) in hidden:
            return PENDING
        return fmt(node.data if attr == "data" else node.grad)

    def _network_number(self, name):
        trainer = self.trainer
        if name in ("loss", "accuracy", "test_loss", "test_accuracy"):
            loss, acc = self.metrics(test=name.startswith("test_"))
            return fmt(loss) if name.endswith("loss") else f"{acc:.1%}"
        if name == "step":
            return str(trainer.steps_done)
        if name == "params":
            return str(len(trainer.params))
        dead, relus = dead_relus(trainer)
        return str(dead if name == "dead" else relus)

    def metrics(self, test: bool = False) -> tuple[float, float]:
        """(loss, accuracy) of the network now, on its training set (or its test set)."""
        trainer = self.trainer
        inputs, labels = (
            (trainer.test_inputs, trainer.test_labels) if test else (trainer.train_inputs, trainer.train_labels)
        )
        if not inputs:
            raise ValueError("this network has no test points: give its setup a test_ratio > 0")
        with np.errstate(all="ignore"):  # a diverged model overflows: its loss is simply inf
            return trainer.evaluate(inputs, labels)

    # -- questions and claims ---------------------------------------------------------

    def check_answer(self, text: str) -> tuple[bool, str]:
        """(ok, explanation) for an answer typed to this step's question."""
        question = self.step.question
        if question is None:
            return False, "This step asks no question."
        given = parse_number(text, finite=True)
        if given is None:
            return False, "Type a number, like -1.5 or 3/4."
        right, _how = self.answer()
        ok = within(given, right, question.tolerance)
        head = "Right!" if ok else f"Not quite: you said {str(text).strip()}."
        return ok, f"{head} {self.explain_answer()}"

    def explain_answer(self) -> str:
        """The answer to this step's question and how the engine gets it, with no verdict
        in front (the quiz puts its own: 'Right!', 'Revealed:')."""
        question = self._question()
        right, how = self.answer()
        return f"{question.node}.{question.quantity} = {fmt(right)}.\n{how}{self._canvas_differs(right)}"

    def _canvas_differs(self, right) -> str:
        """A note when the canvas shows another value than the answer (a grad not
        computed yet, or accumulated by a buggy second pass): say which is which."""
        question = self._question()
        node = self.node(question.node)
        if self.pending(node):
            return ""
        shown = getattr(node, question.quantity)
        if fmt(shown) == fmt(right):
            return ""
        why = (
            "backpropagation has not reached it yet"
            if shown == 0.0 and question.quantity == "grad"
            else "that is what the graph holds now, after the passes this lesson ran"
        )
        return (
            f"\nThe canvas shows {question.node}.{question.quantity} = {fmt(shown)}: {why}. "
            f"{fmt(right)} is what one clean pass gives."
        )

    def hint(self) -> str:
        """A nudge toward this step's answer without giving it: the formula (data) or
        the local derivatives each use of the node contributes (grad), in symbols."""
        question = self.step.question
        if question is None:
            return ""
        node = self.node(question.node)
        names = self.value_names
        name = self.name_of(node)
        if question.quantity == "data":
            if not node._prev:
                return f"{name} is a leaf: read its value where it is set."
            formula = ForwardStepper(self._output(), names).describe(node).split(" = ")[:2]
            return f"Compute {' = '.join(formula)} from its operands' data."
        if node is self.root:
            return f"What is d{name}/d{name}?"
        scratch = BackwardStepper(self._output(), names=names, reset=False)
        uses = [user for user in scratch.topo if any(child is node for child in user._prev)]
        if not uses:
            return f"Does {name} feed the output at all?"
        users = ", ".join(self.name_of(user) for user in uses)
        return (
            f"{name} feeds {users}. Add up, over every use, (local derivative of that node "
            f"with respect to {name}) × (that node's grad)."
        )

    def answer(self) -> tuple[float, str]:
        """(the right answer, how the engine gets it) for this step's question."""
        question = self._question()
        node = self.node(question.node)
        if question.quantity == "data":
            return node.data, self._explain_data(node)
        return self._clean_grad(node)

    def _explain_data(self, node):
        if not node._prev:
            return f"{node.label} is a leaf: its data is {fmt(node.data)}, as given."
        return "The forward pass computes it: " + ForwardStepper(self.root, self.value_names).describe(node)

    def _clean_grad(self, node):
        """node's grad after a clean backward pass from the output, and its chain-rule
        arithmetic; every grad in the graph is put back as it was."""
        root = self.root
        topo = topological_order(root)
        name = self.name_of(node)
        if node is root:
            return 1.0, (
                f"{name} is the output: backpropagation starts by setting its grad to 1, since d{name}/d{name} = 1."
            )
        if node not in set(topo):
            return 0.0, f"{name} does not feed the output, so its grad is 0."
        saved = [v.grad for v in topo]
        scratch = BackwardStepper(root, names=self.value_names)
        scratch.seek(len(scratch.order))
        grad = node.grad
        on_path = set()  # node and every node whose gradient flows down to it
        for v in topo:
            if v is node or any(child in on_path for child in v._prev):
                on_path.add(v)
        # the records' text is read while the scratch pass's grads are still in place
        history = list(scratch.history)
        uses = sum(1 for record in history for child in record.children if child is node)
        lines = [
            line
            for record in history
            if record.node in on_path
            for child, line in zip(record.children, record.lines)
            if child in on_path
        ]
        for v, g in zip(topo, saved):
            v.grad = g
        if len(lines) > MAX_EXPLAIN_LINES:
            lines = lines[:3] + [f"... {len(lines) - 9} more steps ..."] + lines[-6:]
        text = f"By the chain rule, from the output back to {name}:\n" + "\n".join(lines)
        if uses > 1:
            text += f"\n{name} is used {uses} times, so its grad is the sum of {uses} contributions."
        return grad, text

    def claim_errors(self, tolerance: float = CLAIM_TOLERANCE) -> list[str]:
        """Messages for this step's claims that the engine does not bear out."""
        errors = []
        for claim in self.step.claims:
            actual = getattr(self.node(claim.node), claim.quantity)
            if not abs(actual - claim.value) <= tolerance:
                errors.append(
                    f"steps[{self.index}]: the text says {claim.node}.{claim.quantity} = "
                    f"{claim.value}, the engine gives {actual!r}"
                )
        return errors


def _bracketed(name):
    """'x' and 'L0.n0.w0' as they are; a formula or a number in brackets: '(x·y)', '(4)'."""
    simple = name[:1].isalpha() and all(c.isalnum() or c in "_." for c in name)
    return name if simple else f"({name})"


# -----------------------------------------------------------------------------
# A network's numbers


def dead_relus(trainer: Trainer) -> tuple[int, int]:
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


def verify_lesson(lesson: Lesson, train_limit: int | None = None) -> list[str]:
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
