"""The window's own menus and actions: File/Edit/Graph/View/Help basics, the toolbar,
the status bar, backward and zero grads, re-arrange, find, and the theme.

Plain functions taking the `MainWindow`: `build_actions` and `build_status_bar` return
the widgets they make (the window keeps them as fields); the menus call the rest.
"""

from typing import Any, NamedTuple

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QSizePolicy, QWidget

from app.files import image_export
from app.foreign.class_view import check_a_class
from app.foreign.engine_dialog import debug_my_engine
from app.graph.reach import SHAPE_TIP, ReachActions
from app.help import dialogs
from app.look.theme import DARK, LIGHT, format_number
from core.document.commands import ApplyLayout

# -----------------------------------------------------------------------------
# Building


class FindBox(QLineEdit):
    """The toolbar's find box; `last` is (the text found last, the index of its match)."""

    def __init__(self) -> None:
        super().__init__()
        self.last: tuple[str, int] = ("", -1)


class Shell(NamedTuple):
    """What build_actions makes that the window keeps."""

    reach: ReachActions
    find_box: FindBox


class StatusLabels(NamedTuple):
    """The status bar's permanent labels, left to right."""

    output: QLabel
    zoom: QLabel
    counts: QLabel


def build_actions(window: Any) -> Shell:
    a = window.add_action
    window.files.install()  # File menu: new/open/save/recent/examples/revert, code in and out, autosave
    find_box = FindBox()
    a(
        "File",
        "Export &PNG…",
        lambda: image_export.export_dialog(window.services(), "png"),
        "Ctrl+Shift+P",
        key="export png",
        tip="Save the whole graph as an image",
    )
    a(
        "File",
        "Export &SVG…",
        lambda: image_export.export_dialog(window.services(), "svg"),
        "Ctrl+Shift+G",
        key="export svg",
        tip="Save the whole graph as a vector drawing",
    )
    a(
        "File",
        "Debug my engine…",
        lambda: debug_my_engine(window.engine_checks),
        key="debug engine",
        tip="Check your own Value class's gradients (runs your file in a separate process)",
    )
    a(
        "File",
        "Debug my engine package…",
        lambda: debug_my_engine(window.engine_checks, folder=True),
        key="debug engine package",
        tip="Check a package folder, as MiniTorch's course hands it in (minitorch/ with its modules)",
    )
    a(
        "File",
        "Check a class…",
        lambda: check_a_class(window.engine_checks),
        key="check class",
        tip="Check every Value class in a folder of submissions: a table and the class's most common mistakes",
    )
    window.menus["File"].addSeparator()
    a("File", "&Quit", window.close, QKeySequence.StandardKey.Quit, key="quit")

    undo = window.undo_stack.createUndoAction(window, "&Undo")
    undo.setShortcut(QKeySequence.StandardKey.Undo)
    redo = window.undo_stack.createRedoAction(window, "&Redo")
    redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])  # Redo alone gives Ctrl+Y only
    window.menus["Edit"].addAction(undo)
    window.menus["Edit"].addAction(redo)
    window.actions["undo"], window.actions["redo"] = undo, redo
    window.menus["Edit"].addSeparator()
    a(
        "Edit",
        "&Find Node…",
        lambda: focus_find(find_box),
        QKeySequence.StandardKey.Find,
        key="find",
        tip="Find a node by its label or its formula, e.g. x1*w1 (Ctrl+F; Enter for the next, Esc back to the canvas)",
    )

    run = a(
        "Graph",
        "&Run Expression",
        lambda: window.run_expression(),
        ["Ctrl+Return", "Ctrl+Enter"],
        toolbar=True,
        key="run",
        tip="Build the graph from the editor's text (Ctrl+Enter)",
    )
    run.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    a(
        "Graph",
        "&Backward",
        lambda: backward(window),
        "Ctrl+B",
        toolbar=True,
        key="backward",
        tip="Zero every grad, then backpropagate from the output (Ctrl+B)",
    )
    a(
        "Graph",
        "&Zero Grads",
        lambda: zero_grads(window),
        "Ctrl+Shift+B",
        toolbar=True,
        key="zero grads",
        tip="Set every grad to 0 (Ctrl+Shift+B)",
    )
    auto = a("Graph", "Backward After Every &Change", lambda: toggle_auto_backward(window), key="auto backward")
    auto.setCheckable(True)
    auto.setChecked(window.session.auto_backward)
    window.menus["Graph"].addSeparator()
    a(
        "Graph",
        "Re-&arrange",
        lambda: relayout(window),
        "Ctrl+L",
        key="arrange",
        tip="Lay the graph out again, left to right (undoable)",
    )
    reach = ReachActions(window.services())
    reach.install()
    window.toolbar.addSeparator()

    a("View", "&Fit", window.view.fit, "F", toolbar=True, key="fit", tip="Show the whole graph (F)")
    a(
        "View",
        "Go to &Canvas",
        lambda: focus_canvas(window),
        "F6",
        key="canvas",
        tip="Put the keyboard on the canvas: the arrow keys walk the graph along its wires (F6)",
    )
    a(
        "View",
        "Zoom &In",
        window.view.zoom_in,
        [QKeySequence.StandardKey.ZoomIn, "Ctrl+="],
        toolbar=True,
        key="zoom in",
        tip="Zoom in (Ctrl+=)",
    )
    a(
        "View",
        "Zoom &Out",
        window.view.zoom_out,
        [QKeySequence.StandardKey.ZoomOut, "Ctrl+-"],
        toolbar=True,
        key="zoom out",
        tip="Zoom out (Ctrl+-)",
    )
    a("View", "Actual &Size", window.view.reset_zoom, "Ctrl+0", key="actual size")
    window.menus["View"].addSeparator()
    dark = a("View", "&Dark Theme", lambda: toggle_dark(window), key="dark theme")
    dark.setCheckable(True)
    dark.setChecked(window.theme.dark)
    legend = a("View", "Show &Legend", lambda: toggle_legend(window), key="legend")
    legend.setCheckable(True)
    legend.setChecked(True)

    a("Help", "&Keyboard Shortcuts", lambda: dialogs.show_shortcuts(window, window.dialogs), key="shortcuts")
    a("Help", "&About Backprop Studio", lambda: dialogs.show_about(window, window.dialogs), key="about")

    window.toolbar.addSeparator()
    find_box.setPlaceholderText("Find node by label or formula…  (Ctrl+F)")
    find_box.setToolTip(
        "A label (w1) or a formula as you would type it (x1*w1); Enter finds the next, Esc goes back to the canvas"
    )
    escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), find_box, context=Qt.ShortcutContext.WidgetShortcut)
    escape.activated.connect(lambda: focus_canvas(window))
    find_box.setClearButtonEnabled(True)
    find_box.setMaximumWidth(260)
    find_box.returnPressed.connect(lambda: find_node(window, find_box.text()))
    window.toolbar.addWidget(find_box)
    spacer = QWidget()
    spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
    window.toolbar.addWidget(spacer)
    window.toolbar.addAction(window.actions["export png"])
    window.toolbar.addAction(window.actions["export svg"])
    window.actions["export png"].setIconText("Export PNG")
    window.actions["export svg"].setIconText("Export SVG")
    return Shell(reach, find_box)


def build_status_bar(bar: Any, view: Any) -> StatusLabels:
    """The status bar's labels: the output's value, the zoom, the graph's counts."""
    labels = StatusLabels(QLabel(), QLabel(), QLabel())
    for label in labels:
        label.setContentsMargins(8, 0, 8, 0)
        bar.addPermanentWidget(label)
    labels.counts.setToolTip(SHAPE_TIP)
    view.zoomChanged.connect(lambda z: labels.zoom.setText(f"{z * 100:.0f}%"))
    return labels


def update_status(window: Any, *_: Any) -> None:
    nodes, edges = window.scene.counts()
    shape = window.reach.shape_text()
    window.counts_label.setText(f"{nodes:,} nodes · {edges:,} edges" + (f" · {shape}" if shape else ""))
    out = window.session.output_value
    doc = window.session.doc
    out_id = window.session.output_id
    if out is not None:
        item = window.scene.node_items().get(out_id)  # named as on the canvas, never by its id
        name = item.name if item is not None else (doc.nodes[out_id].label or "the output")
        mask = window.scene.marks.mask_of(out_id)  # a value the canvas hides (a quiz) stays hidden here
        shown = mask[0] if mask is not None and mask[0] is not None else format_number(out.data)
        window.output_label.setText(f"output {name} = {shown or '?'}")
    elif doc.nodes:
        missing = len(doc.missing_inputs())
        window.output_label.setText(
            f"no output: {missing} op(s) with missing inputs" if missing else "no single output"
        )
    else:
        window.output_label.setText("")
    window.zoom_label.setText(f"{window.view.zoom() * 100:.0f}%")


# -----------------------------------------------------------------------------
# Graph actions


def backward(window: Any) -> bool:
    ok = window.session.backward()
    if ok:
        out_id = window.session.output_id
        name = window.session.doc.nodes[out_id].label or out_id
        window.show_message(
            f"Backward from {name}: every grad zeroed, then {name}.grad = 1 "
            "and the chain rule applied in reverse topological order."
        )
    return ok


def zero_grads(window: Any) -> None:
    window.session.zero_grads()
    window.show_message("Every grad set to 0.")


def relayout(window: Any) -> None:
    """Arrange the current graph again, as one undoable step."""
    doc = window.session.doc
    if not doc.nodes:
        return

    def apply(result: Any) -> None:
        if isinstance(result, Exception):
            window.show_message(f"Could not arrange the graph: {result}")
            return
        positions, routes = result
        window.scene.set_routes(routes, positions)
        window.session.push(ApplyLayout(positions))
        window.view.fit()

    window.arranger.arrange(doc, apply)


def toggle_auto_backward(window: Any) -> None:
    window.session.auto_backward = window.actions["auto backward"].isChecked()


def toggle_dark(window: Any) -> None:
    palette = DARK if window.actions["dark theme"].isChecked() else LIGHT
    window.apply_theme(window.theme.with_(palette=palette))


def apply_theme(window: Any, theme: Any) -> None:
    """One palette and ONE scale factor for every pane (app/look/theme.py): the canvas
    items, the widgets and menus, the plots; a panel with `set_theme(theme)`
    gets the theme too. The graph is framed again at its new size. The window has
    taken `theme` as its own already (MainWindow.apply_theme)."""
    from app.look.ui_scale import apply_to_application, apply_to_widgets

    size = window.size()
    window.view.set_theme(theme)
    apply_to_application(theme)
    apply_to_widgets(window, theme.scale)
    for dock in window.docks.values():
        hook = getattr(dock.widget(), "set_theme", None)
        if callable(hook):
            hook(theme)
    if window.isVisible() and not (window.isFullScreen() or window.isMaximized()):
        QApplication.sendPostedEvents()
        window.resize(size.expandedTo(window.minimumSizeHint()))  # a new look keeps the window's size
    if "dark theme" in window.actions:
        window.actions["dark theme"].setChecked(theme.dark)
    window.view.fit()


def toggle_legend(window: Any) -> None:
    window.view.legend.setVisible(window.actions["legend"].isChecked())


# -----------------------------------------------------------------------------
# Find


def focus_canvas(window: Any) -> None:
    """F6, or Esc in the find box: the keyboard on the canvas, a node selected to walk from."""
    window.view.setFocus(Qt.FocusReason.ShortcutFocusReason)
    if not window.scene.selection.selected_ids():
        window.view.walk("left")  # nothing selected: the walk starts at the output
    chosen = window.scene.selection.selected_ids()
    if chosen:
        window.show_message(
            f"On the canvas at {window.scene.node_item(chosen[0]).name}: ← its inputs, → what it feeds, ↑ ↓ its column"
        )


def focus_find(find_box: QLineEdit) -> None:
    find_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
    find_box.selectAll()


def find_node(window: Any, text: str) -> str | None:
    """Select and centre the next node whose label matches text; its id or None."""
    matches = window.scene.find(text)
    if not matches:
        window.show_message(f"No node is labelled or named '{text}'.")
        return None
    last_text, index = window.find_box.last
    index = (index + 1) % len(matches) if last_text == text else 0
    window.find_box.last = (text, index)
    nid = matches[index]
    window.scene.selection.select_node(nid)
    window.view.center_on_node(nid)
    more = f" ({index + 1} of {len(matches)}; Enter for the next)" if len(matches) > 1 else ""
    window.show_message(f"Found {window.scene.node_item(nid).name}{more}")  # its canvas name, never an id
    return nid


# -----------------------------------------------------------------------------
# Tool tips

SHELL_TIPS = {
    "quit": "Close the window (unsaved work is asked about first)",
    "undo": "Undo the last edit (Ctrl+Z)",
    "redo": "Redo the edit just undone (Ctrl+Shift+Z)",
    "actual size": "Zoom to 100% (Ctrl+0)",
    "auto backward": "Run backward after every edit, so the grads are always current",
    "legend": "Show what the grad colours and marks mean",
    "shortcuts": "Every keyboard shortcut, read from the menus",
    "about": "Version and what this program is",
}


def tip_the_shell(window: Any) -> None:
    """Tool tips on the shell's own actions that have none of their own, on every dock's
    show/hide toggle and on the find box; every menu shows its actions' tips."""
    for key, tip in SHELL_TIPS.items():
        action = window.actions.get(key)
        if action is not None and not has_tip(action):
            action.setToolTip(tip)
            action.setStatusTip(tip)
    for dock_widget in window.docks.values():
        toggle = dock_widget.toggleViewAction()
        if not has_tip(toggle):
            toggle.setToolTip(f"Show or hide the {dock_widget.windowTitle()} panel")
    for menu in window.menus.values():
        menu.setToolTipsVisible(True)
    if not window.find_box.toolTip():
        window.find_box.setToolTip("Type a node's label and press Enter; Enter again finds the next (Ctrl+F)")


def has_tip(action: Any) -> bool:
    """Has the action a tool tip of its own? (Qt falls back to the text.)"""
    tip = action.toolTip().strip()
    plain = action.text().replace("&&", "\0").replace("&", "").replace("\0", "&").replace("…", "")
    return bool(tip) and tip.rstrip(".").strip() != plain.rstrip(".").strip()
