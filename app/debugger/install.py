"""Install the backprop debugger in the main window: a dock along the bottom, the
Debug menu, its shortcuts."""

from PySide6.QtCore import Qt

from app.debugger.canvas import FORWARD


def install_debugger(window):
    """The backprop debugger: a dock along the bottom, the Debug menu, its shortcuts."""
    from app.debugger.panel import DebuggerPanel
    window.debugger = DebuggerPanel(window.session, window.scene, window.view, window.theme)
    dock = window.add_dock("debugger", "Debugger — step through backprop", window.debugger,
                         Qt.BottomDockWidgetArea)
    menu = window.menu("Debug")
    groups = (("step", "step back", "run to end", "run to selected", "play"),
              ("forward step", "forward back", "forward all"),
              ("toggle breakpoint", "quiz"), ("reset", "stop"))
    for group in groups:
        for key in group:
            action = window.debugger.actions[key]
            action.setShortcutContext(Qt.WindowShortcut)
            menu.addAction(action)
            window.actions[f"debug {key}"] = action
        menu.addSeparator()
    menu.addAction(dock.toggleViewAction())
    window.debugger.controller.message.connect(window.show_message)
    # what the canvas hides (a grad to predict, a value not computed yet), the inspector hides too
    window.inspector.conceals = lambda nid: concealed(window, nid)
    window.debugger.stepped.connect(lambda _record: window.inspector.refresh())
    window.debugger.controller.quizAnswered.connect(lambda *_: window.inspector.refresh())
    window.debugger.stepped.connect(lambda _record: dock.isVisible() or dock.show())


def concealed(window, nid):
    """Why the inspector must not show node nid's numbers now: {} when it may,
    else {'grad': why} or {'grad': why, 'data': why}."""
    if nid not in getattr(window.scene, "_masked", ()):
        return {}
    controller = window.debugger.controller
    if controller.phase != FORWARD:
        return {"grad": "quiz: predict it in the debugger"}
    value = window.session.value(nid)
    pending = controller.forward_stepper is not None and value is not None \
        and not controller.forward_stepper.computed(value)
    if pending:
        reason = "the forward pass has not computed it yet"
        return {"grad": reason, "data": reason}
    return {"grad": "the backward pass comes after the forward pass"}
