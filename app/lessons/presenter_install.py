"""Install the classroom's part of the window itself: View → Theme / Scale / Presenter
Mode (and Esc to leave it), File → Export Lesson Slides…, the toolbar's lesson moves,
presenter button and scale box, and where the lesson's dock sits (a side column down
to the window's bottom, or under the canvas in presenter mode) as steps are shown.

Plain functions taking the `MainWindow`: they arrange the window's own menus, toolbar
and docks (tests/app/test_main_window_fields.py: WINDOW_PARTS). The Lessons panel, its
dock and menus are app/lessons/install.py's; presenter mode's layout is
app/lessons/presenter_layout.py, its window chrome app/lessons/presenter_chrome.py.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QComboBox

from app.lessons.presenter_chrome import install_presenter_menu
from app.lessons.presenter_layout import (
    presenter_canvas,
    presenter_changed,
    presenter_layout,
    readable_zoom,
    size_presenter_docks,
)
from app.lessons.side_fit import SideFit, in_side_dock, lesson_room, reach_bottom
from app.lessons.slides import export_slides_dialog
from app.look.presenter import KEEP_PROPERTY, Appearance
from app.look.theme import PALETTE_TITLES, SCALES

PALETTE_TIPS = {
    "light": "Dark text on light grey: the everyday look",
    "dark": "Light text on dark grey, for a dim room",
    "high-contrast": "Black on white with strong colours: for projectors",
}


class Presenting(NamedTuple):
    """What install_presenter makes (the window keeps each as a field of the same name)."""

    scale_box: QComboBox  # the toolbar's scale: 1x to 3x
    side_fit: SideFit  # out of presenter mode: the step whole in a side dock, in pages if it must


def install_presenter(window: Any) -> Presenting:
    """The window's side of the classroom (see the module's docstring): the window's
    `appearance`, `presenter_fit`, `lessons` and `opening` are made already."""
    appearance, lessons, fit = window.appearance, window.lessons, window.presenter_fit
    lessons.stepShown.connect(lambda _i: presenter_canvas(window))
    # the lesson's room follows the step, the window's size and the scale
    side_fit = SideFit(window, lessons, appearance)
    lessons.stepShown.connect(lambda _i: fit.request())
    lessons.busyChanged.connect(lambda _b: fit.request())
    lessons.roomChanged.connect(fit.request)
    lessons.roomChanged.connect(lambda: QTimer.singleShot(0, lambda: lesson_room(window)))
    window.opening.shown.connect(lambda: lessons_shown(window))
    # stepping in presenter mode: digits readable from the back row
    window.debugger.stepped.connect(lambda _record: appearance.presenting and readable_zoom(window))

    _theme_menus(window, appearance)
    presenter = window.add_action(
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
    leave.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    leave.setEnabled(False)
    leave.triggered.connect(lambda: appearance.set_presenter(False))
    window.addAction(leave)
    window.actions["leave presenter"] = leave
    leave.setToolTip("Back to the everyday window (Esc)")
    scale_box = QComboBox()
    appearance.presenterChanged.connect(lambda on: presenter_changed(window, on))
    appearance.changed.connect(lambda: appearance_changed(window.actions, appearance, scale_box))
    appearance.changed.connect(fit.request)

    window.add_action(
        "File",
        "Export Lesson &Slides…",
        lambda: export_slides_dialog(window),
        key="export slides",
        tip="The lesson's current step, or a whole backward pass, as slides: a PNG per step, one PDF, an animated GIF",
    )
    _before_quit(window, ("open lesson", "export slides"))

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
    return Presenting(scale_box, side_fit)


def _theme_menus(window: Any, appearance: Appearance) -> None:
    """View → Theme (in place of View → Dark Theme) and View → Scale, with Larger and Smaller."""
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
        action.setToolTip(PALETTE_TIPS[name])
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
    window.add_action(
        "View",
        "&Larger",
        lambda: appearance.step_scale(+1),
        "Ctrl+Shift+=",
        key="larger",
        tip="Everything one step larger (Ctrl+Shift+=)",
    )
    window.add_action(
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


def _before_quit(window: Any, keys: tuple[str, ...]) -> None:
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


def lessons_shown(window: Any) -> None:
    """The Lessons dock was shown (Opening.shown): in a side column it reaches the
    window's bottom now, not a turn later; opened during presenter mode the lesson goes
    under the canvas, as presenter mode arranges it, not into the side column (where
    2x text is cut to a few letters a line)."""
    if in_side_dock(window):
        reach_bottom(window)
    dock = window.docks["lessons"]
    if window.appearance.presenting and window.dockWidgetArea(dock) != Qt.DockWidgetArea.BottomDockWidgetArea:
        presenter_layout(window)
        presenter_canvas(window)
        QTimer.singleShot(0, window, lambda: size_presenter_docks(window))


def appearance_changed(actions: dict[str, Any], look: Appearance, scale_box: QComboBox) -> None:
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
