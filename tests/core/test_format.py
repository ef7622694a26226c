"""One number formatter for every view (core/format.py)."""

import math

from core.format import format_number, full_number


def test_four_decimals_and_no_negative_zero():
    assert format_number(3.0) == "3.0000"
    assert format_number(15.0) == "15.0000"
    assert format_number(-0.5) == "-0.5000"
    assert format_number(-0.0) == "0.0000" and format_number(0.0) == "0.0000"


def test_a_tiny_number_is_never_shown_as_zero():
    # repro (issue 16): 1e-6 showed as 0.0000, a vanishing gradient read as none
    assert format_number(1e-6) == "1.000e-06"
    assert format_number(-0.00001) == "-1.000e-05"
    assert format_number(0.00004) == "4.000e-05"
    assert format_number(0.0001) == "0.0001"
    assert format_number(5e-324) == "4.941e-324"


def test_a_large_number_keeps_four_significant_digits_at_the_width_of_a_small_one():
    # repro (issue 16): 123456789.125 filled its cell
    assert format_number(123456789.125) == "1.235e+08"
    assert len(format_number(123456789.125)) <= len(format_number(-12.25)) + 1


def test_full_number_keeps_every_digit():
    assert full_number(0.1 + 0.2) == "0.30000000000000004"
    assert full_number(123456789.125) == "123456789.125"
    assert full_number(None) == "—"


def test_large_numbers_go_scientific_and_odd_ones_are_spelled_out():
    assert format_number(999999.0) == "999999.0000"
    assert format_number(1234567.0) == "1.235e+06"
    assert format_number(-2e9) == "-2.000e+09"
    assert format_number(math.inf) == "inf" and format_number(-math.inf) == "-inf"
    assert format_number(math.nan) == "nan"
    assert format_number(None) == "—"


def test_the_app_theme_uses_the_same_formatter():
    import ast
    from pathlib import Path

    source = (Path(__file__).parents[2] / "app" / "look" / "theme.py").read_text(encoding="utf-8")
    defined = [n.name for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef)]
    assert "format_number" not in defined and "from core.format import format_number" in source


def test_the_formatters_boundaries():
    """1e-4 and 1e6 are where fixed and scientific notation meet (issue 32 item 6)."""
    from core.format import format_number as number

    assert number(1e-4) == "0.0001" and number(-1e-4) == "-0.0001"
    assert number(9.99e-5) == "9.990e-05" and number(-9.99e-5) == "-9.990e-05"
    assert number(999999.99994) == "999999.9999" and number(1e6) == "1.000e+06"
    assert number(0.0) == "0.0000" and number(-0.0) == "0.0000"
