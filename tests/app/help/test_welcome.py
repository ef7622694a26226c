"""First start: the welcome page, Help → Welcome, and a tool tip on every control."""

import os

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QAbstractButton, QMenu, QTabBar, QWidget

from app.files.examples import EXAMPLES_DIR, examples
from app.help.welcome import KEY_DONT_SHOW, WelcomeDialog, settings, should_show_at_start
from app.main_window import MainWindow
from app.window_actions import has_tip


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    w.files.prompt_on_close = False
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.close()


def test_welcome_lists_lessons_examples_and_recent_files(window, qtbot, tmp_path):
    recent = os.path.join(EXAMPLES_DIR, "tanh_neuron.json")
    window.files.add_recent(recent) if hasattr(window.files, "add_recent") else window.files.settings.setValue(
        "recentFiles", [recent]
    )
    dialog = window.opening.show_welcome()
    assert isinstance(dialog, WelcomeDialog) and dialog.isVisible()
    assert dialog.lesson_list.count() == len(window.lessons.lessons)
    assert (
        dialog.example_list.count()
        == len(examples())
        == len([n for n in os.listdir(EXAMPLES_DIR) if n.endswith(".json")])
    )
    paths = [dialog.recent_list.item(i).data(Qt.UserRole) for i in range(dialog.recent_list.count())]
    assert recent in paths
    assert window.opening.show_welcome() is dialog  # one page, raised again
    dialog.close()


def test_choosing_a_lesson_opens_it(window, qtbot):
    dialog = window.opening.show_welcome()
    item = dialog.lesson_list.item(2)
    dialog.lesson_list.itemActivated.emit(item)
    qtbot.waitUntil(lambda: window.lessons.runner is not None and not window.lessons.busy)
    assert window.lessons.runner.lesson.id == item.data(Qt.UserRole)
    assert window.docks["lessons"].isVisible()
    assert not dialog.isVisible()


def test_choosing_an_example_opens_it(window, qtbot):
    dialog = window.opening.show_welcome()
    row = [dialog.example_list.item(i).data(Qt.UserRole) for i in range(dialog.example_list.count())]
    path = next(p for p in row if p.endswith("node_used_twice.json"))
    dialog.example_list.itemActivated.emit(dialog.example_list.item(row.index(path)))
    qtbot.waitUntil(lambda: not window.layout_pending)
    labels = sorted(n.label for n in window.session.doc.nodes.values())
    assert "a" in labels and not dialog.isVisible()


def test_dont_show_again_is_remembered(window):
    assert should_show_at_start()
    dialog = window.opening.show_welcome()
    dialog.dont_show.setChecked(True)
    assert not should_show_at_start()
    assert settings().value(KEY_DONT_SHOW) in (True, "true")
    dialog.close()
    again = window.opening.show_welcome()
    assert again.dont_show.isChecked()
    again.dont_show.setChecked(False)
    assert should_show_at_start()
    again.close()


def test_help_menu_has_welcome_lessons_shortcuts_and_about(window):
    texts = [a.text().replace("&", "") for a in window.menus["Help"].actions()]
    assert texts[0].startswith("Welcome") and "Lessons" in texts
    assert "Keyboard Shortcuts" in texts and "About Backprop Studio" in texts


def test_window_icon_is_the_app_icon(window):
    icon = window.windowIcon()
    assert not icon.isNull()
    assert {s.width() for s in icon.availableSizes()} >= {16, 32, 48, 256}


# -----------------------------------------------------------------------------
# a tool tip on every control


def _controls(window):
    """Every QAction reachable from the menus and the toolbar, and every button."""
    found = []

    def walk(menu, path):
        for action in menu.actions():
            if action.isSeparator():
                continue
            if action.menu() is not None:
                walk(action.menu(), path + [action.menu().title()])
            elif action.text():
                found.append((" > ".join(path + [action.text()]), action))

    for top in window.menuBar().actions():
        if top.menu() is not None:
            walk(top.menu(), [top.menu().title()])
    for action in window.toolbar.actions():
        if not action.isSeparator():
            widget = window.toolbar.widgetForAction(action)
            found.append((f"toolbar > {action.text() or type(widget).__name__}", action))
    for button in window.findChildren(QAbstractButton):
        if button.parent() is window.toolbar or not button.isVisibleTo(window):
            continue
        if button.objectName().startswith("qt_") or isinstance(button.parent(), QTabBar):
            continue  # Qt's own: a toolbar's overflow arrow, a tab bar's scroll arrows
        found.append((f"{type(button.window()).__name__} > {button.text() or button.objectName()}", button))
    return found


def _missing(control):
    if isinstance(control, QAction):
        host = control.defaultWidget() if hasattr(control, "defaultWidget") else None
        if host is not None:
            return type(host) is not QWidget and not host.toolTip().strip()  # a bare QWidget: a spacer
        if (
            control.menu() is None
            and isinstance(control.parent(), QMenu)
            and control.parent().title() == "Open &Recent"
        ):
            return False  # a recent file's path is its own explanation
        return not has_tip(control)
    return not control.toolTip().strip()


def test_every_control_has_a_tool_tip(window):
    missing = sorted({name for name, control in _controls(window) if _missing(control)})
    assert missing == [], "controls without a tool tip:\n  " + "\n  ".join(missing)
