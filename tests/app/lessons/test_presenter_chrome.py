"""Presenter mode's chrome (issue 38, app/lessons/presenter_chrome.py): no menu bar, no
status bar, no dock title over the lesson -- their rows are the text's -- while the
toolbar's "☰ Menu" holds every menu and the menus' shortcuts still work; no stray
tab strip of hidden docks over the lesson; leaving puts everything back."""

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QTabBar, QToolButton

from app.lessons.presenter_chrome import MENU_KEY, menu_actions, stray_tabs
from app.lessons.tour import settle, visible_rect
from app.main_window import MainWindow


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    w.files.prompt_on_close = False
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    qtbot.waitExposed(w)
    w.wait_for_layout()
    yield w
    w.appearance.set_presenter(False)
    w.close()


def open_step(window, qtbot, lesson, step):
    window.opening.show_lessons(lesson, step)
    qtbot.waitUntil(lambda: not window.lessons.busy and window.lessons.snapshot is not None, timeout=30000)
    settle(window)


def test_presenter_mode_gives_the_bars_rows_to_the_lesson_and_leaving_brings_them_back(window, qtbot):
    open_step(window, qtbot, "chain-rule", 3)
    dock = window.docks["lessons"]
    menu = window.toolbar.widgetForAction(window.actions[MENU_KEY])
    assert window.menuBar().isVisible() and window.statusBar().isVisible() and not menu.isVisible()
    window.appearance.set_presenter(True, 2, full_screen=False)
    settle(window)
    assert not window.menuBar().isVisible() and not window.statusBar().isVisible()
    assert window.lessons.mapTo(dock, QPoint(0, 0)).y() <= 2  # no title bar over the lesson
    # under the toolbar: only the canvas and the lesson
    top = window.toolbar.geometry().bottom() + 1
    assert window.view.height() + dock.height() >= window.height() - top - 12
    # the presenter reaches every menu from the toolbar's first button
    assert menu.isVisible() and visible_rect(menu, window).size() == menu.size()
    shown = [window.toolbar.widgetForAction(a) for a in window.toolbar.actions() if a.isVisible()]
    buttons = [w for w in shown if isinstance(w, QToolButton) and w.isVisible()]
    assert menu.x() == min(w.x() for w in buttons)  # the first: never in the overflow
    popup = menu.menu()
    popup.aboutToShow.emit()
    titles = [a.text() for a in popup.actions() if a.menu() is not None]
    assert titles == [a.text() for a in window.menuBar().actions() if a.menu() is not None and a.isVisible()]
    assert window.actions["leave presenter"] in popup.actions()
    window.appearance.set_presenter(False)
    qtbot.waitUntil(lambda: not menu.isVisible())  # the toolbar lays out on its next turn
    assert window.menuBar().isVisible() and window.statusBar().isVisible()
    assert dock.titleBarWidget() is None


def test_the_menus_shortcuts_work_while_the_menu_bar_is_hidden(window, qtbot):
    open_step(window, qtbot, "chain-rule", 0)
    window.appearance.set_presenter(True, 2, full_screen=False)
    settle(window)
    window.activateWindow()
    # Qt serves a shortcut only through a visible widget: the window holds them now
    keyed = [a for a in menu_actions(window) if not a.shortcut().isEmpty()]
    assert keyed and all(window in a.associatedObjects() for a in keyed)
    assert window.actions["lesson next"] in keyed
    before = window.lessons.runner.index, window.lessons.page
    qtbot.keyClick(window, Qt.Key_PageDown)  # Help → Lessons → Next Step, the clicker's key
    assert (window.lessons.runner.index, window.lessons.page) != before
    window.appearance.set_presenter(False)
    assert not any(window in a.associatedObjects() for a in keyed if a is not window.actions.get("leave presenter"))


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_no_tab_strip_of_hidden_docks_over_the_lesson(window, qtbot, size):
    # repro: a 1-2 px strip of "Insp… Hi…" tabs (Inspector and History, tabified with
    # the lesson in the side column, hidden by presenter mode) lay over the lesson's dock
    window.resize(*size)
    open_step(window, qtbot, "chain-rule", 3)
    window.appearance.set_presenter(True, 2, full_screen=False)
    for step in (3, 4):
        window.lessons.goto(step)
        window.lessons.wait_idle()
        settle(window)
        assert stray_tabs(window) == []
        dock = window.docks["lessons"]
        area = QRect(dock.mapTo(window, dock.rect().topLeft()), dock.size())
        over = [
            [bar.tabText(i) for i in range(bar.count())]
            for bar in window.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly)
            if bar.isVisible() and bar.geometry().intersects(area)
        ]
        assert over == []


def test_the_lessons_title_is_whole_where_its_row_has_room(window, qtbot):
    # once "The chai…" at 2x on 1920x1080: the title was elided to its label's own width, which had
    # shrunk to the last elided text; the row beside "Step k of n" is what it may fill
    window.resize(1920, 1080)
    window.appearance.set_presenter(True, 2, full_screen=False)
    open_step(window, qtbot, "chain-rule", 2)
    title = window.lessons.runner.lesson.title
    qtbot.waitUntil(lambda: window.lessons.title.text() == title, timeout=30000)
    assert window.lessons.title.fontMetrics().horizontalAdvance(title) <= window.lessons.title.width()
