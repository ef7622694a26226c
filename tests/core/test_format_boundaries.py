"""Issue 32 item 6: the formatter's boundaries, 1e-4 and 1e6, bound exactly: below
1e-4 and from 1e6 on a number is scientific; between them it has four decimals,
never reads as zero, and reads back within half its last digit."""

import math
import random

import pytest

from core.format import LARGE, SMALL, format_number


def below(x):
    return math.nextafter(x, 0.0)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_the_boundaries_fall_exactly_at_1e_4_and_1e6(sign):
    assert (SMALL, LARGE) == (1e-4, 1e6)
    assert format_number(sign * below(1e-4)) == ("-" if sign < 0 else "") + "1.000e-04"
    assert format_number(sign * 1e-4) == ("-" if sign < 0 else "") + "0.0001"
    assert format_number(sign * below(1e6)) == ("-" if sign < 0 else "") + "1000000.0000"
    assert format_number(sign * 1e6) == ("-" if sign < 0 else "") + "1.000e+06"
    assert format_number(sign * 5e-5) == ("-" if sign < 0 else "") + "5.000e-05"


def test_between_the_boundaries_four_decimals_never_zero_and_close():
    rng = random.Random(32)
    for _ in range(20_000):
        x = math.copysign(10 ** rng.uniform(-4, 6), rng.random() - 0.5)
        if not SMALL <= abs(x) < LARGE:
            continue
        text = format_number(x)
        assert "e" not in text and len(text.split(".")[1]) == 4
        assert float(text) != 0.0  # repro guard: the deleted branch (core/format.py:40-41) was never needed
        assert abs(float(text) - x) <= 0.5e-4 + 1e-12 * abs(x)


def test_outside_the_boundaries_four_significant_digits():
    rng = random.Random(6)
    for _ in range(5_000):
        x = math.copysign(10 ** rng.choice([rng.uniform(-300, -4.0001), rng.uniform(6, 300)]), rng.random() - 0.5)
        text = format_number(x)
        mantissa, exponent = text.split("e")
        assert len(mantissa.lstrip("-").replace(".", "")) == 4
        assert math.isclose(float(text), x, rel_tol=5e-4)
