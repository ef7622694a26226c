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
    window.debugger.stepped.connect(lambda _record: dock.isVisible() or dock.show())
