"""The few label styles every box of the Training panel shares."""

from PySide6.QtWidgets import QFrame, QLabel


def heading(text):
    """A column heading in the Playground's small capitals: DATA, NETWORK, OUTPUT."""
    label = QLabel(text)
    label.setStyleSheet("color: #6b7280; font-weight: bold; font-size: 11px; letter-spacing: 1px;")
    return label


def caption(text):
    """The grey name in front of a control."""
    label = QLabel(text)
    label.setStyleSheet("color: #4b5563;")
    return label


def vline():
    """A thin rule between two columns."""
    line = QFrame()
    line.setFrameShape(QFrame.VLine)
    line.setStyleSheet("color: #e5e7eb;")
    return line


def set_silently(widgets, apply):
    """Call apply() with the widgets' signals blocked: showing a value is not editing it."""
    for w in widgets:
        w.blockSignals(True)
    try:
        apply()
    finally:
        for w in widgets:
            w.blockSignals(False)
