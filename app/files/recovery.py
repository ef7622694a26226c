"""Crash recovery: the autosave's snapshot of the work, and the offer to restore
what a crash left behind. A part of FileActions (app/files/actions.py), which has
`autosave`, `session`, `services` (the window's: show_document, wait_for_layout, the
status bar, its dialogs' parent), `maybe_save`, `_set_file`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.files import dialogs
from app.services import Services


class Recovery:
    services: Services  # the window's (FileActions sets these)
    session: Any  # GraphSession
    autosave: Any  # AutosaveManager
    meta: dict[str, Any]
    path: str | None
    name: str
    modified: bool
    maybe_save: Callable[[], bool]
    _set_file: Callable[..., None]
    # -- autosave and recovery -------------------------------------------------------------------

    def _snapshot(self) -> tuple | None:
        if not self.modified:
            return None
        return (self.session.doc, self.meta, self.session.groups.to_list(), self.path, self.name)

    def offer_recovery(self) -> bool:
        """Offer autosaved work that a crash left behind; True if some was restored."""
        orphans = self.autosave.orphans()
        restored = False
        for orphan in orphans:
            if restored:
                orphan.release()  # any others wait for the next start
                continue
            recovered = orphan.read()
            if recovered is None:
                dialogs.show_error(
                    self.services.parent,
                    "Autosave unreadable",
                    f"Autosaved work was found but could not be read:\n{orphan.error}\n\nIt is kept at {orphan.path}.",
                )
                orphan.release()
                continue
            answer = dialogs.ask_recover(self.services.parent, recovered, recovered.saved_at)
            if answer == "discard":
                orphan.discard()
                continue
            if answer != "restore" or not self.maybe_save():
                orphan.release()
                continue
            ok = self.services.show_document(
                recovered.doc,
                "Recover autosaved work",
                layout=False,
                undoable=True,
                groups=recovered.groups,
                keep_positions=True,
            )
            if ok and self.services.layout_pending():
                ok = self.services.wait_for_layout()  # shown before the copy it came from goes
            if not ok:
                orphan.release()
                continue
            self._set_file(recovered.source, recovered.meta, name=recovered.title or None)
            self.autosave.changed()
            self.autosave.tick(wait=True)  # written before the old copy goes: never no copy
            orphan.discard()
            self.services.say("Restored the autosaved work. Save it to keep it.")
            restored = True
        return restored
