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

from PySide6.QtGui import QColor, QFont, QFontMetricsF

from core.format import format_number  # one formatter for every view (re-exported)

# the palettes and metrics are plain data in core, where the notebook's SVG (core/notebook/svg.py) reads them too
from core.palette import (  # noqa: F401 (re-exported)
    DARK,
    HIGH_CONTRAST,
    LIGHT,
    METRICS,
    PALETTES,
    Metrics,
    Palette,
    cell_strength,
    grad_strength,
)

FONT_FAMILY = "DejaVu Sans"
MONO_FAMILY = "DejaVu Sans Mono"


PALETTE_TITLES = {"light": "Light", "dark": "Dark", "high-contrast": "High contrast"}
SCALE_MIN, SCALE_MAX = 1.0, 3.0
SCALES = (1.0, 1.25, 1.5, 2.0, 2.5, 3.0)  # the steps offered in View → Scale


class Theme:
    """A palette plus one scale factor; hands out QColors, QFonts and lengths."""

    def __init__(self, palette=LIGHT, scale=1.0, metrics=METRICS):
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
        strength = grad_strength(grad, grad_max)
        if strength == 0.0:
            return zero
        end = self.color("grad_positive" if grad > 0 else "grad_negative")
        return _mix(zero, end, strength)

    def grad_cell_color(self, grad, grad_max):
        """The grad cell's fill: the grad colour, light enough that dark digits on it
        stay readable on a washed-out projector (the full colour marks the cell's
        edge, and fills a node drawn as a block when zoomed far out)."""
        zero = self.color("grad_zero")
        strength = cell_strength(grad, grad_max)
        if strength == 0.0:
            return zero
        end = self.color("grad_positive" if grad > 0 else "grad_negative")
        return _mix(zero, end, strength)

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
