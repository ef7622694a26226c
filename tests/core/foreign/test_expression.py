"""The learner's own expression: parsed in the studio (never run), shipped as plain data,
built in the child with THEIR class, checked first; a bad one runs nothing."""

import json
import os

import pytest

from core.engine import Value
from core.foreign.expression import ExprError, case_of, missing_ops, program_of
from core.foreign.local import check_case
from core.foreign.report import exit_code, to_text
from core.foreign.runner import check_file

ENGINES = os.path.join(os.path.dirname(__file__), "..", "..", "data", "engines")


def test_a_program_is_plain_data_in_topological_order():
    program = program_of("x = 2; y = -3; h = x*y; f = h*h + y")
    assert json.loads(json.dumps(program)) == program
    ops = [n.get("op") for n in program["nodes"]]
    assert ops == [None, None, "mul", "mul", "add"]
    assert program["nodes"][2]["label"] == "h" and program["output"] == program["nodes"][-1]["id"]


@pytest.mark.parametrize(
    "text, words",
    [
        ("x*y + foo(x)", "unknown function 'foo'"),
        ("__import__('os').system('true')", "line 1"),
        ("", "empty"),
        ("x = 2", "no operation"),
        ("x*(y", "line 1"),
    ],
)
def test_a_bad_expression_is_refused_with_where(text, words):
    with pytest.raises(ExprError) as e:
        program_of(text)
    assert words in str(e.value)


def test_the_case_builds_with_their_class_and_is_checked():
    # the studio's own Value stands in for a learner's class here
    program = program_of("x = 0.5; y = 2; t = (x*y).tanh(); t*t - 2**x")
    case = case_of(program)
    assert case.needs == ("__mul__", "__rpow__", "__sub__", "tanh")
    result = check_case(Value, case, keep=True)
    assert result["status"] == "pass"
    assert result["graph"] and len(result["records"]) == 5
    assert [n["name"] for n in result["graph"] if n["name"] == "t"] == ["t"]


def test_ops_the_class_lacks_are_named():
    program = program_of("x.tanh() + x")
    assert missing_ops(program, {"add", "mul"}) == ["tanh"]


def test_a_bad_expression_starts_no_process(tmp_path):
    report = check_file(str(tmp_path / "never_read.py"), expression="x*y + foo(x)")
    assert report["status"] == "unusable" and exit_code(report) == 2
    assert "your expression 'x*y + foo(x)': line 1" in report["message"]


def test_an_op_their_class_lacks_is_reported():
    report = check_file(os.path.join(ENGINES, "micrograd_like.py"), timeout=300.0, expression="x*y + x.tanh()")
    own = report["cases"][0]
    assert own["own"] and own["status"] == "unchecked"
    assert report["status"] == "unchecked" and exit_code(report) == 4  # not a wrong gradient
    assert "your expression uses tanh, which your class does not offer" in to_text(report)
