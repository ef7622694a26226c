"""The workspaces as a page's host: a page put in the canvas's place, the docks set aside and given back."""

from PySide6.QtWidgets import QLabel


def test_a_page_in_the_canvas_place_has_the_window_and_gives_it_back(window, qtbot):
    # the big-graph page's PageHost (app/graph/scope_page.py): the moves the Training workspace makes too
    workspace = window.training
    window.docks["editor"].show()
    window.docks["inspector"].setFloating(True)  # a floating dock is a window of its own: left alone
    window.docks["inspector"].show()
    docked = {k for k, dock in window.docks.items() if dock.isVisible() and not dock.isFloating()}
    assert "editor" in docked
    page = QLabel("a page")
    workspace.stack.addWidget(page)
    state = workspace.set_docks_aside()
    workspace.put(page)
    qtbot.waitUntil(page.isVisible)
    assert not window.view.isVisible() and workspace.stack.currentWidget() is page
    assert not any(window.docks[k].isVisible() for k in docked) and window.docks["inspector"].isVisible()
    assert not window.actions["fit"].isEnabled() and not window.find_box.isEnabled()  # the canvas's tools
    assert window.zoom_label.isHidden()  # and its numbers: not the page's
    workspace.put(None)
    workspace.give_docks_back(state)
    qtbot.waitUntil(window.view.isVisible)
    assert {k for k, dock in window.docks.items() if dock.isVisible() and not dock.isFloating()} == docked
    assert window.actions["fit"].isEnabled() and window.find_box.isEnabled() and not window.zoom_label.isHidden()
    window.docks["inspector"].setFloating(False)
