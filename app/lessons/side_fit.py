"""A lesson in the everyday window (a laptop's side dock, not presenter mode): the step's
text, what an answer revealed and the verdict all in view, nothing scrolled away.

A side dock at 1280x720 is about 380 px wide and, under the debugger's dock, ~420 px
tall: chain-rule step 4 needs ~280 px of text and ~200 px of working beside its
question, and both scrolled (61 of 67 views of the tour's sample with the Quiz had
text or verdict out of view). `fit_side` first gives the dock the height the step
asks (the docks across the bottom give it up, `lesson_room`, at most three quarters of
the window), then cuts what still does not fit into pages at the text's own size, as
presenter mode does (app/lessons/paging.py): "page k of n" beside the step, Next
reading "More ▼", after an answer the page holding what it revealed.

`SideFit` runs the fit once the event loop is free after a step is shown, a verdict
shows, a move ends or the panel is resized (many requests, one fit).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer

SIDE_AREAS = (Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea)


class SideFit(QObject):
    """One fit of the lesson's side dock per turn of the event loop, asked often."""

    def __init__(self, window: Any, panel: Any, appearance: Any) -> None:
        super().__init__(window)
        self.window = window
        self.appearance = appearance
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(0)
        self.timer.timeout.connect(lambda: fit_side(self.window))
        panel.stepShown.connect(lambda _i: self.request())
        panel.roomChanged.connect(self.request)
        panel.busyChanged.connect(lambda _b: self.request())
        panel.installEventFilter(self)
        # closing the lesson gives the docks across the bottom their corners back (fit_side)
        window.docks["lessons"].visibilityChanged.connect(lambda _shown: self.timer.start())
        # entering presenter mode undoes the side dock's sizes at once (its fit is the room's)
        appearance.presenterChanged.connect(lambda _on: fit_side(self.window))

    def request(self) -> None:
        if not self.appearance.presenting:
            self.timer.start()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.request()
        return False


def in_side_dock(window: Any) -> bool:
    """Is the lesson in a docked side column of the everyday window?"""
    dock = window.docks["lessons"]
    return (
        not window.appearance.presenting
        and dock.isVisible()
        and not dock.isFloating()
        and window.dockWidgetArea(dock) in SIDE_AREAS
    )


def fit_side(window: Any) -> None:
    """The step whole in the side dock: the dock as tall as it asks (what the docks
    across the bottom can give), then in pages at the text's size what still does not
    fit; outside a side dock (or in presenter mode, which pages for the room) nothing."""
    panel = window.lessons
    side = in_side_dock(window)
    if panel.side_sized != side:  # the text and the network take the dock's room, no more (no scrolling)
        panel.side_sized = side
        panel.share_text()
    network = panel.network_view
    if not side or panel.runner is None or panel.snapshot is None or panel.busy:
        network.setMaximumHeight(WHOLE)
        if not side:
            panel.text.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
            give_back_corners(window)
        return
    reach_bottom(window)
    lesson_room(window)
    least = 2 * panel.text.fontMetrics().height()
    # a network's numbers and boundary take at most NETWORK_SHARE of the page (its
    # boundary asked 240 px of a 380 px page: the text had 46 px, 12 pages)
    network.setMaximumHeight(max(BOUNDARY_LEAST, int(NETWORK_SHARE * panel.scroller.viewport().height())))
    outer = panel.scroller.verticalScrollBar().maximum()  # what the page around the text overflows
    text = max(least, panel.text.viewport().height() - outer)
    panel.paginate(text if panel.markdown_height(panel.markdown, 1.0) > text else None, factor=1.0)
    # a page fits by its cut: no scroll bar to come and go (its 14 px of width changed
    # the cut, which changed the page shown, and More never moved on)
    paged = len(panel.pages) > 1
    panel.text.setVerticalScrollBarPolicy(
        Qt.ScrollBarPolicy.ScrollBarAlwaysOff if paged else Qt.ScrollBarPolicy.ScrollBarAsNeeded
    )
    box = panel.question_box
    shown = getattr(box, "_shown", None)
    if panel.verdict.isVisibleTo(panel) and shown is not None:
        room = max(least, panel.verdict.viewport().height())
        whole = box.result_height(shown[0].splitlines())  # all of it, whatever part shows now
        panel.paginate_verdict(room if whole > room else None)


WHOLE = 16777215  # Qt's largest widget size: no maximum
NETWORK_SHARE = 0.45  # of a side dock's page, at most, for a network's numbers and boundary
BOUNDARY_LEAST = 160  # px: a network's numbers and a boundary still readable


def reach_bottom(window: Any) -> None:
    """The lesson's side column down to the window's bottom edge: the dock across the
    bottom (the debugger) keeps the canvas's width, not the lesson's (at 1280x720 it
    left the lesson 406 of the window's 645 px, and a dock cannot shrink below its
    smallest size to give more)."""
    area = window.dockWidgetArea(window.docks["lessons"])
    corner = Qt.Corner.BottomLeftCorner if area == Qt.DockWidgetArea.LeftDockWidgetArea else Qt.Corner.BottomRightCorner
    if window.corner(corner) != area:
        window.setCorner(corner, area)


def give_back_corners(window: Any) -> None:
    """The bottom corners to the docks across the bottom again, Qt's arrangement and the
    window's own (`reach_bottom` lent one to the lesson's column): with the lesson closed
    or out of the side, the debugger spans the window's width again, not the canvas's."""
    for corner in (Qt.Corner.BottomLeftCorner, Qt.Corner.BottomRightCorner):
        if window.corner(corner) != Qt.DockWidgetArea.BottomDockWidgetArea:
            window.setCorner(corner, Qt.DockWidgetArea.BottomDockWidgetArea)


def lesson_room(window: Any) -> None:
    """Out of presenter mode, a lesson's side dock too short for its step with a verdict
    (a laptop: the debugger's dock across the bottom left it ~320 px) grows, up to three
    quarters of the window: the step's text and the verdict get the room."""
    dock, panel = window.docks["lessons"], window.lessons
    if (
        window.appearance.presenting
        or dock.isHidden()
        or dock.isFloating()
        or window.dockWidgetArea(dock)
        in (
            Qt.DockWidgetArea.TopDockWidgetArea,
            Qt.DockWidgetArea.BottomDockWidgetArea,
        )
    ):
        return
    chrome = dock.height() - panel.height()
    wanted = panel.wanted_height() + chrome
    if panel.list.isVisible() and panel.splitter.orientation() == Qt.Orientation.Vertical:
        wanted += panel.splitter.sizes()[0] + panel.splitter.handleWidth()
    deficit = min(wanted, int(0.75 * window.height())) - dock.height()
    if deficit <= 0:
        return
    # a side dock's height is what the docks across the bottom leave: they give it up
    below = [
        d
        for d in window.docks.values()
        if d.isVisible() and window.dockWidgetArea(d) == Qt.DockWidgetArea.BottomDockWidgetArea
    ]
    if below:
        window.resizeDocks(below, [max(1, d.height() - deficit) for d in below], Qt.Orientation.Vertical)


def side_cut(window: Any) -> int:
    """Pixels of the step's text and verdict out of view in the side dock (0: whole)."""
    panel = window.lessons
    verdict = panel.verdict.verticalScrollBar().maximum() if panel.verdict.isVisible() else 0
    return int(panel.text_cut() + verdict)
