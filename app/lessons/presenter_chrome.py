"""Presenter mode's window chrome: the projector shows the lesson, not the menus.

In presenter mode the menu bar, the status bar and the lesson dock's title bar give
their rows to the lesson's text and the canvas (at 2x on 1280x720 they took 112 of
720 px). The presenter
keeps everything at hand: the toolbar's first button, "☰ Menu", opens every menu
of the menu bar (and "Leave Presenter Mode"), the menus' shortcuts keep working
(the window holds their actions while the bar is hidden), and F11 or Esc leaves
presenter mode, which brings both bars back.

Tabified docks leave their tab strip behind when presenter mode hides them (1-2 px
of "Insp… Hi…" showed over the lesson); `hide_stray_tabs` takes it away.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QTabBar, QToolButton, QWidget

MENU_KEY = "presenter menu"  # window.actions: the toolbar's "☰ Menu" (presenter mode only)
HELD = "presenter_held"  # an action's property: the window holds it while presenter mode hides its menu


def install_presenter_menu(window: Any) -> QToolButton:
    """The toolbar's first button, shown in presenter mode only: every menu of the
    hidden menu bar, and Leave Presenter Mode."""
    button = QToolButton(window.toolbar)
    button.setObjectName("presenter-menu")
    button.setText("☰ Menu")
    button.setToolTip("The menus (hidden in presenter mode); F11 or Esc leaves presenter mode and brings them back")
    button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    menu = QMenu(button)
    menu.setToolTipsVisible(True)
    menu.aboutToShow.connect(lambda: _fill(window, menu))
    button.setMenu(menu)
    actions = window.toolbar.actions()
    if actions:
        action = window.toolbar.insertWidget(actions[0], button)
    else:
        action = window.toolbar.addWidget(button)
    action.setVisible(False)
    window.actions[MENU_KEY] = action
    return button


def _fill(window: Any, menu: QMenu) -> None:
    """The menu bar's menus as they are now, then Leave Presenter Mode (Esc)."""
    menu.clear()
    for top in window.menuBar().actions():
        if top.menu() is not None and top.isVisible():
            menu.addMenu(top.menu())
    menu.addSeparator()
    leave = window.actions.get("leave presenter")
    if leave is not None:
        menu.addAction(leave)


def menu_actions(window: Any) -> list[QAction]:
    """Every action in the menu bar's menus and their submenus."""
    found: list[QAction] = []
    stack = [top.menu() for top in window.menuBar().actions() if top.menu() is not None]
    while stack:
        menu = stack.pop()
        for action in menu.actions():
            if action.menu() is not None:
                stack.append(action.menu())
            elif not action.isSeparator():
                found.append(action)
    return found


def presenter_chrome(window: Any, on: bool) -> None:
    """Hide (on) or bring back the menu bar and the status bar. While they are hidden
    the window holds the menus' actions, so their shortcuts still work (Qt serves a
    shortcut only through a visible widget), and the toolbar shows "☰ Menu"."""
    window.menuBar().setVisible(not on)
    window.statusBar().setVisible(not on)
    lessons = window.docks.get("lessons")
    if lessons is not None:  # its title bar ("Lessons", float, close) too: the step's own title says it
        lessons.setTitleBarWidget(QWidget(lessons) if on else None)
    button = window.actions.get(MENU_KEY)
    if button is not None:
        button.setVisible(on)
    for action in QWidget.actions(window):  # what the window holds itself (its `actions` dict hides the method)
        if action.property(HELD):
            window.removeAction(action)
            action.setProperty(HELD, False)
    if on:
        for action in menu_actions(window):
            if not action.shortcut().isEmpty() and window not in action.associatedObjects():
                window.addAction(action)
                action.setProperty(HELD, True)


def hide_stray_tabs(window: Any) -> int:
    """Hide the tab strips over the window that name no visible dock (left behind by
    tabified docks presenter mode hid); returns how many."""
    stray = stray_tabs(window)
    for bar in stray:
        bar.hide()
    return len(stray)


def stray_tabs(window: Any) -> list[QTabBar]:
    """The tab strips in view that name no visible dock (what `hide_stray_tabs` hides)."""
    titles = {dock.windowTitle() for dock in window.docks.values() if dock.isVisible()}
    area = QRect(0, 0, window.width(), window.height())
    return [
        bar
        for bar in window.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly)
        if bar.isVisible()
        and bar.geometry().intersects(area)
        and not {bar.tabText(i) for i in range(bar.count())} & titles
    ]
