"""What a panel may use of the window, and a page made on first use.

`Services` is the small set of things a panel needs from the main window: the
document's session, the canvas (scene and view), the undo stack, the theme, a way to
add a dock, a menu action or to say something in the status bar; to show a document
(laid out, as one undo step) and know when its layout is done. A panel handed
`Services` cannot reach into the window's other fields, so what it depends on is
written in its constructor. `MainWindow.services()` makes one.

`LazyPage[T]` holds a page, dialog or overlay the window makes only when it is first
asked for (the big-graph page, the microgpt panel, the welcome page): the window
creates the holder in `__init__`, so the field is visible there, and `get()` builds
the widget on the first call. `clear()` forgets it (a dialog deleted on close).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:  # type hints only: this module sits below the canvas and the session
    from PySide6.QtCore import SignalInstance
    from PySide6.QtGui import QAction, QUndoStack
    from PySide6.QtWidgets import QDockWidget, QMenu, QWidget

    from app.graph.scene import GraphScene
    from app.graph.view import GraphView
    from app.look.theme import Theme
    from app.session import GraphSession

T = TypeVar("T")


class LazyPage(Generic[T]):
    """A widget made by `make()` on the first `get()`; `current` is it or None."""

    def __init__(self, make: Callable[[], T]) -> None:
        self._make = make
        self.current: T | None = None

    def get(self) -> T:
        if self.current is None:
            self.current = self._make()
        return self.current

    def clear(self) -> None:
        """Forget the page (it was closed and deleted); the next get() makes a new one."""
        self.current = None


@dataclass(frozen=True)
class Services:
    """The window's services to a panel (see the module's docstring)."""

    session: GraphSession
    scene: GraphScene
    view: GraphView
    undo_stack: QUndoStack
    parent: QWidget  # the window, as the parent of a dialog a panel opens
    theme: Callable[[], Theme]  # the theme now (the window's changes with View → Theme / Scale)
    menu: Callable[[str], QMenu]  # the top-level menu of that name
    add_dock: Callable[..., QDockWidget]  # (key, title, widget, area, tabify_with=None)
    add_action: Callable[..., QAction]  # (menu, text, slot, shortcut=None, toolbar=False, key=None, tip=None)
    actions: dict[str, QAction]  # every menu action by its key (add_action's `key`): a panel may file its own
    say: Callable[..., Any]  # (text, timeout_ms=8000): a line in the status bar
    # lessons & help
    show_document: Callable[..., bool]  # (doc, text, layout=True, ...): lay out and show a GraphDocument, undoable
    layout_pending: Callable[[], bool]  # is a graph being arranged or drawn still (after show_document)?
    layout_finished: SignalInstance  # the window's layoutFinished: the pending graph is laid out and drawn
