"""core/foreign/local.py: the checker run in this process on a hand-made class -- the
same harness, the same JSON round trip, the same judge as a child process gets."""

import pytest

from core.foreign import battery
from core.foreign.local import check_case, check_class
from tests.core.foreign import rule_values as rv


def test_one_case_by_its_text_or_as_a_case():
    by_text = check_case(rv.Base, "x = 0.5; y = -2.0; (x*y).tanh()")
    by_case = check_case(rv.Base, battery.case("tanh of a product", "x = 0.5; y = -2.0; (x*y).tanh()"))
    assert by_text["status"] == by_case["status"] == "pass"
    assert by_case["name"] == "tanh of a product" and by_text["steps"] == by_case["steps"] >= 2


def test_a_whole_class_is_reported_as_the_child_would_report_it():
    report = check_class(rv.Base)
    assert report["status"] == "ok" and report["class"] == "Base" and report["fault"] is None
    assert {"add", "mul", "tanh", "relu", "rsub"} <= set(report["offered"])
    assert all(case["status"] == "pass" for case in report["cases"])


def test_a_wrong_class_fails_at_its_first_wrong_gradient():
    report = check_class(rv.RsubBug)
    assert report["status"] == "wrong" and report["fault"]["diagnosis"]


@pytest.mark.parametrize("seed", [1, 2])
def test_the_same_seed_draws_the_same_points(seed):
    names = [c["name"] for c in check_class(rv.Base, seed=seed)["cases"]]
    assert names == [c["name"] for c in check_class(rv.Base, seed=seed)["cases"]]
