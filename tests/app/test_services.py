"""app/services.py: LazyPage makes its page once, on the first get(), and again after clear();
the window's Services hand a panel the window's own session, canvas and status bar."""

from app.services import LazyPage


def test_a_lazy_page_is_made_once_on_first_use_and_again_after_clear():
    made = []
    page = LazyPage(lambda: made.append(object()) or made[-1])
    assert page.current is None and made == []  # nothing is built before it is asked for
    first = page.get()
    assert page.get() is first and page.current is first and len(made) == 1
    page.clear()  # a dialog closed and deleted: forgotten
    assert page.current is None
    second = page.get()
    assert second is not first and len(made) == 2


def test_the_windows_services_are_its_own(qtbot):
    from app.main_window import MainWindow

    window = MainWindow()
    window.files.prompt_on_close = False
    qtbot.addWidget(window)
    services = window.services()
    assert services.session is window.session and services.scene is window.scene and services.view is window.view
    assert services.undo_stack is window.undo_stack and services.parent is window
    assert services.actions is window.actions and services.menu("Graph") is window.menus["Graph"]
    services.say("from a panel")
    assert window.statusBar().currentMessage() == "from a panel"
    window.apply_theme(window.theme.with_(scale=1.5))
    assert services.theme() is window.theme  # the theme now, not the one when Services was made
    window.apply_theme(window.theme.with_(scale=1.0))
    window.close()


def test_the_services_show_a_document_and_tell_when_its_layout_is_done(qtbot):
    """lessons & help: show_document, layout_pending and layout_finished are the window's own."""
    from app.main_window import MainWindow
    from core.document.expr import read

    window = MainWindow(load_example=False)
    window.files.prompt_on_close = False
    qtbot.addWidget(window)
    services = window.services()
    finished = []
    services.layout_finished.connect(lambda: finished.append(True))
    doc, _notes = read("a*b + b", {})
    assert services.show_document(doc, "from a panel")
    qtbot.waitUntil(lambda: not services.layout_pending(), timeout=60000)
    assert services.layout_pending() is window.layout_pending is False
    assert sorted(n.label for n in window.session.doc.nodes.values() if n.kind != "op") == ["a", "b"]
    assert window.undo_stack.undoText() == "from a panel"
    window.layoutFinished.emit()
    assert finished  # a panel's slot hears the window's signal
    window.close()
