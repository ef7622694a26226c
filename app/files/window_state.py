"""The window's geometry and dock layout, kept in QSettings (never in a graph file).
A part of FileActions (app/files/actions.py), which has `settings` and `window`."""

from typing import Any


class WindowLayoutMemory:
    window: Any  # the MainWindow (FileActions sets these)
    settings: Any  # QSettings
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
