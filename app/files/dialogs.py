"""The File menu's dialogs, one function each, so that tests replace them (in this
module) and never meet a modal window; `show_error` is not modal anyway."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

GRAPH_FILTER = (
    "Graphs and scripts (*.json *.py);;Graphs (*.json);;Python scripts that build Values (*.py);;All files (*)"
)
_open_boxes: list[QMessageBox] = []  # non-modal message boxes still showing


def show_error(parent: QWidget | None, title: str, text: str) -> QMessageBox:
    """Tell the user what went wrong; returns at once (the box is not modal)."""
    box = QMessageBox(QMessageBox.Warning, title, text, QMessageBox.Ok, parent)
    box.setAttribute(Qt.WA_DeleteOnClose)
    box.setWindowModality(Qt.WindowModal)
    _open_boxes.append(box)
    box.finished.connect(lambda _r, b=box: _open_boxes.remove(b) if b in _open_boxes else None)
    box.open()
    return box


def close_message_boxes(parent: QWidget) -> None:
    for box in list(_open_boxes):
        if box.parent() is parent:
            box.close()


def ask_save_changes(parent: QWidget | None, name: str) -> str:
    """'save', 'discard' or 'cancel' for the unsaved changes of `name`."""
    answer = QMessageBox.question(
        parent,
        "Unsaved changes",
        f"Save the changes to {name} before closing it?\n\nIf you don't save, your changes will be lost.",
        QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel,
        QMessageBox.Save,
    )
    return {QMessageBox.Save: "save", QMessageBox.Discard: "discard"}.get(answer, "cancel")


def ask_confirm(parent: QWidget | None, title: str, text: str) -> bool:
    return (
        QMessageBox.question(parent, title, text, QMessageBox.Yes | QMessageBox.No, QMessageBox.No) == QMessageBox.Yes
    )


def ask_open_path(parent: QWidget | None, title: str, directory: str = "", filter: str = GRAPH_FILTER) -> str:
    return QFileDialog.getOpenFileName(parent, title, directory, filter)[0]


def ask_save_path(parent: QWidget | None, title: str, suggested: str, filter: str = GRAPH_FILTER) -> str:
    return QFileDialog.getSaveFileName(parent, title, suggested, filter)[0]


def ask_recover(parent: QWidget | None, recovered: Any, saved_at: str) -> str:
    """'restore', 'discard' or 'later' for autosaved work a crash left behind."""
    name = recovered.title or "an untitled graph"
    box = QMessageBox(
        QMessageBox.Question,
        "Recover unsaved work",
        f"Backprop Studio did not close normally. It autosaved your work on "
        f"{name} ({len(recovered.doc.nodes)} nodes) at {saved_at}.\n\n"
        "Restore it now?",
        QMessageBox.NoButton,
        parent,
    )
    restore = box.addButton("Restore", QMessageBox.AcceptRole)
    discard = box.addButton("Discard", QMessageBox.DestructiveRole)
    box.addButton("Later", QMessageBox.RejectRole)
    box.exec()
    clicked = box.clickedButton()
    return "restore" if clicked is restore else "discard" if clicked is discard else "later"
