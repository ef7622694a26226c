"""Install drag-and-drop building in the main window: the palette and history docks,
Edit → Cut/Copy/Paste/Duplicate/Delete, Graph → Add Part / Set as Output / Collapse."""

from typing import NamedTuple

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QUndoView

from app.graph.builder import GraphBuilder
from app.graph.palette import PalettePanel


class Building(NamedTuple):
    """What install_builder makes (the window keeps each as a field of the same name)."""

    builder: GraphBuilder
    palette: PalettePanel
    history: QUndoView


def install_builder(services):
    """Drag-and-drop building: palette, quick add, wires, clipboard, undo history.
    `services` is the window's (app/services.py)."""
    builder = GraphBuilder(services.session, services.scene, services.view, services.parent)
    palette = PalettePanel(services.theme(), builder.options)
    palette.activated.connect(
        lambda spec: builder.add_entry(spec, services.view.mapToScene(services.view.viewport().rect().center()))
    )
    services.add_dock("palette", "Palette", palette, Qt.LeftDockWidgetArea, tabify_with="editor")
    history = QUndoView(services.undo_stack)
    history.setEmptyLabel("<start>")
    services.add_dock("history", "History", history, Qt.RightDockWidgetArea, tabify_with="inspector")
    builder.message.connect(services.say)
    services.scene.hint.connect(lambda text: text and services.say(text, 4000))
    b = builder
    edit = (
        ("Cu&t", b.cut, QKeySequence.Cut, "cut", "Remove the selected nodes and put them on the clipboard"),
        (
            "&Copy",
            b.copy,
            QKeySequence.Copy,
            "copy",
            "Copy the selected nodes (and the wires between them) to the clipboard",
        ),
        (
            "&Paste",
            b.paste,
            QKeySequence.Paste,
            "paste",
            "Paste copied nodes, or micrograd code from the clipboard, into the graph",
        ),
        ("D&uplicate", b.duplicate, "Ctrl+D", "duplicate", "Copy the selected nodes in place"),
        (
            "&Delete",
            b.delete_selection,
            [QKeySequence.Delete, "Backspace"],
            "delete",
            "Delete the selected nodes and wires",
        ),
        ("Select &All", b.select_all, QKeySequence.SelectAll, "select all", "Select every node"),
    )
    services.menu("Edit").addSeparator()
    for text, slot, keys, key, tip in edit:
        action = services.add_action("Edit", text, slot, keys, key=key, tip=tip)
        action.setShortcutContext(Qt.WidgetWithChildrenShortcut)  # typing elsewhere keeps its keys
        services.view.addAction(action)
    graph = services.menu("Graph")
    graph.addSeparator()
    services.add_action(
        "Graph",
        "&Add Part…",
        lambda: b.open_quick_add(services.view.cursor_scene_pos()),
        key="quick add",
        tip="Search the palette and add a part (Tab on the canvas)",
    )
    services.add_action(
        "Graph",
        "Set as &Output",
        lambda: b.set_output(services.session.current_id),
        key="set output",
        tip="The selected node's grad is 1 in the backward pass",
    )
    services.add_action(
        "Graph",
        "Collapse / E&xpand Group",
        lambda: toggle_group(services, builder),
        "Ctrl+G",
        key="toggle group",
        tip="Show the selected neuron or layer as one box, or open it",
    )
    return Building(builder, palette, history)


def toggle_group(services, builder):
    """Graph → Collapse / Expand Group: the selected group opened, or the selected node's closed."""
    groups = services.session.groups
    gids = services.scene.selection.selected_group_ids()
    if gids:
        return builder.set_collapsed(gids[0], False)
    for nid in services.scene.selection.edit_selection():
        gid = groups.group_of(nid)
        if gid is not None:
            return builder.set_collapsed(gid, True)
    services.say("Select a node of a neuron or layer to collapse it.")
    return False
