"""The canvas's right-click menu.

`CanvasMenu` is held by the GraphScene as `scene.context_menu`. A right-click
on target (('node', id) / ('group', id) / ('edge', Edge) / ('canvas', None),
`scene.target_at(point)`) first selects what was clicked, then
`provider(menu, target, scene point)` fills the menu (the builder sets it) and
the node-menu hooks add theirs (the debugger's "break here").
"""

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu


class CanvasMenu:
    def __init__(self, scene):
        self._scene = scene
        self.provider = None  # callable(menu, target, scene pos), set by the builder
        self._node_hooks = []

    def add_node_menu_hook(self, hook):
        """hook(menu, nid) is called to fill the right-click menu of node nid."""
        self._node_hooks.append(hook)

    def fill(self, menu, target, pos):
        """The right-click menu for target: the provider's entries, then the hooks'."""
        if self.provider is not None:
            self.provider(menu, target, pos)
        kind, key = target
        if kind == "node":
            if self._node_hooks and menu.actions():
                menu.addSeparator()
            for hook in self._node_hooks:
                hook(menu, key)
        return menu

    def show(self, event):
        """The scene's contextMenuEvent: select the target, pop the menu up (no nested loop)."""
        scene = self._scene
        pos = event.scenePos()
        target = scene.target_at(pos)
        selection = scene.selection
        if target[0] == "node" and target[1] not in selection.selected_ids():
            selection.select_node(target[1])
        elif target[0] == "group":
            selection.select_group(target[1])
        menu = self.fill(QMenu(event.widget()), target, pos)
        menu.setAttribute(Qt.WA_DeleteOnClose)
        if menu.actions():
            menu.popup(event.screenPos())  # not exec(): no nested event loop
        else:
            menu.deleteLater()
        event.accept()
