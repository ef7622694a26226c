"""core/recorded.py: a graph as arrays, and its blocks replayed with the op table's array forms,
laid out (slices, sums planned) or gathered (index arrays), equal to the engine."""

import dataclasses
import math

import numpy as np
import pytest

from core import ops, recorded
from core.engine import Value
from core.recorded import CONST, INPUT, OP_CODE, OP_NAMES, ROWS, Block, reader, record


def test_the_docstrings_example_as_arrays():
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    f = x * y + y**2
    graph = record([f])
    assert [OP_NAMES[c] for c in graph.op] == ["input", "input", "mul", "pow", "add"]
    assert graph.a.tolist() == [-1, -1, 0, 1, 2]
    assert graph.b.tolist() == [-1, -1, 1, -1, 3]
    assert graph.param[3] == 2.0 and np.isnan(graph.param[[0, 1, 2, 4]]).all()
    assert graph.data.tolist() == [2.0, 3.0, 6.0, 9.0, 15.0]
    assert graph.levels() == [0, 0, 1, 1, 2]
    assert graph.nodes[-1] is f and graph.index()[id(f)] == 4


def test_codes_name_every_row_of_the_op_table():
    assert (INPUT, CONST) == (0, 1)
    assert [ROWS[OP_CODE[op.name]] for op in ops.TABLE] == list(ops.TABLE)
    assert ROWS[INPUT] is None and ROWS[CONST] is None


def test_leaves_are_inputs_when_named_or_labelled_else_constants():
    x, w = Value(1.0), Value(2.0, label="w")
    graph = record([x * w + 3.0], inputs=[x])
    codes = dict(zip([id(v) for v in graph.nodes], graph.op.tolist()))
    assert codes[id(x)] == INPUT and codes[id(w)] == INPUT
    assert sorted(graph.op.tolist()).count(CONST) == 1  # the 3.0


def test_also_appends_nodes_no_root_reads_without_walking_them():
    x = Value(0.5, label="x")
    used, unread = x.exp(), x.tanh()
    graph = record([used], also=[unread, used])
    assert graph.nodes == [x, used, unread]
    assert graph.a.tolist() == [-1, 0, 0]


def _blocks(graph, gathered):
    """Every (level, op, param) group of the graph as blocks, laid out in the graph's own rows."""
    level = graph.levels()
    groups = {}
    for i in range(len(graph)):
        if graph.a[i] >= 0:
            p = graph.param[i]
            groups.setdefault((level[i], int(graph.op[i]), -1.0 if math.isnan(p) else p), []).append(i)
    blocks = []
    for (_lv, code, _p), nodes in sorted(groups.items(), key=lambda kv: kv[0][0]):
        op = ROWS[code]
        param = float(graph.param[nodes[0]]) if op.param else None
        a = graph.a[nodes]
        b = graph.b[nodes] if graph.b[nodes[0]] >= 0 else None
        if gathered:
            blocks.append(Block.gathered(op, param, np.array(nodes), a, b))
        else:  # (the graph's rows are not consecutive per block: gathered reads, planned sums)
            block = Block.laid_out(op, param, nodes, a.tolist(), [] if b is None else b.tolist(), nodes)
            blocks.append(dataclasses.replace(block, out=np.array(nodes)))
    return blocks


def every_op():
    """A graph with every row of the op table, each called as a learner writes it (`Op.call`),
    plus a node read twice by one block."""
    x, y = Value(0.7, label="x"), Value(-1.3, label="y")
    a = x * y + y * x
    terms = []
    for op in ops.TABLE:
        operands = [(a * 0.3).tanh() + 1.2, y][: op.arity]  # positive first operand: log and x**0.5 defined
        param = [2] if op.param == "k" else [2.0] if op.param == "c" else []
        terms.append(op.call(*operands, *param))
    return sum(terms[1:], terms[0]) * a, [x, y]


@pytest.mark.parametrize("gathered", [True, False], ids=["gathered", "laid out"])
def test_replay_equals_the_engine_data_and_grads(gathered):
    root, leaves = every_op()
    root.backward()
    graph = record([root])
    blocks = _blocks(graph, gathered)
    assert {b.op.name for b in blocks} == {op.name for op in ops.TABLE}  # every row runs
    D = graph.data.copy()
    D[graph.a >= 0] = 0.0  # every op node recomputed
    recorded.forward(blocks, D)
    assert np.allclose(D, [v.data for v in graph.nodes], rtol=1e-14, atol=0)
    G = np.zeros(len(graph))
    G[-1] = 1.0
    recorded.backward(blocks, D, G)
    assert np.allclose(G, [v.grad for v in graph.nodes], rtol=1e-13, atol=1e-15)


def test_a_batch_is_one_column_per_sample():
    x, w = Value(0.0, label="x"), Value(1.5, label="w")
    graph = record([(x * w).tanh()])
    blocks = _blocks(graph, gathered=True)
    D = np.zeros((len(graph), 3))
    D[0], D[1] = [-1.0, 0.0, 2.0], 1.5
    recorded.forward(blocks, D)
    assert np.allclose(D[-1], np.tanh(1.5 * np.array([-1.0, 0.0, 2.0])))


def test_rows_are_read_as_slices_when_evenly_spaced():
    assert reader([4]) == slice(4, 5)
    assert reader([3, 5, 7]) == slice(3, 8, 2)
    assert reader([3, 3, 5]).tolist() == [3, 3, 5]
    assert reader([5, 4]).tolist() == [5, 4]


def test_a_repeated_operand_gets_its_contributions_summed_latest_node_first():
    adder = recorded.Adder([2, 0, 2], ranks=[5, 6, 7])
    G = np.zeros(3)
    adder.add(G, np.array([1.0, 10.0, 100.0]))
    assert G.tolist() == [10.0, 0.0, 101.0]
    gather = recorded.GatherAdder(np.array([2, 0, 2]))
    H = np.zeros(3)
    gather.add(H, np.array([1.0, 10.0, 100.0]))
    assert H.tolist() == [10.0, 0.0, 101.0]
