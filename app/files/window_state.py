"""The window's geometry and dock layout, kept in QSettings (never in a graph file).
A part of FileActions (app/files/actions.py), which has `settings` and `window`."""

from typing import Any


class WindowLayoutMemory:
    window: Any  # the MainWindow (FileActions sets these)
    settings: Any  # QSettings
    # -- UI state (QSettings, never graph files) -------------------------------------------------

    def save_ui_state(self) -> None:
        self.settings.setValue("window/geometry", self.window.saveGeometry())
        self.settings.setValue("window/state", self.window.saveState())
        self.settings.sync()

    def restore_ui_state(self) -> bool:
        geometry = self.settings.value("window/geometry")
        state = self.settings.value("window/state")
        ok = False
        if geometry is not None:
            ok = self.window.restoreGeometry(geometry)
        if state is not None:
            ok = self.window.restoreState(state) and ok
            self.window.docks_arranged = True  # the user's own arrangement: keep it
        return ok
