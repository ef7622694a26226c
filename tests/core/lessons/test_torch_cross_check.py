"""The lecture's cross-check, run on the lessons issue 28 added (and what lesson 23
says the tests do): at every step, each graph is rebuilt with PyTorch float64 tensors
from the engine's own Values, backward() runs in torch, and every leaf's grad agrees
with a clean backward pass of the engine. Skipped where torch is not installed."""

import math
import pathlib

import pytest

from core.engine import topological_order
from core.lessons.format import load_lesson
from core.lessons.runner import LessonRunner

torch = pytest.importorskip("torch")

LESSONS = pathlib.Path(__file__).resolve().parents[3] / "resources" / "lessons"
NEW = ["20_minus_and_divide", "21_softmax_cross_entropy", "22_gradient_checking", "23_torch_cross_check"]


def torch_grads(root):
    """{Value: grad} of every leaf, from torch's own backward pass of the same graph."""
    order = topological_order(root)
    made = {}
    for v in order:
        args = [made[c] for c in v._prev]
        op = v._op
        if not v._prev:
            made[v] = torch.tensor(v.data, dtype=torch.float64, requires_grad=True)
        elif op == "+":
            made[v] = args[0] + args[1]
        elif op == "-":
            made[v] = args[0] - args[1] if len(args) == 2 else -args[0]
        elif op == "*":
            made[v] = args[0] * args[1]
        elif op == "/":
            made[v] = args[0] / args[1]
        elif op in ("exp", "log", "tanh", "relu", "sigmoid"):
            made[v] = getattr(torch, op)(args[0])
        elif op == "neg":
            made[v] = -args[0]
        elif op.startswith("**"):
            made[v] = args[0] ** float(op[2:])
        else:
            raise AssertionError(f"no torch twin for op {op!r}")
        assert math.isclose(made[v].item(), v.data, rel_tol=1e-12, abs_tol=1e-12), op
    made[root].backward()
    return {v: made[v].grad.item() for v in order if not v._prev}


@pytest.mark.parametrize("name", NEW)
def test_every_step_agrees_with_torch(name):
    runner = LessonRunner(load_lesson(LESSONS / f"{name}.json"))
    checked = 0
    while True:
        root = runner.root
        theirs = torch_grads(root)
        for leaf, grad in theirs.items():
            if leaf.label:
                clean = _clean_grad(root, leaf)
                assert math.isclose(clean, grad, rel_tol=1e-9, abs_tol=1e-12), (name, runner.index, leaf.label)
                checked += 1
        if not runner.next():
            break
    assert checked >= 6


def _clean_grad(root, leaf):
    """The engine's grad of `leaf` from one clean backward pass, on a copy of the grads."""
    order = topological_order(root)
    saved = [v.grad for v in order]
    try:
        for v in order:
            v.grad = 0.0
        root.backward()
        return leaf.grad
    finally:
        for v, g in zip(order, saved):
            v.grad = g


def test_softmax_cross_entropy_grads_are_p_minus_y_and_add_up_to_zero():
    runner = LessonRunner(load_lesson(LESSONS / "21_softmax_cross_entropy.json"))
    runner.goto(2)
    a, b, c = (runner.node(label) for label in "abc")
    exps = [math.exp(v.data) for v in (a, b, c)]
    p = [e / sum(exps) for e in exps]
    assert math.isclose(a.grad, p[0] - 1) and math.isclose(b.grad, p[1]) and math.isclose(c.grad, p[2])
    assert abs(a.grad + b.grad + c.grad) < 1e-12
