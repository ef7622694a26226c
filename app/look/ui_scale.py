"""The theme's scale factor for the widgets (docks, menus, tool tips, plots), and
the Qt palette that dresses them in the theme's colours (app/look/theme.py holds
the palettes and the canvas's sizes).

`apply_to_application` sets the palette and the scaled default font;
`apply_to_widgets` walks every widget under a root: any widget that fixed its own
font, font-size style rule, icon size or width is scaled from what it asked for.
Sizes are device-independent pixels, so a HiDPI screen multiplies them once more
by its own ratio; nothing here turns that off.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QSize
from PySide6.QtGui import QColor, QFont, QFontInfo, QPalette

# -----------------------------------------------------------------------------
# The widgets: one Qt palette per theme, and the scale factor for every font

_ORIGINAL: dict[str, Any] = {}  # the application's own font and palette, before any theme touched them

_QT_ROLES = {
    "dark": {
        "Window": "#20252d",
        "WindowText": "#e8ebf0",
        "Base": "#15181d",
        "AlternateBase": "#262b33",
        "Text": "#e8ebf0",
        "Button": "#2a313b",
        "ButtonText": "#e8ebf0",
        "BrightText": "#ffffff",
        "Highlight": "#5b5bd6",
        "HighlightedText": "#ffffff",
        "ToolTipBase": "#2a313b",
        "ToolTipText": "#e8ebf0",
        "PlaceholderText": "#8a94a4",
        "Link": "#8cb4ff",
        "Light": "#3a424e",
        "Midlight": "#313842",
        "Mid": "#8a94a4",
        "Dark": "#101317",
        "Shadow": "#000000",
    },
    "high-contrast": {
        "Window": "#ffffff",
        "WindowText": "#000000",
        "Base": "#ffffff",
        "AlternateBase": "#eeeeee",
        "Text": "#000000",
        "Button": "#ffffff",
        "ButtonText": "#000000",
        "BrightText": "#ffffff",
        "Highlight": "#0000b4",
        "HighlightedText": "#ffffff",
        "ToolTipBase": "#ffffff",
        "ToolTipText": "#000000",
        "PlaceholderText": "#3c3c3c",
        "Link": "#0000b4",
        "Light": "#ffffff",
        "Midlight": "#e0e0e0",
        "Mid": "#303030",
        "Dark": "#000000",
        "Shadow": "#000000",
    },
}
_DISABLED_TEXT = {"dark": "#6b7585", "high-contrast": "#5a5a5a"}


def _remember_original(app: Any) -> None:
    if not _ORIGINAL:
        _ORIGINAL["font"] = QFont(app.font())
        _ORIGINAL["palette"] = QPalette(app.palette())


def qt_palette(palette: Any) -> QPalette:
    """The QPalette that dresses the widgets in `palette` (light: the app's own)."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    _remember_original(app)
    base = QPalette(_ORIGINAL["palette"])
    roles = _QT_ROLES.get(palette.name)
    if roles is None:
        return base
    for role, color in roles.items():
        base.setColor(getattr(QPalette.ColorRole, role), QColor(color))
    disabled = QColor(_DISABLED_TEXT[palette.name])
    for role in ("WindowText", "Text", "ButtonText"):
        base.setColor(QPalette.Disabled, getattr(QPalette.ColorRole, role), disabled)
    return base


def ui_font(scale: float = 1.0) -> QFont:
    """The application font at `scale` (the app's own font at 1x)."""
    from PySide6.QtWidgets import QApplication

    _remember_original(QApplication.instance())
    return _scaled_font(_ORIGINAL["font"], scale)


def _scaled_font(font: QFont, scale: float) -> QFont:
    f = QFont(font)
    if font.pixelSize() > 0:
        f.setPixelSize(max(1, round(font.pixelSize() * scale)))
    elif font.pointSizeF() > 0:
        f.setPointSizeF(font.pointSizeF() * scale)
    return f


_FONT_SIZE_RULE = re.compile(r"(font-size\s*:\s*)(\d+(?:\.\d+)?)(\s*)(px|pt)")
_SIZE_RESOLVED = 0x2  # QFont's resolve-mask bit for an explicitly chosen size
_NO_MAX = 16777215  # QWIDGETSIZE_MAX


def apply_to_application(theme: Any) -> None:
    """Application-wide: the widget palette and the scaled default font
    (menus, dock titles, tool tips and every widget that keeps the default)."""
    from PySide6.QtWidgets import QApplication

    app: Any = QApplication.instance()  # a QApplication: the widgets' palette and font are its own
    _remember_original(app)
    app.setPalette(qt_palette(theme.palette))
    app.setFont(ui_font(theme.scale))


def apply_to_widgets(root: Any, scale: float) -> None:
    """Scale every widget under `root` that chose its own size: an explicit font
    size, a font-size rule in its style sheet, an icon size, a fixed width or
    height. What each asked for at 1x is remembered the first time it is seen (and
    again whenever its owner changes it), so 2x then 1x gives back the original."""
    from PySide6.QtWidgets import QAbstractButton, QWidget

    widgets = [root] + root.findChildren(QWidget)
    for w in widgets:
        _scale_style(w, scale)
        _scale_font(w, scale)
        _scale_limits(w, scale)
        if isinstance(w, QAbstractButton):
            _scale_icon(w, scale)
        _scale_plot(w, scale)


def _remembered(widget: Any, key: str, current: Any, to_key: Callable[[Any], Any] = lambda v: v) -> Any:
    """(base, changed): the 1x value of a widget property we scale. If the
    widget's current value is not the one we wrote, its owner set a new base."""
    stored = widget.property(key)
    if isinstance(stored, tuple) and len(stored) == 2 and to_key(stored[1]) == to_key(current):
        return stored[0]
    return current


def _scale_style(w: Any, scale: float) -> None:
    sheet = w.styleSheet()
    if not sheet:
        return
    base = _remembered(w, "_bps_style", sheet)
    if not _FONT_SIZE_RULE.search(base):
        # A styled widget (and its children) keeps the font it had when the style
        # sheet was applied; setting the sheet again makes it take the new app font.
        w.setStyleSheet(base)
        return
    scaled = _FONT_SIZE_RULE.sub(lambda m: f"{m.group(1)}{float(m.group(2)) * scale:g}{m.group(3)}{m.group(4)}", base)
    if scaled != sheet:
        w.setStyleSheet(scaled)
    w.setProperty("_bps_style", (base, scaled))


def _scale_font(w: Any, scale: float) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication, QDockWidget

    if isinstance(w, QDockWidget):
        # A dock draws its title in the font the application had when the dock was
        # made, unless its own font differs from the application's: give it one that
        # differs only in hinting, so the title follows the scale.
        font = ui_font(scale)
        font.setHintingPreference(QFont.PreferNoHinting)
        if font != w.font():
            w.setFont(font)
        return
    if not w.testAttribute(Qt.WA_SetFont) or _FONT_SIZE_RULE.search(w.styleSheet()):
        return
    font = w.font()
    stored = w.property("_bps_font")
    if isinstance(stored, tuple) and len(stored) == 2 and stored[1].toString() == font.toString():
        base = stored[0]
    else:
        base = font
        if _same_size(font, QApplication.font()):
            # its owner made it from the application font (a combo box's popup, a bold
            # button rebuilt on a font change): it has followed the scale already
            w.setProperty("_bps_font", None)
            return
    if not base.resolveMask() & _SIZE_RESOLVED:
        return  # only its weight or family is its own; the size follows the app font
    scaled = _scaled_font(base, scale)
    if scaled.toString() != font.toString():
        w.setFont(scaled)
    w.setProperty("_bps_font", (QFont(base), QFont(w.font())))


def _same_size(a: Any, b: Any) -> bool:
    if a.pixelSize() > 0 or b.pixelSize() > 0:
        return QFontInfo(a).pixelSize() == QFontInfo(b).pixelSize()
    return abs(a.pointSizeF() - b.pointSizeF()) < 0.01


def _scale_limits(w: Any, scale: float) -> None:
    from PySide6.QtWidgets import QDockWidget, QMainWindow

    if w.isWindow() or isinstance(w, QDockWidget) or isinstance(w.parentWidget(), QMainWindow):
        return  # their limits come from their layouts, which follow the contents by themselves
    current = (w.minimumWidth(), w.maximumWidth(), w.minimumHeight(), w.maximumHeight())
    base = _remembered(w, "_bps_limits", current)
    if base == (0, _NO_MAX, 0, _NO_MAX):
        return

    def s(v: int, limit: int) -> int:
        return v if v in (0, limit) else max(1, round(v * scale))

    scaled = (s(base[0], _NO_MAX), s(base[1], _NO_MAX), s(base[2], _NO_MAX), s(base[3], _NO_MAX))
    if scaled != current:
        w.setMinimumSize(scaled[0], scaled[2])
        w.setMaximumSize(scaled[1], scaled[3])
    w.setProperty("_bps_limits", (base, scaled))


def _scale_icon(w: Any, scale: float) -> None:
    size = w.iconSize()
    current = (size.width(), size.height())
    base = _remembered(w, "_bps_icon", current)
    scaled = (round(base[0] * scale), round(base[1] * scale))
    if scaled != current:
        w.setIconSize(QSize(*scaled))
    w.setProperty("_bps_icon", (base, scaled))


def _scale_plot(w: Any, scale: float) -> None:
    """pyqtgraph plots: tick and axis-label fonts, and any fixed axis width or height."""
    pg = sys.modules.get("pyqtgraph")
    if pg is None or not isinstance(w, pg.PlotWidget):
        return
    font = ui_font(scale)
    for entry in w.getPlotItem().axes.values():
        axis = entry["item"]
        axis.setStyle(tickFont=font)
        axis.label.setFont(font)
        vertical = axis.orientation in ("left", "right")
        fixed = getattr(axis, "fixedWidth" if vertical else "fixedHeight", None)
        base = _remembered(axis, "_bps_extent", fixed)
        if base:
            scaled = round(base * scale)
            if scaled != fixed:
                (axis.setWidth if vertical else axis.setHeight)(scaled)
            axis.setProperty("_bps_extent", (base, scaled))
