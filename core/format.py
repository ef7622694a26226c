"""How a number is written on screen: one formatter for every view.

A node shows its data and grad with four decimals (`3.0000`), which is enough
to follow the chain rule by hand and keeps every number the same width. Very
large numbers switch to scientific notation (`1.235e+07`) so they still fit a
node; inf and nan are spelled out, and -0.0 shows as `0.0000` (a sign with no
value only confuses). `None` -- a number not known yet -- is a dash.
"""

import math


def format_number(x):
    """A number as shown in a node: 4 decimals, scientific when very large."""
    if x is None:
        return "—"
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if abs(x) >= 1e6:
        return f"{x:.3e}"
    text = f"{x:.4f}"
    return "0.0000" if text == "-0.0000" else text
