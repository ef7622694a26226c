"""Tracing other people's Value classes, read-only and duck-typed."""

import pytest

from core.foreign.local import check_case
from core.foreign.trace import normalize_op, trace
from tests.core.foreign.learner_values import SetValue, Slotted, TupleValue


@pytest.mark.parametrize(
    "raw, count, want",
    [
        ("+", 2, ("add", None)),
        ("*", 2, ("mul", None)),
        ("-", 2, ("sub", None)),
        ("-", 1, ("neg", None)),
        ("/", 2, ("div", None)),
        ("^2", 1, ("pow", 2)),
        ("**2", 1, ("pow", 2)),
        ("**-1", 1, ("pow", -1)),
        ("**0.5", 1, ("pow", 0.5)),
        ("ReLU", 1, ("relu", None)),
        ("tanh", 1, ("tanh", None)),
        ("exp", 1, ("exp", None)),
        ("2.0**", 1, ("rpow", 2.0)),
        ("sin", 1, (None, None)),
        ("**x", 1, (None, None)),
    ],
)
def test_op_spellings(raw, count, want):
    assert normalize_op(raw, count) == want


def test_a_set_recovers_a_value_used_twice_and_says_so():
    x = SetValue(3.0, label="x")
    out = SetValue(9.0, (x, x), "*")
    assert len(out._prev) == 1
    tr = trace(out)
    root = tr.by_id[tr.root]
    assert root.children == [tr.nodes[0].id, tr.nodes[0].id]
    assert root.name == "x·x"
    assert any("used twice" in note for note in tr.notes)


def test_a_set_recovers_operand_order_from_the_data():
    a, b = SetValue(5.0, label="a"), SetValue(2.0, label="b")
    for _ in range(5):  # whatever order the set iterates in
        out = SetValue(3.0, (b, a), "-")
        tr = trace(out)
        root = tr.by_id[tr.root]
        assert [tr.by_id[c].name for c in root.children] == ["a", "b"]
        assert not root.ambiguous
        assert any("order recovered" in note for note in tr.notes)


def test_an_operand_order_the_data_cannot_tell_is_marked_ambiguous():
    a, b = SetValue(2.0, label="a"), SetValue(2.0, label="b")
    tr = trace(SetValue(0.0, (a, b), "-"))
    assert tr.by_id[tr.root].ambiguous
    assert any("order unknown" in note for note in tr.notes)


def test_unknown_ops_keep_their_name_and_numbers():
    x = TupleValue(0.5)
    out = TupleValue(0.479425538604203, (x,), "sin")
    tr = trace(out, {id(x): "x"})
    root = tr.by_id[tr.root]
    assert (root.op, root.raw_op, root.name, root.data) == (None, "sin", "sin(x)", 0.479425538604203)


def test_local_grads_without_op_are_inferred_from_the_data():
    x, y = Slotted(2.0), Slotted(-3.0)
    out = Slotted(-6.0, (x, y), (-3.0, 2.0))
    tr = trace(out, {id(x): "x", id(y): "y"})
    assert tr.style == "local-grads"
    root = tr.by_id[tr.root]
    assert (root.op, root.name, root.local_grads) == ("mul", "x·y", [-3.0, 2.0])
    square = Slotted(4.0, (x,), (4.0,))
    assert trace(square).by_id["n2"].op == "pow" and trace(square).by_id["n2"].param == 2


def test_trace_is_read_only_and_iterative():
    v = TupleValue(0.0)
    first = v
    for _ in range(100_000):  # far beyond Python's recursion limit
        v = TupleValue(v.data + 1.0, (v,), "+")
    v.grad = 7.0
    tr = trace(v)
    assert len(tr.nodes) == 100_001 and tr.nodes[0].id == "n1" and tr.objects["n1"] is first
    assert v.grad == 7.0 and first.grad == 0.0


def test_an_unknown_op_is_checked_by_central_differences_of_their_forward():
    import math

    class Sin(TupleValue):
        def sin(self):
            out = Sin(math.sin(self.data), (self,), "sin")

            def _backward():
                self.grad += math.cos(self.data) * out.grad

            out._backward = _backward
            return out

    class BadSin(Sin):
        def sin(self):
            out = BadSin(math.sin(self.data), (self,), "sin")

            def _backward():
                self.grad += -math.cos(self.data) * out.grad

            out._backward = _backward
            return out

    case = "x = 0.5; x.sin()"
    assert check_case(Sin, case)["status"] == "pass"
    bad = check_case(BadSin, case)
    assert bad["status"] == "fail"
    assert bad["fault"]["op"] == "sin" and bad["fault"]["reference"].startswith("central differences")
    assert bad["fault"]["expected"] == pytest.approx(math.cos(0.5), rel=1e-6)
    assert bad["fault"]["line"].endswith("self.grad += -math.cos(self.data) * out.grad")  # their line
