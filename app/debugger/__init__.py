"""The backprop debugger: step through `_backward` calls with the chain rule in numbers.

controller.py      DebuggerController: the Qt adapter over core's DebugSession
                   (core/debugger/session.py, which decides every move): the
                   play timer, the signals, each Move drawn on the scene
canvas.py          CanvasSync: what a move looks like on the canvas, at its cost
explain.py         the explanation as rich text (names and headlines: core/debugger/step_names.py)
step_list.py       the step list (a table model over stepper.order)
gradcheck_view.py  numeric vs analytic gradient of every leaf
panel.py           DebuggerPanel: the dock that puts it all together
"""

from app.debugger.controller import DebuggerController
from app.debugger.panel import DebuggerPanel

__all__ = ["DebuggerController", "DebuggerPanel"]
