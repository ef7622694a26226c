"""The debugger of a big graph: the one `DebugSession`, stepping whole blocks or single ops.

The small-graph debugger (core/debugger/session.py) steps one `_backward` call at
a time, with step back, run to, breakpoints, the quiz and its explanations. A big
graph is stepped by the same session -- this module only says where a *unit* of
the picture begins and ends:

* the session's stepper runs the graph's own order backwards (graph.py: every
  block one run of consecutive nodes), so the ops of the block on screen are
  consecutive steps, and "step over this block" is "run to the first op after
  it" -- breakpoints inside it still stop the run;
* "back" undoes the last unit: the session seeks back to the step before the
  unit that holds the last op run (the stepper restores only the grads those
  steps changed: each step saved its operands' grads, nothing else);
* a single op on screen (an opened block's own node) is one `step()`: the quiz
  asks about it, the explanation is the session's record of it.

Which units are *stepped* (their whole backward has run) and which ran last is a
pure function of the picture and the position, `marks(...)`, for the page to paint.

Node ids are 'n0', 'n1' ... (graph node numbers) and the session's document is a
read-only view of the graph's arrays (`GraphNodes`): no GraphDocument of 138,000
nodes is made.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np

from core.debugger.session import DebugSession, Move
from core.document.compile import Compiled
from core.engine import Value
from core.scopes.graph import CONST, INPUT, ScopedGraph
from core.scopes.view import ScopeView, Units


def nid(i: int) -> str:
    return f"n{i}"


def node_of(node_id: str) -> int:
    return int(node_id[1:])


@dataclass(frozen=True)
class GraphNode:
    """What the session reads of a node: its kind, label and value."""

    kind: str
    label: str
    value: float


class GraphNodes(Mapping[str, GraphNode]):
    """{node id: GraphNode} over the graph's arrays, made on demand."""

    def __init__(self, graph: ScopedGraph) -> None:
        self.graph = graph

    def __getitem__(self, key: str) -> GraphNode:
        try:
            i = node_of(key)
        except (ValueError, IndexError, TypeError):
            raise KeyError(key) from None
        g = self.graph
        if not 0 <= i < g.n:
            raise KeyError(key)
        code = g.op[i]
        kind = "input" if code == INPUT else "const" if code == CONST else "op"
        return GraphNode(kind, g.labels.get(i, ""), float(g.data[i]))

    def __iter__(self) -> Iterator[str]:
        return (nid(i) for i in range(self.graph.n))

    def __len__(self) -> int:
        return self.graph.n

    def __contains__(self, key: object) -> bool:
        try:
            return isinstance(key, str) and 0 <= node_of(key) < self.graph.n
        except ValueError:
            return False


class GraphView:
    """The session's 'document': the nodes, read-only."""

    def __init__(self, graph: ScopedGraph) -> None:
        self.nodes = GraphNodes(graph)


class ValueNames(Mapping[Value, str]):
    """{Value: the name the picture gives it} (graph.name), worked out when asked."""

    def __init__(self, graph: ScopedGraph, index: Mapping[Value, str]) -> None:
        self.graph, self.index = graph, index

    def __getitem__(self, value: Value) -> str:
        name = self.graph.name(node_of(self.index[value]))
        return f"({name})" if any(c in name for c in " ·+/^(") and not name.startswith("(") else name

    def __contains__(self, value: object) -> bool:
        return value in self.index

    def __iter__(self) -> Iterator[Value]:
        return iter(self.index)

    def __len__(self) -> int:
        return len(self.index)


@dataclass(frozen=True)
class UnitStep:
    """One move of the big-graph debugger: the unit it ran (or undid), and what to say."""

    unit_scope: int  # the block's scope (-1: a single node, or none)
    node: int  # the single node (-1: a block)
    ops: int  # how many `_backward` steps it ran (negative: undone)
    text: str
    move: Move  # the session's Move (touched node ids, the record of a single step, ...)
    explain: str = ""  # a single op's chain-rule step, as the small graph's debugger says it


def unit_range(graph: ScopedGraph, units: Units, u: int) -> tuple[int, int]:
    """The nodes [lo, hi) unit u stands for (a block's scope is one run of nodes)."""
    if units.is_block(u):
        s = int(units.scope[u])
        return int(graph.start[s]), int(graph.end[s])
    i = int(units.node[u])
    return i, i + 1


def marks(graph: ScopedGraph, units: Units, next_op: int, last: int) -> tuple[np.ndarray, int]:
    """(stepped, current): stepped[u] is True when every `_backward` of unit u has run --
    the pass runs the nodes from the last made down, so a unit is done when its *lowest*
    node lies above the next op to run (next_op: -1 when the pass is over); `current` is
    the unit holding node `last` (the last op run; -1: none)."""
    m = len(units)
    lo = np.empty(m, dtype=np.int64)
    for u in range(m):
        lo[u] = unit_range(graph, units, u)[0]
    stepped = lo > next_op
    current = int(units.node_unit[last]) if last >= 0 else -1
    return stepped, current


class BlockDebugger:
    """A DebugSession over a ScopedGraph's Values, moved a unit of `view` at a time."""

    def __init__(self, graph: ScopedGraph, view: ScopeView) -> None:
        self.graph, self.view = graph, view
        values = graph.values()
        ids = [nid(i) for i in range(graph.n)]
        compiled = Compiled(dict(zip(ids, values)), values[graph.root], {}, ids)
        compiled.topo = values  # type: ignore[attr-defined]  # the stepper runs the graph's own order backwards
        self.session = DebugSession(GraphView(graph), compiled, names=ValueNames(graph, compiled.value_to_node))  # type: ignore[arg-type]
        # the ops in the order the stepper runs them: position p runs op_desc[p] next
        self.op_desc = np.nonzero(graph.op >= 2)[0][::-1].copy()
        self.session.start()
        # the stepper's indexes, built now (on the page's worker) rather than at the first step:
        # for 138k nodes they are ~0.25 s the first Step would otherwise spend on the GUI thread
        st = self.session.stepper
        if st is not None:
            st.step_index(values[graph.root])
            st.status(values[graph.root])
            st.name(values[graph.root])
            _ = st._offsets, st._feeding  # noqa: F841 (built and kept by the stepper)
        self.session._graph()

    # -- where the pass is ---------------------------------------------------------------

    @property
    def position(self) -> int:
        return self.session.position

    @property
    def done(self) -> bool:
        st = self.session.stepper
        return st is None or st.done

    def next_op(self) -> int:
        """The node whose `_backward` runs next (-1 when the pass is over)."""
        p = self.position
        return int(self.op_desc[p]) if p < len(self.op_desc) else -1

    def last_op(self) -> int:
        """The node whose `_backward` ran last (-1 at the start)."""
        p = self.position
        return int(self.op_desc[p - 1]) if p > 0 else -1

    def _position_above(self, node: int) -> int:
        """The stepper's position once every op at or above node has run."""
        ascending = self.op_desc[::-1]
        return len(self.op_desc) - int(np.searchsorted(ascending, node, side="left"))

    def marks(self) -> tuple[np.ndarray, int]:
        return marks(self.graph, self.view.units(), self.next_op(), self.last_op())

    def next_unit(self) -> int:
        """The unit of the picture the next step runs (-1: none left)."""
        p = self.next_op()
        return int(self.view.units().node_unit[p]) if p >= 0 else -1

    def ops_of(self, move: str, u: int = -1) -> int:
        """How many `_backward` steps a move would run or undo from here -- 'step', 'back',
        'end', 'to' (unit u), 'reset' -- at most (a breakpoint may stop a run sooner). The page
        runs a long move on a worker rather than in one turn of the window's event loop."""
        g, units, p = self.graph, self.view.units(), self.position
        if move == "step":
            u = self.next_unit()
            if u < 0:
                return 0
            return self._position_above(unit_range(g, units, u)[0]) - p if units.is_block(u) else 1
        if move == "back":
            last = self.last_op()
            hi = unit_range(g, units, int(units.node_unit[last]))[1] if last >= 0 else 0
            return p - self._position_above(hi) if last >= 0 else 0
        if move == "end":
            return len(self.op_desc) - p
        if move == "to":
            return max(0, self._position_above(unit_range(g, units, u)[1]) - p)
        if move == "reset":
            return max(p, g.n)  # every grad zeroed
        raise ValueError(f"no move {move!r}")

    # -- moving --------------------------------------------------------------------------

    def step(self) -> UnitStep | None:
        """Run the next unit's backward: a whole block, or one op (None when the pass is over)."""
        g, units = self.graph, self.view.units()
        u = self.next_unit()
        if u < 0:
            return None
        start = self.position
        if not units.is_block(u):
            move = self.session.step()
            i = int(units.node[u])
            record = move.record
            text = f"the backward of {g.name(i)} ({g.op_name(i)}): 1 step"
            return UnitStep(-1, i, self.position - start, text, move, record.text if record is not None else "")
        lo, _hi = unit_range(g, units, u)
        below = self.op_desc[self.op_desc < lo]
        move = self.session.run_to(nid(int(below[0]))) if len(below) else self.session.run_to_end()
        s = int(units.scope[u])
        ran = self.position - start
        where = " › ".join(g.title(x) for x in g.path(s)[1:-1])
        text = f"the backward of {g.title(s)}: {ran} step{'s' * (ran != 1)}" + (f" (in {where})" if where else "")
        if self.session.stop_reason:
            text += f" -- stopped: {self.session.stop_reason}"
        return UnitStep(s, -1, ran, text, move)

    def back(self) -> UnitStep | None:
        """Undo the unit that holds the last op run (None at the start)."""
        last = self.last_op()
        if last < 0:
            return None
        g, units = self.graph, self.view.units()
        u = int(units.node_unit[last])
        _lo, hi = unit_range(g, units, u)
        start = self.position
        move = self.session.seek(self._position_above(hi))
        undone = start - self.position
        block = units.is_block(u)
        title = g.title(int(units.scope[u])) if block else g.name(int(units.node[u]))
        text = f"back before {title}: {undone} step{'s' * (undone != 1)} undone"
        return UnitStep(int(units.scope[u]) if block else -1, -1 if block else int(units.node[u]), -undone, text, move)

    def run_to_end(self) -> Move:
        return self.session.run_to_end()

    def run_to_unit(self, u: int) -> Move:
        """Run until unit u is next (a breakpoint on the way stops the run first)."""
        hi = unit_range(self.graph, self.view.units(), u)[1]
        above = self.op_desc[self.op_desc < hi]
        return self.session.run_to(nid(int(above[0]))) if len(above) else self.session.run_to_end()

    def reset(self) -> Move:
        return self.session.start()

    def toggle_breakpoint(self, u: int) -> bool:
        """A breakpoint before unit u (on its first op to run); True when it is now set."""
        hi = unit_range(self.graph, self.view.units(), u)[1]
        lo = unit_range(self.graph, self.view.units(), u)[0]
        ops = self.op_desc[(self.op_desc >= lo) & (self.op_desc < hi)]
        if not len(ops):
            return False
        key = nid(int(ops[0]))
        on = key not in self.session.breakpoint_ids
        self.session.set_breakpoint(key, on)
        return on

    def breakpoint_units(self) -> set[int]:
        units = self.view.units()
        return {int(units.node_unit[node_of(k)]) for k in self.session.breakpoint_ids}

    def changed_nodes(self, move: Move) -> np.ndarray:
        """The graph nodes whose grads a move changed (the page copies only these)."""
        if move.started:  # the pass restarted: every grad zeroed
            return np.arange(self.graph.n)
        return np.fromiter((node_of(k) for k in move.touched), dtype=np.int64)
