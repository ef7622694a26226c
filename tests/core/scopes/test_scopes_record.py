"""Scopes: each node remembers the call (and loop turn, and numbered section) that made it."""

import random

import pytest

from core import engine
from core.engine import Value
from core.microgpt.data import Tokenizer, load_names
from core.microgpt.model import Config, MicroGPT, loss
from core.scopes.graph import ScopedGraph
from core.scopes.record import recording


def titles(graph, i):
    return [graph.title(s) for s in graph.path(int(graph.scope[i]))][1:]


def square_all(xs):
    return [x * x for x in xs]


def model(xs, w):
    total = Value(0.0)
    for k in range(2):  # noqa: B007 -- its turns are the scopes 'k = 0', 'k = 1'
        # 1) first part
        ys = square_all(xs)
        # 2) second part
        total = total + sum(y * w for y in ys)
    return total


def test_recording_is_off_unless_asked_and_puts_the_engine_back():
    make, init = engine._node, Value.__init__
    with recording() as rec:
        assert engine._node is not make
        a = Value(2.0) * 3
    assert engine._node is make and Value.__init__ is init
    b = Value(2.0) * 3  # made after: not noted
    assert any(v is a for v in rec.nodes) and not any(v is b for v in rec.nodes)


def test_the_engine_is_put_back_after_an_error():
    make = engine._node
    with pytest.raises(ZeroDivisionError), recording():
        Value(1.0) * 2
        raise ZeroDivisionError
    assert engine._node is make


def test_calls_loop_turns_and_sections_are_the_scopes_of_the_nodes_they_made():
    xs = [Value(1.0, label="x[0]"), Value(2.0, label="x[1]")]
    w = Value(3.0, label="w")
    with recording() as rec:
        out = model(xs, w)
    g = ScopedGraph.from_values(out, rec)
    squares = [i for i in range(g.n) if g.op_name(i) == "mul" and g.a[i] == g.b[i]]
    assert len(squares) == 4
    assert titles(g, squares[0]) == ["model", "k = 0", "1) first part", "square_all"]
    assert titles(g, squares[3]) == ["model", "k = 1", "1) first part", "square_all"]
    times_w = [i for i in range(g.n) if g.op_name(i) == "mul" and g.a[i] != g.b[i]]
    assert [titles(g, i) for i in times_w] == [["model", "k = 0", "2) second part"]] * 2 + [
        ["model", "k = 1", "2) second part"]
    ] * 2
    call = g.scopes[int(g.scope[squares[0]])]
    assert call.site == "ys = square_all(xs)" and call.kind == "call"
    assert g.contiguous  # each scope's nodes are one run of the making order
    assert g.labels[0] in ("x[0]", "x[1]", "w")  # inputs (made before) come first
    assert g.name(squares[0]) == "x * x"  # named by the code that made it


def test_a_script_level_loop_over_values_makes_no_scope():
    xs = [Value(float(k)) for k in range(3)]
    with recording() as rec:
        outs = [x + 1 for x in xs]
        for x in outs:  # a loop over Values: its turns are not named by a Value
            x = x * 2
    g = ScopedGraph.from_values(x, rec)
    assert all(g.scopes[int(s)].kind in ("root", "inputs") for s in g.scope)


@pytest.fixture(scope="module")
def microgpt_step():
    docs = load_names()
    tok = Tokenizer(docs)
    model_ = MicroGPT(Config(vocab_size=tok.vocab_size), random.Random(42))
    with recording() as rec:
        out = loss(tok.encode("emma"), model_)
    out.backward()
    return ScopedGraph.from_values(out, rec, model_.params), out


def test_microgpt_nodes_are_in_the_functions_karpathy_wrote(microgpt_step):
    g, out = microgpt_step
    by_title = {}
    for s in range(len(g.scopes)):
        by_title.setdefault(tuple(g.title(p) for p in g.path(s)[1:]), s)
    head = ("loss", "pos_id = 2", "gpt", "li = 0", "1) Multi-head Attention block", "h = 3", "softmax")
    assert head in by_title
    mlp = ("loss", "pos_id = 4", "gpt", "li = 0", "2) MLP block", "linear")
    assert mlp in by_title
    # the probabilities' softmax of each position, beside gpt, and its nodes: exp, sum, divide
    s = by_title[("loss", "pos_id = 0", "softmax")]
    ops = {g.op_name(int(i)) for i in g.own_nodes(s)}
    assert {"exp", "add", "div", "sub"} <= ops
    # the inputs are grouped by matrix, named as state_dict names them, and made first
    (params,) = [s for s in g.children(0) if g.scopes[s].kind == "inputs"]
    assert g.title(params) == "parameters" and g.total[params] == 4192 - 432 + 64 - 256 + 80
    # (of the 4,192 parameters, those the step reads: 4 of wte's 27 rows (BOS e m a), 5 of wpe's 16)
    inputs = [g.title(s) for s in g.children(params)]
    assert inputs[:3] == ["wte", "wpe", "lm_head"] and "layer0.attn_wq" in inputs
    assert g.contiguous
    assert g.data[g.root] == out.data and g.grad[g.root] == 1.0
    # the pow of rmsnorm is called what the code calls it
    pows = [i for i in range(g.n) if g.op_name(i) == "pow"]
    assert g.name(pows[0]) == "scale"
