"""Stepping a learner's own backward pass, recorded in a child process.

A learner's Value class runs only in a child process (core/foreign/runner.py).
There, the harness (core/foreign/child/probe.py) ran THEIR `_backward` one node at a time and wrote down,
after each call, the grads of that node's operands -- plain numbers:

    step 1   f = h·h + y   ran its _backward:  h.grad 0 -> 1,  y.grad 0 -> 1
    step 2   h·h           ran its _backward:  h.grad 0 -> 1   (should be 2: wrong!)
    step 3   h = x·y       ...

The studio draws the same graph with its own Values (core/foreign/document.py
turns the traced nodes into a document, which compiles as usual). To step the
learner's pass in the ordinary debugger, `ReplayStepper` is a BackwardStepper
whose steps do not call the studio's `_backward`: step k sets each operand's
grad to the number THEIR code left there. Everything else is the stepper's own
-- step back restores the saved grads, reset zeroes them all, seek and run work
as usual -- so the panel, the canvas and the narration show their grads with
our names, in the order their pass ran.

The narration compares, operand by operand, what their code did with what the
chain rule says (`grad += local derivative · out.grad`), and the stepper stops
after the first wrong step (as a breakpoint stops before one), with the node,
the op, expected vs got and the likely cause as the reason.

The debugger's quiz asks for the grad the chain rule gives, never for the one
their code left: `should_be` is what a correct `_backward` would make it, from
the grads on screen (the quiz in core/debugger/quiz.py grades against it and
says so where their engine disagrees).

Nothing here runs learner code, and nothing imports Qt.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from core.debugger.stepper import BackwardStepper, StepRecord, _fmt, _substitute, field_of
from core.document.compile import Compiled
from core.engine import Value
from core.foreign import hints
from core.foreign.document import number


class ForeignReplay:
    """One recorded case of a learner's check (a dict of the runner's report with
    `graph` and `records`), ready to be stepped.

    `fits(compiled)` says whether a compile is the drawing of this case's graph:
    the same node ids wired the same way. Then `stepper(...)` gives the stepper
    that replays their pass; any other graph (the user's own, after Undo) gets
    the studio's ordinary stepper."""

    def __init__(self, case: dict[str, Any]) -> None:
        self.name = case["name"]
        self.fault = case.get("fault")
        # what their code for one node is called: a local-grads engine has no _backward
        self.local_grads = case.get("style") == "local-grads"
        self.their_code = {
            "local-grads": "your _local_grads",
            "minitorch": "your backward(ctx, d)",  # MiniTorch's ScalarFunction, through chain_rule
        }.get(case.get("style", ""), "your _backward")
        self.hints_shown = 0  # rungs of the hint ladder climbed (core/foreign/hints.py)
        self.wiring = {n["id"]: tuple(n["children"]) for n in case["graph"]}
        # [(node id, [(operand id, grad after their code)], record)]
        self.steps: list[tuple[str, list[tuple[str, float]], dict[str, Any]]] = []
        for record in case.get("records", []):
            after = [(o["id"], number(o["after"])) for o in record["operands"]]
            self.steps.append((record["node_id"], after, record))
        self.fault_step = next((i for i, (_n, _a, r) in enumerate(self.steps) if r.get("ok") is False), None)
        self.ambiguous = {n["id"] for n in case["graph"] if n.get("ambiguous")}  # operand order unknown

    def fits(self, compiled: Compiled | None) -> bool:
        if compiled is None or set(compiled.values) != set(self.wiring):
            return False
        ids = compiled.value_to_node
        return all(
            tuple(ids.get(c) for c in compiled.values[nid]._prev) == children for nid, children in self.wiring.items()
        )

    def stepper(self, root: Value, compiled: Compiled, names: Mapping[Value, str]) -> ReplayStepper:
        """A ReplayStepper on `compiled`, with their whole pass run: at rest the
        graph shows their grads, as it shows backward()'s for our own engine."""
        stepper = ReplayStepper(root, self, compiled.values, names)
        stepper.reset()
        stepper.seek(len(stepper.order))
        return stepper

    def hint_lines(self) -> list[str]:
        """The hints climbed so far for this case's fault, first to last."""
        if not self.fault:
            return []
        return hints.climb({"case": self.name, **self.fault}, self.hints_shown)

    def next_hint(self) -> bool:
        """Climb one rung of the hint ladder; False when there is no fault or no rung left."""
        if not self.fault or self.hints_shown >= hints.RUNGS:
            return False
        self.hints_shown += 1
        return True

    def stop_reason(self) -> str:
        """The stop after the first wrong step: node, op, expected vs got, cause."""
        f = self.fault
        if not f:
            return ""
        where = f" Your code: {f['line']}." if f.get("line") else ""  # the line of theirs that wrote it
        if f.get("expected") is None or f.get("operand") is None:
            return f"your engine is wrong at {f.get('node') or '?'} (op {f.get('op')}): {f['cause']}.{where}"
        return (
            f"wrong gradient at {f['node']} (op {f['op']}): {f['operand']}.grad should change by "
            f"{_fmt(number(f['expected']))}, {self.their_code} changed it by {_fmt(number(f['got']))}.{where} "
            f"Likely cause: {f['cause']}"
        )


class ReplayStepper(BackwardStepper):
    """A BackwardStepper whose steps replay a learner's recorded `_backward` calls
    (see the module docstring). Its order is the order their pass ran in."""

    def __init__(
        self, root: Value, replay: ForeignReplay, values: Mapping[str, Value], names: Mapping[Value, str]
    ) -> None:
        super().__init__(root, names=names, reset=False)
        self.replay = replay
        self.order = [values[nid] for nid, _after, _record in replay.steps]
        self._after = [[(values[c], grad) for c, grad in after] for _nid, after, _record in replay.steps]
        self._ok = [record.get("ok") for _nid, _after, record in replay.steps]
        self._ambiguous = {values[nid] for nid in replay.ambiguous}

    def _replay(self, index):
        for child, grad in self._after[index]:
            child.grad = grad

    def _call_backward(self, index: int, node: Value) -> None:
        """Their `_backward` call at step `index`, as recorded (`step` and every run loop
        take a step through this, so a run with breakpoints or `run_to` replays too)."""
        self._replay(index)

    def _advance(self, end):
        for index in range(self._position, end):
            self._saved.extend([child.grad for child in self.order[index]._prev])
            self._replay(index)
        self._position = max(self._position, end)

    def _run_plain(self):
        """A run always goes step by step here: it must stop after the wrong step."""
        while not self.done:
            reason = self.check(self.step())
            if reason:
                self.stop_reason = reason
                break

    def check(self, record: StepRecord) -> str:
        """After the wrong step, why; after the last step, why too when the fault is in no
        one step (their backward() never ran a node, a `_backward` raised on the next one)."""
        replay = self.replay
        if record.index == replay.fault_step:
            return replay.stop_reason()
        if replay.fault_step is None and record.index == len(self.order) - 1:
            return replay.stop_reason()
        return super().check(record)

    def verdict(self, index: int) -> bool | None:
        """True: their step agrees with the chain rule; False: the first wrong one;
        None: after it (run to show their pass, not checked)."""
        return self._ok[index]

    def users(self, node: Value) -> list[Value]:
        """The distinct nodes whose steps pass gradient into node (a backward() that
        calls one node's _backward twice lists it once)."""
        return list(dict.fromkeys(super().users(node)))

    def shares(self, record: StepRecord) -> dict[Value, float]:
        """{operand: what THEIR code changed its grad by} in step `record`."""
        return {c: after - before for c, before, after in zip(record.children, record.grads_before, record.grads_after)}

    def wrong_operands(self, record: StepRecord) -> set[Value]:
        """The operands of `record` whose change no right answer explains."""
        shares = self.shares(record)
        return {c for c in shares if not any(_agrees(shares[c], want) for want in self._right(record, c))}

    def should_be(self, record: StepRecord, child: Value) -> list[float]:
        """The grads child may have after step `record` by the chain rule: its grad
        before the step plus each change `_right` allows, the drawing's first. The
        debugger's quiz grades a prediction against these, never against their
        (maybe wrong) grad: `child.grad` is what THEIR code left there."""
        before = record.grads_before[record.children.index(child)]
        return [before + change for change in self._right(record, child)]

    def _right(self, record, child):
        """The changes of child.grad the chain rule allows in `record`, as the checker
        (core/foreign/judge.py) allows them: the operands either way round when their
        order is unknown, and 0 or out.grad for relu at exactly 0."""
        node, g = record.node, record.out_grad
        locals_ = [value for _sym, value in record.local]
        orders = [locals_] + ([locals_[::-1]] if node in self._ambiguous and len(locals_) == 2 else [])
        right = [sum(loc[p] for p, c in enumerate(record.children) if c is child) * g for loc in orders]
        if node._op == "relu" and child.data == 0.0:
            right.append(g)
        return right

    def contributions(self, node: Value) -> list[tuple[StepRecord, float]]:
        """What each of THEIR steps so far changed node.grad by (their numbers: an
        `=` shows as the change it made, so the shares still add up to node.grad)."""
        shares = []
        for record, _expected in super().contributions(node):
            i = record.children.index(node)
            shares.append((record, record.grads_after[i] - record.grads_before[i]))
        return shares

    def _explain(self, node, out_grad, children, before, after, local):
        """Per operand: the chain rule's line with the studio's local derivative, then
        what their code left in the grad -- flagged when it differs."""
        names = [self.name(child) for child in children]
        out = self.name(node)
        lines, running = [], {}
        last = {child: i for i, child in enumerate(children)}
        record = StepRecord(0, node, out_grad, children, before, after, self)
        wrong = self.wrong_operands(record)
        for i, (child, (symbolic, value)) in enumerate(zip(children, local)):
            amount = value * out_grad
            was = running.get(child, before[i])
            now = was + amount
            running[child] = now
            local_text = _substitute(symbolic, names, out)
            if " " in local_text:
                local_text = f"({local_text})"
            line = (
                f"{field_of(names[i])} += {local_text} · {field_of(out)}"
                f" = {_fmt(value)} · {_fmt(out_grad)} = {_fmt(amount)}"
            )
            theirs = after[i]
            if last[child] == i and child in wrong:
                made = f"{self.replay.their_code} made it {_fmt(theirs)}"
                line += f", but {made} ✗ (was {_fmt(before[i])}, should be {_fmt(now)})"
            else:
                line += f" (was {_fmt(was)}, now {_fmt(now if last[child] != i else theirs)})"
            lines.append(line)
        return lines


def _agrees(got, want):
    if math.isnan(got) or math.isnan(want):
        return math.isnan(got) and math.isnan(want)
    return math.isclose(got, want, rel_tol=1e-6, abs_tol=1e-9)
