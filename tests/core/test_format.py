"""One number formatter for every view (core/format.py)."""
import math

from core.format import format_number


def test_four_decimals_and_no_negative_zero():
    assert format_number(3.0) == "3.0000"
    assert format_number(-0.5) == "-0.5000"
    assert format_number(-0.00001) == "0.0000"
    assert format_number(-0.0) == "0.0000"


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
