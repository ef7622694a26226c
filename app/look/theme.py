"""Colours, fonts and sizes of everything drawn on the canvas, in one place.

Graphics items never name a colour or a font size: they ask the scene's
`Theme`. Three palettes exist (light, dark and a high-contrast one for
projectors); a `Theme` combines one of them with a single `scale` factor that
multiplies every font and every length, so presenter mode can enlarge the
whole picture by changing one number.

The same factor reaches the widgets (docks, menus, tool tips, plots) through
app/look/ui_scale.py, which walks the widgets and scales their fonts, style
rules, icons and widths.

Gradient colours use a colour-blind-safe diverging pair: blue for a negative
gradient, orange for a positive one, neutral grey for zero; the depth of the
tint grows with |grad| relative to the largest |grad| in the graph. Problems
use red plus a glyph ('!' for inf/nan, a hollow port for a missing input), so
they never rely on colour alone.
"""

import math
from dataclasses import dataclass

from PySide6.QtGui import QColor, QFont, QFontMetricsF

from core.format import format_number  # one formatter for every view (re-exported)

FONT_FAMILY = "DejaVu Sans"
MONO_FAMILY = "DejaVu Sans Mono"


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
    node_border="#3a424e",
    divider="#2e353f",
    label_text="#e8ebf0",
    number_text="#f2f4f7",
    caption_text="#8a94a4",
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
    overlay_border="#3a424e",
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
    highlight="#ff9d00",
    status_untouched="#7a7a7a",
    status_partial="#d98a00",
    status_final="#007a45",
    overlay_fill="#ffffff",
    overlay_border="#000000",
    overlay_text="#000000",
    minimap_view="#7000e0",
)

PALETTES = {"light": LIGHT, "dark": DARK, "high-contrast": HIGH_CONTRAST}
PALETTE_TITLES = {"light": "Light", "dark": "Dark", "high-contrast": "High contrast"}
SCALE_MIN, SCALE_MAX = 1.0, 3.0
SCALES = (1.0, 1.25, 1.5, 2.0, 2.5, 3.0)  # the steps offered in View → Scale


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


class Theme:
    """A palette plus one scale factor; hands out QColors, QFonts and lengths."""

    def __init__(self, palette=LIGHT, scale=1.0, metrics=Metrics()):
        self.palette = palette
        self.scale = float(scale)
        self.metrics = metrics
        self._colors = {}
        self._fonts = {}
        self._font_metrics = {}
        self._caches = {}

    def with_(self, palette=None, scale=None):
        """A copy with another palette and/or scale."""
        return Theme(palette or self.palette, self.scale if scale is None else scale, self.metrics)

    @property
    def dark(self):
        return self.palette.name == "dark"

    # -- colours ---------------------------------------------------------------

    def color(self, role):
        """The QColor of a palette role ('edge', 'nonfinite', ...)."""
        c = self._colors.get(role)
        if c is None:
            text = getattr(self.palette, role)
            c = QColor(text[:7])
            if len(text) == 9:
                c.setAlpha(int(text[7:], 16))
            self._colors[role] = c
        return c

    def status_color(self, status):
        """Colour of a debugger status ('untouched' / 'partial' / 'final') or a QColor."""
        if status is None:
            return None
        if isinstance(status, QColor):
            return status
        return self.color(f"status_{status}")

    def grad_color(self, grad, grad_max):
        """Fill colour for a gradient: blue < 0 < orange, deeper for larger |grad|.

        The strength is sqrt(|grad| / largest |grad|), with a floor so that any
        non-zero gradient is visibly tinted."""
        zero = self.color("grad_zero")
        if grad == 0.0 or not math.isfinite(grad) or not grad_max > 0.0:
            return zero
        strength = min(1.0, math.sqrt(abs(grad) / grad_max))
        strength = 0.22 + 0.78 * strength
        end = self.color("grad_positive" if grad > 0 else "grad_negative")
        return _mix(zero, end, strength)

    def grad_cell_color(self, grad, grad_max):
        """The grad cell's fill: the grad colour, light enough that dark digits on it
        stay readable on a washed-out projector (the full colour marks the cell's
        edge, and fills a node drawn as a block when zoomed far out)."""
        zero = self.color("grad_zero")
        if grad == 0.0 or not math.isfinite(grad) or not grad_max > 0.0:
            return zero
        strength = min(1.0, math.sqrt(abs(grad) / grad_max))
        end = self.color("grad_positive" if grad > 0 else "grad_negative")
        return _mix(zero, end, 0.08 + 0.20 * strength)

    def text_on(self, fill):
        """Black or white text, whichever reads better on `fill`."""
        luma = 0.299 * fill.redF() + 0.587 * fill.greenF() + 0.114 * fill.blueF()
        return QColor("#ffffff") if luma < 0.55 else QColor("#111827")

    # -- fonts -----------------------------------------------------------------

    def font(self, role):
        """'label', 'number', 'caption', 'op', 'ui' or 'mono', scaled."""
        f = self._fonts.get(role)
        if f is None:
            m = self.metrics
            px = {
                "label": m.label_px,
                "number": m.number_px,
                "caption": m.caption_px,
                "op": m.op_px,
                "ui": m.ui_px,
                "mono": m.number_px,
            }[role]
            f = QFont(MONO_FAMILY if role == "mono" else FONT_FAMILY)
            f.setPixelSize(max(1, round(px * self.scale)))
            if role in ("label", "op", "number"):  # bold digits read from the back of a room
                f.setBold(True)
            f.setHintingPreference(QFont.PreferNoHinting)
            self._fonts[role] = f
        return f

    def font_at(self, role, px):
        """The font of `role` at `px` scene pixels (semantic zoom enlarges text)."""
        fonts = self.cache("fonts at")
        key = (role, round(px * 2) / 2)
        f = fonts.get(key)
        if f is None:
            f = fonts[key] = QFont(self.font(role))
            f.setPixelSize(max(1, round(key[1])))
        return f

    def font_metrics(self, role):
        fm = self._font_metrics.get(role)
        if fm is None:
            fm = self._font_metrics[role] = QFontMetricsF(self.font(role))
        return fm

    def text_width(self, role, text):
        return self.font_metrics(role).horizontalAdvance(text)

    def cache(self, name):
        """A dict for things derived from this theme (shared pens, node geometry)."""
        return self._caches.setdefault(name, {})

    # -- lengths ---------------------------------------------------------------

    def length(self, name):
        """A metric length ('number_row', 'pad', ...) times the scale factor."""
        return getattr(self.metrics, name) * self.scale


def _mix(a, b, t):
    return QColor.fromRgbF(
        a.redF() + (b.redF() - a.redF()) * t,
        a.greenF() + (b.greenF() - a.greenF()) * t,
        a.blueF() + (b.blueF() - a.blueF()) * t,
    )


DEFAULT = Theme(LIGHT)


def clamp_scale(scale):
    """A scale factor within 1x..3x (anything unreadable becomes 1)."""
    try:
        scale = float(scale)
    except (TypeError, ValueError):
        return 1.0
    if scale != scale:
        return 1.0
    return max(SCALE_MIN, min(SCALE_MAX, scale))


# -----------------------------------------------------------------------------
# A widget's own font, at 1x (app/look/ui_scale.py scales it)


def set_base_font(widget, px=None, bold=False, mono=False):
    """Give widget its own font of `px` pixels at 1x; `apply_to_widgets` scales it."""
    f = QFont(widget.font())
    if mono:
        f.setFamily(MONO_FAMILY)
    if px is not None:
        f.setPixelSize(round(px))
    if bold:
        f.setBold(True)
    widget.setFont(f)
    return f


__all__ = [
    "Palette",
    "LIGHT",
    "DARK",
    "HIGH_CONTRAST",
    "PALETTES",
    "PALETTE_TITLES",
    "SCALES",
    "Metrics",
    "Theme",
    "DEFAULT",
    "format_number",
    "clamp_scale",
    "set_base_font",
    "FONT_FAMILY",
    "MONO_FAMILY",
]
