"""app.show.show in a notebook kernel without `%gui qt`: drawn inline, no window (issue 30 item 2)."""

import sys

from PySide6.QtWidgets import QApplication

import app.show as show_module
from core.engine import Value
from core.notebook import Graph


def test_show_in_a_kernel_draws_inline(qapp, monkeypatch):
    shown = []
    display = type(sys)("IPython.display")
    display.display = shown.append
    monkeypatch.setitem(sys.modules, "IPython.display", display)
    monkeypatch.setattr(show_module, "in_notebook", lambda: True)
    monkeypatch.setattr(show_module, "loop_running", lambda: False)
    before = len(QApplication.topLevelWidgets())
    a = Value(2.0, label="a")
    out = (a * a).tanh()
    out.backward()
    assert show_module.show(out) is None  # returned at once: nothing blocks the kernel
    assert len(shown) == 1 and isinstance(shown[0], Graph) and "0.9993" in shown[0].svg
    assert len(QApplication.topLevelWidgets()) == before  # no window was made
