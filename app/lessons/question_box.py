"""A step's question: the prompt, an answer box, Check, and the verdict.

The box only shows; the panel asks the runner (`runner.check_answer`) whether
the typed answer is right and how the engine gets it, then hands the
explanation back here to be shown under the box.
"""

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QLineEdit, QPushButton, QScrollArea, QVBoxLayout

from app.lessons.reading import TEXT_PX
from app.look.theme import set_base_font


class QuestionBox(QFrame):
    """Prompt, answer and Check; the panel connects `answer.returnPressed` and
    `check_button.clicked` to its own `check`."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setFrameShape(QFrame.StyledPanel)
        q = QVBoxLayout(self)
        q.setContentsMargins(8, 6, 8, 6)
        self.prompt = QLabel()
        self.prompt.setWordWrap(True)
        set_base_font(self.prompt, TEXT_PX, bold=True)
        row = QHBoxLayout()
        self.answer = QLineEdit()
        self.answer.setPlaceholderText("your answer, e.g. -1.5 or 3/4")
        self.answer.setToolTip("Type a number; fractions like 3/4 work too. Enter checks it")
        set_base_font(self.answer, TEXT_PX)
        self.check_button = QPushButton("Check")
        self.check_button.setToolTip("Compare your answer with the engine's (Enter)")
        self.reveal_button = QPushButton("Show me")
        self.reveal_button.setToolTip("Show the answer and how the engine gets it (scored as revealed)")
        row.addWidget(self.answer, 1)
        row.addWidget(self.check_button)
        row.addWidget(self.reveal_button)
        self.result = QLabel()
        self.result.setWordWrap(True)
        self.result.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.result.setAlignment(Qt.AlignLeft | Qt.AlignTop)
        set_base_font(self.result, TEXT_PX - 1)
        # a long worked answer scrolls instead of being cut off
        self.result_area = QScrollArea()
        self.result_area.setWidgetResizable(True)
        self.result_area.setFrameShape(QFrame.NoFrame)
        self.result_area.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.result_area.setWidget(self.result)
        self.result_area.setMaximumHeight(260)
        self.result_area.hide()
        q.addWidget(self.prompt)
        q.addLayout(row)
        q.addWidget(self.result_area)

    def ask(self, prompt):
        """A new question: its prompt, an empty answer and no verdict yet."""
        self.prompt.setText(prompt)
        self.answer.clear()
        self.result.clear()
        self.result_area.hide()

    def show_result(self, explanation, color, factor=1.0):
        """The verdict (the explanation's first line) in `color`, the working below it;
        `factor` < 1 sets it a little smaller (presenter mode, a long working beside
        the text: smaller rather than cut; the label's own font, which the scale
        manages, stays as it is)."""
        self._shown = (explanation, color)
        self._factor = factor
        self._part = None
        self.result.setText(self._html(explanation.splitlines(), True))
        self.result_area.show()
        self.result_area.verticalScrollBar().setValue(0)

    def _html(self, lines, first, more=None):
        """The verdict's `lines` as shown: the first line of the whole in bold and its
        colour (`first`: these lines start it), the working in monospace, a `more` line."""
        _explanation, color = self._shown
        head = f"<b style='color:{color}'>{_html(lines[0])}</b>" if first and lines else ""
        rest = lines[1:] if first else lines
        mono = "font-family:'DejaVu Sans Mono'"
        body = "<br>".join(_html(line) for line in rest)
        html = head + ("<br>" if head and body else "") + (f"<span style='{mono}'>{body}</span>" if body else "")
        if more:
            html += f"<br><i>{_html(more)}</i>"
        factor = getattr(self, "_factor", 1.0)
        if factor < 1.0:
            px = max(1, round(self.result.font().pixelSize() * factor))
            html = f"<div style='font-size:{px}px'>{html}</div>"
        return html

    def result_height(self, lines, more=False, first=True):
        """Height the verdict's `lines` (a page of them; `first`: the first page) take
        at the area's width."""
        probe = QLabel()
        probe.setWordWrap(True)
        probe.setFont(self.result.font())
        probe.setText(self._html(lines, first, "▼ part 9 of 9: More ▼ shows the rest" if more else None))
        width = max(1, self.result_area.viewport().width())
        return probe.heightForWidth(width) + 2 * self.result_area.frameWidth() + 12

    def show_lines(self, lines, more=None, first=True):
        """A page of the verdict (None: the whole of it; `first`: its first page), with
        its `more` line."""
        shown = getattr(self, "_shown", None)
        if shown is None:
            return
        lines = shown[0].splitlines() if lines is None else lines
        self._part = (lines, more, first)
        self.result.setText(self._html(lines, first, more))
        self.result_area.verticalScrollBar().setValue(0)

    def scale_result(self, factor):
        """The verdict shown again at `factor` of its size (1.0: as the scale sets it)."""
        shown = getattr(self, "_shown", None)
        if shown is not None and self.result_area.isVisible():
            part = self._part
            self.show_result(*shown, factor=factor)
            if part is not None:
                self.show_lines(*part)


def _html(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
