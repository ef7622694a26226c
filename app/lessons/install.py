"""Install the classroom in the main window: the Lessons dock, Help → Lessons (open the
panel, Next Step, Previous Step), File → Open Lesson…, Help → Welcome.

`install_classroom` is handed the window's Services (app/services.py) and, by name,
what else it uses: the editor and its dock, the debugger's quiz switch (its quiz and
the lesson's follow each other), the window's file, the look and presenter mode's fit (the canvas frames a
step for the room there), and the welcome page's maker; never the window. It returns
what it makes (the window keeps each as a field of the same name). The window's own
part of the classroom -- View → Theme / Scale / Presenter Mode, the toolbar's lesson
and presenter controls, where the lesson's dock sits -- is app/lessons/presenter_install.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialog, QDockWidget, QMenu

from app.lessons.graph_bridge import GraphBridge
from app.lessons.lesson_file import open_lesson_file
from app.lessons.opening import Opening
from app.lessons.panel import LessonsPanel

if TYPE_CHECKING:
    from app.editor.expression_bar import ExpressionBar
    from app.files.actions import FileActions
    from app.lessons.presenter_layout import PresenterFit
    from app.look.presenter import Appearance
    from app.services import Services


class Classroom(NamedTuple):
    """What install_classroom makes."""

    lessons: LessonsPanel
    opening: Opening  # shows the Lessons dock and opens a lesson in it; the welcome page


def install_classroom(
    services: Services,
    editor: ExpressionBar,
    editor_dock: QDockWidget,
    debugger_quiz: Callable[[bool], None],
    files: FileActions,
    appearance: Appearance,
    presenter_fit: PresenterFit,
    welcome_page: Callable[[], QDialog],
) -> Classroom:
    """The Lessons dock (tabbed with the editor's), Help → Lessons, File → Open Lesson…,
    Help → Welcome; the debugger's quiz and the lesson's follow each other."""
    bridge = GraphBridge(services, files, appearance, presenter_fit, editor.set_source_note)
    lessons = LessonsPanel(bridge, debugger_quiz=debugger_quiz)
    dock = services.add_dock("lessons", "Lessons", lessons, Qt.DockWidgetArea.LeftDockWidgetArea, tabify_with="editor")
    dock.toggleViewAction().setText("&Lessons")
    # the editor in front: the code that made the graph on screen; the palette is one tab away
    editor_dock.raise_()
    opening = Opening(dock, lessons, welcome_page, services.parent)
    actions, a = services.actions, services.add_action
    help_menu = services.menu("Help")
    lessons_menu = QMenu("&Lessons", help_menu)  # Help → Lessons: the guided track
    lessons_menu.setToolTipsVisible(True)
    for text, slot, keys, key, tip in (
        (
            "&Open Lessons Panel",
            lambda: opening.show_lessons(),
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
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        help_menu.removeAction(action)
        lessons_menu.addAction(action)
    actions["lesson next"].setIconText("Next ▶")
    actions["lesson back"].setIconText("◀ Back")
    lessons.busyChanged.connect(lambda busy: lesson_controls(actions, lessons))
    lessons.stepShown.connect(lambda _i: lesson_controls(actions, lessons))
    lessons.pageShown.connect(lambda *_: lesson_controls(actions, lessons))
    lesson_controls(actions, lessons)
    quiz = actions.get("debug quiz")  # the debugger's Quiz Mode (app/debugger/install.py)
    if quiz is not None:
        quiz.toggled.connect(lessons.show_quiz_state)

    a(
        "File",
        "Open &Lesson…",
        lambda: open_lesson_file(services, opening),
        key="open lesson",
        tip="Open a lesson file of your own (JSON, checked line by line) and start it",
    )
    a(
        "Help",
        "&Welcome…",
        opening.show_welcome,
        key="welcome",
        tip="Lessons, examples and recent files to start from",
    )
    welcome = actions["welcome"]
    help_menu.removeAction(welcome)
    items = help_menu.actions()
    if items:  # Welcome and Lessons first, above Keyboard Shortcuts and About
        help_menu.insertAction(items[0], welcome)
        help_menu.insertMenu(items[0], lessons_menu)
        help_menu.insertSeparator(items[0])
    else:
        help_menu.addAction(welcome)
        help_menu.addMenu(lessons_menu)
        help_menu.addSeparator()
    return Classroom(lessons, opening)


def lesson_controls(actions: dict[str, QAction], panel: LessonsPanel) -> None:
    """Next / Back in the menu and the toolbar as the panel's own buttons are."""
    actions["lesson next"].setEnabled(panel.next_button.isEnabled())
    actions["lesson back"].setEnabled(panel.back_button.isEnabled())
