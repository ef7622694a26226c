"""Presenter mode's layout: which docks stay, how tall the lesson's dock is, the zoom at
which a graph's digits read from the back of the room, and the view put back on leaving.

Plain functions taking the `MainWindow`; presenter mode's menus and actions are installed
by app/lessons/presenter_install.py, which calls them.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, QRectF, Qt, QTimer
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
            size_presenter_docks(self.window)

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
        if not dock.isHidden() and not dock.isFloating() and not presenter_keeps_dock(window, key):
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
    rects = [
        item.sceneBoundingRect() for nid in window.lessons.focus_ids()[:8] if (item := window.scene.node_item(nid))
    ]
    if not rects:
        return 0
    zoom = readable_px(window) / number
    extra = 16 + _frame_note(window).sizeHint().height()
    tallest = max(rect.height() for rect in rects) + 2 * FRAME_MARGIN
    # the step's nodes one over another (c over e in chain-rule step 4), or all of them
    # where the canvas is wide enough to hold them side by side: a canvas short of them
    # leaves one cut at its edge whatever the frame
    union = QRectF()
    for rect in rects:
        union = union.united(rect)
    wide = union.width() <= window.view.viewport().width() / zoom
    column = (union.height() if wide else max(_column(rect, rects).height() for rect in rects)) + 2 * EDGE_GAP
    lessons, panel = window.docks["lessons"], window.lessons
    total = window.view.height() + lessons.height()
    least = panel.fixed_height() + max(0, lessons.height() - panel.height()) + int(110 * window.theme.scale)
    network = snapshot.kind == "network"  # its neuron gives way to the boundary
    if not network and column * zoom + extra <= min(COLUMN_SHARE * window.height(), total - least):
        tallest = max(tallest, column)  # the lesson keeps its least room
    return int(tallest * zoom) + extra


COLUMN_SHARE = 0.55  # the step's nodes taller than this share of the window: one node's room (the text comes first)


def _column(rect: Any, rects: list[Any]) -> Any:
    """`rect` and the rects above and below it that share some of its width."""
    out = QRectF(rect)
    for other in rects:
        if other.left() < rect.right() and rect.left() < other.right():
            out = out.united(other)
    return out


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
    clear_edges(window, group, area, present)
    return group


def cut_nodes(window: Any) -> list[str]:
    """The nodes the canvas's edges cut: partly in view (neither whole on the canvas
    nor wholly off it, where "a pan away" counts them)."""
    view = window.view
    seen = view.mapToScene(view.viewport().rect()).boundingRect()
    sliver = 0.5 / max(view.zoom(), 1e-6)  # under half a pixel of a node beyond the edge is not drawn
    whole = seen.adjusted(-sliver, -sliver, sliver, sliver)
    return [
        nid
        for nid, item in window.scene.node_items().items()
        if seen.intersects(item.sceneBoundingRect()) and not whole.contains(item.sceneBoundingRect())
    ]


def covered_nodes(window: Any) -> list[str]:
    """The nodes in view that the note over the canvas lies over (partly hidden)."""
    view, note = window.view, _frame_note(window)
    if not note.isVisible():
        return []
    box = note.geometry().translated(-view.viewport().pos()).adjusted(1, 1, -1, -1)
    under = view.mapToScene(box).boundingRect()
    return [nid for nid, item in window.scene.node_items().items() if under.intersects(item.sceneBoundingRect())]


def clear_edges(window: Any, group: list[str], area: Any, focus: list[str]) -> None:
    """Move the framed view (its zoom kept, `group` still inside `area`, the viewport's
    part for it) so that the canvas's edges cut no node: each is whole in view or
    wholly off it, the step's nodes (`focus`) first, then the others, then the
    nearest to the centred frame (chain-rule step 4 at 2x on 1280x720: c framed, e
    cut at the bottom edge). The note saying what is a pan away goes to the canvas's
    bottom edge when that clears one of the step's nodes its top edge cannot."""
    view = window.view
    note = _frame_note(window)
    tries = [("top", area), ("top-right", area)] if note.isVisible() else [("top", area)]
    if note.isVisible() and not view.legend.isVisible():
        below = area.translated(0, -(note.height() + OVERLAY_GAP))
        tries += [("bottom", below), ("bottom-right", below)]
    found = []
    for edge, where in tries:
        best = _clearest(window, group, where, focus, _note_box(window, edge))
        if best is not None:
            found.append((best[0][0], edge != "top", best[0][1], edge, best[1]))
    if not found:
        return
    _cut, _bottom, _far, edge, at = min(found)
    if note.isVisible():
        note.setProperty("edge", edge)
        _place_note(window)
    size = view.viewport().width() / view.zoom(), view.viewport().height() / view.zoom()
    view.centerOn(QPointF(at[0] + size[0] / 2, at[1] + size[1] / 2))


def _note_box(window: Any, edge: str) -> QRectF | None:
    """The note's box in viewport pixels at the canvas's `edge` (None: no note)."""
    note = _frame_note(window)
    if not note.isVisible():
        return None
    return QRectF(_note_at(window, edge), note.size())


def _clearest(
    window: Any, group: list[str], area: Any, focus: list[str], box: QRectF | None = None
) -> tuple[tuple[int, float], list[float]] | None:
    """((weight of the nodes cut, distance moved), the view's top-left in the scene)
    that cuts the fewest nodes with `group` inside `area`: one axis then the other,
    twice, a few candidates each (a node's edge on a view's edge). A node under the
    note `box` (viewport pixels) is cut too: the note hides part of it."""
    view, scene = window.view, window.scene
    zoom = view.zoom()
    items = scene.node_items()
    nodes = [item.sceneBoundingRect() for item in items.values()]
    if not group or zoom <= 0 or not nodes:
        return None
    tight = QRectF()
    for nid in group:
        if nid in items:
            tight = tight.united(items[nid].sceneBoundingRect())
    tight = tight.adjusted(-EDGE_GAP, -EDGE_GAP, EDGE_GAP, EDGE_GAP)
    port = view.viewport().rect()
    size = (port.width() / zoom, port.height() / zoom)
    seen = view.mapToScene(port).boundingRect()
    start = [seen.left(), seen.top()]
    focused = {id(items[nid]) for nid in focus if nid in items}
    weights = [1000 if id(item) in focused else 1 for item in items.values()]
    # where the view's top-left may go with the group inside `area`, and the scroll
    # bars can take it (the scene's rect)
    limits = view.sceneRect()
    span = [
        (
            max(tight.right() - area.right() / zoom, limits.left()),
            min(tight.left() - area.left() / zoom, limits.right() - size[0]),
        ),
        (
            max(tight.bottom() - area.bottom() / zoom, limits.top()),
            min(tight.top() - area.top() / zoom, limits.bottom() - size[1]),
        ),
    ]
    # only the nodes some candidate view reaches can be cut (lesson 9, 164 nodes: 22 -> under 9 ms a try)
    reach = QRectF(
        min(span[0]) - 1,
        min(span[1]) - 1,
        abs(span[0][1] - span[0][0]) + size[0] + 2,
        abs(span[1][1] - span[1][0]) + size[1] + 2,
    )
    kept = [(w, r) for w, r in zip(weights, nodes) if reach.intersects(r)]
    weights, nodes = [w for w, _ in kept], [r for _, r in kept]

    def score(at: list[float]) -> tuple[int, float]:
        view_rect = QRectF(at[0], at[1], *size)
        under = (
            QRectF(at[0] + box.x() / zoom, at[1] + box.y() / zoom, box.width() / zoom, box.height() / zoom)
            if box is not None
            else QRectF()
        )
        cut = sum(
            w
            for w, r in zip(weights, nodes)
            if view_rect.intersects(r) and (not view_rect.contains(r) or under.intersects(r))
        )
        return cut, abs(at[0] - start[0]) + abs(at[1] - start[1])

    best = list(start)
    for _ in range(2):
        for axis in (0, 1):
            low, high = span[axis]
            if low > high:  # the group does not fit this way at all: leave the centred frame
                continue
            edges = [r.left() if axis == 0 else r.top() for r in nodes]
            ends = [r.right() if axis == 0 else r.bottom() for r in nodes]
            width = size[axis]
            options = {start[axis], low, high}
            px = 1.5 / zoom  # the scroll bars move by whole pixels: a pixel to spare
            for a, b in zip(edges, ends):  # each node's edge on a view's edge: whole in, or just out
                options.update((a - px, b + px, a - width - px, b - width + px))
            for option in sorted(options):
                if not low - 0.5 <= option <= high + 0.5:
                    continue
                trial = list(best)
                trial[axis] = min(max(option, low), high)
                if score(trial) < score(best):
                    best = trial
    return score(best), best


EDGE_GAP = 4  # scene px the framed nodes may come to the area's edge when that clears a cut node


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
    return window.frame_note.get()


def make_frame_note(view: Any) -> Any:
    """The frame note's label, made on first use (the window's `frame_note`)."""
    from PySide6.QtWidgets import QLabel

    note = QLabel(view)  # not the viewport's: scrolling it would move the note too
    note.setObjectName("FrameNote")
    note.setAttribute(Qt.WA_TransparentForMouseEvents)
    note.hide()
    return note


def state_frame(window: Any, framed: list[str], names: dict[str, str], short: bool = False) -> None:
    """Say over the canvas which of the step's nodes are framed and what is a pan away
    (`short`: only what is a pan away, where the whole sentence lies over the step's nodes)."""
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
    if short:
        text = f"{len(away)} more node{'s' if len(away) > 1 else ''} a pan away"
    note.setText(text)
    font = theme.font("ui")
    note.setFont(font)
    fill, ink, border = theme.color("overlay_fill"), theme.color("overlay_text"), theme.color("overlay_border")
    note.setStyleSheet(
        f"QLabel#FrameNote {{ background: {fill.name()}; color: {ink.name()}; "
        f"border: 1px solid {border.name()}; padding: 2px 6px; }}"
    )
    note.adjustSize()
    note.show()
    _place_note(window)
    note.raise_()


def _place_note(window: Any) -> None:
    """The note at the canvas's top edge, or its bottom edge (`clear_edges` chose it)."""
    note, view = _frame_note(window), window.view
    note.move(view.viewport().pos() + _note_at(window, note.property("edge") or "top"))


def _note_at(window: Any, edge: str) -> QPoint:
    """The note's top-left in viewport pixels at `edge`: 'top' or 'bottom', at the left, or
    at the right ('top-right', 'bottom-right') where that clears a node of the step."""
    note, port = _frame_note(window), window.view.viewport()
    x = port.width() - note.width() - OVERLAY_GAP if edge.endswith("-right") else OVERLAY_GAP
    y = port.height() - note.height() - OVERLAY_GAP if edge.startswith("bottom") else OVERLAY_GAP
    return QPoint(max(OVERLAY_GAP, x), y)


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
    focus = panel.focus_ids()
    framed = frame(window, focus)
    state_frame(window, focus + [n for n in framed if n not in focus], panel.runner.names)
    if note.isVisible():  # the statement takes the canvas's top line: frame below it
        framed = frame(window, focus)
        state_frame(window, focus + [n for n in framed if n not in focus], panel.runner.names)
    if set(covered_nodes(window)) & set(focus):  # the sentence lies over the step's nodes wherever it goes
        state_frame(window, focus, panel.runner.names, short=True)
        framed = frame(window, focus)
        state_frame(window, focus + [n for n in framed if n not in focus], panel.runner.names, short=True)
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
            QTimer.singleShot(0, window, lambda: size_presenter_docks(window))


def presenter_changed(window: Any, on: bool) -> None:
    window.actions["presenter"].setChecked(on)
    window.actions["leave presenter"].setEnabled(on)
    presenter_chrome(window, on)  # no menu bar, no status bar: their rows are the text's
    lessons = window.docks["lessons"]
    window.lessons.set_presenting(on)
    if on and not lessons.isHidden():
        lessons.raise_()
        presenter_canvas(window)
        QTimer.singleShot(0, window, lambda: size_presenter_docks(window))  # once the window has its new size
        QTimer.singleShot(450, window, lambda: size_presenter_docks(window))
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
