"""NumberField: typed scientific notation, any value the check accepts, and refusals said aloud."""

import pytest
from PySide6.QtCore import Qt

from app.training.number_field import NumberField, format_setting
from core.training.config import setting_problem


@pytest.fixture
def lr_field(qtbot):
    field = NumberField("Learning rate", "the tip", lambda v: setting_problem("lr", v), zero_step=0.01)
    qtbot.addWidget(field)
    field.show_value(1.0)
    field.show()
    return field


def type_into(qtbot, field, text):
    field.lineEdit().selectAll()
    qtbot.keyClicks(field.lineEdit(), text)
    qtbot.keyClick(field.lineEdit(), Qt.Key_Return)


@pytest.mark.parametrize(
    "typed, value, shown",
    [("1e-6", 1e-6, "1e-06"), ("0.000001", 1e-6, "1e-06"), ("2.5E+3", 2500.0, "2500"), ("0.01", 0.01, "0.01")],
)
def test_typed_numbers_are_taken_whole_and_shown_readably(qtbot, lr_field, typed, value, shown):
    """issue 17: '1e-6' became 16.00000, and 0.000001 silently fell back to the minimum 1e-5."""
    got = []
    lr_field.edited.connect(got.append)
    type_into(qtbot, lr_field, typed)
    assert got == [value]
    assert lr_field.value() == value
    assert lr_field.lineEdit().text() == shown


def test_junk_is_refused_with_the_fields_name_and_the_old_value_comes_back(qtbot, lr_field):
    got, problems = [], []
    lr_field.edited.connect(got.append)
    lr_field.problem.connect(problems.append)
    type_into(qtbot, lr_field, "abc")
    assert got == []
    assert problems == ["Learning rate: 'abc' is not a number; type e.g. 0.01 or 1e-6"]
    assert problems[0] in lr_field.toolTip()
    assert lr_field.value() == 1.0


def test_a_number_out_of_the_cores_limits_is_refused_and_says_why(qtbot, lr_field):
    got, problems = [], []
    lr_field.edited.connect(got.append)
    lr_field.problem.connect(problems.append)
    type_into(qtbot, lr_field, "-1")
    assert got == []
    assert problems == ["Learning rate: lr must be a number > 0 and finite, got -1"]
    assert lr_field.value() == 1.0 and lr_field.lineEdit().text() == "1"
    type_into(qtbot, lr_field, "0.5")  # a good value clears the complaint
    assert got == [0.5] and lr_field.toolTip() == "the tip"


def test_arrows_step_by_a_tenth_of_the_leading_digit_and_from_zero_by_zero_step(qtbot, lr_field):
    lr_field.show_value(0.01)
    lr_field.stepBy(1)
    assert lr_field.value() == 0.011
    lr_field.show_value(1e-6)
    lr_field.stepBy(-1)
    assert lr_field.value() == 9e-7
    free = NumberField("Weight", "tip", zero_step=0.1)
    qtbot.addWidget(free)
    free.show_value(0.0)
    free.stepBy(-1)
    assert free.value() == -0.1


def test_format_setting():
    assert [format_setting(v) for v in (1.0, 0.9, 1e-4, 1e-5, 1e6, 0.000123456789)] == [
        "1",
        "0.9",
        "0.0001",
        "1e-05",
        "1e+06",
        "0.000123457",
    ]
