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
        head, _, rest = explanation.partition("\n")
        body = "<br>".join(_html(line) for line in rest.splitlines())
        mono = "font-family:'DejaVu Sans Mono'"
        html = f"<b style='color:{color}'>{_html(head)}</b>" + (
            f"<br><span style='{mono}'>{body}</span>" if body else ""
        )
        if factor < 1.0:
            px = max(1, round(self.result.font().pixelSize() * factor))
            html = f"<div style='font-size:{px}px'>{html}</div>"
        self.result.setText(html)
        self.result_area.show()
        self.result_area.verticalScrollBar().setValue(0)

    def scale_result(self, factor):
        """The verdict shown again at `factor` of its size (1.0: as the scale sets it)."""
        shown = getattr(self, "_shown", None)
        if shown is not None and self.result_area.isVisible():
            self.show_result(*shown, factor=factor)


def _html(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
