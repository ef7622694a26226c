"""A picture in a notebook's output: an <img> of the SVG, at a readable size, in a scroll box.

Two things in the notebooks people really use break an SVG written into the page:

- **The stylesheet shrinks it.** JupyterLab, Notebook 7 and nbconvert's HTML give
  every image and svg `max-width: 100%`: a graph wider than the cell was scaled
  to fit it -- Karpathy's 306-node MLP to 19 %, its 16 px digits to 3 px.
  Here the picture's own style says how far it may shrink: to the width at which
  its digits are still `MIN_DIGIT_PX` tall, never smaller; past that the box scrolls.
- **The sanitizer strips it.** A notebook someone else executed (a teacher's, one
  cloned from GitHub, an nbconvert `--execute`) is untrusted, and JupyterLab's
  sanitizer removes `<svg>` from untrusted HTML. An `<img>` whose source is
  `data:image/svg+xml;base64,...` is kept (the browser tests, tests/browser/,
  open such a notebook in JupyterLab and look).

The picture is stored once per output, as this HTML only: no second copy as
image/svg+xml beside it (a 1,990-node graph was 7.5 MB in the notebook).
"""

from __future__ import annotations

import base64
import re
from html import escape

from core.palette import METRICS

MIN_DIGIT_PX = 11.0  # the smallest a data/grad digit may be drawn: shrinking stops there, the box scrolls
BOX_HEIGHT = "80vh"  # a tall graph scrolls within most of the window, never longer than the screen


def svg_size(svg: str) -> tuple[float, float]:
    """(width, height) in pixels from the picture's <svg width=.. height=..>."""
    head = svg[: svg.index(">")] if ">" in svg else svg
    w = re.search(r'\swidth="([\d.]+)"', head)
    h = re.search(r'\sheight="([\d.]+)"', head)
    return (float(w.group(1)) if w else 0.0, float(h.group(1)) if h else 0.0)


def data_uri(svg: str) -> str:
    """The picture as a data: URI (base64: safe in any attribute, whatever the labels hold)."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


def picture_html(svg: str, alt: str, digit_px: float = METRICS.number_px) -> str:
    """The HTML a notebook shows for `svg` (see the module docstring)."""
    width, height = svg_size(svg)
    smallest = width * min(1.0, MIN_DIGIT_PX / digit_px)  # the width at which digits are MIN_DIGIT_PX tall
    style = (
        f"display:block;width:100%;max-width:{width:.0f}px;min-width:{smallest:.0f}px;height:auto;"
        "margin:0;border:0"
    )  # width 100% up to its own size, never below `smallest`: inline style beats the notebook's max-width:100%
    return (
        f'<div class="backprop-studio-graph" style="overflow:auto;max-width:100%;max-height:{BOX_HEIGHT}">'
        f'<img src="{data_uri(svg)}" width="{width:.0f}" height="{height:.0f}" alt="{escape(alt)}" '
        f'style="{style}"/></div>'
    )


def decode_pictures(html: str) -> list[str]:
    """The SVG texts of the pictures in a piece of output HTML (for tests and tools)."""
    found = re.findall(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', html)
    return [base64.b64decode(b).decode("utf-8") for b in found]
