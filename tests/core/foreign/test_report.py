"""core/foreign/report.py: a check's report as text and JSON, and its exit code per verdict."""

import json

import pytest

from core.foreign import report
from core.foreign.local import check_case, check_class
from tests.core.foreign import rule_values as rv


@pytest.mark.parametrize(
    "status, code", [("ok", 0), ("wrong", 1), ("unusable", 2), ("raised", 3), ("unchecked", 4), ("nonsense", 2)]
)
def test_each_verdict_has_its_exit_code(status, code):
    assert report.exit_code({"status": status}) == code


def test_a_right_engine_reads_as_right():
    text = report.to_text(check_class(rv.Base))
    assert text.startswith("Checking Base") and text.endswith("Result: every gradient is right.")
    assert "Value class: Base (offers " in text


def test_a_wrong_engine_names_the_first_wrong_gradient_with_unequal_numbers():
    text = report.to_text(check_class(rv.PowerBug))
    assert "First wrong gradient, in test:" in text and "likely cause:" in text
    expected = next(line for line in text.splitlines() if line.strip().startswith("expected:")).split()[-1]
    got = next(line for line in text.splitlines() if line.strip().startswith("got:")).split()[-1]
    assert expected != got
    assert text.splitlines()[-1].startswith("Result: a wrong gradient (op ")


def test_the_json_is_plain_and_carries_the_category():
    data = json.loads(report.to_json(check_class(rv.Base)))
    assert data["category"] == 0 and data["status"] == "ok"


def test_fault_lines_print_what_they_have():
    fault = check_case(rv.PowerBug, "x = 1.5; x**2")["fault"]
    lines = report.fault_lines({**fault, "case": "x**2"})
    assert lines[0] == "First wrong gradient, in test: x**2" and lines[-1].startswith("  likely cause:")
    bare = report.fault_lines({"case": "c", "cause": "why"})
    assert bare == ["First wrong gradient, in test: c", "  op:        ?", "  likely cause: why"]
