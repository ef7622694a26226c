"""NumberField: the Training panel's box for one real-valued setting.

A QDoubleSpinBox rounds to a fixed number of decimals and clamps to its range
without a word: `1e-6` typed into a five-decimal learning-rate box became
16.00000 (the `e` dropped), and 0.000001 fell back to the minimum. This box
reads what Python's `float()` reads (`0.01`, `1e-6`, `2.5E+3`), writes numbers
the way `:g` does (0.0001, 1e-06, 1e+06), keeps every digit it is given, and
leaves the limits to the core: `check(value)` returns a problem in words, or
None (core.training.config.setting_problem). Junk or a refused number is
said -- the box turns red, its tooltip and the `problem` signal name the field
and what went wrong -- and the box shows the last good value again.

The arrows step by a tenth of the value's leading digit (0.01 -> 0.011), or by
`zero_step` from 0.
"""

import math
import sys

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QAbstractSpinBox

from app.fields import FloatTextBox

BIG = sys.float_info.max
ERROR_STYLE = "QDoubleSpinBox { border: 1px solid #dc2626; background: #fef2f2; }"


def format_setting(value):
    """A setting as the box shows it: six significant digits, scientific when tiny or huge."""
    return format(value, ".6g")


class NumberField(FloatTextBox):  # reads what float() reads (app/fields.py)
    """A spin box for a float that takes scientific notation; see the module docstring."""

    edited = Signal(float)  # a new value the check accepted (typed, stepped or set)
    problem = Signal(str)  # "Learning rate: 'abc' is not a number; type e.g. 0.01 or 1e-6"

    def __init__(self, name, tip, check=None, zero_step=0.1, parent=None):
        super().__init__(parent)
        self.name = name  # the field's name on screen
        self.tip = tip
        self.check = check
        self.zero_step = zero_step
        self.setDecimals(323)  # the most Qt allows: no rounding of any double
        self.setRange(-BIG, BIG)  # the core's check decides, and says why
        self.setKeyboardTracking(False)
        self.setAccelerated(True)
        self.setToolTip(tip)
        self._last_good = 0.0
        self._junk_reported = False  # this typed text has been complained about
        self.valueChanged.connect(self._on_value)
        self.lineEdit().textEdited.connect(self._on_typing)

    # -- text <-> number ------------------------------------------------------------

    def textFromValue(self, value):
        return format_setting(value)

    def fixup(self, text):
        # called on Enter or focus-out with text that is not a number: say so, then Qt shows the old value
        shown = text.strip()
        if shown and not self._junk_reported:  # Qt may ask twice for one Enter
            self._junk_reported = True
            self.report(f"{self.name}: {shown!r} is not a number; type e.g. 0.01 or 1e-6")
        return text

    def stepBy(self, steps):
        value = self.value()
        if value == 0.0:
            self.setValue(steps * self.zero_step)
            return
        unit = 10.0 ** math.floor(math.log10(abs(value))) / 10.0
        new = round((value + steps * unit) / unit) * unit
        self.setValue(float(format(new, ".12g")))

    def sizeHint(self):
        # room for a typical entry such as -0.000123456 (Qt would size for the widest of the 323 decimals)
        hint = super().sizeHint()
        hint.setWidth(self.fontMetrics().horizontalAdvance("-0.000123456") + 34)
        return hint

    def minimumSizeHint(self):
        hint = super().minimumSizeHint()
        hint.setWidth(self.fontMetrics().horizontalAdvance("1e-06") + 30)
        return hint

    def stepEnabled(self):
        return QAbstractSpinBox.StepUpEnabled | QAbstractSpinBox.StepDownEnabled

    def _on_typing(self, _text):
        self._junk_reported = False

    # -- showing and checking ---------------------------------------------------------

    def show_value(self, value):
        """Show a value from the config (no signal) and clear any complaint."""
        self.blockSignals(True)
        try:
            self.setValue(value)
        finally:
            self.blockSignals(False)
        self._last_good = value
        self._clear()

    def _on_value(self, value):
        message = self.check(value) if self.check is not None else None
        if message:
            self.report(message)
            self.show_value_keeping_complaint(self._last_good)
            return
        self._last_good = value
        self._clear()
        self.edited.emit(value)

    def show_value_keeping_complaint(self, value):
        self.blockSignals(True)
        try:
            self.setValue(value)
        finally:
            self.blockSignals(False)

    def report(self, message):
        self.setStyleSheet(ERROR_STYLE)
        self.setToolTip(f"{message}\n\n{self.tip}")
        self.problem.emit(message)

    def _clear(self):
        self.setStyleSheet("")
        self.setToolTip(self.tip)
