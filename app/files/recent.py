"""File → Open Recent: the recent files, kept in QSettings (never in a graph file).
A part of FileActions (app/files/actions.py), which has `settings`, `services` (the
window's: the parent of its dialogs), `open`."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from app.files import dialogs
from app.services import Services

MAX_RECENT = 10


class RecentFiles:
    services: Services  # the window's (FileActions sets these)
    settings: Any  # QSettings
    recent_menu: Any  # QMenu, once the menu is installed
    open: Callable[..., bool]

    def _fill_recent(self) -> None:
        menu = self.recent_menu
        if menu is None:
            return
        menu.clear()
        paths = self.recent_files()
        for path in paths:
            action = menu.addAction(os.path.basename(path))
            action.setToolTip(path)
            action.triggered.connect(lambda checked=False, p=path: self.open_recent(p))
        if paths:
            menu.addSeparator()
            menu.addAction("Clear Menu", self.clear_recent)
        else:
            menu.addAction("(no recent files)").setEnabled(False)

    # -- recent files (QSettings) --------------------------------------------------------

    def recent_files(self) -> list[str]:
        value = self.settings.value("recentFiles", [])
        if isinstance(value, str):
            value = [value]
        return [p for p in (value or []) if isinstance(p, str)][:MAX_RECENT]

    def _remember(self, path: str) -> None:
        path = os.path.abspath(path)
        paths = [path] + [p for p in self.recent_files() if p != path]
        self.settings.setValue("recentFiles", paths[:MAX_RECENT])
        self.settings.sync()

    def _forget(self, path: str) -> None:
        self.settings.setValue("recentFiles", [p for p in self.recent_files() if p != path])

    def clear_recent(self) -> None:
        self.settings.setValue("recentFiles", [])
        self._fill_recent()

    def open_recent(self, path: str) -> bool:
        if not os.path.exists(path):
            dialogs.show_error(
                self.services.parent, "File not found", f"{path} is no longer there; it is taken off the recent files."
            )
            self._forget(path)
            return False
        return self.open(path)
