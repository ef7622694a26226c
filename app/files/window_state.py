"""The window's geometry and dock layout, kept in QSettings (never in a graph file).

The window holds one `WindowLayoutMemory` (`window.window_state`): it saves the
geometry and docks when the window closes (after File's unsaved-changes question
let it) and the command line restores them at start (app/startup.py). It arranges
the window itself, so it is handed the window (tests/app/test_main_window_fields.py:
WINDOW_PARTS)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.settings import settings

if TYPE_CHECKING:  # a type hint only: the window imports this module
    from app.main_window import MainWindow


class WindowLayoutMemory:
    def __init__(self, window: MainWindow, settings_store: Any = None) -> None:
        self.window = window
        self.settings = settings_store if settings_store is not None else settings()  # QSettings

    # -- UI state (QSettings, never graph files) -------------------------------------------------

    def save_ui_state(self) -> None:
        self.settings.setValue("window/geometry", self.window.saveGeometry())
        self.settings.setValue("window/state", self._docks_to_keep())
        self.settings.sync()

    def _docks_to_keep(self) -> Any:
        """The docks as the user arranged them: those a page set aside (the big-graph page, the
        Training workspace) rather than none, so that the next run does not start without them."""
        window = self.window
        for holder in (window.scope_page.current, getattr(window, "training", None)):
            aside = getattr(holder, "_dock_state", None)
            if aside is not None:
                return aside
        return window.saveState()

    def restore_ui_state(self) -> bool:
        geometry = self.settings.value("window/geometry")
        state = self.settings.value("window/state")
        ok = False
        if geometry is not None:
            ok = self.window.restoreGeometry(geometry)
        if state is not None:
            ok = self.window.restoreState(state) and ok
            self.window.dock_layout.keep()  # the user's own arrangement: keep it
        return ok
