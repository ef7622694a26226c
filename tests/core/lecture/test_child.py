"""The canvas is the learner's notebook state after each cell (issue 42 item 1): their data
and grads as their code left them, the whole graph from the outermost Value, the nodes the
cell touched, a mark where their grad is not the chain rule's, no leaks between cells, and
the cell's `Out:`. The cells are ours, with the lecture's shapes."""

import math

import pytest

from core.lecture.run import Notebook, run_cell
from tests.core.lecture import cells


def by_label(result):
    """{label: (data, grad)} of the learner's state, as the canvas shows it."""
    return {result.doc.nodes[nid].label: numbers for nid, numbers in result.state.items()}


def labels(result, ids):
    return sorted(result.doc.nodes[nid].label for nid in ids)


def test_before_backward_every_grad_is_zero_as_in_the_notebook():
    result = run_cell(cells.NEURON)
    assert result.error is None, result.error
    state = by_label(result)
    assert all(grad == 0.0 for _data, grad in state.values())
    assert state["o"][0] == pytest.approx(math.sqrt(0.5), abs=1e-15)
    assert result.wrong == {}  # nothing ran backward: nothing is wrong yet
    assert len(result.touched) == 10  # the cell made every node


def test_manual_backprop_keeps_the_whole_graph_and_lights_what_the_cell_touched():
    notebook = Notebook()
    assert notebook.run(cells.NEURON).ran
    first = notebook.run("o.grad = 1.0\n")
    assert labels(first, first.touched) == ["o"]
    second = notebook.run("o._backward()\n")  # micrograd's call, with no argument, on the studio's Value
    assert second.error is None, second.error
    assert labels(second, second.touched) == ["n"]
    assert by_label(second)["n"][1] == pytest.approx(0.5, abs=1e-12)
    third = notebook.run("n._backward()\n")
    assert third.doc.nodes[third.doc.effective_output()].label == "o"  # still o's graph, not n's
    assert len(third.doc.nodes) == 10
    assert labels(third, third.touched) == ["b", "x1*w1 + x2*w2"]
    assert by_label(third)["x1"][1] == 0.0  # not reached yet: 0, and not marked wrong
    assert third.wrong == {}
    reference = {third.doc.nodes[nid].label: g for nid, g in third.reference.items()}
    assert reference["x1"] == pytest.approx(-1.5, abs=1e-12)  # the chain rule's, a toggle away


def test_a_second_backward_step_piles_up_and_is_marked():
    notebook = Notebook()
    for cell in (cells.NEURON, "o.grad = 1.0\n", "o._backward()\n", "n._backward()\n"):
        assert notebook.run(cell).ran
    again = notebook.run("n._backward()\n")  # the same cell twice runs twice, as in a notebook
    state = by_label(again)
    assert state["b"][1] == pytest.approx(1.0, abs=1e-12)
    wrong = {again.doc.nodes[nid].label: pair for nid, pair in again.wrong.items()}
    assert wrong["b"] == pytest.approx((1.0, 0.5), abs=1e-12)
    assert any("twice without zeroing" in note for note in again.notes)


BUGGY_ADD = cells.OWN_VALUE.replace("      self.grad += out.grad\n      other.grad += out.grad\n",
                                    "      self.grad = out.grad\n      other.grad = out.grad\n")  # fmt: skip


def test_the_equals_bug_shows_its_own_wrong_grad_with_the_chain_rules_beside_it():
    assert BUGGY_ADD != cells.OWN_VALUE
    result = run_cell(BUGGY_ADD + "a = Value(3.0, label='a')\nb = a + a; b.label = 'b'\nb.backward()\n")
    assert result.error is None, result.error
    assert by_label(result)["a"][1] == 1.0  # the bug's number, on the canvas
    wrong = {result.doc.nodes[nid].label: pair for nid, pair in result.wrong.items()}
    assert wrong == {"a": (1.0, 2.0)}
    assert any("Half of it" in note for note in result.notes)


def test_an_earlier_cells_draw_dot_does_not_leak_into_the_next_picture():
    notebook = Notebook()
    assert notebook.run(cells.NEURON + "draw_dot(o)\n").ran
    result = notebook.run("p = Value(1.5, label='p')\nq = p * 3; q.label = 'q'\n")
    assert result.error is None, result.error
    assert result.roots == 1
    assert sorted(n.label for n in result.doc.nodes.values() if n.label) == ["p", "q"]


def test_the_last_lines_value_is_the_cells_out():
    notebook = Notebook()
    assert notebook.run("def g(x):\n  return 2*x**2 + 1\n").ran
    assert notebook.run("g(2.0)\n").out == "9.0"
    assert notebook.run("xs = [1, 2]\nxs\n").out == "[1, 2]"
    assert notebook.run("print('no out')\n").out == ""  # a call that returns None shows nothing
    result = notebook.run(cells.NEURON + "1 - o.data**2\n")
    assert float(result.out) == pytest.approx(0.5, abs=1e-12)
    assert result.doc is not None  # the graph stays the notebook's: o's


NO_MUL_BACKWARD = cells.OWN_VALUE.replace(
    "    out._backward = _backward\n    return out\n\n  def tanh", "    return out\n\n  def tanh"
)


def test_after_a_whole_backward_a_grad_left_at_zero_is_marked():
    assert NO_MUL_BACKWARD != cells.OWN_VALUE  # __mul__ forgets to attach its _backward
    result = run_cell(NO_MUL_BACKWARD + cells.NEURON + "o.backward()\n")
    assert result.error is None, result.error
    wrong = {result.doc.nodes[nid].label: pair for nid, pair in result.wrong.items()}
    assert wrong["x1"] == pytest.approx((0.0, -1.5), abs=1e-12)
    assert wrong["w1"] == pytest.approx((0.0, 1.0), abs=1e-12)
    assert "b" not in wrong  # the adds pass theirs on


def test_a_draw_dot_line_shows_its_graph_not_an_out():
    result = run_cell(cells.NEURON + "dot = draw_dot(o)\ndot.render('gout')\ndot\n")
    assert result.error is None, result.error
    assert result.out == ""  # the picture is the canvas, as the notebook's is under the cell
    assert result.doc.nodes[result.doc.effective_output()].label == "o"


def test_a_training_loop_does_not_keep_every_steps_graph_alive():
    # repro: the Values backward() ran from were all held, and micrograd's demo ran out of memory
    code = cells.CLASSES + (
        "n = MLP(3, [8, 8, 1])\n"
        "for k in range(400):\n"
        "    loss = sum((n(x) - 1.0)**2 for x in [[2.0, 3.0, -1.0]] * 20)\n"
        "    loss.backward()\n"
    )
    result = run_cell(code, memory=200 << 20)  # 400 steps' graphs (~2,400 nodes each) held would not fit
    assert result.error is None, result.error


def test_weights_holding_another_graphs_grads_are_not_called_wrong():
    # repro: micrograd's decision-boundary cell marked 337 weights wrong: their grads were the training loss's
    notebook = Notebook()
    assert notebook.run(
        cells.CLASSES + "n = MLP(3, [4, 1])\nloss = (n([1.0, 2.0, 3.0]) - 1.0)**2\nloss.backward()\n"
    ).ran
    result = notebook.run("score = n([0.5, -1.0, 2.0])\n")
    assert result.error is None, result.error
    assert any(grad != 0 for _data, grad in result.state.values())  # the weights' grads, from the loss
    assert result.wrong == {}


def test_many_separate_graphs_draw_the_last_one():
    # a score per point of a grid, as the demo's decision-boundary cell makes
    result = run_cell("w = Value(0.5, label='w')\nscores = [w * x for x in range(50)]\n")
    assert result.error is None, result.error
    assert result.roots == 1 and len(result.doc.nodes) == 3
    assert any("50 separate graphs: the last one is drawn" in note for note in result.notes)
