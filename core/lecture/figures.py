"""The figures a pasted cell drew, sent to the studio (the child's side).

In the notebook, `plt.scatter(...)` or `plt.contourf(...)` draws under the
cell. The lecture-code runner's child has no screen; after the cell it sends
its figures with the report, and the studio shows them in its Plots window:

* with the real matplotlib (installed in the Python that runs the studio),
  each open figure as a PNG picture (matplotlib's Agg backend), base64;
* with the stand-in (core/lecture/standin/fallback/matplotlib), each figure as
  the plain records its calls made -- lines, scatters, filled contours -- which
  the studio draws itself (app/editor/plots.py).

Only the new cell's figures are sent: `forget()` runs before it.
"""

from __future__ import annotations

import base64
import io
import sys
from typing import Any

MAX_FIGURES = 6
MAX_PNG = 2 << 20  # bytes of one picture


def _pyplot():
    return sys.modules.get("matplotlib.pyplot")


def _stand_in(plt) -> bool:
    return hasattr(plt, "FIGURES")


def forget() -> None:
    plt = _pyplot()
    if plt is None:
        return
    if _stand_in(plt):
        plt.FIGURES.clear()
    else:
        try:
            plt.close("all")
        except Exception:  # noqa: BLE001 -- their matplotlib, their state
            pass


def collect() -> list[dict[str, Any]]:
    """[{"kind": "record", ...the stand-in's figure} or {"kind": "png", "data": base64}], at most MAX_FIGURES."""
    plt = _pyplot()
    if plt is None:
        return []
    if _stand_in(plt):
        return [{"kind": "record", **f} for f in plt.FIGURES if f["items"]][-MAX_FIGURES:]
    found = []
    try:
        for number in plt.get_fignums()[-MAX_FIGURES:]:
            buffer = io.BytesIO()
            plt.figure(number).savefig(buffer, format="png", dpi=96)
            data = buffer.getvalue()
            if len(data) <= MAX_PNG:
                found.append({"kind": "png", "data": base64.b64encode(data).decode("ascii")})
    except Exception:  # noqa: BLE001 -- a figure that cannot be saved is left out
        pass
    return found
