"""The backprop debugger dock (the "stepper panel"); the code lives in `app.debugger`.

    from app.stepper_panel import StepperPanel
    panel = StepperPanel(window.session, window.scene, window.view)
    panel.reset(); panel.step(); panel.explanation_text()

See app/debugger/panel.py for the public API a lesson can drive.
"""

from app.debugger.controller import BACKWARD, FORWARD, IDLE, DebuggerController
from app.debugger.panel import DebuggerPanel

StepperPanel = DebuggerPanel

__all__ = ["StepperPanel", "DebuggerPanel", "DebuggerController", "IDLE", "FORWARD", "BACKWARD"]
