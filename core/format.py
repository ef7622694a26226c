"""How a number is written on screen: one formatter for every view.

A node shows its data and grad with four decimals (`3.0000`), which is enough
to follow the chain rule by hand -- micrograd's `draw_dot` does the same -- and
keeps the numbers of a graph the same width. Four decimals would show 0.000001
as `0.0000` and a learner would read a vanishing gradient as none at all, and
123456789.125 would need fourteen characters; so a number below 1e-4 or from
1e6 on is written in scientific notation with four significant digits
(`1.000e-06`, `1.235e+08`): never silently zero, always as wide as a
`-00.0000`. Only an exact zero is `0.0000`; inf and nan are spelled out; -0.0
shows as `0.0000` (a sign with no value only confuses). `None` -- a number not
known yet -- is a dash.

`full_number` is the exact value (Python's shortest round-trip repr), for a
tooltip or the inspector, where a learner checks the last digit.

`parse_number` reads a number the other way, as a learner types one into a
quiz or a lesson's answer box: `3`, `-0.5`, `−0,5` (a typographic minus, a
decimal comma), a fraction `3/4`, and `inf` or `nan` where a grad can be one.
"""

import math

SMALL, LARGE = 1e-4, 1e6  # outside [SMALL, LARGE) a number is written in scientific notation


def format_number(x: float | None) -> str:
    """A number as shown in a node: 4 decimals, scientific when very small or large."""
    if x is None:
        return "—"
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0.0:
        return "0.0000"
    if abs(x) < SMALL or abs(x) >= LARGE:
        return f"{x:.3e}"
    return f"{x:.4f}"  # |x| >= SMALL = 1e-4: never rounds to 0.0000


def full_number(x: float | None) -> str:
    """Every digit of x (repr), for hovering and the inspector; a dash for None."""
    if x is None:
        return "—"
    return repr(float(x))


def parse_number(text: object, finite: bool = False) -> float | None:
    """A typed number ('3', '-0.5', '−0,5', '3/4', 'inf'), or None when it is not one;
    with finite=True also None for inf and nan (a lesson's answers are finite)."""
    t = str(text).strip().replace(" ", "").replace("−", "-").replace(",", ".")
    if t.count("/") == 1:
        top, bottom = (_plain(part) for part in t.split("/"))
        number = None if top is None or bottom is None or bottom == 0 else top / bottom
    else:
        number = _plain(t)
    if number is None or (finite and not math.isfinite(number)):
        return None
    return number


def _plain(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None
