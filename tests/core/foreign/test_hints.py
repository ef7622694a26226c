"""The hint ladder (core/foreign/hints.py): four rungs for every diagnosis, a nudge
first and the fix last, every number from the fault."""

import pytest

from core.foreign import hints
from core.foreign.batch import WORDS

FAULT = {
    "case": "x * y at x=-1.5, y=2.0",
    "node": "x·y",
    "op": "*",
    "studio_op": "mul",
    "operand": "x",
    "expected": 2.0,
    "got": -1.5,
    "out_grad": 1.0,
    "diagnosis": "swapped-operands",
    "cause": "operands swapped in `*`",
}


@pytest.mark.parametrize("diagnosis", sorted(WORDS))
def test_every_diagnosis_has_four_rungs(diagnosis):
    rungs = hints.ladder({**FAULT, "diagnosis": diagnosis})
    assert len(rungs) == 4 and all(rungs)
    assert rungs[3].startswith("Fix:") and hints.FIX[diagnosis] in rungs[3]
    assert "Fix" not in " ".join(rungs[:3])  # the fix only on the last rung


def test_the_rungs_climb_from_where_to_the_fix():
    where, which, ask, fix = hints.ladder(FAULT)
    assert "x·y" in where and "'*'" in where and "x.grad" not in where  # the node, not yet the operand
    assert "x.grad" in which and "2" in which and "-1.5" in which  # the operand and the engine's numbers
    assert "d(a·b)/da" in ask and "= b" not in ask  # asked, not answered
    assert "other.data * out.grad" in fix and "d(a·b)/da = b" in fix


def test_climb_releases_hints_in_stages():
    assert hints.climb(FAULT, 0) == []
    assert hints.climb(FAULT, 2) == hints.ladder(FAULT)[:2]
    assert hints.climb(FAULT, 9) == hints.ladder(FAULT)


def test_an_order_fault_asks_about_the_order():
    fault = {"case": "reused", "node": "x·y", "op": "order", "diagnosis": "order", "cause": "..."}
    where, _, ask, _ = hints.ladder(fault)
    assert "backward()" in where and "order" in ask
