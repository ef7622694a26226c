"""ExactFloatField: a box for one float64 that shows and takes every digit (shared by the
node editor on the canvas, the inspector and the inputs table).

A QDoubleSpinBox rounds to its decimals: the node editor's six turned the
lecture's bias b = 6.8813735870195432 into 6.881374 on an Enter that edited
nothing, and o moved from 0.70710678 to 0.70710699. This box shows a number as
Python's `repr` does -- the shortest text that reads back as the same float
(6.881373587019543, 2.0, 1e-06) -- and reads what `float()` reads, so what it
shows is exactly the document's number, and Enter on it changes nothing.
"""

import math
import sys

from PySide6.QtCore import QSize
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import QDoubleSpinBox

BIG = sys.float_info.max


def exact_text(value: float) -> str:
    """The shortest text that reads back as exactly this float ('6.881373587019543')."""
    return repr(float(value))


class FloatTextBox(QDoubleSpinBox):
    """A spin box that reads what `float()` reads (1e-6, inf refused as not finite):
    text that is not a number yet is Intermediate, never silently replaced."""

    def valueFromText(self, text: str) -> float:
        try:
            return float(text.strip())
        except ValueError:
            return self.value()

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        try:
            number = float(text.strip())
        except ValueError:
            return QValidator.Intermediate, text, pos
        return (QValidator.Acceptable if math.isfinite(number) else QValidator.Intermediate), text, pos


class ExactFloatField(FloatTextBox):
    """A spin box for a float64: shows `exact_text`, takes scientific notation, never rounds."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setDecimals(323)  # the most Qt allows: it rounds no double
        self.setRange(-BIG, BIG)
        self.setSingleStep(0.1)
        self.setKeyboardTracking(False)

    def textFromValue(self, value: float) -> str:
        return exact_text(value)

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()  # Qt sizes for 323 decimals: ask for a typical double's room
        hint.setWidth(self.fontMetrics().horizontalAdvance("-6.881373587019543") + 34)
        return hint

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        hint.setWidth(self.fontMetrics().horizontalAdvance("-0.000") + 30)
        return hint
