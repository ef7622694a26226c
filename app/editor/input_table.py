"""The inputs table under the editor: one row per input node of the document.

A Qt *model*, not a table of items: the view asks `data()` only for the rows
it shows, so a traced network with 3,000 weights costs what a handful of rows
cost, and every input is listed (a table of items made two objects per row on
every recompile: 12 ms at 500 rows, so it stopped at 500). The rows are read
from the document each time; the model keeps only the ids, in document order.

Values show every digit (`repr`: the shortest text that reads back as the same
float), so editing one and pressing Enter unchanged changes nothing. Editing a
value is `setData`: the text must be a number, and the change is an undoable
SetValue pushed to the session. What is refused (not a number, not
finite) is said through `error(message)` and the row keeps the document's value.
"""

import math

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal

from app.fields import exact_text
from core.document.commands import SetValue, same

HEADERS = ("name", "value")

_ROOT = QModelIndex()  # Qt's 'no parent': a table has only top-level rows


class InputTableModel(QAbstractTableModel):
    error = Signal(str)

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self._ids = []

    def refresh(self):
        """Follow the document: new rows if the inputs changed, else new numbers."""
        ids = [nid for nid, node in self.session.doc.nodes.items() if node.kind == "input"]
        if ids != self._ids:
            self.beginResetModel()
            self._ids = ids
            self.endResetModel()
        elif ids:
            self.dataChanged.emit(self.index(0, 0), self.index(len(ids) - 1, len(HEADERS) - 1))

    def node_id(self, row):
        return self._ids[row]

    # -- QAbstractTableModel ---------------------------------------------------------

    def rowCount(self, parent=_ROOT):
        return 0 if parent.isValid() else len(self._ids)

    def columnCount(self, parent=_ROOT):
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if orientation == Qt.Horizontal and role == Qt.DisplayRole:
            return HEADERS[section]
        return None

    def flags(self, index):
        flags = Qt.ItemIsEnabled | Qt.ItemIsSelectable
        return flags | Qt.ItemIsEditable if index.column() == 1 else flags

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid() or role not in (Qt.DisplayRole, Qt.EditRole, Qt.UserRole):
            return None
        nid = self._ids[index.row()]
        if role == Qt.UserRole:
            return nid
        node = self.session.doc.nodes.get(nid)
        if node is None:  # removed; the recompile that follows refreshes the rows
            return None
        return (node.label or nid) if index.column() == 0 else exact_text(node.value)  # every digit

    def setData(self, index, text, role=Qt.EditRole):
        if role != Qt.EditRole or index.column() != 1:
            return False
        nid = self._ids[index.row()]
        node = self.session.doc.nodes.get(nid)
        if node is None:
            return False
        try:
            number = float(text)
        except (TypeError, ValueError):
            self.error.emit(
                f"'{text}' is not a number; the value of {node.label or nid} stays {exact_text(node.value)}."
            )
            return False
        if not math.isfinite(number):
            self.error.emit(f"{node.label or nid}: {text} is not a finite number; the value stays.")
            return False
        if not same(number, float(node.value)):  # an Enter that edited nothing records nothing
            ok, error = self.session.push(SetValue(nid, number))
            if not ok:
                self.error.emit(f"{node.label or nid}: {error}")
                return False
        return True
