"""The bridge from core's commands to Qt's undo stack.

Core commands (core/document/commands.py) are plain Python: `do(doc)`,
`undo(doc)`, `text`, an optional `merge_id`. `CommandAdapter` wraps one as a
QUndoCommand so the window's QUndoStack can hold it: Qt calls `redo`, which
runs `command.do(doc)` -- `push()` applies the command, it is never
pre-applied -- and `mergeWith` lets a spin-box scrub or a drag collapse into
one step. The session it reports to is app/session.py's GraphSession.
"""

from PySide6.QtGui import QUndoCommand


class CommandAdapter(QUndoCommand):
    """A core command (do/undo/text/merge_id/merge_with) as a QUndoCommand."""

    _merge_ids: dict = {}  # merge_id (any hashable) -> the int Qt wants

    def __init__(self, command, session) -> None:
        super().__init__(command.text)
        self.command = command
        self._session = session

    def redo(self) -> None:
        try:
            self.command.do(self._session.doc)
        except Exception as exc:  # a refused edit changes nothing (core rule 3)
            self._session.last_error = exc
            self.setObsolete(True)
        self.setText(self.command.text)
        self._session.flush()

    def undo(self) -> None:
        try:
            self.command.undo(self._session.doc)
        except Exception as exc:
            self._session.last_error = exc
            self._session.message.emit(f"Undo failed: {exc}")
        self._session.flush()

    def id(self) -> int:
        key = getattr(self.command, "merge_id", None)
        if key is None:
            return -1
        return CommandAdapter._merge_ids.setdefault(key, len(CommandAdapter._merge_ids) + 1)

    def mergeWith(self, other: object) -> bool:
        if not isinstance(other, CommandAdapter):
            return False
        if self.command.merge_with(other.command):
            self.setText(self.command.text)
            return True
        return False
