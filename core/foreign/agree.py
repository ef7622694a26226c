"""The one rule for "right": a learner's number against the derivative of THEIR function.

A learner's gradient is right when it is the derivative of the function their
own forward pass computes -- not when it matches the studio's engine to six
digits. MiniTorch's course code computes `log(x + 1e-6)`; its derivative is
1/(x + 1e-6), and a student who returns that is right. So the reference is
taken from their class itself, by central differences of their forward:

    D(h)   = (f(x + h) − f(x − h)) / 2h
    D(h/2) = (f(x + h/2) − f(x − h/2)) / h
    R      = (4·D(h/2) − D(h)) / 3          Richardson: error O(h⁴), not O(h²)
    err    = |D(h/2) − D(h)|                 how far the difference can be trusted

with h = ε^(1/3)·max(1, |x|) in their number type (ε: 2⁻⁵² for float64,
2⁻²³ for float32). At a kink (relu or abs at 0) the one-sided slopes differ,
and any number between them is accepted.

Where their forward is the studio's function (every op agrees to the forward
tolerance), the studio's exact derivative is the truth, and their function's
own difference quotient stands beside it only within 1 % (core/foreign/judge.py,
`near`): a regulariser passes, a forward rounded to 4 digits (flat to a central
difference) is judged by the function its author meant, and made-up quotients
from the child cannot move the verdict.

Two numbers agree when

    |got − want| ≤ atol + rtol·|want| + 2·err

with rtol = max(1e-4, 2·ε^(1/3)) and atol = rtol/100: 1e-4 and 1e-6 for
float64 -- tighter than PyTorch's gradcheck (rtol 1e-3, atol 1e-5) and far
looser than the ~1e-12 a correct float64 engine reaches, so no rounding is
ever called a bug and every classic bug (a factor, a sign, a lost term) is;
1e-2 and 1e-4 for float32, whose own rounding is ~1e-7 a step. The forward
pass is judged apart (`forward_agrees`), loosely enough that a documented
regulariser passes.

`agree` is used by the results judge, by the stepping of their code node by
node and by the report alike: one rule, so no two parts of the checker can
disagree about the same number. `pair` prints a wrong number beside the right
one with enough digits that the two never look equal.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

FLOAT64_EPS = 2.0**-52


class Tolerance(NamedTuple):
    rtol: float
    atol: float


def tolerance(eps: float = FLOAT64_EPS) -> Tolerance:
    """The tolerance for numbers whose machine epsilon is `eps` (see the docstring)."""
    rtol = max(1e-4, 2 * eps ** (1 / 3))
    return Tolerance(rtol, rtol / 100)


FLOAT64 = tolerance()

FORWARD_RTOL, FORWARD_ATOL = 1e-4, 1e-5  # float64; a 1e-6 regulariser moves log(x) by 2e-6 at x = 0.5


class Derivative(NamedTuple):
    """A derivative of their function at a point: `value`, how far it can be trusted
    (`err`), and at a kink the interval of one-sided slopes [`low`, `high`]."""

    value: float
    err: float
    low: float
    high: float


def central(f: list[Any], h: float, f0: float | None = None) -> Derivative | None:
    """Their function's derivative from f = [f(x+h), f(x−h), f(x+h/2), f(x−h/2)]
    (and f0 = f(x) for the one-sided slopes). None when a value is missing or
    not finite (their forward raised, or x sits where the function is not defined)."""
    read = [_num(v) for v in f]
    values = [v for v in read if v is not None and math.isfinite(v)]
    if len(values) != 4 or h <= 0:
        return None
    fp, fm, fp2, fm2 = values
    d1 = (fp - fm) / (2 * h)
    d2 = (fp2 - fm2) / h
    value = (4 * d2 - d1) / 3
    err = abs(d2 - d1)
    low = high = value
    base = _num(f0)
    if base is not None and math.isfinite(base):
        # right slope − left slope: f''·h on a smooth curve (halves with h), the jump at a kink (stays)
        jump1, jump2 = (fp - 2 * base + fm) / h, (fp2 - 2 * base + fm2) / (h / 2)
        if abs(jump2) > 10 * (err + 1e-9 * max(1.0, abs(value))) and abs(jump1 - jump2) < 0.25 * abs(jump2):
            right, left = (fp2 - base) / (h / 2), (base - fm2) / (h / 2)
            low, high = min(left, right), max(left, right)
    return Derivative(value, err, low, high)


def agree(got: float, want: float | Derivative, tol: Tolerance = FLOAT64, scale: float = 1.0) -> bool:
    """Does `got` agree with `want` (a number, or a Derivative times `scale`)?

    NaN agrees only with NaN, an infinity only with itself."""
    if isinstance(want, Derivative):
        lo, hi = sorted((want.low * scale, want.high * scale))
        value, err = want.value * scale, want.err * abs(scale)
        if lo != hi and lo - _slack(value, err, tol) <= got <= hi + _slack(value, err, tol):
            return True
        return _close(got, value, tol, err)
    return _close(got, want, tol, 0.0)


def _slack(value: float, err: float, tol: Tolerance) -> float:
    return tol.atol + tol.rtol * abs(value) + 2 * err


def _close(got: float, want: float, tol: Tolerance, err: float) -> bool:
    if got != got or want != want:
        return got != got and want != want
    if math.isinf(got) or math.isinf(want):
        return got == want
    return abs(got - want) <= _slack(want, err, tol)


def forward_agrees(theirs: float, ours: float, eps: float = FLOAT64_EPS) -> bool:
    """Their forward against the studio's, loosely: a documented regulariser
    (log(x + 1e-6), a clamp at 1e-12) passes, a wrong formula does not."""
    scale = max(1.0, (eps / FLOAT64_EPS) ** (1 / 3))
    return _close(theirs, ours, Tolerance(FORWARD_RTOL * scale, FORWARD_ATOL * scale), 0.0)


def pair(got: float, want: float) -> tuple[str, str]:
    """`got` and `want` as text, with as many digits as it takes for them to differ
    (at least 6 significant, at most 17): never '2' beside '2'."""
    for digits in range(6, 18):
        a, b = f"{got:.{digits}g}", f"{want:.{digits}g}"
        if a != b or got == want:
            return a, b
    return repr(got), repr(want)


def _num(x: Any) -> float | None:
    if x is None:
        return None
    if isinstance(x, str):  # 'inf', '-inf', 'nan' as the child writes them
        try:
            return float(x)
        except ValueError:
            return None
    try:
        return float(x)
    except (TypeError, ValueError):
        return None
