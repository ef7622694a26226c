"""Backpropagation one `_backward` call at a time: the debugger behind the app.

`Value.backward()` runs every node's `_backward` in reverse topological order
in one go. `BackwardStepper` runs the same calls in the same order, but one per
`step()`, and records what each one did:

    out = a * b  =>  a.grad += b.data * out.grad   (the local derivative of
                     b.grad += a.data * out.grad    out w.r.t. each operand,
                                                    times out's own gradient)

Each `StepRecord` holds the operands' grads before and after, the local
derivatives, and the arithmetic as text with real numbers. `step_back()` undoes
a step exactly by restoring the saved grads, so a learner can go back and
forth. A node's gradient is complete ("final") only once every node that uses
it has run its `_backward`; before that it is "untouched" or "partial". That is
the whole reason for the topological order: a node may only pass gradient on
once it has received all of its own.

The stepper owns all debugger state. `reset()` zeroes EVERY grad in the graph
(intermediates too: a common bug is to zero only the parameters) and sets the
root's grad to 1. Leaves have nothing to pass on, so their (empty) steps are
skipped unless `include_leaves=True`.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, overload

from core import ops
from core.engine import Value, topological_order
from core.format import format_number

UNTOUCHED, PARTIAL, FINAL = "untouched", "partial", "final"


# -----------------------------------------------------------------------------
# Local derivatives, as text and as numbers (the lesson material of each op,
# read from the op table in core/ops.py)


def local_derivatives(node: Value) -> list[tuple[str, float]]:
    """[(symbolic text, value)] for each operand of node, in `_prev` order.

    The symbolic text names operands 'a' and 'b' (and the output 'out'): for
    `out = a * b` it is [('b.data', b), ('a.data', a)].
    """
    prev = node._prev
    if not prev:
        return []
    op, param = ops.lookup(node._op)
    args = [child.data for child in prev]
    args.extend(ops.params_of(op, param))
    fill = _code_names(op, param)
    return [(code.format(**fill), local(node.data, *args)) for code, local in zip(op.code, op.local)]


def _code_names(op: ops.Op, param: Any) -> dict[str, Any]:
    """The numbers of pow's and rpow's code templates, written as the engine's `_op` writes them."""
    if not op.param:
        return {}
    return {"k": param, "c": param, "km1": "" if param - 1 == 1 else f"^{param - 1}"}


def forward_formula(node: Value, name: Callable[[Value], str]) -> str:
    """How `node` was computed, e.g. 'f = a + b' or 't = tanh(n)'."""
    op, _param = ops.lookup(node._op)
    names = [name(child) for child in node._prev]
    if op.infix:
        return f"{name(node)} = {names[0]} {op.infix} {names[1]}"
    # pow's and rpow's number as the engine's `_op` spells it: 'x^2', '2.0^x'
    number = node._op.strip("*")
    return f"{name(node)} = {op.text.format(a=names[0], k=number, c=number)}"


# -----------------------------------------------------------------------------
# One step


class StepRecord:
    """What one `_backward` call did.

    The local derivatives and the explanation text are worked out when first
    asked for (`local`, `lines`), not while stepping: a run to the end of a big
    graph then costs little more than `backward()`. They are exact whenever they
    are computed, because a backward pass never changes any node's data.
    """

    __slots__ = ("index", "node", "out_grad", "children", "grads_before", "grads_after", "_stepper", "_local", "_lines")

    def __init__(
        self,
        index: int,
        node: Value,
        out_grad: float,
        children: Sequence[Value],
        grads_before: tuple[float, ...],
        grads_after: tuple[float, ...],
        stepper: BackwardStepper,
    ) -> None:
        self.index = index  # position of this step in stepper.order
        self.node = node  # the Value whose _backward ran
        self.out_grad = out_grad  # node.grad when it ran
        self.children = children  # node._prev (duplicates kept)
        self.grads_before = grads_before  # child grads before, aligned with children
        self.grads_after = grads_after  # child grads after
        self._stepper = stepper  # for the names shown in the text
        self._local: list[tuple[str, float]] | None = None
        self._lines: list[str] | None = None

    @property
    def local(self) -> list[tuple[str, float]]:
        """[(symbolic, value)]: the local derivative d node / d child, per child."""
        if self._local is None:
            self._local = local_derivatives(self.node)
        return self._local

    @property
    def lines(self) -> list[str]:
        """The chain-rule arithmetic, one line per operand."""
        if self._lines is None:
            self._lines = self._stepper._explain(
                self.node, self.out_grad, self.children, self.grads_before, self.grads_after, self.local
            )
        return self._lines

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def __repr__(self) -> str:
        return f"StepRecord({self.index}, {self.lines[0] if self.lines else ''!r})"


def _fmt(x: float) -> str:
    """Numbers in the narration exactly as the canvas writes them (core/format.py)."""
    return format_number(x)


# -----------------------------------------------------------------------------
# The stepper


class StepHistory:
    """The steps run so far, as a read-only sequence of StepRecords.

    `stepper.history[i]` is step i, `history[-1]` the last one, `history[a:b]` a
    list. Records are built when asked for: while stepping, the stepper keeps
    only the operands' grads from before each step (one flat list of floats),
    which is all that step-back needs and all a record is made from.
    """

    __slots__ = ("_stepper",)

    def __init__(self, stepper: BackwardStepper) -> None:
        self._stepper = stepper

    def __len__(self) -> int:
        return self._stepper._position

    @overload
    def __getitem__(self, index: int) -> StepRecord: ...
    @overload
    def __getitem__(self, index: slice) -> list[StepRecord]: ...
    def __getitem__(self, index: int | slice) -> StepRecord | list[StepRecord]:
        if isinstance(index, slice):
            return [self._stepper._record(i) for i in range(*index.indices(len(self)))]
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("step index out of range")
        return self._stepper._record(index)

    def __iter__(self) -> Iterator[StepRecord]:
        return (self._stepper._record(i) for i in range(len(self)))

    def __repr__(self) -> str:
        return f"StepHistory({len(self)} steps)"


class BackwardStepper:
    """Step through root's backward pass one `_backward` call at a time.

    `order` is the reverse topological order (leaves dropped unless
    `include_leaves`). `position` is the index of the next step; `done` is true
    when every step has run. `names` maps a Value to the name shown in text
    (default: its label, else '#k' for its index in topological order).
    With `reset=False` no grad is touched: the plan (order, names, who feeds
    whom) is ready for a view to show before the learner starts; call
    `reset()` to begin.

    What is stored per step is only what step-back needs: the operands' grads
    from just before the step, appended to one flat list (`_saved`). Everything
    else a StepRecord shows follows from it and from the order:
      * the node's own grad when it ran is still `node.grad` -- once a node has
        run its `_backward`, no later step can change its grad, because only
        its consumers pass gradient into it and they all ran before it;
      * an operand's grad just after step i is what the next step that touches
        it saved as "before", or its current grad if no later step touched it.
    """

    def __init__(
        self,
        root: Value,
        include_leaves: bool = False,
        names: Mapping[Value, str] | None = None,
        reset: bool = True,
        topo: Sequence[Value] | None = None,
    ) -> None:
        self.root = root
        # `topo`: the graph's nodes in an order of making (each after its operands, root last) to
        # step in reverse -- a big graph's own order, which keeps each block's steps together
        # (core/scopes/debug.py); else micrograd's build_topo order
        self.topo = list(topo) if topo is not None else topological_order(root)
        reverse = self.topo[::-1]
        self.order = reverse if include_leaves else [v for v in reverse if v._prev]
        self._names = names or {}
        self._position = 0
        self._saved: list[float] = []  # operands' grads before each step run, flat
        # built when first needed: a plain run to the end never asks
        self._index_cache: dict[Value, int] | None = None
        self._topo_index_cache: dict[Value, int] | None = None
        self._feeding_cache: dict[Value, list[int]] | None = None
        self._offsets_cache: list[int] | None = None
        self.breakpoints: set[Value] = set()  # nodes: stop before their step
        self.break_on_nonfinite = True
        self.grad_threshold: float | None = None  # stop after a step makes any |grad| exceed this
        self.break_on_dead_relu = False
        self.stop_reason = ""
        if reset:
            self.reset()

    # -- state -------------------------------------------------------------------

    @property
    def _index(self) -> dict[Value, int]:
        if self._index_cache is None:
            self._index_cache = {node: i for i, node in enumerate(self.order)}
        return self._index_cache

    @property
    def _topo_index(self) -> dict[Value, int]:
        if self._topo_index_cache is None:
            self._topo_index_cache = {node: i for i, node in enumerate(self.topo)}
        return self._topo_index_cache

    @property
    def _feeding(self) -> dict[Value, list[int]]:
        """{node: [indices of the steps that pass gradient into it]}: its consumers' steps."""
        if self._feeding_cache is None:
            feeding: dict[Value, list[int]] = {node: [] for node in self.topo}
            for i, node in enumerate(self.order):
                for child in dict.fromkeys(node._prev):  # a*a feeds a once per step
                    feeding[child].append(i)
            self._feeding_cache = feeding
        return self._feeding_cache

    @property
    def _offsets(self) -> list[int]:
        """Where step i's saved grads start in `_saved` (one more entry: the end)."""
        if self._offsets_cache is None:
            offsets, total = [0], 0
            for node in self.order:
                total += len(node._prev)
                offsets.append(total)
            self._offsets_cache = offsets
        return self._offsets_cache

    @property
    def history(self) -> StepHistory:
        """The steps run so far (a StepHistory view; made on each access, so that the
        stepper and its history hold no reference cycle and a dropped graph is freed at once)."""
        return StepHistory(self)

    @property
    def position(self) -> int:
        return self._position

    @property
    def done(self) -> bool:
        return self._position >= len(self.order)

    @property
    def current(self) -> Value | None:
        """The node whose `_backward` runs next (None when done)."""
        return None if self.done else self.order[self._position]

    def step_index(self, node: Value) -> int | None:
        """The index of node's step in `order` (None for a node with no step)."""
        return self._index.get(node)

    def name(self, node: Value) -> str:
        if node in self._names:
            return self._names[node]
        return node.label or f"#{self._topo_index.get(node, '?')}"

    def reset(self) -> None:
        """Zero every grad in the graph, then set root.grad = 1; back to step 0."""
        for node in self.topo:
            node.grad = 0.0
        self.root.grad = 1.0
        self._position = 0
        self._saved = []
        self.stop_reason = ""

    def status(self, node: Value) -> str:
        """'untouched', 'partial' or 'final': has node received all its gradient?"""
        if node is self.root:
            return FINAL
        feeding = self._feeding[node]
        received = bisect.bisect_left(feeding, self._position)
        if received == 0:
            return UNTOUCHED
        return FINAL if received == len(feeding) else PARTIAL

    def local_terms(self, node: Value) -> list[tuple[str, float]]:
        """[(local derivative with real names, value)] for each operand of node,
        e.g. [('y.data', 3.0), ('x.data', 2.0)] for m = x * y."""
        names = [self.name(child) for child in node._prev]
        return [(_substitute(symbolic, names, self.name(node)), value) for symbolic, value in local_derivatives(node)]

    def users(self, node: Value) -> list[Value]:
        """The nodes whose `_backward` passes gradient into node, in step order
        (one per distinct consumer; the output has none)."""
        return [self.order[i] for i in self._feeding.get(node, ())]

    def contributions(self, node: Value) -> list[tuple[StepRecord, float]]:
        """[(StepRecord, amount)] of the steps run so far that added to node.grad.

        A node used more than once gets one contribution per use; its grad is
        their sum. That is why grads accumulate with += instead of being set.
        """
        feeding = self._feeding.get(node, ())
        run = feeding[: bisect.bisect_left(feeding, self._position)]
        return [(record, _share(record, node)) for record in map(self._record, run)]

    def _record(self, index: int) -> StepRecord:
        """The StepRecord of step `index` (< position), rebuilt from `_saved`."""
        node = self.order[index]
        children = node._prev
        start = self._offsets[index]
        before = tuple(self._saved[start : start + len(children)])
        return StepRecord(
            index,
            node,
            node.grad,
            children,
            before,
            tuple([self._grad_after(child, index) for child in children]),
            self,
        )

    def _grad_after(self, child: Value, index: int) -> float:
        """child.grad just after step `index`: the "before" saved by the next step
        that touched it, or its grad now if none has since."""
        feeding = self._feeding[child]
        k = bisect.bisect_right(feeding, index)
        if k == len(feeding) or feeding[k] >= self._position:
            return child.grad
        later = feeding[k]
        return self._saved[self._offsets[later] + self.order[later]._prev.index(child)]

    # -- moving ----------------------------------------------------------------

    def step(self) -> StepRecord | None:
        """Run the next `_backward` call and return its StepRecord (None when done)."""
        if self.done:
            return None
        return self._take_step()

    def _take_step(self) -> StepRecord:
        # the caller has made sure a step is left
        index = self._position
        node = self.order[index]
        children = node._prev
        before = tuple([child.grad for child in children])
        self._saved.extend(before)
        self._call_backward(index, node)
        self._position = index + 1
        after = tuple([child.grad for child in children])
        return StepRecord(index, node, node.grad, children, before, after, self)

    def _call_backward(self, index: int, node: Value) -> None:
        """What step `index` runs: the node's own `_backward` (a replay of a learner's
        recorded pass sets their grads instead, core/debugger/foreign_replay.py)."""
        node._backward(node)

    def step_back(self) -> StepRecord | None:
        """Undo the last step exactly (restores the operands' grads); returns it."""
        if not self._position:
            return None
        record = self._record(self._position - 1)
        self._undo_last()
        self.stop_reason = ""
        return record

    def _undo_last(self) -> None:
        self._position -= 1
        children = self.order[self._position]._prev
        saved = self._saved
        start = len(saved) - len(children)
        # restore in reverse, so a*a (the same child twice) ends at its first 'before'
        for child, before in reversed(list(zip(children, saved[start:]))):
            child.grad = before
        del saved[start:]

    def seek(self, position: int) -> None:
        """Go to any step index, forward or back (the timeline slider)."""
        position = max(0, min(position, len(self.order)))
        while self._position > position:
            self._undo_last()
        self.stop_reason = ""
        self._advance(position)

    def _advance(self, end: int) -> None:
        """Run steps up to (not including) step `end`, saving only the operands'
        grads before each: the loop at the heart of the stepper, as close to
        `backward()`'s own loop as step-back allows."""
        push = self._saved.append
        for node in self.order[self._position : end]:
            for child in node._prev:
                push(child.grad)
            node._backward(node)
        self._position = max(self._position, end)

    def run_to_end(self) -> _Steps:
        """Step until done or a breakpoint condition; returns the records run."""
        start = self._position
        self._run(None)
        return _Steps(self, start, self._position)

    def run_to(self, target: Value) -> _Steps:
        """Step until target is the next node to run (or, for a leaf, until its
        grad is final). Breakpoints still stop the run on the way."""
        start = self._position
        if target in self._index:
            self._run(lambda: self.current is target)
        else:
            self._run(lambda: self.status(target) == FINAL)
        return _Steps(self, start, self._position)

    def _run(self, arrived: Callable[[], bool] | None) -> None:
        self.stop_reason = ""
        if arrived is None and not self.breakpoints and not self.break_on_dead_relu and self.grad_threshold is None:
            self._run_plain()
            return
        arrived = arrived or (lambda: False)
        first = True
        while not self.done and not arrived():
            reason = "" if first else self.pause_reason()
            if reason:
                self.stop_reason = reason
                break
            first = False
            reason = self.check(self._take_step())
            if reason:
                self.stop_reason = reason
                break

    def _run_plain(self) -> None:
        """run_to_end with nothing to watch but non-finite grads, ~backward() speed.

        Runs every remaining step in the tight loop, then looks at the grads
        once. A non-finite grad never turns finite again under += (inf + x is
        inf or nan, nan + x is nan), so all-finite at the end means no step made
        one. Otherwise it steps back to where it started and walks again one
        step at a time, to stop exactly at the first step that made one.
        """
        start = self._position
        self._advance(len(self.order))
        if not self.break_on_nonfinite:
            return
        isfinite = math.isfinite
        if all([isfinite(node.grad) for node in self.topo]):
            return
        while self._position > start:
            self._undo_last()
        while not self.done:
            reason = self.check(self._take_step())
            if reason:
                self.stop_reason = reason
                break

    def pause_reason(self) -> str:
        """Why a run should stop before the next step ('' to go on): a breakpoint
        on it, or a dead ReLU when `break_on_dead_relu` is set. A run never stops
        before its own first step, so "continue" gets past a breakpoint."""
        node = self.current
        if node is None:
            return ""
        if node in self.breakpoints:
            return f"breakpoint at {self.name(node)}"
        if self.break_on_dead_relu and node._op == "relu" and node._prev[0].data <= 0.0:
            return f"dead ReLU at {self.name(node)}: its input is ≤ 0, so no gradient flows"
        return ""

    def check(self, record: StepRecord) -> str:
        """Why a run should stop after `record` ('' to go on): a non-finite grad
        or one above `grad_threshold` in an operand it changed."""
        for child, grad in zip(record.children, record.grads_after):
            if self.break_on_nonfinite and not math.isfinite(grad):
                return f"non-finite grad {grad} in {self.name(child)}"
            if self.grad_threshold is not None and abs(grad) > self.grad_threshold:
                shown = format_number(abs(grad))  # as the canvas writes it
                return f"|grad| of {self.name(child)} is {shown} > {self.grad_threshold:g}"
        return ""

    # -- text ------------------------------------------------------------------

    def _explain(
        self,
        node: Value,
        out_grad: float,
        children: Sequence[Value],
        before: tuple[float, ...],
        after: tuple[float, ...],
        local: list[tuple[str, float]],
    ) -> list[str]:
        """One line per operand, e.g.
        'x.grad += y.data · f.grad = 3.0000 · 1.0000 = 3.0000 (was 0.0000, now 3.0000)'.
        For a*a the second line starts from the first line's result."""
        names = [self.name(child) for child in children]
        out = self.name(node)
        lines = []
        running: dict[Value, float] = {}
        for i, (child, (symbolic, value)) in enumerate(zip(children, local)):
            amount = value * out_grad
            was = running.get(child, before[i])
            now = was + amount
            running[child] = now
            local_text = _substitute(symbolic, names, out)
            if " " in local_text:  # '1 - t.data²' needs brackets before '· t.grad'
                local_text = f"({local_text})"
            lines.append(
                f"{field_of(names[i])} += {local_text} · {field_of(out)}"
                f" = {_fmt(value)} · {_fmt(out_grad)} = {_fmt(amount)}"
                f" (was {_fmt(was)}, now {_fmt(now)})"
            )
        return lines


def _share(record: StepRecord, node: Value) -> float:
    """How much one step added to node.grad (both uses, for a*a)."""
    total = 0.0
    for child, (_sym, value) in zip(record.children, record.local):
        if child is node:
            total += value * record.out_grad
    return total


def _substitute(symbolic: str, names: list[str], out: str) -> str:
    """Put the operands' real names into a local-derivative formula."""
    by_token = {"a": names[0], "b": names[-1], "out": out}
    return re.sub(r"\b(a|b|out)\.data", lambda m: field_of(by_token[m.group(1)], "data"), symbolic)


_SPLITS = frozenset(" +-−*/·×^")  # a name holding one of these reads as several things


def field_of(name: str, field: str = "grad") -> str:
    """`name.grad` as a sentence must write it: a name that reads as a formula is
    bracketed, `(x1*w1 + x2*w2).grad` -- the lecture labels its sums so, and
    `x1*w1 + x2*w2.grad` would say x2*w2's grad (or w2's). A bracketed name, a plain
    one (`w1`, `n.layers[0].w[1]`) or a number stays as it is."""
    if name.startswith("(") or not any(ch in _SPLITS for ch in name.lstrip("-−")):
        return f"{name}.{field}"
    return f"({name}).{field}"


class _Steps:
    """The records of steps start..end-1, built when read (what a run returns:
    a run over a big graph must not build thousands of records nobody reads)."""

    __slots__ = ("_stepper", "_start", "_end")

    def __init__(self, stepper: BackwardStepper, start: int, end: int) -> None:
        self._stepper, self._start, self._end = stepper, start, end

    def __len__(self) -> int:
        return self._end - self._start

    def __bool__(self) -> bool:
        return self._end > self._start

    @overload
    def __getitem__(self, index: int) -> StepRecord: ...
    @overload
    def __getitem__(self, index: slice) -> list[StepRecord]: ...
    def __getitem__(self, index: int | slice) -> StepRecord | list[StepRecord]:
        indices = range(self._start, self._end)[index]
        if isinstance(indices, range):
            return [self._stepper._record(i) for i in indices]
        return self._stepper._record(indices)

    def __iter__(self) -> Iterator[StepRecord]:
        return (self._stepper._record(i) for i in range(self._start, self._end))
