"""The collapsed-by-scope view, expanding in place, its layout, and stepping the backward pass by blocks."""

import random

import numpy as np
import pytest

from core.engine import Value
from core.microgpt.data import Tokenizer, load_names
from core.microgpt.model import Config, MicroGPT, loss
from core.scopes.debug import BlockDebugger
from core.scopes.graph import ScopedGraph
from core.scopes.layout import layout
from core.scopes.record import recording
from core.scopes.view import ScopeView


@pytest.fixture(scope="module")
def step():
    tok = Tokenizer(load_names())
    model = MicroGPT(Config(vocab_size=tok.vocab_size), random.Random(7))
    with recording() as rec:
        out = loss(tok.encode("ava"), model)
    graph = ScopedGraph.from_values(out, rec, model.params)
    out.backward()
    return graph, [v.grad for v in graph.values()]


def titles(view):
    units = view.units()
    g = view.graph
    return [
        g.title(int(units.scope[u])) if units.is_block(u) else g.name(int(units.node[u])) for u in range(len(units))
    ]


def test_the_first_picture_is_the_step_by_position_within_budget(step):
    graph, _ = step
    view = ScopeView.first(graph, budget=48)
    shown = titles(view)
    assert len(shown) <= 48
    assert shown.count("gpt") == 4 and shown.count("softmax") == 4  # "ava": BOS a v a -> 4 positions
    assert shown[0] == "parameters" and "wte" not in shown  # all matrices in one block
    units = view.units()
    assert np.all(units.src < units.dst)  # wires go forward in the order of making: no cycle


def test_every_node_is_in_exactly_one_unit_and_wires_add_up(step):
    graph, _ = step
    view = ScopeView.first(graph)
    units = view.units()
    assert len(units.node_unit) == graph.n
    within = 0
    for side in (graph.a, graph.b):
        used = np.nonzero(side >= 0)[0]
        within += np.count_nonzero(units.node_unit[side[used]] == units.node_unit[used])
    assert units.count.sum() + within == np.count_nonzero(graph.a >= 0) + np.count_nonzero(graph.b >= 0)


def test_a_block_expands_in_place_recursively_down_to_single_ops_and_collapses_back(step):
    graph, _ = step
    view = ScopeView.first(graph)
    before = titles(view)
    units = view.units()
    blocks = [int(units.scope[u]) for u in range(len(units)) if units.is_block(u)]
    gpt = next(s for s in blocks if graph.title(s) == "gpt")
    view.expand(gpt)
    after = titles(view)
    assert after.count("gpt") == before.count("gpt") - 1 and "li = 0" in after
    # deeper: the attention block, a head, its softmax: single ops at the bottom
    attention = next(s for s in graph.children(next(c for c in graph.children(gpt) if graph.title(c) == "li = 0"))
                     if graph.title(s).startswith("1)"))  # fmt: skip
    head = next(s for s in graph.children(attention) if graph.title(s) == "h = 1")
    soft = graph.children(head)[0]
    view.expand(soft)
    inside = titles(view)
    assert "exps" not in inside  # names of single ops, from the code
    assert any(t == "val - max_val" for t in inside) and "total" in inside
    view.collapse(gpt)
    assert titles(view) == before


def test_a_block_summary_counts_its_wires_and_shows_its_output(step):
    graph, _ = step
    view = ScopeView(graph)
    loss_scope = next(s for s in graph.children(0) if graph.title(s) == "loss")
    pos0 = graph.children(loss_scope)[0]
    soft = next(s for s in graph.children(pos0) if graph.title(s) == "softmax")
    summary = view.summary(soft)
    assert summary.path == "loss › pos_id = 0 › softmax" and summary.site == "probs = softmax(logits)"
    assert summary.ins == 27 and summary.outs == 1  # 27 logits in; only the target's probability is used
    assert summary.data == pytest.approx(graph.data[summary.out_node]) and 0 < summary.data < 1


def test_stepping_by_blocks_and_into_one_gives_backwards_grads(step):
    graph, grads = step
    view = ScopeView.first(graph)
    stepper = BlockDebugger(graph, view)
    first = stepper.step()
    assert first.node >= 0 and graph.op_name(first.node) == "mul"  # the mean's multiply: a single op
    loss_scope = next(s for s in graph.children(0) if graph.title(s) == "loss")
    pos1_gpt = graph.children(graph.children(loss_scope)[1])[0]
    texts = []
    while not stepper.done:
        record = stepper.step()
        texts.append(record.text)
        if record.text.startswith("the backward of softmax") and "pos_id = 1" in record.text:
            view.expand(pos1_gpt)  # step into position 1's gpt: its blocks come next
    soft = "the backward of softmax: 82 steps (in loss › pos_id = 3)"  # 110 nodes, 28 of them constants
    assert [t.split(":")[0] for t in texts[:4]] == ["the backward of sum(losses) (add)"] * 4
    assert soft in texts and texts[texts.index(soft) + 1].startswith("the backward of gpt: ")
    inside = [t for t in texts if t.endswith("(in loss › pos_id = 1 › gpt)")]
    assert inside[0].startswith("the backward of linear: ") and inside[-1].startswith("the backward of rmsnorm: ")
    assert np.allclose([v.grad for v in graph.values()], grads, rtol=0, atol=1e-12)


def test_layout_puts_every_unit_apart_and_readers_to_the_right(step):
    graph, _ = step
    view = ScopeView.first(graph)
    units = view.units()
    pos = layout(units)
    assert len({(round(x), round(y)) for x, y in pos}) == len(units)
    non_inputs = [k for k in range(len(units.src)) if graph.op[units.first[units.src[k]]] >= 2]
    # read like text: a reader is right of what it reads, or in a band below
    assert all(pos[units.dst[k], 0] > pos[units.src[k], 0] or pos[units.dst[k], 1] > pos[units.src[k], 1]
               for k in non_inputs)  # fmt: skip
    width, height = np.ptp(pos[:, 0]) + 230, np.ptp(pos[:, 1]) + 96
    assert 0.5 < width / height < 4  # bands: no thin strip across the window


def test_a_tiny_graph_with_no_scopes_is_all_single_nodes():
    x = Value(2.0, label="x")
    with recording() as rec:
        y = x * x + 1
    view = ScopeView.first(ScopedGraph.from_values(y, rec))
    assert titles(view) == ["x", "x·x", "1", "x·x + 1"]  # the root scope has no file: formulas
