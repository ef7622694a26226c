"""The few label styles every box of the Training panel shares, and its status line."""

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


class StatusLine(QLabel):
    """The line under the panel: what the run is doing, or what went wrong and how to fix it."""

    def __init__(self, parent=None):
        super().__init__("", parent)
        self.setWordWrap(True)
        self.setToolTip("What the run is doing; problems and how to fix them show here")
        self.setMinimumHeight(24)
        self.last_message = ""

    def show_message(self, text, error=False):
        self.last_message = text
        self.setText(text)
        self.setStyleSheet(
            "background: #fdecea; color: #b91c1c; padding: 4px 8px; border-radius: 4px;"
            if error
            else "color: #374151; padding: 4px 8px;"
        )

    def show_status(self, status, message, steps):
        """The controller's status ('playing' 'paused' 'finished' 'diverged' 'error') in words."""
        if status in ("diverged", "error"):
            self.show_message(message, error=True)
        elif message:
            self.show_message(message)
        elif status == "playing":
            self.show_message("training…")
        elif steps:
            self.show_message(
                f"paused at step {steps:,}: Play continues, Step takes one step; "
                "click a neuron to open its scalar graph, a weight to edit it"
            )
        else:
            self.show_message("ready: press Play to train, or Step to take one step and watch what it changes")
