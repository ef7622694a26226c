"""Install the backprop debugger in the main window: a dock along the bottom, the
Debug menu, its shortcuts."""

from PySide6.QtCore import Qt


def install_debugger(services, inspector):
    """The backprop debugger: a dock along the bottom, the Debug menu, its shortcuts; the
    inspector hides what the canvas hides. `services` is the window's (app/services.py).
    Returns the DebuggerPanel (the window keeps it as `window.debugger`)."""
    from app.debugger.panel import DebuggerPanel

    scene = services.scene
    debugger = DebuggerPanel(services.session, scene, services.view, services.theme())
    dock = services.add_dock("debugger", "Debugger — step through backprop", debugger, Qt.BottomDockWidgetArea)
    menu = services.menu("Debug")
    groups = (
        ("step", "step back", "run to end", "run to selected", "play"),
        ("forward step", "forward back", "forward all"),
        ("toggle breakpoint", "quiz", "gradient check"),
        ("reset", "stop"),
    )
    for group in groups:
        for key in group:
            action = debugger.actions[key]
            action.setShortcutContext(Qt.WindowShortcut)
            menu.addAction(action)
            services.actions[f"debug {key}"] = action
        menu.addSeparator()
    menu.addAction(dock.toggleViewAction())
    debugger.controller.message.connect(services.say)
    # what the canvas hides (a grad to predict, a value not computed yet), the inspector hides too
    inspector.conceals = lambda nid: concealed(debugger, scene, nid)
    debugger.stepped.connect(lambda _record: inspector.refresh())
    scene.masksChanged.connect(inspector.refresh)
    debugger.controller.quizAnswered.connect(lambda *_: inspector.refresh())
    debugger.stepped.connect(lambda _record: dock.isVisible() or dock.show())
    debugger.actions["gradient check"].triggered.connect(lambda: dock.isVisible() or dock.show())
    return debugger


def concealed(debugger, scene, nid):
    """Why the inspector must not show node nid's numbers now: {} when it may,
    else {'grad': why} or {'grad': why, 'data': why} (the DebugSession decides)."""
    why = dict(debugger.controller.debug.concealed(nid))
    mask = scene.marks.mask_of(nid)  # a lesson's question or quiz hides it on the canvas
    if mask is not None:
        if mask[0] is not None:
            why.setdefault("data", "hidden on the canvas until it is answered")
        if mask[0] is not None or mask[1] is not None:
            why.setdefault("grad", "hidden on the canvas until it is answered")
    return why
