"""Appearance of one window: theme, scale and presenter mode, kept in QSettings.

A teacher in front of a class needs three things at once: everything bigger,
more contrast, and less clutter. `Appearance` owns those choices for a
`MainWindow`; the pixels are the theme's business (app/look/theme.py: one palette
and ONE scale factor for every font, node, line, dock, menu and plot).

* `set_palette(name)`       'light', 'dark' or 'high-contrast', switched live;
* `set_scale(factor)`       1x .. 3x;
* `toggle_presenter()`      (F11) full screen, high contrast, the presenter
                            scale (2x unless chosen otherwise), no toolbar
                            extras and no status-bar details; the same key
                            (or Esc) puts everything back as it was.

Inside presenter mode the theme and scale controls change the presenter's own
choices, so leaving it restores the everyday look, and entering it again
brings back the presenter look the teacher picked last time.

The window is asked only through its extension points: `apply_theme(theme)`,
`toolbar`, `statusBar()`, `actions`.
"""

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QSizeGrip, QWidget

from app.look.theme import PALETTES, SCALES, Theme, clamp_scale
from app.settings import settings

# Settings keys (app/settings.py: the app's one QSettings store)
KEY_THEME = "appearance/theme"
KEY_SCALE = "appearance/scale"
KEY_PRESENTER_THEME = "presenter/theme"
KEY_PRESENTER_SCALE = "presenter/scale"
PRESENTER_SCALE = 2.0
PRESENTER_THEME = "high-contrast"

# Toolbar actions a lesson in front of a class still needs; the others hide.
ESSENTIAL_TOOLBAR = (
    "run",
    "backward",
    "zero grads",
    "fit",
    "zoom in",
    "zoom out",
    "lesson back",
    "lesson next",
    "presenter",
    "presenter scale",
)
KEEP_PROPERTY = "presenter_keep"  # a widget with this property set stays visible


def _palette_name(value, default):
    return value if isinstance(value, str) and value in PALETTES else default


class Appearance(QObject):
    """Theme, scale and presenter mode of one window."""

    changed = Signal()  # palette or scale changed (the theme is applied already)
    presenterChanged = Signal(bool)

    def __init__(self, window, parent=None, arrange=None):
        super().__init__(parent or window)
        self.window = window
        self.arrange = arrange  # presenter mode's docks, arranged on entering (app/lessons/presenter_layout.py)
        self.palette_name = window.theme.palette.name
        self.scale = window.theme.scale
        self.presenter_palette = PRESENTER_THEME
        self.presenter_scale = PRESENTER_SCALE
        self.presenting = False
        self.view_before = None  # (zoom, scene centre) of the canvas when presenter mode began
        self._saved = None  # what presenter mode hid or changed, to put back

    # -- what is shown now ------------------------------------------------------------

    @property
    def current_palette(self):
        return self.presenter_palette if self.presenting else self.palette_name

    @property
    def current_scale(self):
        return self.presenter_scale if self.presenting else self.scale

    def theme(self):
        return Theme(PALETTES[self.current_palette], self.current_scale, self.window.theme.metrics)

    def apply(self):
        self.window.apply_theme(self.theme())
        self.changed.emit()

    # -- choosing -----------------------------------------------------------------------

    def set_palette(self, name):
        name = _palette_name(name, None)
        if name is None:
            raise ValueError(f"unknown theme {name!r} (known: {', '.join(PALETTES)})")
        if self.presenting:
            self.presenter_palette = name
        else:
            self.palette_name = name
        self.save()
        self.apply()

    def set_scale(self, factor):
        factor = clamp_scale(factor)
        if self.presenting:
            self.presenter_scale = factor
        else:
            self.scale = factor
        self.save()
        self.apply()

    def step_scale(self, direction):
        """One notch of SCALES up (+1) or down (-1)."""
        now = self.current_scale
        if direction > 0:
            bigger = [s for s in SCALES if s > now + 1e-9]
            self.set_scale(bigger[0] if bigger else SCALES[-1])
        else:
            smaller = [s for s in SCALES if s < now - 1e-9]
            self.set_scale(smaller[-1] if smaller else SCALES[0])

    # -- presenter mode ----------------------------------------------------------------

    def toggle_presenter(self):
        self.set_presenter(not self.presenting)

    def set_presenter(self, on, scale=None, full_screen=True):
        """Enter (on) or leave presenter mode; `scale` sets the presenter scale too.
        full_screen=False gives the look without changing the window's size (a
        screenshot of a given size)."""
        if scale is not None:
            self.presenter_scale = clamp_scale(scale)
        if on == self.presenting:
            if on and scale is not None:
                self.apply()
            return
        window = self.window
        if on:
            view = window.view
            self.view_before = (view.zoom(), view.mapToScene(view.viewport().rect().center()))
            self._saved = {
                "state": window.windowState(),
                "geometry": window.saveGeometry(),
                "docks": window.saveState(),
                "hidden": self._hide_chrome(),
                "went_full_screen": full_screen,
            }
            if self.arrange is not None:
                self.arrange()
            self.presenting = True
            self.apply()
            if full_screen:
                window.showFullScreen()
                QTimer.singleShot(400, self._cover_screen)
        else:
            saved, self._saved = self._saved or {}, None
            self.presenting = False
            for thing in saved.get("hidden", ()):
                thing.setVisible(True)
            self.apply()  # 1x fonts first: docks restored under 2x fonts kept their 2x widths
            if saved.get("docks") is not None:
                window.restoreState(saved["docks"])
                # and once more when the 1x fonts have reached every widget's size hint
                QTimer.singleShot(0, lambda docks=saved["docks"]: window.restoreState(docks))
            state = saved.get("state", Qt.WindowNoState)
            if not saved.get("went_full_screen"):
                pass
            elif state & Qt.WindowMaximized:
                window.showMaximized()
            elif state & Qt.WindowFullScreen:
                window.showFullScreen()
            else:
                window.showNormal()
                if saved.get("geometry") is not None:
                    window.restoreGeometry(saved["geometry"])
        self.save()
        self.presenterChanged.emit(on)

    def _cover_screen(self):
        """Without a window manager (a kiosk, a bare X server) full screen is only a
        request nobody grants: then take the screen's whole area ourselves."""
        window = self.window
        if not self.presenting or window.screen() is None:
            return
        area = window.screen().geometry()
        if window.geometry() != area:
            window.setGeometry(area)

    def _hide_chrome(self):
        """Hide the toolbar extras and status-bar details; return what was hidden."""
        window = self.window
        hidden = []
        essential = {id(window.actions[k]) for k in ESSENTIAL_TOOLBAR if k in window.actions}
        for action in window.toolbar.actions():
            if action.isVisible() and not action.isSeparator() and id(action) not in essential:
                widget = window.toolbar.widgetForAction(action)
                if widget is not None and widget.property(KEEP_PROPERTY):
                    continue
                action.setVisible(False)
                hidden.append(action)
        bar = window.statusBar()
        for widget in bar.findChildren(QWidget, options=Qt.FindDirectChildrenOnly):
            if not widget.isHidden() and not widget.property(KEEP_PROPERTY) and not isinstance(widget, QSizeGrip):
                widget.setVisible(False)
                hidden.append(widget)
        return hidden

    # -- settings -------------------------------------------------------------------------

    def save(self):
        s = settings()
        s.setValue(KEY_THEME, self.palette_name)
        s.setValue(KEY_SCALE, self.scale)
        s.setValue(KEY_PRESENTER_THEME, self.presenter_palette)
        s.setValue(KEY_PRESENTER_SCALE, self.presenter_scale)

    def restore(self):
        """Read the last choices from QSettings and apply them (presenter mode itself
        is never restored: a new start is an ordinary window)."""
        s = settings()
        self.palette_name = _palette_name(s.value(KEY_THEME), self.palette_name)
        self.scale = clamp_scale(s.value(KEY_SCALE, self.scale))
        self.presenter_palette = _palette_name(s.value(KEY_PRESENTER_THEME), PRESENTER_THEME)
        self.presenter_scale = clamp_scale(s.value(KEY_PRESENTER_SCALE, PRESENTER_SCALE))
        self.apply()
