"""core/foreign/battery.py: the test programs as plain data -- read from text, named, the
studio's op of each step, and the battery itself."""

import pytest

from core.foreign import battery


def test_a_program_is_leaves_steps_and_an_output():
    prog = battery.program("x = 2.0; y = -3.0; h = x*y; h + y**2")
    assert [s["id"] for s in prog["steps"][:2]] == ["x", "y"] and prog["steps"][0]["leaf"] == 2.0
    mul = next(s for s in prog["steps"] if s.get("call") == "mul")
    assert mul["name"] == "h" and mul["args"] == ["x", "y"]
    assert prog["output"] == prog["steps"][-1]["id"]


@pytest.mark.parametrize(
    "text, op, param, operands",
    [
        ("x = 2.0; x**3", "pow", 3.0, [0]),
        ("x = 2.0; 2**x", "rpow", 2.0, [1]),
        ("x = 2.0; 1 - x", "sub", None, [0, 1]),
        ("x = 2.0; -x", "neg", None, [0]),
        ("x = 2.0; x.relu()", "relu", None, [0]),
        ("x = 2.0; x.sin()", None, None, [0]),  # not an op the studio knows
        ("x = 2.0; abs(x)", None, None, [0]),
    ],
)
def test_each_step_names_the_studios_op(text, op, param, operands):
    step = battery.program(text)["steps"][-1]
    assert battery.studio_op(step) == (op, param, operands)


@pytest.mark.parametrize("text", ["x = 1.0; import os", "x = 1.0; y", "x = 1.0", "x = ; x"])
def test_what_is_not_a_test_program_is_refused(text):
    with pytest.raises(battery.ProgramError):
        battery.program(text)


def test_a_case_round_trips_to_source_and_names_its_needs():
    case = battery.case("rsub", "x = 0.5; 1 - x")
    assert battery.program(case.text)["steps"] == case.program["steps"]
    assert "__rsub__" in case.needs


def test_the_battery_covers_every_op_and_never_draws_relu_at_zero():
    tests, templates = battery.cases(seed=7)
    names = " ".join(c.name for c in tests)
    for word in ("+", "*", "-", "/", "**", "tanh", "exp", "log", "relu", "sigmoid"):
        assert word in names, word
    assert templates and not any(c.name.startswith("relu") and c.name.endswith("x=0.0") for c in tests)


def test_every_unary_op_of_the_table_is_tested_alone_scaled_and_reused():
    """The battery's unary tests are generated from the op table (issue 41): a row added
    there is tested without a line here."""
    from core import ops

    names = [c.name for c in battery.cases()[0]]
    for op in ops.TABLE:
        if op.arity == 1 and not op.param:
            assert any(n.startswith(f"{op.name}(x) at x=") for n in names), op.name
            assert any(n.startswith(f"{op.name}(x)*s at") for n in names), op.name
            assert any(n.startswith(f"{op.name}(x)*x at") for n in names), op.name
    assert battery.request([], [])["methods"] == list(ops.METHODS)  # the child learns them from the request


def test_studio_op_reads_the_table():
    from core import ops

    for op in ops.TABLE:
        if op.method:
            assert battery.studio_op({"method": op.method, "args": ["x"]})[0] == op.name
        elif op.dunders and not op.param:
            call = op.dunders[0].strip("_")
            assert battery.studio_op({"call": call, "args": ["x", "y"][: op.arity]})[0] == op.name
