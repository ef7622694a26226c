"""The canvas's colours and sizes as plain data, for every view that draws a graph.

The window (app/look/theme.py turns these into QColors and QFonts) and the
notebook's SVG (core/notebook/svg.py) read the same palettes and the same metrics, so a
graph drawn inline in Jupyter has the canvas's colours, rows and gaps.

Gradient colours use a colour-blind-safe diverging pair: blue for a negative
gradient, orange for a positive one, neutral grey for zero; the depth of the
tint grows with |grad| relative to the largest |grad| in the graph
(`grad_strength`, `cell_strength`).
"""

import math
from dataclasses import dataclass

# -----------------------------------------------------------------------------
# Palettes (plain hex strings; QColor objects are made once per Theme)


@dataclass(frozen=True)
class Palette:
    name: str
    background: str
    grid: str
    node_fill: str
    node_border: str
    divider: str
    label_text: str
    number_text: str
    caption_text: str
    op_fill: str
    op_border: str
    op_text: str
    edge: str
    grad_negative: str
    grad_positive: str
    grad_zero: str
    nonfinite: str
    missing: str
    output: str
    output_text: str
    selection: str
    highlight: str
    status_untouched: str
    status_partial: str
    status_final: str
    overlay_fill: str
    overlay_border: str
    overlay_text: str
    minimap_view: str


LIGHT = Palette(
    name="light",
    background="#f5f6f8",
    grid="#dcdfe5",
    node_fill="#ffffff",
    node_border="#c3c9d2",
    divider="#e4e7ec",
    label_text="#1b2330",
    number_text="#111827",
    caption_text="#7a8494",
    op_fill="#eef1f6",
    op_border="#8d98a8",
    op_text="#2b3442",
    edge="#98a2b3",
    grad_negative="#2b6cb0",
    grad_positive="#e07b00",
    grad_zero="#f1f3f6",
    nonfinite="#d42a3c",
    missing="#d42a3c",
    output="#1b2330",
    output_text="#ffffff",
    selection="#5b5bd6",
    highlight="#f2b705",
    status_untouched="#b6bdc8",
    status_partial="#e0a100",
    status_final="#1a9e6a",
    overlay_fill="#ffffffe6",
    overlay_border="#d5dae1",
    overlay_text="#3b4452",
    minimap_view="#5b5bd6",
)

DARK = Palette(
    name="dark",
    background="#15181d",
    grid="#262b33",
    node_fill="#20252d",
    node_border="#6b7585",  # 3.8:1 on the canvas (WCAG non-text contrast: 3:1)
    divider="#2e353f",
    label_text="#e8ebf0",
    number_text="#f2f4f7",
    caption_text="#9aa3b2",  # 4.5:1 at least, on a node and on a grad cell
    op_fill="#2a313b",
    op_border="#6b7585",
    op_text="#e1e5ea",
    edge="#5d6777",
    grad_negative="#5b9bd5",
    grad_positive="#f29a2e",
    grad_zero="#262c35",
    nonfinite="#ff5468",
    missing="#ff5468",
    output="#e8ebf0",
    output_text="#15181d",
    selection="#8c8cff",
    highlight="#ffd23f",
    status_untouched="#5c6573",
    status_partial="#f0b429",
    status_final="#34c88a",
    overlay_fill="#20252de6",
    overlay_border="#6b7585",
    overlay_text="#c9ced6",
    minimap_view="#8c8cff",
)

# Black on white, strong hues and no pale greys: legible on a washed-out projector.
HIGH_CONTRAST = Palette(
    name="high-contrast",
    background="#ffffff",
    grid="#c8c8c8",
    node_fill="#ffffff",
    node_border="#000000",
    divider="#000000",
    label_text="#000000",
    number_text="#000000",
    caption_text="#262626",
    op_fill="#ffffff",
    op_border="#000000",
    op_text="#000000",
    edge="#1a1a1a",
    grad_negative="#0046c8",
    grad_positive="#e06000",
    grad_zero="#ffffff",
    nonfinite="#c8001e",
    missing="#c8001e",
    output="#000000",
    output_text="#ffffff",
    selection="#7000e0",
    highlight="#c06a00",  # the step's nodes: 4:1 on white (was 2.1:1)
    status_untouched="#7a7a7a",
    status_partial="#c27400",
    status_final="#007a45",
    overlay_fill="#ffffff",
    overlay_border="#000000",
    overlay_text="#000000",
    minimap_view="#7000e0",
)

PALETTES = {"light": LIGHT, "dark": DARK, "high-contrast": HIGH_CONTRAST}


# -----------------------------------------------------------------------------
# Sizes at scale 1 (pixels in scene units)


@dataclass(frozen=True)
class Metrics:
    label_px: float = 13.0  # node name (its label, else its formula)
    number_px: float = 16.0  # data / grad numbers: the text a class reads from the back
    caption_px: float = 10.0  # the words "data" / "grad"
    op_px: float = 13.0  # symbol inside an op circle
    ui_px: float = 12.0  # legend, minimap, empty-canvas hint
    name_row: float = 20.0  # the record's rows, top to bottom: name, data, grad
    number_row: float = 24.0
    pad: float = 6.0
    corner: float = 6.0
    op_diameter: float = 30.0
    op_gap: float = 14.0  # circle to record
    label_min: float = 26.0
    label_max: float = 150.0
    number_template: str = "-00.0000"  # the width every number cell starts with
    margin: float = 9.0  # room around a node for halos and badges
    layer_gap: float = 46.0
    node_gap: float = 22.0


METRICS = Metrics()


# -----------------------------------------------------------------------------
# Gradient tints: how far from the zero colour toward the sign's colour


def grad_strength(grad: float, grad_max: float) -> float:
    """The grad's colour (a wire, the cell's edge): sqrt(|grad| / largest |grad|),
    with a floor so that any non-zero gradient is visibly tinted; 0 for none."""
    if grad == 0.0 or not math.isfinite(grad) or not grad_max > 0.0:
        return 0.0
    return 0.22 + 0.78 * min(1.0, math.sqrt(abs(grad) / grad_max))


def cell_strength(grad: float, grad_max: float) -> float:
    """The grad cell's fill: light enough that dark digits on it stay readable on a
    washed-out projector."""
    if grad == 0.0 or not math.isfinite(grad) or not grad_max > 0.0:
        return 0.0
    return 0.08 + 0.20 * min(1.0, math.sqrt(abs(grad) / grad_max))


def mix(a: str, b: str, t: float) -> str:
    """The hex colour a fraction t of the way from a to b ('#rrggbb')."""
    ca = [int(a[i : i + 2], 16) for i in (1, 3, 5)]
    cb = [int(b[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(ca, cb))


def grad_hex(palette: "Palette", grad: float, grad_max: float, cell: bool = False) -> str:
    """The hex colour of a grad (cell=True: of its cell's fill)."""
    t = (cell_strength if cell else grad_strength)(grad, grad_max)
    if t == 0.0:
        return palette.grad_zero
    return mix(palette.grad_zero, palette.grad_positive if grad > 0 else palette.grad_negative, t)
