"""Help → Keyboard Shortcuts and Help → About.

The shortcuts table is generated from the window's real QActions -- every
menu, submenu and panel action that has a key -- so it can never list a key
that does nothing or miss one that a panel added later. Canvas gestures are
not actions; they get a short second table.

Both dialogs are non-modal: they can stay open beside the window (a teacher
can leave the shortcuts up) and never block a test. They read only Qt's side of
the window they open over (its menu bar, its actions, its icon); the window keeps
them, while open, in the `open_dialogs` it hands over (its `dialogs`).
"""

import platform
from collections.abc import Callable
from typing import TypeVar, cast

from PySide6 import __version__ as PYSIDE_VERSION
from PySide6.QtCore import QObject, Qt, qVersion
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMenuBar,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app import __version__

GESTURES = (
    ("Wheel", "zoom in or out under the mouse"),
    ("Drag the background", "select the nodes in the rectangle (Ctrl adds to the selection)"),
    ("Middle-drag, or Space/Alt + drag", "pan"),
    ("Drag a node", "move it (one undo step per drag); onto a wire: insert it there"),
    ("Drag from a port", "draw a wire: output (right) to input (left); red means refused, and the status bar says why"),
    ("Drag a wired input", "pick its wire up: drop it on another input, or on empty canvas to remove it"),
    ("Drag a part from the Palette", "add it where it is dropped (onto a wire: insert it)"),
    ("Tab, or double-click the background", "search for a part and add it at the mouse"),
    ("Double-click a node", "edit its label and value (Enter applies, Esc cancels)"),
    (
        "← → ↑ ↓ on the canvas",
        "walk the graph: ← to an input, → to what it feeds, ↑ ↓ along its column (F6 goes there)",
    ),
    ("Right-click", "set as output, collapse a neuron, delete a wire, add a part…"),
)


def _clean(text: str) -> str:
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").replace("…", "").strip()


def shortcut_rows(menu_bar: QMenuBar, owner: QObject) -> list[tuple[str, str, str]]:
    """[(where, action text, keys)] for every action of `owner` (the window) that has a
    shortcut: the menu bar's order first (with the menu path), then actions found only
    on panels. Keys are in the platform's own spelling (Ctrl+B, F11...)."""
    rows, seen = [], set()

    def keys(action: QAction) -> str:
        native = QKeySequence.SequenceFormat.NativeText
        return " or ".join(s.toString(native) for s in action.shortcuts() if not s.isEmpty())

    def walk(menu: QMenu, path: list[str]) -> None:
        for action in menu.actions():
            if action.isSeparator():
                continue
            sub = action.menu()
            if isinstance(sub, QMenu):
                walk(sub, path + [_clean(sub.title())])
                continue
            if id(action) in seen:
                continue
            seen.add(id(action))
            k = keys(action)
            if k:
                rows.append((" → ".join(path), _clean(action.text()), k))

    for top in menu_bar.actions():
        menu = top.menu()
        if isinstance(menu, QMenu):
            walk(menu, [_clean(menu.title())])
    for action in owner.findChildren(QAction):
        if id(action) in seen or isinstance(action.parent(), QMenu) and action.menu() is not None:
            continue
        seen.add(id(action))
        k = keys(action)
        if k and action.text():
            held_by = action.parent()
            where = held_by.objectName() or type(held_by).__name__ if held_by is not None else ""
            rows.append((where or "panel", _clean(action.text()), k))
    return rows


class ShortcutsDialog(QDialog):
    """Every keyboard shortcut of the window `parent`, searchable."""

    def __init__(self, parent: QMainWindow) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard Shortcuts — Backprop Studio")
        self.setObjectName("ShortcutsDialog")
        layout = QVBoxLayout(self)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter: type part of a name or a key, like 'step' or 'F11'")
        self.filter.setToolTip("Show only the shortcuts whose name, key or menu contains this text")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._filter)
        layout.addWidget(self.filter)
        self.rows = shortcut_rows(parent.menuBar(), parent)
        self.table = QTableWidget(len(self.rows), 3)
        self.table.setHorizontalHeaderLabels(["Keys", "Action", "Menu"])
        self.table.setToolTip("Every key the window answers to, read from its menus and panels")
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        for r, (where, text, keys) in enumerate(self.rows):
            for c, value in enumerate((keys, text, where)):
                item = QTableWidgetItem(value)
                if c == 0:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                self.table.setItem(r, c, item)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        layout.addWidget(self.table, 1)
        mouse = QLabel(
            "<b>On the canvas</b><table>"
            + "".join(f"<tr><td><b>{g}</b>&nbsp;&nbsp;</td><td>{what}</td></tr>" for g, what in GESTURES)
            + "</table>"
        )
        mouse.setToolTip("Mouse gestures on the graph")
        layout.addWidget(mouse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        buttons.button(QDialogButtonBox.StandardButton.Close).setToolTip("Close this list")
        layout.addWidget(buttons)
        self.resize(640, 560)

    def _filter(self, text: str) -> None:
        needle = text.strip().lower()
        for r, row in enumerate(self.rows):
            self.table.setRowHidden(r, bool(needle) and not any(needle in v.lower() for v in row))


class AboutDialog(QDialog):
    """The version, what the program is, and what it runs on; `parent`'s icon."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setWindowTitle("About Backprop Studio")
        self.setObjectName("AboutDialog")
        layout = QHBoxLayout(self)
        icon = QLabel()
        app_icon = parent.windowIcon()
        if not app_icon.isNull():
            icon.setPixmap(app_icon.pixmap(96, 96))
        icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        layout.addWidget(icon)
        col = QVBoxLayout()
        self.text = QLabel(
            f"<h2>Backprop Studio {__version__}</h2>"
            "<p>Learn, teach and debug backpropagation on a micrograd-style scalar autograd "
            "engine: build a graph, step through every <code>_backward</code> call, "
            "follow the guided lessons, and train small networks.</p>"
            f"<p style='color:gray'>Python {platform.python_version()} · Qt {qVersion()} · "
            f"PySide6 {PYSIDE_VERSION}</p>"
        )
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        col.addWidget(self.text, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        buttons.button(QDialogButtonBox.StandardButton.Close).setToolTip("Close")
        col.addWidget(buttons)
        layout.addLayout(col, 1)
        self.resize(520, 260)


Shown = TypeVar("Shown", bound=QDialog)


def _show(open_dialogs: dict[str, QWidget], key: str, make: Callable[[], Shown]) -> Shown:
    """The one dialog `make` makes (kept in open_dialogs[key] while open), raised."""
    dialog = open_dialogs.get(key)
    if dialog is None:
        made = make()
        made.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        made.finished.connect(lambda *_: open_dialogs.pop(key, None))
        open_dialogs[key] = dialog = made
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    return cast(Shown, dialog)


def show_shortcuts(parent: QMainWindow, open_dialogs: dict[str, QWidget]) -> ShortcutsDialog:
    """Help → Keyboard Shortcuts: every key of `parent` (the window)."""
    return _show(open_dialogs, "_shortcuts_dialog", lambda: ShortcutsDialog(parent))


def show_about(parent: QWidget, open_dialogs: dict[str, QWidget]) -> AboutDialog:
    """Help → About Backprop Studio."""
    return _show(open_dialogs, "_about_dialog", lambda: AboutDialog(parent))
