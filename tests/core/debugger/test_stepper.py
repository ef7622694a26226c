"""The backward stepper: the same calls as backward(), one at a time, undoable."""

import math
import random

import pytest

from core.debugger.stepper import FINAL, PARTIAL, UNTOUCHED, BackwardStepper
from core.engine import Value, topological_order
from core.gradcheck import gradcheck


def tutorial():
    x = Value(2.0, label="x")
    y = Value(3.0, label="y")
    m = x * y
    m.label = "m"
    p = y**2
    p.label = "p"
    f = m + p
    f.label = "f"
    return x, y, m, p, f


def random_graph(seed, size=40):
    rng = random.Random(seed)
    nodes = [Value(rng.uniform(-1, 1), label=f"x{i}") for i in range(4)]
    for _ in range(size):
        a, b = rng.choice(nodes), rng.choice(nodes)
        op = rng.choice("+*-t")
        nodes.append(a + b if op == "+" else a * b if op == "*" else a - b if op == "-" else a.tanh())
    return nodes[-1]


def grads(root):
    return [node.grad for node in topological_order(root)]


def test_step_order_of_the_tutorial_is_pinned():
    x, y, m, p, f = tutorial()
    stepper = BackwardStepper(f)
    assert stepper.order == [f, p, m]
    assert BackwardStepper(f, include_leaves=True).order == [f, p, m, y, x]


def test_reset_zeroes_every_grad_and_seeds_the_root():
    x, y, m, p, f = tutorial()
    f.backward()
    BackwardStepper(f)
    assert [x.grad, y.grad, m.grad, p.grad, f.grad] == [0.0, 0.0, 0.0, 0.0, 1.0]


@pytest.mark.parametrize("seed", range(8))
def test_run_to_end_equals_backward_equals_gradcheck(seed):
    root = random_graph(seed)
    root.backward()
    expected = grads(root)
    stepper = BackwardStepper(root)
    stepper.break_on_nonfinite = False
    stepper.run_to_end()
    assert stepper.done
    assert grads(root) == expected
    for check in gradcheck(root, tolerance=1e-4):
        assert check.ok, check


@pytest.mark.parametrize("seed", range(4))
def test_step_back_restores_exactly(seed):
    root = random_graph(seed)
    stepper = BackwardStepper(root)
    snapshots = [grads(root)]
    while not stepper.done:
        stepper.step()
        snapshots.append(grads(root))
    while stepper.position:
        stepper.step_back()
        assert grads(root) == snapshots[stepper.position]


def test_seek_equals_single_steps():
    root = random_graph(3)
    a = BackwardStepper(root)
    for _ in range(7):
        a.step()
    after_steps = grads(root)
    b = BackwardStepper(root)
    b.seek(7)
    assert grads(root) == after_steps
    b.seek(2)
    b.seek(7)
    assert grads(root) == after_steps


def test_mul_step_text_carries_the_numbers():
    x, y, m, p, f = tutorial()
    stepper = BackwardStepper(f)
    stepper.step()
    stepper.step()
    record = stepper.step()  # m = x * y
    assert record.node is m
    assert record.lines[0] == "x.grad += y.data · m.grad = 3.0000 · 1.0000 = 3.0000 (was 0.0000, now 3.0000)"
    assert record.lines[1] == "y.grad += x.data · m.grad = 2.0000 · 1.0000 = 2.0000 (was 6.0000, now 8.0000)"
    assert record.grads_before == (0.0, 6.0) and record.grads_after == (3.0, 8.0)
    assert [value for _sym, value in record.local] == [3.0, 2.0]


def test_status_untouched_partial_final_and_contributions():
    x, y, m, p, f = tutorial()
    stepper = BackwardStepper(f)
    assert stepper.status(f) == FINAL and stepper.status(y) == UNTOUCHED
    stepper.step()  # f: m, p final
    assert stepper.status(m) == FINAL and stepper.status(p) == FINAL
    stepper.step()  # p: y gets its first contribution
    assert stepper.status(y) == PARTIAL and stepper.status(x) == UNTOUCHED
    stepper.step()  # m
    assert stepper.status(y) == FINAL and stepper.status(x) == FINAL
    shares = [amount for _record, amount in stepper.contributions(y)]
    assert shares == [6.0, 2.0] and sum(shares) == y.grad


def test_node_used_twice():
    a = Value(3.0, label="a")
    b = a + a
    c = b + b
    stepper = BackwardStepper(c)
    stepper.run_to_end()
    assert (a.grad, b.grad) == (4.0, 2.0)
    record = stepper.history[0]
    assert record.lines[1].endswith("(was 1.0000, now 2.0000)")
    stepper.step_back()
    stepper.step_back()
    assert (a.grad, b.grad, c.grad) == (0.0, 0.0, 1.0)


def test_square_step_back_restores_first_before():
    a = Value(3.0, label="a")
    b = a * a
    stepper = BackwardStepper(b)
    stepper.step()
    assert a.grad == 6.0
    stepper.step_back()
    assert a.grad == 0.0


def test_breakpoint_stops_before_its_node():
    x, y, m, p, f = tutorial()
    stepper = BackwardStepper(f)
    stepper.breakpoints.add(m)
    stepper.run_to_end()
    assert stepper.current is m and "breakpoint" in stepper.stop_reason
    stepper.run_to_end()  # continuing runs the breakpointed step
    assert stepper.done


def test_run_to_node_and_to_leaf():
    x, y, m, p, f = tutorial()
    stepper = BackwardStepper(f)
    stepper.run_to(m)
    assert stepper.current is m
    stepper.reset()
    stepper.run_to(y)
    assert stepper.status(y) == FINAL and y.grad == 8.0


def test_break_on_nonfinite_and_threshold_and_dead_relu():
    x = Value(0.0, label="x")
    out = x.log() + 1.0
    stepper = BackwardStepper(out)
    stepper.run_to_end()
    assert "non-finite" in stepper.stop_reason and not math.isfinite(x.grad)

    w = Value(50.0, label="w")
    big = (w * w) * 3.0
    stepper = BackwardStepper(big)
    stepper.grad_threshold = 10.0
    stepper.run_to_end()
    assert stepper.position == 1 and "2500.0000 > 10" in stepper.stop_reason

    z = Value(-1.0, label="z")
    r = (z * 2.0).relu() + z
    stepper = BackwardStepper(r)
    stepper.break_on_dead_relu = True
    stepper.run_to_end()
    assert "dead ReLU" in stepper.stop_reason and stepper.current._op == "relu"


def test_deep_chain_steps_to_the_end():
    x = Value(1.0)
    node = x
    for _ in range(100_000):
        node = node + 1.0
    stepper = BackwardStepper(node)
    stepper.run_to_end()
    assert x.grad == 1.0 and stepper.done


def test_plan_without_reset_touches_no_grad():
    x, y, m, p, f = tutorial()
    f.backward()
    before = grads(f)
    stepper = BackwardStepper(f, reset=False)
    assert grads(f) == before and stepper.position == 0 and stepper.order == [f, p, m]
    stepper.reset()
    assert [x.grad, y.grad, m.grad, p.grad, f.grad] == [0.0, 0.0, 0.0, 0.0, 1.0]


def test_users_are_the_steps_that_feed_a_node():
    x, y, m, p, f = tutorial()
    stepper = BackwardStepper(f)
    assert stepper.users(y) == [p, m] and stepper.users(x) == [m] and stepper.users(f) == []
    a = Value(3.0, label="a")
    b = a * a
    assert BackwardStepper(b).users(a) == [b]  # one consumer, however many ports


def test_pause_reason_and_check_are_the_run_conditions():
    x, y, m, p, f = tutorial()
    stepper = BackwardStepper(f)
    stepper.breakpoints.add(p)
    assert stepper.pause_reason() == ""
    record = stepper.step()
    assert stepper.pause_reason() == "breakpoint at p" and stepper.check(record) == ""
    stepper.grad_threshold = 0.5
    assert "|grad| of m is 1.0000 > 0.5" in stepper.check(record)
    stepper.run_to_end()
    assert stepper.pause_reason() == ""


def test_local_terms_use_the_real_names():
    x, y, m, p, f = tutorial()
    stepper = BackwardStepper(f)
    assert stepper.local_terms(m) == [("y.data", 3.0), ("x.data", 2.0)]
    assert stepper.local_terms(p) == [("2·y.data", 6.0)]
    assert stepper.local_terms(f) == [("1", 1.0), ("1", 1.0)]


def _fields(record):
    return (record.index, record.node, record.out_grad, record.children, record.grads_before, record.grads_after)


@pytest.mark.parametrize("seed", range(8))
def test_history_records_rebuilt_from_saved_grads_equal_the_live_ones(seed):
    # The stepper keeps only each step's "before" grads; every record read back
    # later (any position, after step-backs too) must equal the one step() returned.
    root = random_graph(seed, size=60)
    stepper = BackwardStepper(root)
    live = []
    while not stepper.done:
        live.append(_fields(stepper.step()))
    assert [_fields(r) for r in stepper.history] == live
    assert _fields(stepper.history[-1]) == live[-1]
    assert [_fields(r) for r in stepper.history[3:7]] == live[3:7]
    middle = len(live) // 2
    stepper.seek(middle)
    assert [_fields(r) for r in stepper.history] == live[:middle]
    assert [_fields(r) for r in stepper.run_to_end()] == live[middle:]


def test_step_back_returns_the_record_of_the_step_it_undid():
    x, y, m, p, f = tutorial()
    stepper = BackwardStepper(f)
    stepper.run_to_end()
    last = _fields(stepper.history[-1])
    assert _fields(stepper.step_back()) == last
    assert len(stepper.history) == stepper.position == len(stepper.order) - 1


@pytest.mark.parametrize("seed", range(6))
def test_the_fast_run_stops_at_the_same_nonfinite_step_as_single_steps(seed):
    # run_to_end runs the whole pass at once and only then looks for inf/nan; when
    # it finds one it must end where a one-step-at-a-time walk would have stopped.
    rng = random.Random(seed)
    zero = Value(0.0, label="zero")
    nodes = [Value(rng.uniform(0.5, 2.0), label=f"x{i}") for i in range(4)] + [zero]
    for i in range(30):
        a, b = rng.choice(nodes), rng.choice(nodes)
        nodes.append(a * b if i % 3 else a + b)
    root = nodes[-1] + zero.log() * nodes[-2]
    fast = BackwardStepper(root)
    fast.run_to_end()
    fast_state = (fast.position, fast.stop_reason, grads(root))
    slow = BackwardStepper(root)
    while not slow.done:
        reason = slow.check(slow.step())
        if reason:
            break
    assert "non-finite" in fast.stop_reason
    assert (slow.position, reason) == fast_state[:2]
    assert all(a == b or (math.isnan(a) and math.isnan(b)) for a, b in zip(grads(root), fast_state[2], strict=True))


def test_a_dropped_stepper_is_freed_without_the_cycle_collector():
    """Regression: the stepper held its history and the history the stepper (a cycle),
    so every replaced graph's Values waited for a full garbage collection."""
    import gc
    import weakref

    root = random_graph(3, size=30)
    stepper = BackwardStepper(root)
    stepper.run_to_end()
    assert stepper.history[-1].node is stepper.order[-1]
    ref = weakref.ref(stepper)
    gc.disable()
    try:
        del stepper
        assert ref() is None
    finally:
        gc.enable()


def test_the_narration_writes_numbers_as_the_canvas_does():
    # repro: the narration printed 1e-6 as 0.0000 while the canvas (core/format.py) showed 1.000e-06
    from core.engine import Value
    from core.format import format_number

    x = Value(1e-6, label="x")
    y = Value(3.0, label="y")
    f = x * y
    f.label = "f"
    stepper = BackwardStepper(f)
    record = stepper.step()
    assert format_number(1e-6) in record.text and "0.0000 ·" not in record.text, record.text
