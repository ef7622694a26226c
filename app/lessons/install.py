"""Install the classroom in the main window: the Lessons dock and menu, View → Theme /
Scale / Presenter Mode, Help → Welcome, the window icon, and tool tips on the shell's
own actions. Presenter mode's layout is app/lessons/presenter_layout.py.

Plain functions taking the `MainWindow`; install_classroom returns what it makes (the
window keeps each as a field of the same name).
"""

from typing import NamedTuple

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QComboBox

from app.lessons.opening import show_lessons, show_welcome
from app.lessons.panel import LessonsPanel
from app.lessons.presenter_chrome import install_presenter_menu
from app.lessons.presenter_layout import (
    PresenterFit,
    presenter_canvas,
    presenter_changed,
    presenter_layout,
    readable_zoom,
)
from app.lessons.side_fit import SideFit, lesson_room
from app.look.presenter import Appearance


class Classroom(NamedTuple):
    """What install_classroom makes."""

    appearance: Appearance
    lessons: LessonsPanel
    presenter_fit: PresenterFit
    scale_box: QComboBox
    side_fit: SideFit  # out of presenter mode: the step whole in a side dock, in pages if it must


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
    from PySide6.QtWidgets import QMenu

    from app.files.desktop_entry import app_icon
    from app.look.presenter import KEEP_PROPERTY
    from app.look.theme import PALETTE_TITLES, SCALES

    window.setWindowIcon(app_icon())
    appearance = Appearance(window, arrange=lambda: presenter_layout(window))
    lessons = LessonsPanel(window)
    scale_box = QComboBox()
    area_dock = "editor" if "editor" in window.docks else None
    dock = window.add_dock("lessons", "Lessons", lessons, Qt.LeftDockWidgetArea, tabify_with=area_dock)
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
            lambda: show_lessons(window),
            "Ctrl+Shift+L",
            "lessons panel",
            "Show the guided lessons (Ctrl+Shift+L)",
        ),
        (
            "&Next Step",
            lessons.next,
            ["PgDown", "Alt+Right"],
            "lesson next",
            "Run the lesson's next step (Page Down, Alt+Right; a presenter's clicker works)",
        ),
        (
            "&Previous Step",
            lessons.back,
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
    lessons.busyChanged.connect(lambda busy: lesson_controls(window.actions, lessons))
    lessons.stepShown.connect(lambda _i: lesson_controls(window.actions, lessons))
    lessons.pageShown.connect(lambda *_: lesson_controls(window.actions, lessons))
    lessons.stepShown.connect(lambda _i: presenter_canvas(window))
    # the lesson's room follows the step, the window's size and the scale
    fit = PresenterFit(window)
    side_fit = SideFit(window, lessons, appearance)
    lessons.stepShown.connect(lambda _i: fit.request())
    lessons.busyChanged.connect(lambda _b: fit.request())
    lessons.roomChanged.connect(fit.request)
    lessons.roomChanged.connect(lambda: QTimer.singleShot(0, lambda: lesson_room(window)))
    lesson_controls(window.actions, lessons)
    debugger = getattr(window, "debugger", None)
    if debugger is not None:  # stepping in presenter mode: digits readable from the back row
        debugger.stepped.connect(lambda _record: appearance.presenting and readable_zoom(window))
    quiz = debugger.actions.get("quiz") if debugger is not None else None
    if quiz is not None:
        quiz.toggled.connect(lessons.show_quiz_state)

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
        action.triggered.connect(lambda checked=False, n=name: appearance.set_palette(n))
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
        action.triggered.connect(lambda checked=False, f=factor: appearance.set_scale(f))
        scales.addAction(action)
        scale_menu.addAction(action)
        window.actions[f"scale {factor:g}"] = action
    scale_menu.addSeparator()
    a(
        "View",
        "&Larger",
        lambda: appearance.step_scale(+1),
        "Ctrl+Shift+=",
        key="larger",
        tip="Everything one step larger (Ctrl+Shift+=)",
    )
    a(
        "View",
        "S&maller",
        lambda: appearance.step_scale(-1),
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
        appearance.toggle_presenter,
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
    leave.triggered.connect(lambda: appearance.set_presenter(False))
    window.addAction(leave)
    window.actions["leave presenter"] = leave
    leave.setToolTip("Back to the everyday window (Esc)")
    appearance.presenterChanged.connect(lambda on: presenter_changed(window, on))
    appearance.changed.connect(lambda: appearance_changed(window.actions, appearance, scale_box))
    appearance.changed.connect(fit.request)

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
    a(
        "Help",
        "&Welcome…",
        lambda: show_welcome(window),
        key="welcome",
        tip="Lessons, examples and recent files to start from",
    )
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
    scale_box.setObjectName("scale-box")
    scale_box.setToolTip("How large everything is drawn: 1× to 3× (View → Scale)")
    for factor in SCALES:
        scale_box.addItem(f"{factor:g}×", factor)
    scale_box.activated.connect(lambda i: appearance.set_scale(scale_box.itemData(i)))
    window.actions["presenter scale"] = window.toolbar.addWidget(scale_box)
    install_presenter_menu(window)  # the toolbar's first button in presenter mode: the hidden menu bar's menus
    window.output_label.setProperty(KEEP_PROPERTY, True)
    appearance_changed(window.actions, appearance, scale_box)

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
    return Classroom(appearance, lessons, fit, scale_box, side_fit)


def lesson_controls(actions, panel):
    """Next / Back in the menu and the toolbar as the panel's own buttons are."""
    actions["lesson next"].setEnabled(panel.next_button.isEnabled())
    actions["lesson back"].setEnabled(panel.back_button.isEnabled())


def appearance_changed(actions, look, scale_box):
    """The Theme and Scale menus' ticks and the toolbar's scale box, as `look` is now."""
    name, factor = look.current_palette, look.current_scale
    for key, action in actions.items():
        if key.startswith("theme "):
            action.setChecked(key == f"theme {name}")
        elif key.startswith("scale "):
            action.setChecked(abs(float(key[6:]) - factor) < 1e-9)
    index = scale_box.findData(factor)
    if index < 0:
        scale_box.addItem(f"{factor:g}×", factor)
        index = scale_box.count() - 1
    scale_box.setCurrentIndex(index)


def _has_tip(action):
    """Has the action a tool tip of its own? (Qt falls back to the text.)"""
    tip = action.toolTip().strip()
    plain = action.text().replace("&&", "\0").replace("&", "").replace("\0", "&").replace("…", "")
    return bool(tip) and tip.rstrip(".").strip() != plain.rstrip(".").strip()
