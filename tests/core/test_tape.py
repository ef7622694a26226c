import random
import sys

import pytest

from core.engine import Value, topological_order
from core.tape import Tape, release


def build(xs, ws):
    total = Value(0.0)
    for x, w in zip(xs, ws):
        total = total + (w * x).tanh()
    return (total - 1.0) ** 2


def test_replay_equals_a_fresh_build():
    rng = random.Random(0)
    xs = [Value(rng.uniform(-1, 1), label=f"x{i}") for i in range(5)]
    ws = [Value(rng.uniform(-1, 1), label=f"w{i}") for i in range(5)]
    loss = build(xs, ws)
    tape = Tape(loss)
    for _step in range(3):
        for x in xs:
            x.data = rng.uniform(-1, 1)
        tape.forward()
        tape.zero_grad()
        tape.backward()
        fresh_xs = [Value(x.data) for x in xs]
        fresh_ws = [Value(w.data) for w in ws]
        fresh = build(fresh_xs, fresh_ws)
        fresh.backward()
        assert loss.data == fresh.data
        assert [w.grad for w in ws] == [w.grad for w in fresh_ws]
        for w in ws:
            w.data -= 0.1 * w.grad


def test_tape_backward_accumulates_like_value_backward():
    x = Value(3.0)
    y = x * x
    tape = Tape(y)
    tape.backward()
    tape.backward()
    assert x.grad == 12.0
    tape.zero_grad()
    assert all(node.grad == 0.0 for node in topological_order(y))
    assert len(tape) == 2


def test_release_frees_the_graph_and_keeps_what_others_hold():
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    baseline = sys.getrefcount(x)
    f = x * y + y**2
    for _ in range(200):
        f = f * x + y
    order = topological_order(f)
    del f
    release(order, chunk=7)
    assert order == []
    # every node that used x is gone: only this test still holds it
    assert sys.getrefcount(x) == baseline and x.data == 2.0


def test_a_released_tape_says_so_when_replayed():
    # was AttributeError: 'NoneType' object has no attribute 'data'
    tape = Tape(Value(2.0) * Value(3.0))
    tape.release()
    assert len(tape) == 0
    for replay in (tape.forward, tape.backward):
        with pytest.raises(RuntimeError, match="released"):
            replay()
