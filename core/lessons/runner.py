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

import math

import numpy as np

from core.document.compile import compile_document, trace
from core.engine import recompute, topological_order, zero_grad
from core.document.expr import parse
from core.files.graph_file import load as load_graph
from core.debugger.forward_stepper import ForwardStepper
from core.debugger.stepper import BackwardStepper
from core.training.trainer import Trainer
from core.lessons.format import CLAIM_TOLERANCE, MAX_EXPLAIN_LINES, NETWORK_KEYS, NUDGE_KEYS, PLACEHOLDER

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
            self._root = self.trainer.loss_graph()
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
