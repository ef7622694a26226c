"""The big graph's debugger: DebugSession moved a unit at a time (core/scopes/debug.py)."""

import random

import numpy as np
import pytest

from core.engine import Value
from core.scopes.debug import BlockDebugger, marks
from core.scopes.graph import ScopedGraph
from core.scopes.infer import collapsed
from core.scopes.view import ScopeView


def mlp_loss(samples=6):
    from core.nn import MLP

    rng = random.Random(0)
    model = MLP(3, [8, 8, 1], activation="tanh", rng=rng)
    xs = [[rng.uniform(-1, 1) for _ in range(3)] for _ in range(samples)]
    out = sum(((model(x) - 1.0) ** 2 for x in xs), Value(0.0))
    out.backward()
    return out


@pytest.fixture
def debugger():
    graph = collapsed(mlp_loss())
    return BlockDebugger(graph, ScopeView.first(graph, 20))


def expected_grads(graph):
    fresh = ScopedGraph(
        {k: getattr(graph, k) for k in ("op", "a", "b", "param", "data", "grad", "scope", "line")},
        graph.labels, graph.root, graph.scopes,
    )  # fmt: skip
    values = fresh.values()
    values[graph.root].backward()
    return np.array([v.grad for v in values])


def test_stepping_every_unit_gives_backwards_grads_and_each_step_is_one_unit(debugger):
    units = debugger.view.units()
    seen = []
    while (u := debugger.next_unit()) >= 0:
        step = debugger.step()
        seen.append(u)
        assert step.ops >= 1
        assert debugger.next_unit() != u  # the whole unit ran
    assert debugger.done and len(seen) == len(set(seen))
    grads = np.array([v.grad for v in debugger.graph.values()])
    np.testing.assert_allclose(grads, expected_grads(debugger.graph), rtol=1e-12, atol=1e-15)
    with_ops = {int(units.node_unit[i]) for i in np.nonzero(debugger.graph.op >= 2)[0]}
    assert sorted(seen) == sorted(with_ops)  # every unit with an op to run, once


def test_back_undoes_exactly_one_unit_and_restores_its_grads(debugger):
    values = debugger.graph.values()
    debugger.step()
    after_one = [v.grad for v in values]
    debugger.step()
    step = debugger.back()
    assert step.ops < 0
    assert [v.grad for v in values] == after_one
    debugger.back()
    assert debugger.position == 0
    assert debugger.back() is None


def test_a_step_copies_only_what_it_changed(debugger):
    step = debugger.step()
    changed = debugger.changed_nodes(step.move)
    assert 0 < len(changed) < debugger.graph.n // 4
    assert all(debugger.graph.values()[i].grad != 0 or True for i in changed)


def test_a_breakpoint_inside_a_block_stops_the_block_step(debugger):
    graph, units = debugger.graph, debugger.view.units()
    u = debugger.next_unit()
    assert units.is_block(u)
    lo, hi = int(graph.start[units.scope[u]]), int(graph.end[units.scope[u]])
    ops = [i for i in range(hi - 1, lo - 1, -1) if graph.op[i] >= 2]
    inner = ops[len(ops) // 2]
    debugger.session.set_breakpoint(f"n{inner}")
    step = debugger.step()
    assert "stopped" in step.text and debugger.next_op() == inner


def test_single_ops_step_through_the_session_with_its_quiz_and_explanation():
    graph = collapsed(mlp_loss(2))
    view = ScopeView(graph, set(range(len(graph.scopes))))  # everything opened: single ops
    debugger = BlockDebugger(graph, view)
    debugger.session.set_quiz_mode(True)
    step = debugger.step()
    assert step.node == graph.root and step.ops == 1
    assert debugger.session.quiz_question()  # the quiz asks about the op just run
    assert step.move.record is not None and "grad" in step.explain and step.text.endswith(": 1 step")


def test_run_to_a_unit_stops_before_it(debugger):
    units = debugger.view.units()
    kinds = [debugger.graph.scopes[units.scope[u]].kind if units.is_block(u) else "" for u in range(len(units))]
    blocks = [u for u in range(len(units)) if kinds[u] not in ("", "inputs")]
    target = blocks[len(blocks) // 2]
    debugger.run_to_unit(target)
    assert debugger.next_unit() == target


def test_marks_paint_what_has_run_and_never_the_next_unit(debugger):
    """The planted bug of issue 40 -- painting the next block green before it runs -- is
    what `marks` must never do: checked on every unit, at every step."""
    units = debugger.view.units()
    while not debugger.done:
        nxt = debugger.next_unit()
        stepped, current = debugger.marks()
        assert not stepped[nxt]
        last = debugger.last_op()
        assert current == (int(units.node_unit[last]) if last >= 0 else -1)
        debugger.step()
        stepped, current = debugger.marks()
        assert stepped[nxt] and current == nxt
    assert debugger.marks()[0].all()  # the pass is over: every unit stepped


def test_marks_is_a_pure_function_of_the_position(debugger):
    graph, units = debugger.graph, debugger.view.units()
    before = marks(graph, units, debugger.next_op(), debugger.last_op())
    again = marks(graph, units, debugger.next_op(), debugger.last_op())
    assert (before[0] == again[0]).all() and before[1] == again[1]


def test_ops_of_says_how_many_steps_each_move_runs(debugger):
    # the page runs a long move on a worker: it asks first how long (issue 40: a 138k step's Run to end
    # took 109-176 ms in one turn of the window's event loop)
    units = debugger.view.units()
    total = len(debugger.op_desc)
    assert debugger.ops_of("end") == total and debugger.ops_of("back") == 0
    expected = debugger.ops_of("step")
    assert debugger.step().ops == expected >= 1
    assert debugger.ops_of("back") == expected and debugger.ops_of("end") == total - expected
    blocks = [u for u in range(len(units)) if units.is_block(u) and u != debugger.next_unit()]
    target = max(blocks, key=lambda u: debugger.ops_of("to", u))
    before = debugger.position
    ops = debugger.ops_of("to", target)
    debugger.run_to_unit(target)
    assert debugger.position - before == ops
    assert debugger.ops_of("reset") >= debugger.graph.n
    with pytest.raises(ValueError):
        debugger.ops_of("sideways")
