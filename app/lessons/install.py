"""Install the classroom in the main window: the Lessons dock and menu, View → Theme /
Scale / Presenter Mode, Help → Welcome, the window icon, and tool tips on the shell's
own actions; and presenter mode's dock layout.

Plain functions taking the `MainWindow`; its methods of the same names call them.
"""

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence


class PresenterFit(QObject):
    """Sizes the lesson's dock in presenter mode once the event loop is free, after a
    step is shown, the window is resized or the scale changes (many requests, one fit)."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(0)
        self.timer.timeout.connect(self.fit)
        window.installEventFilter(self)

    def request(self):
        if self.window.appearance.presenting:
            self.timer.start()

    def fit(self):
        if self.window.appearance.presenting:
            self.window._size_presenter_docks()

    def eventFilter(self, watched, event):
        if watched is self.window and event.type() == QEvent.Resize:
            self.request()
        return False


def _before_quit(window, keys):
    """Put File menu actions of ours in their own group above Quit, not under it."""
    menu = window.menus["File"]
    items = menu.actions()
    quit_action = window.actions.get("quit")
    if quit_action not in items:
        return
    at = items.index(quit_action)
    anchor = items[at - 1] if at and items[at - 1].isSeparator() else quit_action
    for key in keys:
        menu.removeAction(window.actions[key])
        menu.insertAction(anchor, window.actions[key])
    menu.insertSeparator(window.actions[keys[0]])


def install_classroom(window):
    """Lessons dock and menu, View → Theme / Scale / Presenter Mode, Help → Welcome,
    the window icon, and tool tips on the shell's own actions."""
    from PySide6.QtGui import QActionGroup
    from PySide6.QtWidgets import QComboBox, QMenu

    from app.files.desktop_entry import app_icon
    from app.lessons.panel import LessonsPanel
    from app.look.presenter import KEEP_PROPERTY, Appearance
    from app.look.theme import PALETTE_TITLES, SCALES

    window.setWindowIcon(app_icon())
    window.appearance = Appearance(window)
    window.lessons = LessonsPanel(window)
    area_dock = "editor" if "editor" in window.docks else None
    dock = window.add_dock("lessons", "Lessons", window.lessons, Qt.LeftDockWidgetArea, tabify_with=area_dock)
    dock.toggleViewAction().setText("&Lessons")
    if area_dock:  # the editor in front: the code that made the graph on screen; the palette is one tab away
        window.docks[area_dock].raise_()
    a = window.add_action
    help_menu = window.menus["Help"]
    lessons_menu = QMenu("&Lessons", help_menu)  # Help → Lessons: the guided track
    lessons_menu.setToolTipsVisible(True)
    for text, slot, keys, key, tip in (
        (
            "&Open Lessons Panel",
            window.show_lessons,
            "Ctrl+Shift+L",
            "lessons panel",
            "Show the guided lessons (Ctrl+Shift+L)",
        ),
        (
            "&Next Step",
            window.lessons.next,
            ["PgDown", "Alt+Right"],
            "lesson next",
            "Run the lesson's next step (Page Down, Alt+Right; a presenter's clicker works)",
        ),
        (
            "&Previous Step",
            window.lessons.back,
            ["PgUp", "Alt+Left"],
            "lesson back",
            "Back to the lesson's step before (Page Up, Alt+Left)",
        ),
    ):
        action = a("Help", text, slot, keys, key=key, tip=tip)
        action.setShortcutContext(Qt.WindowShortcut)
        help_menu.removeAction(action)
        lessons_menu.addAction(action)
    window.actions["lesson next"].setIconText("Next ▶")
    window.actions["lesson back"].setIconText("◀ Back")
    window.lessons.busyChanged.connect(lambda busy: window._lesson_controls())
    window.lessons.stepShown.connect(lambda _i: window._lesson_controls())
    window.lessons.stepShown.connect(lambda _i: window._presenter_canvas())
    # the lesson's room follows the step, the window's size and the scale
    window._presenter_fit = PresenterFit(window)
    window.lessons.stepShown.connect(lambda _i: window._presenter_fit.request())
    window.lessons.busyChanged.connect(lambda _b: window._presenter_fit.request())
    window._lesson_controls()
    debugger = getattr(window, "debugger", None)
    if debugger is not None:  # stepping in presenter mode: digits readable from the back row
        debugger.stepped.connect(lambda _record: window.appearance.presenting and readable_zoom(window))
    quiz = debugger.actions.get("quiz") if debugger is not None else None
    if quiz is not None:
        quiz.toggled.connect(window.lessons.show_quiz_state)

    view = window.menus["View"]
    dark = window.actions.get("dark theme")
    if dark is not None:  # replaced by View → Theme
        view.removeAction(dark)
    theme_menu = view.addMenu("&Theme")
    theme_menu.setToolTipsVisible(True)
    group = QActionGroup(window)
    for name, title in PALETTE_TITLES.items():
        action = QAction(title, window)
        action.setCheckable(True)
        action.setChecked(name == window.theme.palette.name)
        action.setToolTip(
            {
                "light": "Dark text on light grey: the everyday look",
                "dark": "Light text on dark grey, for a dim room",
                "high-contrast": "Black on white with strong colours: for projectors",
            }[name]
        )
        action.triggered.connect(lambda checked=False, n=name: window.appearance.set_palette(n))
        group.addAction(action)
        theme_menu.addAction(action)
        window.actions[f"theme {name}"] = action
    scale_menu = view.addMenu("&Scale")
    scale_menu.setToolTipsVisible(True)
    scales = QActionGroup(window)
    for factor in SCALES:
        action = QAction(f"{factor:g}×", window)
        action.setCheckable(True)
        action.setChecked(factor == window.theme.scale)
        action.setToolTip(f"Draw every font, node and line {factor:g} times as large")
        action.triggered.connect(lambda checked=False, f=factor: window.appearance.set_scale(f))
        scales.addAction(action)
        scale_menu.addAction(action)
        window.actions[f"scale {factor:g}"] = action
    scale_menu.addSeparator()
    a(
        "View",
        "&Larger",
        lambda: window.appearance.step_scale(+1),
        "Ctrl+Shift+=",
        key="larger",
        tip="Everything one step larger (Ctrl+Shift+=)",
    )
    a(
        "View",
        "S&maller",
        lambda: window.appearance.step_scale(-1),
        "Ctrl+Shift+-",
        key="smaller",
        tip="Everything one step smaller (Ctrl+Shift+-)",
    )
    for key in ("larger", "smaller"):
        view.removeAction(window.actions[key])
        scale_menu.addAction(window.actions[key])
    presenter = a(
        "View",
        "&Presenter Mode",
        window.appearance.toggle_presenter,
        "F11",
        key="presenter",
        tip="Full screen, large and high-contrast, without extras (F11; Esc leaves)",
    )
    presenter.setCheckable(True)
    presenter.setIconText("Presenter")
    leave = QAction("Leave Presenter Mode", window)
    leave.setShortcut(QKeySequence("Esc"))
    leave.setShortcutContext(Qt.WindowShortcut)
    leave.setEnabled(False)
    leave.triggered.connect(lambda: window.appearance.set_presenter(False))
    window.addAction(leave)
    window.actions["leave presenter"] = leave
    leave.setToolTip("Back to the everyday window (Esc)")
    window.appearance.presenterChanged.connect(window._presenter_changed)
    window.appearance.changed.connect(window._appearance_changed)
    window.appearance.changed.connect(window._presenter_fit.request)

    from app.lessons.lesson_file import open_lesson_file
    from app.lessons.slides import export_slides_dialog

    a(
        "File",
        "Open &Lesson…",
        lambda: open_lesson_file(window),
        key="open lesson",
        tip="Open a lesson file of your own (JSON, checked line by line) and start it",
    )
    a(
        "File",
        "Export Lesson &Slides…",
        lambda: export_slides_dialog(window),
        key="export slides",
        tip="The lesson's current step, or a whole backward pass, as slides: a PNG per step, one PDF, an animated GIF",
    )
    _before_quit(window, ("open lesson", "export slides"))
    a("Help", "&Welcome…", window.show_welcome, key="welcome", tip="Lessons, examples and recent files to start from")
    help_menu.removeAction(window.actions["welcome"])
    first = help_menu.actions()[0] if help_menu.actions() else None
    help_menu.insertAction(first, window.actions["welcome"])
    help_menu.insertMenu(first, lessons_menu)
    help_menu.insertSeparator(first)

    # the toolbar: lesson moves, presenter mode and its scale at the right end
    window.toolbar.addSeparator()
    window.toolbar.addAction(window.actions["lesson back"])
    window.toolbar.addAction(window.actions["lesson next"])
    window.toolbar.addAction(presenter)
    window.scale_box = QComboBox()
    window.scale_box.setObjectName("scale-box")
    window.scale_box.setToolTip("How large everything is drawn: 1× to 3× (View → Scale)")
    for factor in SCALES:
        window.scale_box.addItem(f"{factor:g}×", factor)
    window.scale_box.activated.connect(lambda i: window.appearance.set_scale(window.scale_box.itemData(i)))
    window.actions["presenter scale"] = window.toolbar.addWidget(window.scale_box)
    window.output_label.setProperty(KEEP_PROPERTY, True)
    window._appearance_changed()

    tips = {
        "quit": "Close the window (unsaved work is asked about first)",
        "undo": "Undo the last edit (Ctrl+Z)",
        "redo": "Redo the edit just undone (Ctrl+Shift+Z)",
        "actual size": "Zoom to 100% (Ctrl+0)",
        "auto backward": "Run backward after every edit, so the grads are always current",
        "legend": "Show what the grad colours and marks mean",
        "shortcuts": "Every keyboard shortcut, read from the menus",
        "about": "Version and what this program is",
    }
    for key, tip in tips.items():
        action = window.actions.get(key)
        if action is not None and not _has_tip(action):
            action.setToolTip(tip)
            action.setStatusTip(tip)
    for dock_widget in window.docks.values():
        toggle = dock_widget.toggleViewAction()
        if not _has_tip(toggle):
            toggle.setToolTip(f"Show or hide the {dock_widget.windowTitle()} panel")
    for menu in window.menus.values():
        menu.setToolTipsVisible(True)
    if not window.find_box.toolTip():
        window.find_box.setToolTip("Type a node's label and press Enter; Enter again finds the next (Ctrl+F)")


def show_lessons(window, lesson_id=None, step=0):
    """Show the Lessons dock; with an id, open that lesson at `step` (0-based)."""
    dock = window.docks["lessons"]
    dock.show()
    dock.raise_()
    opened = True
    if lesson_id is not None:
        opened = window.lessons.open_lesson(lesson_id, step)
    elif window.lessons.runner is None and window.lessons.lessons:
        opened = window.lessons.open_lesson(window.lessons.lessons[0].id)
    if window.appearance.presenting and window.dockWidgetArea(dock) != Qt.BottomDockWidgetArea:
        # opened during presenter mode: the lesson goes under the canvas, as presenter mode
        # arranges it, not into the side column (where 2x text is cut to a few letters a line)
        window.presenter_layout()
        window._presenter_canvas()
        QTimer.singleShot(0, window._size_presenter_docks)
    return opened


def show_welcome(window):
    """The welcome page (Help → Welcome; also at start unless turned off)."""
    from app.help.welcome import WelcomeDialog

    dialog = getattr(window, "_welcome", None)
    if dialog is None:
        dialog = WelcomeDialog(window, window.lessons.lessons)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        dialog.finished.connect(lambda *_: setattr(window, "_welcome", None))
        dialog.lessonChosen.connect(window.show_lessons)
        dialog.fileChosen.connect(window.open_file)
        window._welcome = dialog
    dialog.show()
    # over the lower part of the window, so the graph it introduces stays in sight
    frame = window.frameGeometry()
    dialog.move(frame.center().x() - dialog.width() // 2, max(frame.top(), frame.bottom() - dialog.height() - 24))
    dialog.raise_()
    return dialog


def presenter_keeps_dock(window, key):
    """Which panels stay in presenter mode: the lessons, and the debugger or the
    training panel while they are in use; the others come back on leaving it."""
    if key == "lessons":  # while a lesson runs or opens; an idle list would only take the canvas's room
        return window.lessons.runner is not None or window.lessons.busy
    widget = window.docks[key].widget()
    if key == "debugger":
        quiz = getattr(widget, "actions", {}).get("quiz")
        return getattr(widget, "phase", "idle") != "idle" or bool(quiz and quiz.isChecked())
    return bool(widget.property("presenter_keep"))


def presenter_layout(window):
    """Presenter mode's panels: the canvas across the whole width (a graph reads left
    to right), the lesson under it; panels not in use give up their room. Leaving
    presenter mode restores the layout as it was (QMainWindow.saveState)."""
    for key, dock in window.docks.items():
        if not dock.isHidden() and not dock.isFloating() and not window.presenter_keeps_dock(key):
            dock.hide()
    lessons = window.docks["lessons"]
    if not lessons.isHidden():
        window.addDockWidget(Qt.BottomDockWidgetArea, lessons)
        lessons.raise_()


def size_presenter_docks(window):
    """Presenter mode: the lesson's dock as tall as the step needs (title, every line of
    its text, the network's boundary, the question, its answer box and Next), the canvas
    the rest. Called after every step shown, window resize and scale change."""
    lessons = window.docks["lessons"]
    panel = window.lessons
    if window.appearance.presenting and not lessons.isHidden() and not window.view.isHidden():
        height = window.height()
        chrome = max(0, lessons.height() - panel.height())  # the dock's title bar
        total = window.view.height() + lessons.height()
        scale = window.theme.scale
        boundary = int(min(total * 0.42, 260 * scale))  # a usable boundary on network steps
        wanted = panel.wanted_height(boundary) + chrome
        least = panel.fixed_height() + chrome + int(110 * scale)  # the question, Next, a title and lines
        network = panel.snapshot is not None and panel.snapshot.kind == "network"
        keep = (0.26 if network else 0.32) * height  # the canvas's share (a network's is one neuron)
        most = int(total - max(keep, 120 * scale))
        if wanted > most:  # a long step: the canvas gives a little more, never less than its graph
            most = int(total - max(0.26 * height, 120 * scale, _graph_room(window)))
        room = max(least, min(wanted, most))
        if wanted > most:  # long text: a little smaller rather than cut (never below 0.65 of the scale)
            panel.fit_text(panel.text.viewport().height() + (room - lessons.height()), floor=0.65)
        window.resizeDocks([lessons], [room], Qt.Vertical)
    if window.appearance.presenting:  # a late timer after leaving must not re-fit the restored view
        window.view.fit()
        readable_zoom(window)
    window.lessons.follow()


def _graph_room(window):
    """The canvas height that shows the step's graph whole at the lessons' readable zoom
    (below it the lesson zooms in on the step's nodes and the rest leaves the view), for
    a graph of up to 35 nodes; at most half the window: the lesson's text and question
    come first."""
    from app.lessons.graph_bridge import READABLE_ZOOM

    snapshot = window.lessons.snapshot
    rect = window.scene.items_rect()
    if snapshot is None or not snapshot.show_graph or rect.isEmpty() or len(window.scene.node_items()) > 35:
        return 0  # a graph too big to read whole (a network's loss graph) gets no such room
    view = window.view
    need = (rect.height() + 56) * READABLE_ZOOM + 16
    legend = view.legend
    if legend.isVisible() and (rect.width() + 56) * READABLE_ZOOM > view.viewport().width() - legend.width() - 24:
        need += legend.height() + 24  # too wide to sit beside the legend: above it
    share = 0.4 if snapshot.kind == "network" else 0.5  # a network's one neuron: its text comes first
    return min(int(need), int(window.height() * share))


READABLE_PX = 28  # node digits in presenter mode: read from the back of a lecture hall


def readable_zoom(window, px=READABLE_PX):
    """Presenter mode: never fit a graph so small that its digits fall under `px` pixels
    (Karpathy's neuron fitted whole showed 17-18 px at 2x) while the debugger steps it;
    zoom in instead, on the step's node and operands, and the debugger's step-following
    pans from there."""
    view, scene = window.view, window.scene
    number = scene.theme.font("number").pixelSize()
    if number <= 0 or number * view.zoom() >= px or not scene.node_items():
        return False
    focus = _focus_ids(window)
    items = [scene.node_item(nid) for nid in focus if scene.node_item(nid) is not None]
    if not items:
        return False
    view.set_zoom(px / number)
    rect = items[0].sceneBoundingRect()
    for item in items[1:]:
        rect = rect.united(item.sceneBoundingRect())
    view.centerOn(rect.center())
    return True


def _focus_ids(window):
    """The debugger's step (its node and operands), or its output before the first step.
    A lesson's step keeps the whole graph in view (its text quotes numbers all over
    it; the lesson's own `follow` zooms in on its nodes when they are too small)."""
    debugger = getattr(window, "debugger", None)
    ctrl = getattr(debugger, "controller", None)
    if ctrl is None or ctrl.phase != "backward" or window.lessons.snapshot is not None:
        return []
    record = ctrl.last_record
    if record is not None:
        return [ctrl.nid(record.node)] + [ctrl.nid(c) for c in record.node._prev]
    output = window.session.output_id
    return [output] if output is not None else []


def presenter_canvas(window):
    """In presenter mode a lesson step without a graph (a big network) gets the
    whole window: the canvas would only show an unrelated graph."""
    snapshot = window.lessons.snapshot
    wanted = not (window.appearance.presenting and snapshot is not None and not snapshot.show_graph)
    if window.view.isHidden() == wanted:
        window.view.setVisible(wanted)
        window.output_label.setVisible(wanted)  # the hidden graph's output would mislead
        if wanted:
            QTimer.singleShot(0, window._size_presenter_docks)


def lesson_controls(window):
    panel = window.lessons
    window.actions["lesson next"].setEnabled(panel.next_button.isEnabled())
    window.actions["lesson back"].setEnabled(panel.back_button.isEnabled())


def presenter_changed(window, on):
    window.actions["presenter"].setChecked(on)
    window.actions["leave presenter"].setEnabled(on)
    lessons = window.docks["lessons"]
    window.lessons.set_presenting(on)
    if on and not lessons.isHidden():
        lessons.raise_()
        window._presenter_canvas()
        QTimer.singleShot(0, window._size_presenter_docks)  # once the window has its new size
        QTimer.singleShot(450, window._size_presenter_docks)
    if on:
        window.show_message(
            "Presenter mode: F11 or Esc to leave; View → Scale or the box in the toolbar for the size.", 6000
        )
    else:
        window.view.show()
        window.output_label.show()
        QTimer.singleShot(0, lambda: _restore_view(window))  # once the canvas has its old size back


def _restore_view(window):
    """The view as it was before presenter mode (Appearance keeps it): leaving used
    to fit instead, dropping the zoom to ~50%."""
    saved = window.appearance.view_before
    if saved is None:
        window.view.fit()
        return
    zoom, centre = saved
    window.view.set_zoom(zoom)
    window.view.centerOn(centre)


def appearance_changed(window):
    look = window.appearance
    name, factor = look.current_palette, look.current_scale
    for key, action in window.actions.items():
        if key.startswith("theme "):
            action.setChecked(key == f"theme {name}")
        elif key.startswith("scale "):
            action.setChecked(abs(float(key[6:]) - factor) < 1e-9)
    index = window.scale_box.findData(factor)
    if index < 0:
        window.scale_box.addItem(f"{factor:g}×", factor)
        index = window.scale_box.count() - 1
    window.scale_box.setCurrentIndex(index)


def _has_tip(action):
    """Has the action a tool tip of its own? (Qt falls back to the text.)"""
    tip = action.toolTip().strip()
    plain = action.text().replace("&&", "\0").replace("&", "").replace("\0", "&").replace("…", "")
    return bool(tip) and tip.rstrip(".").strip() != plain.rstrip(".").strip()
