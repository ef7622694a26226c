"""The big-graph page's debugger: the backward pass stepped a unit of the picture at a time.

The small graph's `DebugSession` steps one op at a time; on a traced training step of
43,000 ops that is no way to read it. `BlockDebugger` (core/scopes/debug.py) moves the
same session a *unit of the picture* at a time: "Step" runs the backward pass of the
next unit as the picture shows it -- a whole closed block, or one op of an opened one --
"Step into" opens the next block first so the steps go inside it, "Back" undoes the
last unit, "Run to end" and "Reset" do what they say; right-click a unit: run to it,
or a breakpoint before it. "Quiz" asks for each single op's new grads before they show.

The debugger's Values are made on a worker once the first picture is on screen
(`made_debugger`). A move is run here when it is small (at most SYNC_OPS of the
engine's `_backward` steps, ~5 ms) and on a worker when it is not (a whole position's
block: 25-110 ms), the window answering meanwhile (`moving`, `wait_moved`). Either way
only the grads the move changed are copied into the picture's arrays, and only the
boxes whose numbers changed are painted again; `marks` (what has run, what runs next)
is a pure function of the session's position.

`PageStepping` is the half of the big-graph page (app/graph/scope_page.py) that steps;
the page itself is the picture it steps on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtWidgets import QLabel, QLineEdit, QWidget

from app import collector
from app.graph.scope_items import UnitItem, block_lines, node_lines
from app.jobs import Job
from core.scopes.debug import BlockDebugger, node_of
from core.scopes.graph import ScopedGraph
from core.scopes.view import ScopeView, Units

if TYPE_CHECKING:
    from app.graph.layout_runner import LayoutRunner
    from app.graph.scope_canvas import ScopeCanvas
    from app.graph.scope_minimap import ScopeMinimap

SYNC_OPS = 1_500  # a move of the debugger running more `_backward` steps runs on a worker


def made_debugger(graph: ScopedGraph, view: ScopeView) -> dict[str, Any]:
    """(on the worker) the debugger of the graph and its grads as its session starts."""
    import gc

    debugger = BlockDebugger(graph, view)
    start = np.fromiter((v.grad for v in graph.values()), dtype=np.float64, count=graph.n)
    gc.freeze()  # the Values live as long as the page: never walked by a collection (app/collector.py)
    return {"debugger": debugger, "start": start}


class PageStepping(QWidget):
    """The stepping half of ScopePage (see the module docstring): the page sets these."""

    graph: ScopedGraph | None
    view: ScopeView | None
    stepper: BlockDebugger | None
    items: dict[int, UnitItem]  # unit -> its box
    _units: Units | None  # the picture's units (core/scopes/view.py)
    said: QLabel
    answer: QLineEdit
    canvas: ScopeCanvas
    minimap: ScopeMinimap
    arranger: LayoutRunner  # `pending` while a graph opens: it releases the collector then
    moves: int  # the units stepped (minus those stepped back)
    _moving: Job | None  # the Job running a long move of the debugger
    _values_job: Job | None  # the Job making the debugger (its Values) on a worker
    _made: dict[str, Any]  # what it made: {"debugger", "start"}
    _start_grads: np.ndarray
    _synced: bool

    def open_block(self, scope: int, then: Callable[[], Any] | None = None) -> None:
        raise NotImplementedError  # the page opens blocks (app/graph/scope_page.py)

    # -- a move, here or on the worker ---------------------------------------------------

    @property
    def moving(self) -> bool:
        """True while a long move of the debugger runs on the worker."""
        return self._moving is not None

    def _move(self, work: Callable[[], Any], ops: int, said: Callable[[Any], None]) -> Any:
        """Run `work()` -- a move of the debugger: a UnitStep, a Move or None -- and the copy of
        the grads it changed into the picture's arrays; then say it (`said(outcome)`) and repaint.
        A move of at most SYNC_OPS steps (~5 ms) runs here and returns its outcome; a longer one
        (a whole position's block, Run to end and Reset of a 138k step: 25-110 ms) runs on a
        worker and returns None, the window answering meanwhile (`moving`, `wait_moved`)."""
        if self.moving:
            self.said.setText("Still running the backward pass… (a moment)")
            return None
        graph, debugger = self.graph, self.stepper
        assert graph is not None and debugger is not None

        def run() -> tuple[Any, Any, Any]:  # on the worker for a long move: the Values are its alone meanwhile
            outcome = work()
            move = getattr(outcome, "move", outcome)
            if move is None:
                return outcome, None, None
            changed = debugger.changed_nodes(move)
            values = graph.values()
            grads = np.fromiter((values[i].grad for i in changed.tolist()), dtype=np.float64, count=len(changed))
            return outcome, changed, grads

        if ops <= SYNC_OPS:
            return self._moved(run(), said)
        self.said.setText("Running the backward pass… (the window keeps answering)")
        job = self._moving = Job(0, run, self, name="scope-move")

        def done(_token: int, result: Any) -> None:
            job.wait()
            job.deleteLater()
            self._moving = None
            if isinstance(result, Exception):  # a bug of ours, said, never a lost window
                self.said.setText(f"Could not run the backward pass: {result}")
                return
            self._moved(result, said)

        job.done.connect(done)
        self._collector_held_for(job)
        job.start()
        return None

    def _collector_held_for(self, job: Job, tidying: bool = True) -> None:
        """No automatic collection while a worker makes or moves the graph's Values: a full one
        walks them all holding the interpreter (73 ms on the 138k step: a GUI turn as long), as
        while a graph opens (app/collector.py); released when the job ends."""
        collector.hold(tidying)

        def release() -> None:
            if not self.arranger.pending:  # else the open releases it when done
                collector.release()

        job.finished.connect(release)

    def _moved(self, result: tuple[Any, Any, Any], said: Callable[[Any], None]) -> Any:
        outcome, changed, grads = result
        self._sync()
        if changed is not None and len(changed):
            assert self.graph is not None
            self.graph.grad[changed] = grads
        said(outcome)
        self._repaint_units(getattr(outcome, "move", outcome))
        return outcome

    def wait_moved(self, timeout_s: float = 120.0) -> bool:
        """For scripts and tests: return once a move running on the worker is shown."""
        from PySide6.QtCore import QDeadlineTimer, QEventLoop
        from PySide6.QtWidgets import QApplication

        deadline = QDeadlineTimer(int(timeout_s * 1000))
        while self.moving and not deadline.hasExpired():
            QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        return not self.moving

    def _after_move(self, move: Any) -> None:
        """A small move made here (the quiz's): copy the grads it changed, repaint the units."""
        g, stepper = self.graph, self.stepper
        assert g is not None and stepper is not None
        self._sync()
        if move is not None:
            values = g.values()
            changed = stepper.changed_nodes(move)
            if len(changed):
                g.grad[changed] = np.fromiter((values[i].grad for i in changed.tolist()), dtype=np.float64,
                                              count=len(changed))  # fmt: skip
        self._repaint_units(move)

    def _sync(self) -> None:
        """Before the first move the picture shows the script's own grads; from then on the
        debugger's, which start where its session started (made with the Values, on the worker)."""
        if not self._synced:
            assert self.graph is not None
            self.graph.grad[:] = self._start_grads
            self._synced = True

    def _repaint_units(self, move: Any) -> None:
        """The units' numbers from the picture's arrays, the quiz's question, the marks."""
        g, debugger = self.graph, self.stepper
        assert g is not None and debugger is not None
        hidden = {node_of(k) for k in debugger.session.ids_of(debugger.session.quiz_hidden())}
        question = debugger.session.quiz_question()
        self.answer.setVisible(bool(question))
        if question:
            self.said.setText(f"{self.said.text()}  —  {question}")
        for item in self.items.values():
            if item.block:
                summary = item.summary
                if summary.out_node >= 0:
                    item.summary = summary = replace(summary, grad=float(g.grad[summary.out_node]))
                lines = block_lines(summary)
            else:
                lines = node_lines(g, item.node, hidden=item.node in hidden)
            if lines != item.lines:  # only what changed is painted again (a whole view: ~8-18 ms)
                item.lines = lines
                item.update()
        self._mark()

    def _mark(self) -> None:
        """Paint what has run (core/scopes/debug.py `marks`: a pure function of the position)."""
        stepper, units = self.stepper, self._units
        if stepper is None or units is None or stepper.view.units() is not units:
            for item in self.items.values():
                item.set_marks(False, False)
            return
        stepped, current = stepper.marks()
        breaks = stepper.breakpoint_units()
        for u, item in self.items.items():
            item.set_marks(bool(stepped[u]), u == current)
            item.set_breakpoint(u in breaks)
        if current in self.items:
            self.canvas.ensureVisible(self.items[current], 40, 40)
        self.minimap.refresh(self.items)  # the stepped units turn green there too

    # -- stepping --------------------------------------------------------------------

    def wait_ready(self) -> None:
        """Block until the graph's Values are made (for scripts and tests)."""
        if self._values_job is not None:
            self._values_job.wait()

    def _stepper(self) -> BlockDebugger | None:
        """The debugger (core/scopes/debug.py), once the worker has made it (None until then)."""
        job = self._values_job
        if job is not None and not job.isFinished():
            self.said.setText("Making the engine's Values of the graph to step them… (a moment)")
            return None
        if self.stepper is None:
            made = self._made.get("debugger")
            if made is None:
                self.said.setText("The graph's Values could not be made: it cannot be stepped.")
                return None
            self.stepper = made
            self._start_grads = self._made["start"]
            made.view = self.view
        return self.stepper

    def step(self) -> Any:
        """One unit of the picture: a whole block's backward, or one op's (the small debugger's step).
        Returns the UnitStep -- or None when it runs on the worker (`moving`; see `_move`)."""
        stepper = self._stepper() if self.graph is not None else None
        if stepper is None:
            return None

        def said(record: Any) -> None:
            if record is None:
                self.said.setText("The backward pass is done: every gradient is in.")
            else:
                self.moves += 1
                explain = f"  —  {record.explain}" if record.explain else ""
                self.said.setText(f"Step {self.moves}: {record.text}{explain}")

        return self._move(stepper.step, stepper.ops_of("step"), said)

    def step_back(self) -> Any:
        """Undo the last unit run: its grads back to what they were before it."""
        stepper = self._stepper() if self.graph is not None else None
        if stepper is None:
            return None

        def said(record: Any) -> None:
            if record is None:
                self.said.setText("At the start: nothing to step back.")
            else:
                self.moves = max(0, self.moves - 1)
                self.said.setText(f"Step back: {record.text}")

        return self._move(stepper.back, stepper.ops_of("back"), said)

    def step_into(self) -> Any:
        """Open the block the next step would run, then step inside it."""
        if self.graph is None:
            return None
        stepper = self._stepper()
        if stepper is None:
            return None
        units, u = self._units, stepper.next_unit()
        if units is None or u < 0 or not units.is_block(u):
            return self.step()
        self.open_block(int(units.scope[u]), then=self.step)
        return None

    def run_to_end(self) -> Any:
        stepper = self._stepper() if self.graph is not None else None
        if stepper is None:
            return None
        said = self._said_stopped("Ran the backward pass to its end.")
        return self._move(stepper.run_to_end, stepper.ops_of("end"), said)

    def run_to_unit(self, u: int) -> Any:
        stepper = self._stepper() if self.graph is not None else None
        if stepper is None:
            return None
        said = self._said_stopped("Ran up to the block: it runs next.")
        return self._move(lambda: stepper.run_to_unit(u), stepper.ops_of("to", u), said)

    def _said_stopped(self, ran: str) -> Callable[[Any], None]:
        def said(_move: Any) -> None:
            assert self.stepper is not None
            reason = self.stepper.session.stop_reason
            self.said.setText(f"Stopped: {reason}" if reason else ran)

        return said

    def toggle_breakpoint(self, u: int) -> bool:
        stepper = self._stepper() if self.graph is not None else None
        if stepper is None or self.moving:
            return False
        on = stepper.toggle_breakpoint(u)
        self.said.setText("A breakpoint before this block: a run stops there." if on else "Breakpoint removed.")
        self._mark()
        return on

    def set_quiz(self, on: bool) -> None:
        stepper = self._stepper()
        if stepper is None or self.moving:
            return
        stepper.session.set_quiz_mode(bool(on))
        self._after_move(None)

    def answer_quiz(self, text: str) -> Any:
        if self.stepper is None or self.moving:
            return None
        move = self.stepper.session.answer_quiz(text)
        self.said.setText(move.answer[1] if move.answer else move.message or "Type a number.")
        self._after_move(move)
        return move

    def reset(self) -> Any:
        stepper = self._stepper()
        if stepper is None:
            return None

        def said(_move: Any) -> None:
            self.moves = 0
            self.said.setText("Reset: every grad is 0, the output's is 1. Step runs the first block.")

        return self._move(stepper.reset, stepper.ops_of("reset"), said)
