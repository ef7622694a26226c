"""Presenter mode's layout: which docks stay, how tall the lesson's dock is, the zoom at
which a graph's digits read from the back of the room, and the view put back on leaving.

Plain functions taking the `MainWindow` (its methods of the same names call them); the
classroom's menus and actions are installed by app/lessons/install.py.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer


class PresenterFit(QObject):
    """Sizes the lesson's dock in presenter mode once the event loop is free, after a
    step is shown, the window is resized or the scale changes (many requests, one fit)."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(0)
        self.timer.timeout.connect(self.fit)
        window.installEventFilter(self)

    def request(self) -> None:
        if self.window.appearance.presenting:
            self.timer.start()

    def fit(self) -> None:
        if self.window.appearance.presenting:
            self.window._size_presenter_docks()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window and event.type() == QEvent.Resize:
            self.request()
        return False


def presenter_keeps_dock(window: Any, key: str) -> bool:
    """Which panels stay in presenter mode: the lessons, and the debugger or the
    training panel while they are in use; the others come back on leaving it."""
    if key == "lessons":  # while a lesson runs or opens; an idle list would only take the canvas's room
        return window.lessons.runner is not None or window.lessons.busy
    widget = window.docks[key].widget()
    if key == "debugger":
        quiz = getattr(widget, "actions", {}).get("quiz")
        ctrl = getattr(widget, "controller", None)  # stepping, or a quiz on: the debugger stays
        if ctrl is not None and ctrl.phase != "idle":
            return True
        # its quiz on a graph of one's own keeps it; a lesson's Quiz is the lesson's (issue 38)
        return bool(quiz and quiz.isChecked()) and window.lessons.runner is None
    return bool(widget.property("presenter_keep"))


def presenter_layout(window: Any) -> None:
    """Presenter mode's panels: the canvas across the whole width (a graph reads left
    to right), the lesson under it; panels not in use give up their room. Leaving
    presenter mode restores the layout as it was (QMainWindow.saveState)."""
    for key, dock in window.docks.items():
        if not dock.isHidden() and not dock.isFloating() and not window.presenter_keeps_dock(key):
            dock.hide()
    lessons = window.docks["lessons"]
    if not lessons.isHidden():
        window.addDockWidget(Qt.BottomDockWidgetArea, lessons)
        lessons.raise_()


def size_presenter_docks(window: Any) -> None:
    """Presenter mode: the lesson's dock as tall as the step needs (title, every line of
    its text, the network's boundary, the question, its answer box and Next), the canvas
    the rest. Called after every step shown, window resize and scale change."""
    lessons = window.docks["lessons"]
    panel = window.lessons
    if window.appearance.presenting and not lessons.isHidden() and not window.view.isHidden():
        height = window.height()
        chrome = max(0, lessons.height() - panel.height())  # the dock's title bar
        total = window.view.height() + lessons.height()
        scale = window.theme.scale
        boundary = int(min(total * 0.42, 260 * scale))  # a usable boundary on network steps
        wanted = panel.wanted_height(boundary) + chrome
        least = panel.fixed_height() + chrome + int(110 * scale)  # the question, Next, a title and lines
        network = panel.snapshot is not None and panel.snapshot.kind == "network"
        keep = (0.26 if network else 0.32) * height  # the canvas's share (a network's is one neuron)
        most = int(total - max(keep, 120 * scale))
        if wanted > most:  # a long step: the canvas gives a little more, never less than its graph
            most = int(total - max(0.26 * height, 120 * scale, _graph_room(window)))
        room = max(least, min(wanted, most))
        if wanted > most:  # long text: a little smaller rather than cut (never below 0.65 of the scale)
            panel.fit_text(panel.text.viewport().height() + (room - lessons.height()), floor=0.65)
        window.resizeDocks([lessons], [room], Qt.Vertical)
    if window.appearance.presenting:  # a late timer after leaving must not re-fit the restored view
        window.view.fit()
        readable_zoom(window)
    window.lessons.follow()


def _graph_room(window: Any) -> int:
    """The canvas height that shows the step's graph whole at the lessons' readable zoom
    (below it the lesson zooms in on the step's nodes and the rest leaves the view), for
    a graph of up to 35 nodes; at most half the window: the lesson's text and question
    come first."""
    from app.lessons.graph_bridge import READABLE_ZOOM

    snapshot = window.lessons.snapshot
    rect = window.scene.items_rect()
    if snapshot is None or not snapshot.show_graph or rect.isEmpty() or len(window.scene.node_items()) > 35:
        return 0  # a graph too big to read whole (a network's loss graph) gets no such room
    view = window.view
    need = (rect.height() + 56) * READABLE_ZOOM + 16
    legend = view.legend
    if legend.isVisible() and (rect.width() + 56) * READABLE_ZOOM > view.viewport().width() - legend.width() - 24:
        need += legend.height() + 24  # too wide to sit beside the legend: above it
    share = 0.4 if snapshot.kind == "network" else 0.5  # a network's one neuron: its text comes first
    return min(int(need), int(window.height() * share))


READABLE_PX = 28  # node digits in presenter mode: read from the back of a lecture hall


def readable_zoom(window: Any, px: float = READABLE_PX) -> bool:
    """Presenter mode: never fit a graph so small that its digits fall under `px` pixels
    (Karpathy's neuron fitted whole showed 17-18 px at 2x) while the debugger steps it;
    zoom in instead, on the step's node and operands, and the debugger's step-following
    pans from there."""
    view, scene = window.view, window.scene
    number = scene.theme.font("number").pixelSize()
    if number <= 0 or number * view.zoom() >= px or not scene.node_items():
        return False
    focus = _focus_ids(window)
    items = [scene.node_item(nid) for nid in focus if scene.node_item(nid) is not None]
    if not items:
        return False
    view.set_zoom(px / number)
    rect = items[0].sceneBoundingRect()
    for item in items[1:]:
        rect = rect.united(item.sceneBoundingRect())
    view.centerOn(rect.center())
    return True


def _focus_ids(window: Any) -> list[str]:
    """The debugger's step (its node and operands), or its output before the first step.
    A lesson's step keeps the whole graph in view (its text quotes numbers all over
    it; the lesson's own `follow` zooms in on its nodes when they are too small)."""
    debugger = getattr(window, "debugger", None)
    ctrl = getattr(debugger, "controller", None)
    if ctrl is None or ctrl.phase != "backward" or window.lessons.snapshot is not None:
        return []
    record = ctrl.last_record
    if record is not None:
        return [ctrl.nid(record.node)] + [ctrl.nid(c) for c in record.node._prev]
    output = window.session.output_id
    return [output] if output is not None else []


def presenter_canvas(window: Any) -> None:
    """In presenter mode a lesson step without a graph (a big network) gets the
    whole window: the canvas would only show an unrelated graph."""
    snapshot = window.lessons.snapshot
    wanted = not (window.appearance.presenting and snapshot is not None and not snapshot.show_graph)
    if window.view.isHidden() == wanted:
        window.view.setVisible(wanted)
        window.output_label.setVisible(wanted)  # the hidden graph's output would mislead
        if wanted:
            QTimer.singleShot(0, window._size_presenter_docks)


def presenter_changed(window: Any, on: bool) -> None:
    window.actions["presenter"].setChecked(on)
    window.actions["leave presenter"].setEnabled(on)
    lessons = window.docks["lessons"]
    window.lessons.set_presenting(on)
    if on and not lessons.isHidden():
        lessons.raise_()
        window._presenter_canvas()
        QTimer.singleShot(0, window._size_presenter_docks)  # once the window has its new size
        QTimer.singleShot(450, window._size_presenter_docks)
    if on:
        window.show_message(
            "Presenter mode: F11 or Esc to leave; View → Scale or the box in the toolbar for the size.", 6000
        )
    else:
        window.view.show()
        window.output_label.show()
        QTimer.singleShot(0, lambda: _restore_view(window))  # once the canvas has its old size back


def _restore_view(window: Any) -> None:
    """The view as it was before presenter mode (Appearance keeps it): leaving used
    to fit instead, dropping the zoom to ~50%."""
    saved = window.appearance.view_before
    if saved is None:
        window.view.fit()
        return
    zoom, centre = saved
    window.view.set_zoom(zoom)
    window.view.centerOn(centre)
