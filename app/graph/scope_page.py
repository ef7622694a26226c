"""The big-graph page: a traced step collapsed by scope, opened in place, stepped by blocks.

A graph of tens of thousands of ops (a script's first training step, traced up to its
first backward(); `show(loss)` of a whole step) is shown here collapsed by scope, in the
canvas's place (the Graph workspace comes back with Ctrl+1 or "Back to the graph").
What opens a graph here is app/graph/scope_open.py; everything slow runs on the
window's worker (`LayoutRunner.run_in_worker`): the trace, and for every picture the
units, their layout and the blocks' summaries (core/scopes/layout.py `picture`). The
GUI thread only builds the items of what is on screen -- in slices, for a big picture.

Double-click a block: it opens in place; double-click an opened block's frame: it
closes (the canvas: app/graph/scope_canvas.py). "Find" opens the first block or input
whose name holds the text and centres it. Stepping the backward pass a block at a time
is the page's other half, app/graph/scope_stepping.py.

The page is handed what it uses, by name: the window's `Services`, the `LayoutRunner`
(its worker, and whether an open is pending), `PageHost` (the workspaces: the page is
put in the canvas's place, the docks set aside and given back), whether presenter mode
is on, and how to export the graph as an interactive page (app/files/exports.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from PySide6.QtCore import QByteArray, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QPainterPath, QPen
from PySide6.QtWidgets import (
    QCheckBox,
    QGraphicsScene,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.graph.scope_canvas import LEGIBLE_PX, MAX_FIT_ZOOM, READABLE_PX, ScopeCanvas
from app.graph.scope_items import FrameItem, UnitItem, block_lines, node_lines
from app.graph.scope_minimap import ScopeMinimap
from app.graph.scope_open import first_budget, legible_columns
from app.graph.scope_stepping import PageStepping, made_debugger
from app.jobs import Job
from app.slices import SlicedJob
from core.scopes.graph import ScopedGraph
from core.scopes.layout import drawn_wires, picture, route
from core.scopes.view import ScopeView, Summary, Units

if TYPE_CHECKING:
    from app.graph.layout_runner import LayoutRunner
    from app.look.theme import Theme
    from app.services import Services

__all__ = ["LEGIBLE_PX", "MAX_FIT_ZOOM", "READABLE_PX", "PageHost", "ScopePage"]

SLICE_UNITS = 250  # a picture of more units is built in slices
MAX_FRAMES = 40
REFIT_MS = 150  # a resized page chooses its first picture again once the size has held this long

# what core/scopes/layout.py `picture` makes on the worker: the units, their positions, the blocks'
# summaries by scope, the opened blocks' frames (x0, y0, x1, y1) by scope
Picture = tuple[Units, np.ndarray, dict[int, Summary], dict[int, tuple[float, float, float, float]]]


class PageHost(Protocol):
    """Where the page is shown: the window's workspaces (app/training/workspace.py)."""

    def show(self, name: str) -> None:
        """Show the 'graph' workspace (or the 'training' one)."""

    def put(self, page: QWidget | None) -> None:
        """Show `page` in the canvas's place (None: the graph canvas again)."""

    def set_docks_aside(self) -> QByteArray:
        """Hide the docked docks and the canvas's tools; return the docks' state, to give back."""
        ...

    def give_docks_back(self, state: QByteArray) -> None:
        """The docks as `state` has them, the canvas's tools back."""


class ScopePage(PageStepping):
    """The page (see the module docstring); `graph`, `view` and `stepper` are core objects."""

    def __init__(
        self,
        services: Services,
        arranger: LayoutRunner,
        host: PageHost,
        presenting: Callable[[], bool],
        export_page: Callable[[ScopedGraph, str], bool],
    ) -> None:
        super().__init__()
        self.setObjectName("scope-page")
        self.services = services
        self.arranger = arranger  # lays out every picture on its worker; `pending` while a graph opens
        self.host = host  # the workspaces: this page in the canvas's place, the docks set aside
        self.presenting = presenting  # presenter mode is on: digits for the back row
        self.export_page = export_page  # the page that steps this graph in a browser (app/files/exports.py)
        self.graph = self.view = self.stepper = None
        self._values_job = None  # the Job making the debugger's Values on a worker
        self._made = {}  # what it made: {"debugger", "start"}
        self._synced = False  # the canvas shows the script's grads until the first move
        self.items = {}  # unit -> UnitItem
        self._units = None
        self._after: Callable[[], Any] | None = None  # what to do once the next picture is on screen
        self._found = -1
        self._building: SlicedJob | None = None  # the SlicedJob building a large picture's items
        self.user_zoomed = False
        self.moves = 0  # the units stepped (minus those stepped back)
        self._dock_state: QByteArray | None = None  # the docks as they were before this page hid them
        self._closed = False  # the window closed: nothing more is started
        self._moving = None  # the Job running a long move of the debugger
        self._made_for: tuple[int, int] | None = None  # (budget, columns) the first picture was chosen for
        self._first_expanded: set[int] | None = None  # the first picture's opened blocks
        self._refit = QTimer(self)  # the window's size settled: the first picture chosen again for it
        self._refit.setSingleShot(True)
        self._refit.setInterval(REFIT_MS)
        self._refit.timeout.connect(self._refit_now)
        self.scene = QGraphicsScene(self)
        self.canvas = ScopeCanvas(self)
        self.canvas.setScene(self.scene)
        self.minimap = ScopeMinimap(self.canvas, lambda: self.services.scene.theme, self)
        self.title = QLabel("")
        self.title.setObjectName("scope-title")
        self.said = QLabel("Double-click a block to open it; Step runs the backward pass block by block.")
        self.said.setObjectName("scope-step")
        self.said.setWordWrap(True)
        bar = QHBoxLayout()
        self.buttons = {}
        for key, text, slot in (
            ("back-step", "◀ Back", self.step_back),
            ("step", "Step ▶", self.step),
            ("into", "Step into ⤵", self.step_into),
            ("end", "Run to end", self.run_to_end),
            ("reset", "Reset", self.reset),
            ("export", "Export page…", self.export_page_dialog),
            ("back", "Back to the graph", self.back),
        ):
            button = QPushButton(text)
            button.setObjectName(f"scope-{key}")
            button.clicked.connect(slot)
            self.buttons[key] = button
            bar.addWidget(button)
        self.buttons["export"].setToolTip(
            "One web page that steps this graph's backward pass a block per click in any browser, offline "
            "(as File → Export as Interactive Page does for a small graph)"
        )
        self.quiz = QCheckBox("Quiz")
        self.quiz.setObjectName("scope-quiz")
        self.quiz.setToolTip("Stepping single ops: predict each operand's new grad before it shows")
        self.quiz.toggled.connect(self.set_quiz)
        bar.addWidget(self.quiz)
        self.answer = QLineEdit()
        self.answer.setObjectName("scope-answer")
        self.answer.setPlaceholderText("your grad")
        self.answer.setMaximumWidth(120)
        self.answer.returnPressed.connect(lambda: self.answer_quiz(self.answer.text()))
        self.answer.hide()
        bar.addWidget(self.answer)
        self.find_box = QLineEdit()
        self.find_box.setPlaceholderText("Find a block or input (e.g. softmax, h = 2, wte)")
        self.find_box.returnPressed.connect(lambda: self.find_text(self.find_box.text()))
        bar.addWidget(self.find_box, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(self.title)
        layout.addLayout(bar)
        layout.addWidget(self.said)
        body = QHBoxLayout()
        body.addWidget(self.canvas, 1)
        side = QVBoxLayout()
        side.addWidget(self.minimap)
        side.addStretch(1)
        body.addLayout(side)
        layout.addLayout(body, 1)

    # -- the page as a file -----------------------------------------------------------

    def export_page_dialog(self) -> bool:
        """File → Export as Interactive Page for this graph: the page that steps it a block per
        click (app/files/exports.py writes it)."""
        if self.graph is None:
            return False
        title = self.title.text().split(" — ")[0].replace("<b>", "").replace("</b>", "")
        return bool(self.export_page(self.graph, title))

    # -- showing -------------------------------------------------------------------

    def show_graph(
        self,
        graph: ScopedGraph,
        first_view: ScopeView,
        made: Picture,
        title: str,
        made_for: tuple[int, int] | None = None,
    ) -> None:
        """A traced graph and its first picture (made on the worker: picture(first_view)),
        chosen for `made_for`, the window's (budget, columns) then: if the window has another
        size now (it was opened before the window took its saved or final size), the first
        picture is chosen again for this one."""
        self.graph, self.view, self.stepper = graph, first_view, None
        self._made_for = made_for or self._fitting()
        self._first_expanded = set(first_view.expanded)
        self.title.setText(f"<b>{title}</b> — {graph.n:,} nodes, {len(graph.scopes):,} scopes ({graph.engine})")
        self.user_zoomed = False
        self.said.setText(f"Double-click a block to open it; Step runs the backward pass block by block, from the "
                          f"output: {graph.name(graph.root)}.")  # fmt: skip
        # the engine's Values, to step: made on a worker, but started only once the first picture
        # is on the screen -- a worker making 139k Values while the canvas paints its Python items
        # made each paint wait for the interpreter (a 137-163 ms turn, 28-44 ms of it CPU)
        holder = self._made = {}  # the debugger, made on the worker (its Values, a full pass for grad_max)
        self._values_job = Job(0, lambda: holder.update(made_debugger(graph, first_view)), self,
                               name="scope-values")  # fmt: skip
        self._synced = False  # the canvas shows the script's grads until the first move
        self._show(first_view, made)
        self.canvas.fit()
        QTimer.singleShot(0, self._fit_unless_zoomed)  # at the page's final size
        self.fit_to_size()
        if self._building is not None:
            self._building.finished.connect(self._after_first_paint)
        else:
            self._after_first_paint()

    def _fit_unless_zoomed(self) -> None:
        if not self.user_zoomed:
            self.canvas.fit()

    def _after_first_paint(self) -> None:
        """Start making the Values once the viewport has painted the first picture."""
        job = self._values_job
        assert job is not None  # show_graph made it
        viewport = self.canvas.viewport()

        def start(_event: object = None) -> None:
            if not self._closed and not job.isRunning() and not job.isFinished():
                self._collector_held_for(job, tidying=False)  # made_debugger freezes what it made
                job.start()

        self.canvas.painted = start
        if not viewport.isVisible():  # offscreen, hidden page: no paint will come
            start()
        viewport.update()

    def restyle(self) -> None:
        """The theme or presenter scale changed: the picture again, at the new size (the
        first picture is chosen again for it, if nothing was opened since)."""
        if self.graph is None or self.view is None:
            return
        self._refit.stop()
        first = self._showing_first()
        if first:
            budget, _aspect = first_budget(self.services.parent, self.services.scene.theme)
            view = ScopeView.first(self.graph, budget)
            self._first_expanded = set(view.expanded)
        else:
            view = ScopeView(self.graph, self.view.expanded)
        self._made_for = self._fitting()
        self.user_zoomed = False
        self._request(view, then=self.canvas.fit)

    def _showing_first(self) -> bool:
        return self.view is not None and self._first_expanded == self.view.expanded

    def _fitting(self) -> tuple[int, int]:
        """(budget, columns): what the first picture is chosen for in the window as it is now."""
        return first_budget(self.services.parent, self.services.scene.theme)[0], self._columns()

    def _columns(self) -> int:
        """How many columns of blocks a picture may have: as many as the canvas shows legibly."""
        return legible_columns(self.services.parent, self.services.scene.theme, self.presenting(), self)

    def fit_to_size(self) -> None:
        """The page's size changed: if the first picture (nothing opened, nothing zoomed) was
        chosen for another size, choose it again once the size has settled (REFIT_MS)."""
        if self.graph is None or self.user_zoomed or not self._showing_first():
            return
        if self._made_for is not None and self._made_for != self._fitting():
            self._refit.start()

    def settle(self, timeout_s: float = 60.0) -> bool:
        """For scripts and tests: a first picture waiting for the size to hold is chosen now, and
        this returns once it (and any picture being built in slices) is on the canvas."""
        from PySide6.QtCore import QDeadlineTimer, QEventLoop
        from PySide6.QtWidgets import QApplication

        if self._refit.isActive():
            self._refit.stop()
            self._refit_now()
        deadline = QDeadlineTimer(int(timeout_s * 1000))
        while (self.arranger.pending or self.building) and not deadline.hasExpired():
            QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        return not (self.arranger.pending or self.building)

    def _refit_now(self) -> None:
        if not self.user_zoomed and self._showing_first() and self._made_for != self._fitting():
            self.restyle()

    def output_item(self) -> UnitItem | None:
        """The unit on the canvas that holds the graph's output (the loss): a node, or the block
        that hands it on. The backward pass, and the debugger's first step, start there."""
        root = self.graph.root if self.graph is not None else -1
        for item in self.items.values():
            if getattr(item, "node", None) == root or (item.block and item.summary.out_node == root):
                return item
        return None

    def _request(self, view: ScopeView, then: Callable[[], Any] | None = None, focus: int | None = None) -> None:
        """Lay out `view` on the worker, then show it (and run `then`); `focus`: a scope
        whose units the canvas then frames (a block just opened)."""
        aspect = max(0.5, self.canvas.width() / max(1, self.canvas.height()))
        self._after = then
        columns = self._columns()
        self.arranger.run_in_worker(
            lambda: picture(view, aspect, columns),
            lambda made: self._arrived(view, made, focus),
            "Laying out the opened block…",
        )

    def _arrived(self, view: ScopeView, made: Picture | Exception, focus: int | None = None) -> None:
        if isinstance(made, Exception):
            self.services.say(f"Could not lay out the graph: {made}")
            return
        centre = self.canvas.mapToScene(self.canvas.viewport().rect().center())
        self.view = view
        if self.stepper is not None:
            self.stepper.view = view
        then, self._after = self._after, None

        def finish() -> None:
            self.canvas.centerOn(centre)
            if focus is not None:
                self._frame_scope(focus)
            if then is not None:
                then()

        self._show(view, made)
        if self._building is not None:
            self._building.finished.connect(finish)
        else:
            finish()

    def _show(self, view: ScopeView, made: Picture) -> None:
        """Put the picture on the canvas: at once when small, else in slices (app/slices.py)
        so that no turn of the event loop builds more than ~8 ms of items."""
        if self._building is not None:
            self._building.cancel()
            self._building = None
        self.scene.clear()
        self.canvas.set_wires([], QPen())
        self.items = {}
        self._units = made[0]
        steps = self._build(made)
        if len(made[0]) + len(made[0].src) <= SLICE_UNITS:
            for _ in steps:
                pass
            return
        building = self._building = SlicedJob(steps, self)
        building.finished.connect(lambda: setattr(self, "_building", None))
        building.start()

    @property
    def building(self) -> bool:
        return self._building is not None

    def _build(self, made: Picture) -> Iterator[None]:
        units, pos, summaries, frames = made
        theme = self.services.scene.theme
        s = theme.scale
        g = self.graph
        assert g is not None
        for u in range(len(units)):
            if units.is_block(u):
                scope = int(units.scope[u])
                summary = summaries[scope]
                item = UnitItem(theme, u, block_lines(summary), summary.kind, True)
                item.unit_scope, item.summary = scope, summary
                item.setToolTip(f"{summary.path}\n{summary.site}\nout: the value this block hands on"
                                f" ({g.name(summary.out_node) if summary.out_node >= 0 else 'none'}); ∇: the"
                                " gradient of the output with respect to it, so far\ndouble-click: open")  # fmt: skip
            else:
                i = int(units.node[u])
                item = UnitItem(theme, u, node_lines(g, i), "node", False)
                item.node = i
            item.setPos(pos[u, 0] * s, pos[u, 1] * s)
            self.scene.addItem(item)
            self.items[u] = item
            yield
        yield from self._wires(units, pos, s, theme)
        innermost = [e for e in frames if not any(f != e and e in g.path(f) for f in frames)]
        for e in innermost[:MAX_FRAMES]:
            x0, y0, x1, y1 = frames[e]
            inside = (pos[:, 0] >= x0) & (pos[:, 0] <= x1) & (pos[:, 1] >= y0) & (pos[:, 1] <= y1)
            ours = np.array([e in g.path(int(units.scope[u])) for u in np.nonzero(inside)[0]], dtype=np.bool_)
            if not ours.all():
                continue  # split over bands of the layout: a frame would hold others' units
            self.scene.addItem(FrameItem(theme, e, " › ".join(g.title(p) for p in g.path(e)[1:]),
                                         QRectF(x0 * s, y0 * s, (x1 - x0) * s, (y1 - y0) * s)))  # fmt: skip
            yield
        self.scene.setSceneRect(self.scene.itemsBoundingRect().adjusted(-400, -400, 400, 400))
        self._mark()
        self.minimap.refresh(self.items)

    def _wires(self, units: Units, pos: np.ndarray, s: float, theme: Theme) -> Iterator[None]:
        """The drawn wires' paths (a generator; core/scopes/layout.py says which wires and where
        they run), handed to the canvas's background at the end (ScopeCanvas.drawBackground)."""
        color = theme.color("edge")
        color.setAlpha(150)
        pen = QPen(color, 1.3 * s)
        g = self.graph
        assert g is not None
        kinds = {k: g.scopes[k].kind for k in range(len(g.scopes))}
        wires = []
        for w in drawn_wires(units, kinds).tolist():
            points = [QPointF(x * s, y * s) for x, y in route(units, pos, w)]
            start, end = points[0], points[-1]
            path = QPainterPath(start)
            if len(points) == 2:
                bend = max(40.0 * s, (end.x() - start.x()) / 2)
                path.cubicTo(start + QPointF(bend, 0), end - QPointF(bend, 0), end)
            else:  # into a later band: down the gap, along above the reader, in from its left
                out, down, along, into = points[1], points[2], points[3], points[4]
                path.cubicTo(out, QPointF(out.x(), down.y()), QPointF(out.x() - 30 * s, down.y()))
                path.lineTo(QPointF(along.x() + 30 * s, along.y()))
                path.cubicTo(QPointF(into.x(), along.y()), QPointF(into.x(), end.y()), end)
            wires.append((path, path.controlPointRect().adjusted(-2 * s, -2 * s, 2 * s, 2 * s)))
            yield
        self.canvas.set_wires(wires, pen)

    # -- opening and closing ---------------------------------------------------------

    def open_block(self, scope: int, then: Callable[[], Any] | None = None) -> None:
        assert self.graph is not None and self.view is not None  # a block of the picture shown
        view = ScopeView(self.graph, self.view.expanded)
        view.expand(scope)
        self._request(view, then, focus=scope)

    def _frame_scope(self, scope: int) -> None:
        """Show the units inside scope: all of them if they fit at a legible zoom, else
        the first of them at that zoom."""
        g, units = self.graph, self._units
        assert g is not None and units is not None
        rect = QRectF()
        first: UnitItem | None = None
        for u, item in self.items.items():
            s = int(units.scope[u])
            if scope in g.path(s):
                rect = rect.united(item.sceneBoundingRect())
                first = first or item
        if rect.isEmpty():
            return
        self.canvas.fitInView(rect.adjusted(-30, -30, 30, 30), Qt.AspectRatioMode.KeepAspectRatio)
        theme = self.services.scene.theme
        legible = LEGIBLE_PX / max(1, theme.font("label").pixelSize())
        zoom = self.canvas.transform().m11()
        if zoom < legible or zoom > MAX_FIT_ZOOM:
            target = max(legible, min(zoom, MAX_FIT_ZOOM))
            self.canvas.resetTransform()
            self.canvas.scale(target, target)
            self.canvas.centerOn(
                rect.center() if zoom > MAX_FIT_ZOOM or first is None else first.sceneBoundingRect().center()
            )
        self.user_zoomed = True

    def close_block(self, scope: int) -> None:
        assert self.graph is not None and self.view is not None  # a frame of the picture shown
        view = ScopeView(self.graph, self.view.expanded)
        view.collapse(scope)
        self._request(view)

    def find_text(self, text: str) -> bool:
        """Open the way to the next block (or labelled input) whose name holds text; centre it."""
        g, text = self.graph, text.strip().lower()
        if g is None or self.view is None or not text:
            return False
        hits = [s for s in range(1, len(g.scopes)) if text in g.title(s).lower()]
        if not hits:
            labelled = [i for i, label in g.labels.items() if text in label.lower()]
            if not labelled:
                self.said.setText(f"Nothing is called “{text}”.")
                return False
            hits = sorted({int(g.scope[i]) for i in labelled})
        later = [s for s in hits if s > self._found]
        self._found = later[0] if later else hits[0]
        target = self._found
        view = ScopeView(g, self.view.expanded)
        for p in g.path(target)[:-1]:
            view.expand(p)
        self.said.setText(f"Found {g.title(target)}: {' › '.join(g.title(p) for p in g.path(target)[1:])}"
                          f" ({len(hits)} match{'es' * (len(hits) != 1)}; Return: the next)")  # fmt: skip
        self._request(view, lambda: self._centre_on_scope(target))
        return True

    def _centre_on_scope(self, scope: int) -> None:
        for item in self.items.values():
            if getattr(item, "unit_scope", None) == scope:
                item.set_marks(item.stepped, True)
                self.canvas.centerOn(item)
                return

    def shutdown(self) -> None:
        """The window closes: no more slices; the worker making the Values ends before the page
        goes (a QThread destroyed while it runs aborts the process)."""
        if self._building is not None:
            self._building.cancel()
            self._building = None
        self._refit.stop()
        self._closed = True  # a paint still queued starts no worker now
        self.wait_ready()
        if self._moving is not None:
            self._moving.wait()

    def enter(self) -> None:
        """Show this page in the canvas's place, the docks set aside for room (and the
        canvas's tools and numbers: not this page's)."""
        self.host.show("graph")
        if self._dock_state is None:
            self._dock_state = self.host.set_docks_aside()
        self.host.put(self)

    def back(self) -> None:
        """The Graph workspace again, its docks as they were."""
        self.host.put(None)
        if self._dock_state is not None:
            state, self._dock_state = self._dock_state, None
            self.host.give_docks_back(state)
