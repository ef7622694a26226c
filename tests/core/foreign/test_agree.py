"""core/foreign/agree.py, the checker's one rule for "right", at its edges: the tolerance
each number type gets, the kink interval, NaN and infinities, central differences, the
forward's looser rule, and numbers printed so that a wrong one never looks right."""

import math

import pytest

from core.foreign.agree import (
    FLOAT64,
    FLOAT64_EPS,
    Derivative,
    Tolerance,
    agree,
    central,
    forward_agrees,
    pair,
    tolerance,
)

FLOAT32_EPS = 2.0**-23


def test_float64_gets_1e_4_relative_and_1e_6_absolute():
    # issue 41's surviving plant: the float64 scale. 2·ε^(1/3) = 1.2e-5 is under the 1e-4 floor
    assert FLOAT64 == tolerance(FLOAT64_EPS)
    assert FLOAT64.rtol == pytest.approx(1e-4, rel=1e-12)
    assert FLOAT64.atol == pytest.approx(1e-6, rel=1e-12)


def test_float32_gets_its_own_rounding_scale_about_1e_2():
    tol = tolerance(FLOAT32_EPS)
    assert tol.rtol == pytest.approx(2 * FLOAT32_EPS ** (1 / 3), rel=1e-12)  # 0.00984
    assert 9e-3 < tol.rtol < 1.1e-2 and tol.atol == pytest.approx(tol.rtol / 100)


@pytest.mark.parametrize(
    "got, want, right",
    [
        (1.0 + 5e-5, 1.0, True),  # inside 1e-4 relative
        (1.0 + 2e-4, 1.0, False),  # a rounding is never this large in float64
        (100.0 * (1 + 5e-5), 100.0, True),  # relative: scales with the number
        (100.0 + 0.02, 100.0, False),
        (5e-7, 0.0, True),  # near zero the absolute 1e-6 decides
        (3e-6, 0.0, False),
        (-1.0, 1.0, False),  # a sign
        (2.0, 1.0, False),  # a factor 2
    ],
)
def test_float64_calls_rounding_right_and_every_classic_bug_wrong(got, want, right):
    assert agree(got, want) is right


def test_float32_accepts_its_own_rounding_and_still_refuses_a_factor():
    tol = tolerance(FLOAT32_EPS)
    assert agree(1.005, 1.0, tol) and not agree(1.005, 1.0, FLOAT64)
    assert not agree(1.05, 1.0, tol) and not agree(-1.0, 1.0, tol)


def test_nan_and_infinities_agree_only_with_themselves():
    nan, inf = float("nan"), float("inf")
    assert agree(nan, nan) and not agree(nan, 1.0) and not agree(1.0, nan)
    assert agree(inf, inf) and not agree(-inf, inf) and not agree(1e308, inf)


def test_a_kink_accepts_anything_between_its_one_sided_slopes_scaled_by_out_grad():
    kink = Derivative(0.5, 0.0, 0.0, 1.0)  # relu at 0: slopes 0 (left) and 1 (right)
    for got in (0.0, -1.0, -2.0):  # times out.grad = -2: the interval is [-2, 0]
        assert agree(got, kink, scale=-2.0)
    assert not agree(0.5, kink, scale=-2.0) and not agree(-2.5, kink, scale=-2.0)


def test_a_smooth_derivative_is_checked_against_its_value_with_its_error():
    d = Derivative(3.0, 1e-3, 3.0, 3.0)  # no kink: low == high
    assert agree(3.0 + 1.5e-3, d)  # within 2·err
    assert not agree(3.01, d)


def test_central_differences_recover_a_smooth_derivative_and_see_a_kink():
    x, h = 0.7, 1e-3
    f = [math.sin(x + h), math.sin(x - h), math.sin(x + h / 2), math.sin(x - h / 2)]
    d = central(f, h, math.sin(x))
    assert d.low == d.high and abs(d.value - math.cos(x)) < 1e-9 and d.err < 1e-6
    relu = [max(0.0, v) for v in (h, -h, h / 2, -h / 2)]
    kink = central(relu, h, 0.0)
    assert (kink.low, kink.high) == pytest.approx((0.0, 1.0))


@pytest.mark.parametrize("f", [[1.0, None, 1.0, 1.0], [1.0, float("nan"), 1.0, 1.0], [1.0, 1.0, "x", 1.0]])
def test_central_differences_of_a_missing_value_are_none(f):
    assert central(f, 1e-3) is None
    assert central([1.0, 1.0, 1.0, 1.0], 0.0) is None  # no step


def test_the_forward_takes_a_regulariser_and_refuses_a_wrong_formula():
    assert forward_agrees(math.log(0.5 + 1e-6), math.log(0.5))
    assert not forward_agrees(math.log(0.5) * 1.01, math.log(0.5))
    assert forward_agrees(1.0 + 1e-3, 1.0, FLOAT32_EPS) and not forward_agrees(1.0 + 1e-3, 1.0)


@pytest.mark.parametrize("got, want", [(2.0000001, 2.0), (1.0, 1.0 + 2e-16), (-0.1, -0.10000000000000002)])
def test_a_wrong_number_never_prints_equal_to_the_right_one(got, want):
    a, b = pair(got, want)
    assert a != b and float(a) == got and float(b) == want


def test_a_tolerance_is_a_plain_pair():
    assert Tolerance(1e-4, 1e-6) == (1e-4, 1e-6)
