"""The backprop debugger: step through `_backward` calls with the chain rule in numbers.

    controller.py      DebuggerController: owns the Backward/ForwardStepper of the
                       session's output, maps Values to node ids, drives the scene
    explain.py         names for unlabelled nodes, and the explanation as rich text
    step_list.py       the step list (a table model over stepper.order)
    gradcheck_view.py  numeric vs analytic gradient of every leaf
    panel.py           DebuggerPanel: the dock that puts it all together
"""

from app.debugger.controller import DebuggerController
from app.debugger.panel import DebuggerPanel

__all__ = ["DebuggerController", "DebuggerPanel"]
