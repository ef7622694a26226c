"""The editor dock: type a formula or paste micrograd code, press Ctrl+Enter.

The text is the user's and is never changed by the app. A parse error
underlines the faulty spot with a red wave and shows the message under the
editor; the graph on the canvas stays as it was. Below the editor, a table
lists the inputs of the graph on the canvas: changing a number there is an
undoable edit of the document (the graph recomputes at once), and on the next
Run it is kept for names the text uses without assigning (free names).

Choosing an example replaces the text -- as one edit the editor's own undo
(Ctrl+Z) takes back -- and asks first (`ask_replace_text`) when the text was
typed and not yet run: typed work is never discarded without a prompt.

Run as Python (Ctrl+Shift+Enter) is for code the safe reader does not take: a
lecture cell with imports, classes, loops, `sum` and `zip`. The window runs it
in a child process (app/editor/code_runner.py, core/lecture); the bar shows
what came back under the editor: an error on its line, or notes and what the
code printed.

Signals:
    runRequested(str)       Run button / Ctrl+Enter, with the editor's text
    runCodeRequested(str)   Run as Python / Ctrl+Shift+Enter, with the editor's text
"""

import ast
import html

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QTableView,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from app.editor.input_table import InputTableModel
from app.look.theme import MONO_FAMILY
from core import pyast

ERROR_COLOR = "#d42a3c"

TUTORIAL = """x = Value(2.0, label='x')
y = Value(3.0, label='y')
f = x*y + y**2
"""

EXAMPLES = {
    "Tutorial: f = x·y + y²": TUTORIAL,
    "A neuron: tanh(w·x + b)": (
        "x1 = Value(2.0, label='x1')\nx2 = Value(0.0, label='x2')\n"
        "w1 = Value(-3.0, label='w1')\nw2 = Value(1.0, label='w2')\n"
        "b = Value(6.8813735870195432, label='b')\n"
        "n = x1*w1 + x2*w2 + b\no = n.tanh()\n"
    ),
    "A value used twice: b = a + a": "a = Value(3.0, label='a')\nb = a + a\n",
    "Division: (a - b) / (a + b)": "(a - b) / (a + b)\n",
    "Overflow to inf: exp(x·x)": "x = Value(30.0, label='x')\ny = (x*x).exp()\n",
    "Not a number: log(-x)": "x = Value(2.0, label='x')\ny = (-x).log()\n",
}


def ask_replace_text(parent, title):
    """True if the user lets the example `title` replace text they typed and did not run.
    A module function, so tests replace it and never meet a modal box."""
    answer = QMessageBox.question(
        parent,
        "Replace your text?",
        f"The editor holds text you typed and have not run. Replace it with the example "
        f"'{title}'? (Ctrl+Z in the editor brings it back.)",
        QMessageBox.Yes | QMessageBox.Cancel,
        QMessageBox.Cancel,
    )
    return answer == QMessageBox.Yes


def free_values(text, table):
    """The table's {name: value} for names the text uses but never assigns.

    A name assigned in the text (`x = 2`, `x = Value(...)`) gets its number from
    the text; only free names keep what the user typed into the table."""
    try:
        tree = pyast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return {}
    assigned = set()
    for node in ast.walk(tree):
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AugAssign) else []
        )
        assigned.update(t.id for t in targets if isinstance(t, ast.Name))
    return {name: value for name, value in table.items() if name not in assigned}


RUN_AS_PYTHON = "Run as Python (Ctrl+Shift+Enter)"
NOTE_COLOR = "#1e4f8a"
PRINTED_LINES = 6  # lines of what the code printed shown under the editor, at most


class CodeEditor(QPlainTextEdit):
    """Plain text in a monospace font; Ctrl+Enter runs, Ctrl+Shift+Enter runs as
    Python, Tab inserts four spaces."""

    runRequested = Signal()
    runCodeRequested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        font = QFont(MONO_FAMILY)
        font.setPixelSize(13)
        font.setStyleHint(QFont.Monospace)
        self.setFont(font)
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 4)
        self.setLineWrapMode(QPlainTextEdit.NoWrap)
        self.setPlaceholderText("x*y + y**2\n\nor micrograd code:\nx = Value(2.0, label='x')\n...")

    def _is_run_key(self, event):
        return event.key() in (Qt.Key_Return, Qt.Key_Enter) and event.modifiers() & Qt.ControlModifier

    def event(self, event):
        # claim Ctrl+Enter before any window shortcut, so it works the same everywhere
        if event.type() == event.Type.ShortcutOverride and self._is_run_key(event):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event):
        if self._is_run_key(event):
            if event.modifiers() & Qt.ShiftModifier:
                self.runCodeRequested.emit()
            else:
                self.runRequested.emit()
            event.accept()
            return
        if event.key() == Qt.Key_Tab and not event.modifiers():
            self.insertPlainText("    ")
            return
        super().keyPressEvent(event)


class ExpressionBar(QWidget):
    runRequested = Signal(str)
    runCodeRequested = Signal(str)
    forgetCellsRequested = Signal()
    stopCodeRequested = Signal()
    noteLinkClicked = Signal(str)  # a link of the notes other than 'forget' (the code runner's toggles)

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session

        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.setSpacing(6)

        top = QHBoxLayout()
        title = QLabel("Expression or micrograd code")
        title.setStyleSheet("font-weight: bold;")
        top.addWidget(title, 1)
        self.examples = QComboBox()
        self.examples.addItem("Examples…")
        self.examples.addItems(list(EXAMPLES))
        self.examples.setToolTip("Replace the text with an example and run it")
        self.examples.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.examples.setMinimumContentsLength(9)
        self.examples.activated.connect(self._example_chosen)
        top.addWidget(self.examples)
        layout.addLayout(top)

        self._kept_text = ""  # the text last run or set by the app (not typed since)
        self.editor = CodeEditor()
        self.editor.runRequested.connect(self.run)
        self.editor.runCodeRequested.connect(self.run_code)
        self.editor.textChanged.connect(self._text_changed)
        layout.addWidget(self.editor, 3)

        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.error_label.setStyleSheet(
            f"color: {ERROR_COLOR}; background: #fdecee; border: 1px solid #f3b7be; "
            "border-radius: 4px; padding: 5px 7px;"
        )
        self.error_label.hide()
        layout.addWidget(self.error_label)

        # what a run did that the text does not say: inputs made, notes and prints of Run as Python
        self.note_label = QLabel()
        self.note_label.setWordWrap(True)
        self.note_label.setTextInteractionFlags(Qt.TextSelectableByMouse | Qt.LinksAccessibleByMouse)
        self.note_label.setStyleSheet(
            f"color: {NOTE_COLOR}; background: #eef4fb; border: 1px solid #bcd3ee; "
            "border-radius: 4px; padding: 5px 7px;"
        )
        self.note_label.linkActivated.connect(self._note_link)
        self.note_label.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        self.note_box = QScrollArea()  # long notes scroll: the text being edited keeps its room
        self.note_box.setWidget(self.note_label)
        self.note_box.setWidgetResizable(True)
        self.note_box.setFrameShape(QFrame.NoFrame)
        self.note_box.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.note_box.setMaximumHeight(self.fontMetrics().lineSpacing() * 7 + 16)
        self.note_box.hide()
        layout.addWidget(self.note_box)

        row = QHBoxLayout()
        self.hint = QLabel("Ctrl+Enter to run")
        self.hint.setStyleSheet("color: palette(mid);")
        self.hint.setWordWrap(True)  # a long note (a lesson's canvas) wraps, never widens the window
        row.addWidget(self.hint, 1)
        self.code_button = QPushButton("Run as Python")
        self.code_button.setToolTip(
            "Run the text as Python, for lecture code with imports, classes, loops, sum and zip "
            "(Ctrl+Shift+Enter): in a separate process with time and memory limits; "
            "micrograd's Value is the studio's there"
        )
        self.code_button.clicked.connect(self._code_clicked)
        self._running = False
        row.addWidget(self.code_button)
        self.run_button = QPushButton("Run")
        self.run_button.setDefault(True)
        self.run_button.setToolTip("Build the graph from the text (Ctrl+Enter); nothing is run as code")
        self.run_button.clicked.connect(self.run)
        row.addWidget(self.run_button)
        layout.addLayout(row)

        inputs_title = QLabel("Inputs")
        inputs_title.setStyleSheet("font-weight: bold; margin-top: 6px;")
        layout.addWidget(inputs_title)
        self.inputs = InputTableModel(session, self)
        self.inputs.error.connect(self.show_error)
        self.table = QTableView()
        self.table.setModel(self.inputs)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.Stretch)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.Stretch)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setEditTriggers(
            QAbstractItemView.DoubleClicked | QAbstractItemView.EditKeyPressed | QAbstractItemView.AnyKeyPressed
        )
        self.table.setToolTip("Double-click a value to change it; the graph recomputes")
        layout.addWidget(self.table, 2)

        session.recompiled.connect(self.refresh_inputs)
        session.doc.changed.connect(self._doc_changed)

    def sizeHint(self):
        return QSize(300, 600)

    # -- text ------------------------------------------------------------------------

    def text(self):
        return self.editor.toPlainText()

    def set_source_note(self, note=None):
        """Say what the canvas shows when it is not this text (an opened file, a trace)."""
        if note:
            self.hint.setText(f"Canvas: {note}. Run replaces it.")
            self.hint.setToolTip(self.hint.text())
        else:
            self.hint.setText("Ctrl+Enter to run")
            self.hint.setToolTip("")

    def set_text(self, text):
        self.editor.setPlainText(text)
        self._kept_text = text

    def run(self):
        self._kept_text = self.text()
        self.runRequested.emit(self.text())

    def run_code(self):
        self._kept_text = self.text()
        self.runCodeRequested.emit(self.text())

    def set_running(self, running):
        """While code runs in its child process the button is Stop: it ends the run where it is."""
        self._running = running
        self.code_button.setText("Stop" if running else "Run as Python")
        self.code_button.setToolTip(
            "Stop your code where it is (the cells before it stay kept)"
            if running
            else "Run the text as Python, for lecture code with imports, classes, loops, sum and zip "
            "(Ctrl+Shift+Enter): in a separate process with time and memory limits; "
            "micrograd's Value is the studio's there"
        )

    def _code_clicked(self):
        if self._running:
            self.stopCodeRequested.emit()
        else:
            self.run_code()

    def has_unrun_text(self):
        """True if the editor holds text the user typed since it was last run or set."""
        text = self.text()
        return bool(text.strip()) and text != self._kept_text

    def _example_chosen(self, index):
        if index <= 0:
            return
        title = self.examples.itemText(index)
        self.examples.setCurrentIndex(0)
        if self.has_unrun_text() and not ask_replace_text(self, title):
            return
        cursor = QTextCursor(self.editor.document())  # one edit: the editor's undo takes it back
        cursor.select(QTextCursor.Document)
        cursor.insertText(EXAMPLES[title])
        self.run()

    def _text_changed(self):
        # the underline points into text that has changed: drop it, keep the message
        if self.editor.extraSelections():
            self.editor.setExtraSelections([])

    # -- errors ------------------------------------------------------------------------

    def show_error(self, message, line=None, col=None, end_col=None, python=False):
        """Show message under the editor; underline [col, end_col) of line (1-based).
        `python`: the text is Python the reader does not take; say it can run as Python."""
        where = f"Line {line}, column {col}: " if line is not None and col is not None else ""
        where = f"Line {line}: " if line is not None and col is None else where
        if python:
            message += f". To run it as Python code, press {RUN_AS_PYTHON}."
        self.error_label.setText(where + message)
        self.error_label.show()
        self.show_notes([])
        selections = []
        if line is not None and col is not None:
            cursor = self._cursor_at(line, col, end_col)
            if cursor is not None:
                selection = QTextEdit.ExtraSelection()
                fmt = QTextCharFormat()
                fmt.setUnderlineStyle(QTextCharFormat.WaveUnderline)
                fmt.setUnderlineColor(QColor(ERROR_COLOR))
                fmt.setBackground(QColor(212, 42, 60, 28))
                selection.format = fmt
                selection.cursor = cursor
                selections.append(selection)
        self.editor.setExtraSelections(selections)

    def _cursor_at(self, line, col, end_col):
        doc = self.editor.document()
        block = doc.findBlockByNumber(max(0, line - 1))
        if not block.isValid():
            block = doc.lastBlock()
        length = len(block.text())
        start = max(0, min(col - 1, length))
        end = (end_col - 1) if end_col is not None else start + 1
        end = max(start + 1, min(end, length))
        if start >= length:  # at the end of the line: mark the last character
            start = max(0, length - 1)
            end = max(length, start + 1)
        if length == 0:
            return None
        cursor = QTextCursor(block)
        cursor.setPosition(block.position() + start)
        cursor.setPosition(block.position() + end, QTextCursor.KeepAnchor)
        return cursor

    def clear_error(self):
        self.error_label.hide()
        self.error_label.clear()
        self.editor.setExtraSelections([])

    def show_notes(self, notes, printed="", earlier=0, out="", links=()):
        """What the run did that the text does not say (plain text each), what the code
        printed (its first and last lines when long), the value of its last line as a
        notebook shows it (`Out:`), links [(href, text)] and, after Run as Python, how
        many cells are kept to run again before the next."""
        parts = []
        if out:
            shown = html.escape(out if len(out) <= 600 else out[:600] + "…").replace("\n", "<br>")
            parts.append(f"<b>Out:</b> <span style=\"font-family:'{MONO_FAMILY}'\">{shown}</span>")
        parts += [f"<a href='{href}'>{html.escape(text)}</a>" for href, text in links]
        parts += [html.escape(note) for note in notes]
        lines = printed.rstrip("\n").splitlines()
        if lines:
            if len(lines) > PRINTED_LINES:
                cut = len(lines) - PRINTED_LINES + 1
                lines = lines[: PRINTED_LINES // 2] + [f"… {cut} more lines …"] + lines[-(PRINTED_LINES // 2 - 1) :]
            shown = "<br>".join(html.escape(line) for line in lines)
            parts.append(f"Your code printed:<br><span style=\"font-family:'{MONO_FAMILY}'\">{shown}</span>")
        if earlier:
            cells = "cell" if earlier == 1 else "cells"
            parts.append(f"{earlier} {cells} kept for your next Run as Python (<a href='forget'>forget</a>)")
        self.note_label.setText("<br>".join(parts))
        self.note_box.setVisible(bool(parts))
        self.note_label.adjustSize()

    def note_text(self):
        """The notes under the editor as plain text ('' when there are none)."""
        if self.note_box.isHidden():
            return ""
        from PySide6.QtGui import QTextDocument

        doc = QTextDocument()
        doc.setHtml(self.note_label.text())
        return doc.toPlainText()

    def _note_link(self, link):
        if link == "forget":
            self.forgetCellsRequested.emit()
        else:
            self.noteLinkClicked.emit(link)

    def error_text(self):
        """The message under the editor ('' when there is none)."""
        return "" if self.error_label.isHidden() else self.error_label.text()

    # -- the inputs table ---------------------------------------------------------------

    def _doc_changed(self, event, *details):
        if event == "node_changed" and details[1] == "label":
            self.refresh_inputs()

    def refresh_inputs(self):
        self.inputs.refresh()

    def table_values(self):
        """{name: value} of the inputs listed in the table."""
        doc = self.session.doc
        return {n.label: n.value for n in doc.nodes.values() if n.kind == "input" and n.label}

    def run_values(self, text=None):
        """The values to parse `text` with: table values of its free names."""
        return free_values(self.text() if text is None else text, self.table_values())
