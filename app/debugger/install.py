"""Install the backprop debugger in the main window: a dock along the bottom, the
Debug menu, its shortcuts."""

from PySide6.QtCore import Qt


def install_debugger(window):
    """The backprop debugger: a dock along the bottom, the Debug menu, its shortcuts."""
    from app.stepper_panel import StepperPanel
    window.debugger = StepperPanel(window.session, window.scene, window.view, window.theme)
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
    # the quiz hides the grads to predict on the canvas; the inspector must not show them either
    window.inspector.conceals = lambda nid: nid in getattr(window.scene, "_masked", ())
    window.debugger.stepped.connect(lambda _record: window.inspector.refresh())
    window.debugger.controller.quizAnswered.connect(lambda *_: window.inspector.refresh())
    window.debugger.stepped.connect(lambda _record: dock.isVisible() or dock.show())
