"""Presenter mode's layout: which docks stay, how tall the lesson's dock is, the zoom at
which a graph's digits read from the back of the room, and the view put back on leaving.

Plain functions taking the `MainWindow` (its methods of the same names call them); the
classroom's menus and actions are installed by app/lessons/install.py.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, Qt, QTimer
from PySide6.QtWidgets import QBoxLayout

from app.lessons.paging import PAGE_FONT
from app.lessons.presenter_chrome import hide_stray_tabs, presenter_chrome


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
        keep = (0.2 if network else 0.32) * height  # the canvas's share (a network's is one neuron)
        # the canvas keeps the room that frames the step's nodes at digits of readable_px
        # a network's neuron gives way to its boundary on a short screen (1280x720 at 2x: 102 -> 200 px)
        floor = 0.2 * height if network else 120 * scale
        most = int(total - max(keep, floor, 0 if network else _graph_room(window)))
        room = max(least, min(wanted, most))
        paged = False
        if wanted > most:  # a long step: its text (and verdict) a little smaller rather than cut
            fitted = panel.fit_text(panel.text.viewport().height() + (room - lessons.height()), floor=0.75)
            if not fitted:  # still too long: the text comes first, the canvas keeps one node's room
                most = int(total - max(0.2 * height, floor, _node_room(window)))
                room = max(least, min(wanted, most))
                fitted = panel.fit_text(panel.text.viewport().height() + (room - lessons.height()), floor=0.65)
                paged = not fitted  # even so: in pages, each whole (app/lessons/paging.py)
        else:
            panel.set_text_factor(1.0)
        # the canvas never less than one of the step's nodes at a readable size (at 2x on
        # 1280x720 the question's room left it 156 px: no node whole); the text gives way
        room = max(panel.fixed_height() + chrome + int(40 * scale), min(room, total - _node_room(window)))
        window.resizeDocks([lessons], [room], Qt.Vertical)
        grow = room - lessons.height()  # the dock's resize lands later: what the text will have
        outer = panel.scroller.verticalScrollBar().maximum()  # what the page around the text overflows
        if paged:
            panel.question_box.scale_result(PAGE_FONT)
            text = panel.text.viewport().height() + grow - outer
            panel.paginate(text)
            # beside the text the verdict has the text's height (its own viewport may not
            # have it yet: it was shown a moment ago); under it, its own
            wide = panel.body.direction() == QBoxLayout.LeftToRight
            panel.paginate_verdict(text if wide else panel.verdict.viewport().height() + grow - outer)
        else:
            panel.paginate(None)
            panel.paginate_verdict(None)
    if window.appearance.presenting:  # a late timer after leaving must not re-fit the restored view
        hide_stray_tabs(window)  # hidden tabified docks leave their tab strip over the lesson
        if not readable_zoom(window):
            frame_step(window)
    window.lessons.follow()


def _graph_room(window: Any) -> int:
    """The canvas height that shows the step's nodes (`LessonsPanel.focus_ids`) with
    digits of `readable_px`; at most half the window: the lesson's text and question
    come first."""
    snapshot = window.lessons.snapshot
    rect = _focus_rect(window, window.lessons.focus_ids())
    number = window.scene.theme.font("number").pixelSize()
    if snapshot is None or not snapshot.show_graph or rect.isEmpty() or number <= 0:
        return 0
    view = window.view
    zoom = readable_px(window) / number
    need = rect.height() * zoom + 16
    legend = view.legend
    if legend.isVisible() and rect.width() * zoom > view.viewport().width() - legend.width() - 24:
        need += legend.height() + 24  # too wide to sit beside the legend: above it
    share = 0.4 if snapshot.kind == "network" else 0.5  # a network's one neuron: its text comes first
    return min(int(need), int(window.height() * share))


def _node_room(window: Any) -> int:
    """The canvas height that holds the step's tallest node whole at digits of readable_px."""
    snapshot = window.lessons.snapshot
    number = window.scene.theme.font("number").pixelSize()
    if snapshot is None or not snapshot.show_graph or number <= 0:
        return 0
    items = [window.scene.node_item(nid) for nid in window.lessons.focus_ids()[:8]]
    tallest = max((item.sceneBoundingRect().height() for item in items if item is not None), default=0.0)
    if not tallest:
        return 0
    note = _frame_note(window)
    return int((tallest + 2 * FRAME_MARGIN) * readable_px(window) / number) + 16 + note.sizeHint().height()


READABLE_PX = 28  # node digits (em) in presenter mode on 1920x1080: read from the back of a lecture hall
ROOM = (1920, 1080)  # the screen READABLE_PX is for; a smaller one shows the same physical size
FRAME_MARGIN = 28  # scene px around the nodes a step frames


def readable_px(window: Any) -> float:
    """The digits' em in screen pixels that reads from the back row: READABLE_PX on a
    1920x1080 screen, the same physical size on another (18.7 px on 1280x720), at any
    presenter scale (the scale makes the text, not the canvas's digits, bigger)."""
    return READABLE_PX * min(window.width() / ROOM[0], window.height() / ROOM[1])


def _focus_rect(window: Any, ids: list[str]) -> Any:
    from PySide6.QtCore import QRectF

    scene = window.scene
    rect = QRectF()
    for nid in ids:
        item = scene.node_item(nid)
        if item is not None:
            rect = rect.united(item.sceneBoundingRect())
    if rect.isEmpty():
        return rect
    return rect.adjusted(-FRAME_MARGIN, -FRAME_MARGIN, FRAME_MARGIN, FRAME_MARGIN)


def frame(window: Any, ids: list[str], then: list[str] | None = None) -> list[str]:
    """Show the nodes `ids` with digits of at least `readable_px`, as large as the
    canvas's room allows (up to 1.5 times that): the whole graph when it fits so, else
    these nodes, else the nodes `then` (the debugger: the operands receiving the
    grads), else as many of `ids` side by side as fit, the first of them among those.
    Returns the ids framed (all of the graph's when it fits whole)."""
    view, scene = window.view, window.scene
    number = scene.theme.font("number").pixelSize()
    whole = scene.items_rect()
    if number <= 0 or whole.isEmpty():
        return []
    least = readable_px(window) / number
    areas = view.graph_areas() if view.legend.isVisible() else (view.viewport().rect(),)
    note = _frame_note(window)
    if note.isVisible():  # the statement of what is framed sits over the canvas's top edge
        areas = tuple(a.adjusted(0, note.height() + OVERLAY_GAP, 0, 0) for a in areas)

    def fits(rect: Any) -> tuple[float, Any]:
        area = max(areas, key=lambda a: min(a.width() / rect.width(), a.height() / rect.height()))
        return min(area.width() / rect.width(), area.height() / rect.height()), area

    present = [nid for nid in ids if scene.node_item(nid) is not None]
    candidates = [(list(scene.node_items()), whole.adjusted(-FRAME_MARGIN, -FRAME_MARGIN, FRAME_MARGIN, FRAME_MARGIN))]
    for group in (present, [nid for nid in then or [] if scene.node_item(nid) is not None]):
        if group:
            candidates.append((group, _focus_rect(window, group)))
    chosen = next(((group, rect) for group, rect in candidates if fits(rect)[0] >= least), None)
    if chosen is None and present:  # too wide (or tall) at a readable size: a run of them side by side
        chosen = _largest_run(window, present, lambda rect: fits(rect)[0] >= least)
    if chosen is None and present:  # not even one fits whole: the first, centred
        chosen = ([present[0]], _focus_rect(window, present[:1]))
    if chosen is None:
        chosen = candidates[-1]
    group, rect = chosen
    zoom, area = fits(rect)
    partial = any(nid not in group for nid in present)  # then as many of the rest as the least zoom shows
    view.set_zoom(least if partial else max(least, min(zoom, 1.5 * least)))
    shift = QPointF(area.center()) - QPointF(view.viewport().rect().center())
    view.centerOn(rect.center() - shift / view.zoom())
    return group


def _largest_run(window: Any, ids: list[str], fits: Any) -> tuple[list[str], Any] | None:
    """The most of `ids` next to each other (left to right) that fit among the runs
    holding ids[0] (what the step names first), the ones further right first (the
    output, where backprop starts)."""
    scene = window.scene

    def place(nid: str) -> tuple[int, float]:  # left to right, a column top to bottom
        centre = scene.node_item(nid).sceneBoundingRect().center()
        return round(centre.x() / 40), centre.y()

    by_x = sorted(ids, key=place)
    best = None
    for i in range(len(by_x)):
        for j in range(i, len(by_x)):
            run = by_x[i : j + 1]
            rect = _focus_rect(window, run)
            if not fits(rect):
                break
            rank = (ids[0] in run, len(run), i)
            if best is None or rank > best[0]:
                best = (rank, run, rect)
    return (best[1], best[2]) if best is not None else None


OVERLAY_GAP = 8


def _frame_note(window: Any) -> Any:
    """The line over the canvas that says what a lesson step frames when it is not the
    whole graph ("… a pan away"): stated, not silent."""
    note = getattr(window, "_frame_note", None)
    if note is None:
        from PySide6.QtWidgets import QLabel

        note = QLabel(window.view)  # not the viewport's: scrolling it would move the note too
        note.setObjectName("FrameNote")
        note.setAttribute(Qt.WA_TransparentForMouseEvents)
        note.hide()
        window._frame_note = note
    return note


def state_frame(window: Any, framed: list[str], names: dict[str, str]) -> None:
    """Say over the canvas which of the step's nodes are framed and what is a pan away."""
    note = _frame_note(window)
    view, scene = window.view, window.scene
    seen = view.mapToScene(view.viewport().rect()).boundingRect()
    away = [nid for nid, item in scene.node_items().items() if not seen.contains(item.sceneBoundingRect())]
    if not away or not window.appearance.presenting:
        note.hide()
        return
    theme = scene.theme
    shown = [names.get(nid, "") for nid in framed if nid not in away and names.get(nid)]
    text = f"Framed for the back row: {', '.join(shown[:4])}{' …' if len(shown) > 4 else ''}. " if shown else ""
    text += f"{len(away)} more node{'s' if len(away) > 1 else ''} a pan away (Fit shows the whole graph)."
    note.setText(text)
    font = theme.font("ui")
    note.setFont(font)
    fill, ink, border = theme.color("overlay_fill"), theme.color("overlay_text"), theme.color("overlay_border")
    note.setStyleSheet(
        f"QLabel#FrameNote {{ background: {fill.name()}; color: {ink.name()}; "
        f"border: 1px solid {border.name()}; padding: 2px 6px; }}"
    )
    note.adjustSize()
    note.move(view.viewport().pos() + QPoint(OVERLAY_GAP, OVERLAY_GAP))
    note.show()
    note.raise_()


def frame_step(window: Any) -> bool:
    """Presenter mode: a lesson step's nodes (`LessonsPanel.focus_ids`) framed for the
    room, and what is not on the canvas said over it."""
    panel = window.lessons
    snapshot = panel.snapshot
    if snapshot is None or not snapshot.show_graph or panel.bridge is None or not panel.bridge.showing_runner:
        _frame_note(window).hide()
        window.view.fit()
        return False
    note = _frame_note(window)
    note.hide()
    framed = frame(window, panel.focus_ids())
    state_frame(window, framed, panel.runner.names)
    if note.isVisible():  # the statement takes the canvas's top line: frame below it
        framed = frame(window, panel.focus_ids())
        state_frame(window, framed, panel.runner.names)
    return True


def readable_zoom(window: Any) -> bool:
    """Presenter mode, while the debugger steps backward: frame its step, the node
    running `_backward` and the operands receiving the grads, with digits of
    `readable_px` (Karpathy's neuron fitted whole showed 17-18 px at 2x), the
    receivers first when both do not fit (issue 38: x1 and w1 were off the canvas
    at the last step while a third of it was empty). False when not stepping."""
    focus, receivers = _focus_ids(window)
    if not focus:
        return False
    _frame_note(window).hide()
    frame(window, focus, receivers)
    return True


def _focus_ids(window: Any) -> tuple[list[str], list[str]]:
    """(the debugger's step: its node and operands, the operands alone), or its output
    before the first step; nothing when it is not stepping backward."""
    debugger = getattr(window, "debugger", None)
    ctrl = getattr(debugger, "controller", None)
    if ctrl is None or ctrl.phase != "backward" or window.lessons.snapshot is not None:
        return [], []
    record = ctrl.last_record
    if record is not None:
        receivers = [ctrl.nid(c) for c in record.node._prev]
        return [ctrl.nid(record.node)] + receivers, receivers
    output = window.session.output_id
    return ([output], []) if output is not None else ([], [])


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
    presenter_chrome(window, on)  # no menu bar, no status bar: their rows are the text's
    lessons = window.docks["lessons"]
    window.lessons.set_presenting(on)
    if on and not lessons.isHidden():
        lessons.raise_()
        window._presenter_canvas()
        QTimer.singleShot(0, window._size_presenter_docks)  # once the window has its new size
        QTimer.singleShot(450, window._size_presenter_docks)
    if on:
        window.show_message(  # the status bar is hidden now: the toolbar's "☰ Menu" says it too
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
