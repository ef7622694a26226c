"""Regression guard for the PySide6 6.12.0 / Python 3.11 abort.

In 6.12.0 every call of a void C++ method dropped one reference to None; after a
few thousand calls CPython aborts with "Fatal Python error: none_dealloc". We pin a
release without the bug (pyproject.toml); this test fails loudly if it comes back.
"""

import subprocess
import sys

CHECK = r"""
import os, sys
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from PySide6.QtWidgets import QApplication, QGraphicsRectItem
app = QApplication([])
item = QGraphicsRectItem(0, 0, 10, 10)
before = sys.getrefcount(None)
for i in range(20000):
    item.setPos(i % 100, i % 7)
    item.setZValue(i % 3)
after = sys.getrefcount(None)
print(before, after)
sys.exit(0 if after >= before - 10 else 3)
"""


def test_void_calls_do_not_drop_references_to_none():
    # In a subprocess: with the bug the interpreter aborts, which must fail this test,
    # not kill the whole test session.
    result = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, (
        f"PySide6 drops references to None (rc={result.returncode}): {result.stdout} {result.stderr[-500:]}"
    )


def test_pinned_pyside_version_is_not_the_broken_one():
    import PySide6

    assert not PySide6.__version__.startswith("6.12.0")
