"""The quiz score, for the class to see: one row per lesson, and Save.

The numbers are `LessonQuiz.summary()` (core/lessons/quiz.py); Save writes that
same summary as JSON through core.files.atomic, so a teacher can keep a
session's score next to the class's notes.
"""

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from app.lessons.reading import TEXT_PX, TITLE_PX
from app.look.theme import set_base_font

COLUMNS = ("Lesson", "Asked", "Right first time", "After a hint", "Revealed")


class ScoreDialog(QDialog):
    """The score so far; `save(path)` writes it (Save… asks where)."""

    def __init__(self, quiz, parent=None):
        super().__init__(parent)
        self.quiz = quiz
        self.setWindowTitle("Quiz score")
        layout = QVBoxLayout(self)
        self.heading = QLabel()
        set_base_font(self.heading, TITLE_PX, bold=True)
        layout.addWidget(self.heading)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        set_base_font(self.table, TEXT_PX)
        layout.addWidget(self.table, 1)
        self.note = QLabel()
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        buttons = QDialogButtonBox(QDialogButtonBox.Save | QDialogButtonBox.Close)
        buttons.button(QDialogButtonBox.Save).setText("Save…")
        buttons.button(QDialogButtonBox.Save).setToolTip("Save the score as a JSON file")
        buttons.accepted.connect(self.save_dialog)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.refresh()
        self.resize(720, 360)

    def refresh(self):
        summary = self.quiz.summary()
        rows = summary["lessons"] + [dict(summary["total"], title="Total")]
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            cells = (row["title"], row["asked"], row["first"], row["hint"], row["revealed"])
            for c, value in enumerate(cells):
                item = QTableWidgetItem(str(value))
                if c:
                    item.setTextAlignment(Qt.AlignCenter)
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        total = summary["total"]
        self.heading.setText(
            f"{total['first']} of {total['asked']} right first time" if total["asked"] else "No answers yet"
        )
        self.note.setText(
            ""
            if total["asked"]
            else "Answer a lesson's questions (tick “Quiz” to predict each grad too) and the score shows here."
        )
        return summary

    def save(self, path):
        self.quiz.save(path)
        self.note.setText(f"Saved to {path}.")

    def save_dialog(self):
        path, _ = QFileDialog.getSaveFileName(self, "Save the quiz score", "quiz-score.json", "JSON files (*.json)")
        if not path:
            return False
        try:
            self.save(path)
        except OSError as e:
            self.note.setText(f"Could not save {path}: {e.strerror or e}. The score is still here; try another folder.")
            return False
        return True
