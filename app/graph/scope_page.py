"""The big-graph page: a traced step collapsed by scope, opened in place, stepped by blocks.

`open_script(window, path)` traces a script (a learner's, or the microgpt
example on the studio's engine) in a child process up to its first
backward() (core/scopes/script.py) and shows its graph on this page, which
takes the place of the canvas (the Graph workspace comes back with Ctrl+1 or
"Back to the graph"). Everything slow runs on the window's worker thread
(`window.arranger.run_in_worker`): the trace, and for every picture the units,
their layout and the blocks' summaries (core/scopes/layout.py `picture`).
The GUI thread only builds the items of what is on screen.

Double-click a block: it opens in place; double-click an opened block's frame:
it closes. The debugger is the small graph's `DebugSession`, moved a unit of the
picture at a time (core/scopes/debug.py): "Step" runs the backward pass of the
next unit as the picture shows it -- a whole block, or one op -- "Step into"
opens the next block first, so the steps go inside it, "Back" undoes the last
unit; right-click a unit: run to it, or a breakpoint before it; "Quiz" asks
for each single op's new grads before they show. "Find" opens the
first block or input whose name holds the text and centres it.
"""

import os
from dataclasses import replace
from typing import Any

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QPainter, QPainterPath, QPen
from PySide6.QtWidgets import (
    QCheckBox,
    QGraphicsScene,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app import collector
from app.graph.scope_items import FrameItem, UnitItem, block_lines, node_lines
from app.graph.scope_minimap import ScopeMinimap
from app.jobs import Job
from app.slices import SlicedJob
from core.scopes import layout as sizes
from core.scopes.debug import BlockDebugger, node_of
from core.scopes.layout import drawn_wires, picture, route
from core.scopes.view import ScopeView

MAX_FIT_ZOOM = 1.2
READABLE_PX = 24  # presenter mode: a number's pixels on screen at least
SLICE_UNITS = 250  # a picture of more units is built in slices
MAX_FRAMES = 40
SYNC_OPS = 1_500  # a move of the debugger running more `_backward` steps runs on a worker
REFIT_MS = 150  # a resized page chooses its first picture again once the size has held this long
LEGIBLE_PX = 11  # a title's pixels on screen at least, when a block opens


class ScopeCanvas(QGraphicsView):
    def __init__(self, page):
        super().__init__()
        self.page = page
        self.setRenderHints(QPainter.Antialiasing | QPainter.TextAntialiasing)
        self.setDragMode(QGraphicsView.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.SmartViewportUpdate)
        # the wires are drawn in the background, kept as a pixmap of the view: a step repaints its
        # boxes over it, not the 100-odd curves under them (a full repaint: ~8-20 ms, two thirds wires)
        self.setCacheMode(QGraphicsView.CacheBackground)
        self._wires = []  # [(path, its bounding box)] in scene coordinates
        self._pen = QPen()

    def set_wires(self, wires, pen):
        self._wires, self._pen = wires, pen
        self.resetCachedContent()
        self.viewport().update()

    def drawBackground(self, painter, rect):
        super().drawBackground(painter, rect)
        if self._wires:
            painter.setPen(self._pen)
            painter.setBrush(Qt.NoBrush)
            for path, box in self._wires:
                if box.intersects(rect):
                    painter.drawPath(path)

    def wheelEvent(self, event):
        factor = 1.2 if event.angleDelta().y() > 0 else 1 / 1.2
        zoom = self.transform().m11() * factor
        if 0.02 <= zoom <= 6:
            self.scale(factor, factor)
            self.page.user_zoomed = True

    def mouseDoubleClickEvent(self, event):
        item = self.itemAt(event.position().toPoint())
        if isinstance(item, UnitItem) and item.block:
            self.page.open_block(item.unit_scope)
        elif isinstance(item, FrameItem):
            self.page.close_block(item.scope)
        else:
            super().mouseDoubleClickEvent(event)

    def contextMenuEvent(self, event):
        item = self.itemAt(event.pos())
        if not isinstance(item, UnitItem):
            return super().contextMenuEvent(event)
        menu = QMenu(self)
        menu.addAction("Run to here", lambda: self.page.run_to_unit(item.unit))
        menu.addAction("Breakpoint before this (on/off)", lambda: self.page.toggle_breakpoint(item.unit))
        if item.block:
            menu.addAction("Open", lambda: self.page.open_block(item.unit_scope))
        menu.exec(event.globalPos())
        return None

    painted = None  # called once after the next paint of the viewport (the page's first picture)

    def paintEvent(self, event):
        super().paintEvent(event)
        then, self.painted = self.painted, None
        if then is not None:
            QTimer.singleShot(0, then)  # after this paint's turn

    def resizeEvent(self, event):
        super().resizeEvent(event)
        if not self.page.user_zoomed:
            self.fit()
            self.page.fit_to_size()
        self.page.minimap.follow()

    def fit(self):
        rect = QRectF()
        for item in self.page.items.values():
            rect = rect.united(item.sceneBoundingRect())
        if rect.isEmpty():
            return
        self.resetTransform()
        self.fitInView(rect.adjusted(-20, -20, 20, 20), Qt.KeepAspectRatio)
        window = self.page.window
        theme = window.scene.theme
        floor = LEGIBLE_PX / max(1, theme.font("label").pixelSize())  # never fitted below legible
        if getattr(getattr(window, "appearance", None), "presenting", False):  # digits for the back row
            floor = max(floor, READABLE_PX / max(1, theme.font("number").pixelSize()))
        zoom = self.transform().m11()
        if zoom > MAX_FIT_ZOOM or zoom < floor:
            zoom = MAX_FIT_ZOOM if zoom > MAX_FIT_ZOOM else floor
            self.resetTransform()
            self.scale(zoom, zoom)
            view = self.viewport().rect()
            if rect.width() * zoom <= view.width() and rect.height() * zoom <= view.height():
                self.centerOn(rect.center())
            else:  # the start of the picture, read like a page: its top left -- moved as little as
                self.centerOn(rect.left() + view.width() / zoom / 2 - 20, rect.top() + view.height() / zoom / 2 - 20)
                output = self.page.output_item()  # shows the output whole: the backward pass starts there
                if output is not None:
                    self.ensureVisible(output, 20, 20)


class ScopePage(QWidget):
    """The page (see the module docstring); `graph`, `view` and `stepper` are core objects."""

    def __init__(self, window):
        super().__init__()
        self.setObjectName("scope-page")
        self.window = window
        self.graph = self.view = self.stepper = None
        self.items = {}  # unit -> UnitItem
        self._units = None
        self._after = None  # what to do once the next picture is on screen
        self._found = -1
        self._building = None  # the SlicedJob building a large picture's items
        self.user_zoomed = False
        self.moves = 0  # the units stepped (minus those stepped back)
        self._dock_state = None  # the docks as they were before this page hid them
        self._closed = False  # the window closed: nothing more is started
        self._moving = None  # the Job running a long move of the debugger
        self._made_for = None  # (budget, columns) the first picture was chosen for
        self._refit = QTimer(self)  # the window's size settled: the first picture chosen again for it
        self._refit.setSingleShot(True)
        self._refit.setInterval(REFIT_MS)
        self._refit.timeout.connect(self._refit_now)
        self.scene = QGraphicsScene(self)
        self.canvas = ScopeCanvas(self)
        self.canvas.setScene(self.scene)
        self.minimap = ScopeMinimap(self.canvas, self)
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
        self._page_job = None  # the interactive page being written
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
        self.find = QLineEdit()
        self.find.setPlaceholderText("Find a block or input (e.g. softmax, h = 2, wte)")
        self.find.returnPressed.connect(lambda: self.find_text(self.find.text()))
        bar.addWidget(self.find, 1)
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
        window: Any = self.window  # the MainWindow (its `window` attribute hides QWidget.window())
        return bool(window.files.export_block_page_dialog(self.graph, title))

    # -- showing -------------------------------------------------------------------

    def show_graph(self, graph, first_view, made, title, made_for=None):
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
        QTimer.singleShot(0, lambda: self.user_zoomed or self.canvas.fit())  # at the page's final size
        self.fit_to_size()
        if self._building is not None:
            self._building.finished.connect(self._after_first_paint)
        else:
            self._after_first_paint()

    def _after_first_paint(self):
        """Start making the Values once the viewport has painted the first picture."""
        job = self._values_job
        viewport = self.canvas.viewport()

        def start(_event=None):
            if not self._closed and not job.isRunning() and not job.isFinished():
                self._collector_held_for(job, tidying=False)  # made_debugger freezes what it made
                job.start()

        self.canvas.painted = start
        if not viewport.isVisible():  # offscreen, hidden page: no paint will come
            start()
        viewport.update()

    def restyle(self):
        """The theme or presenter scale changed: the picture again, at the new size (the
        first picture is chosen again for it, if nothing was opened since)."""
        if self.graph is None:
            return
        self._refit.stop()
        first = self._showing_first()
        if first:
            budget, _aspect = first_budget(self.window)
            view = ScopeView.first(self.graph, budget)
            self._first_expanded = set(view.expanded)
        else:
            view = ScopeView(self.graph, self.view.expanded)
        self._made_for = self._fitting()
        self.user_zoomed = False
        self._request(view, then=self.canvas.fit)

    def _showing_first(self):
        return self.view is not None and getattr(self, "_first_expanded", None) == self.view.expanded

    def _fitting(self):
        """(budget, columns): what the first picture is chosen for in the window as it is now."""
        return first_budget(self.window)[0], legible_columns(self.window)

    def fit_to_size(self):
        """The page's size changed: if the first picture (nothing opened, nothing zoomed) was
        chosen for another size, choose it again once the size has settled (REFIT_MS)."""
        if self.graph is None or self.user_zoomed or not self._showing_first():
            return
        if self._made_for is not None and self._made_for != self._fitting():
            self._refit.start()

    def settle(self, timeout_s=60.0):
        """For scripts and tests: a first picture waiting for the size to hold is chosen now, and
        this returns once it (and any picture being built in slices) is on the canvas."""
        from PySide6.QtCore import QDeadlineTimer, QEventLoop
        from PySide6.QtWidgets import QApplication

        if self._refit.isActive():
            self._refit.stop()
            self._refit_now()
        deadline = QDeadlineTimer(int(timeout_s * 1000))
        while (self.window.layout_pending or self.building) and not deadline.hasExpired():
            QApplication.processEvents(QEventLoop.AllEvents, 50)
        return not (self.window.layout_pending or self.building)

    def _refit_now(self):
        if not self.user_zoomed and self._showing_first() and self._made_for != self._fitting():
            self.restyle()

    def output_item(self):
        """The unit on the canvas that holds the graph's output (the loss): a node, or the block
        that hands it on. The backward pass, and the debugger's first step, start there."""
        root = self.graph.root if self.graph is not None else -1
        for item in self.items.values():
            if getattr(item, "node", None) == root or (item.block and item.summary.out_node == root):
                return item
        return None

    def _request(self, view, then=None, focus=None):
        """Lay out `view` on the worker, then show it (and run `then`); `focus`: a scope
        whose units the canvas then frames (a block just opened)."""
        aspect = max(0.5, self.canvas.width() / max(1, self.canvas.height()))
        self._after = then
        columns = legible_columns(self.window)
        self.window.arranger.run_in_worker(
            lambda: picture(view, aspect, columns),
            lambda made: self._arrived(view, made, focus),
            "Laying out the opened block…",
        )

    def _arrived(self, view, made, focus=None):
        if isinstance(made, Exception):
            self.window.show_message(f"Could not lay out the graph: {made}")
            return
        centre = self.canvas.mapToScene(self.canvas.viewport().rect().center())
        self.view = view
        if self.stepper is not None:
            self.stepper.view = view
        then, self._after = self._after, None

        def finish():
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

    def _show(self, view, made):
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
        self._building = SlicedJob(steps, self)
        self._building.finished.connect(lambda: setattr(self, "_building", None))
        self._building.start()

    @property
    def building(self):
        return self._building is not None

    def _build(self, made):
        units, pos, summaries, frames = made
        theme = self.window.scene.theme
        s = theme.scale
        g = self.graph
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
            ours = np.array([e in g.path(int(units.scope[u])) for u in np.nonzero(inside)[0]], dtype=bool)
            if not ours.all():
                continue  # split over bands of the layout: a frame would hold others' units
            self.scene.addItem(FrameItem(theme, e, " › ".join(g.title(p) for p in g.path(e)[1:]),
                                         QRectF(x0 * s, y0 * s, (x1 - x0) * s, (y1 - y0) * s)))  # fmt: skip
            yield
        self.scene.setSceneRect(self.scene.itemsBoundingRect().adjusted(-400, -400, 400, 400))
        self._mark()
        self.minimap.refresh(self.items)

    def _wires(self, units, pos, s, theme):
        """The drawn wires' paths (a generator; core/scopes/layout.py says which wires and where
        they run), handed to the canvas's background at the end (ScopeCanvas.drawBackground)."""
        color = theme.color("edge")
        color.setAlpha(150)
        pen = QPen(color, 1.3 * s)
        g = self.graph
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

    def open_block(self, scope, then=None):
        view = ScopeView(self.graph, self.view.expanded)
        view.expand(scope)
        self._request(view, then, focus=scope)

    def _frame_scope(self, scope):
        """Show the units inside scope: all of them if they fit at a legible zoom, else
        the first of them at that zoom."""
        g, units = self.graph, self._units
        rect = QRectF()
        first = None
        for u, item in self.items.items():
            s = int(units.scope[u])
            if scope in g.path(s):
                rect = rect.united(item.sceneBoundingRect())
                first = first or item
        if rect.isEmpty():
            return
        self.canvas.fitInView(rect.adjusted(-30, -30, 30, 30), Qt.KeepAspectRatio)
        theme = self.window.scene.theme
        legible = LEGIBLE_PX / max(1, theme.font("label").pixelSize())
        zoom = self.canvas.transform().m11()
        if zoom < legible or zoom > MAX_FIT_ZOOM:
            target = max(legible, min(zoom, MAX_FIT_ZOOM))
            self.canvas.resetTransform()
            self.canvas.scale(target, target)
            self.canvas.centerOn(rect.center() if zoom > MAX_FIT_ZOOM else first.sceneBoundingRect().center())
        self.user_zoomed = True

    def close_block(self, scope):
        view = ScopeView(self.graph, self.view.expanded)
        view.collapse(scope)
        self._request(view)

    def find_text(self, text):
        """Open the way to the next block (or labelled input) whose name holds text; centre it."""
        g, text = self.graph, text.strip().lower()
        if g is None or not text:
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

    def _centre_on_scope(self, scope):
        for item in self.items.values():
            if getattr(item, "unit_scope", None) == scope:
                item.set_marks(item.stepped, True)
                self.canvas.centerOn(item)
                return

    # -- stepping --------------------------------------------------------------------

    def wait_ready(self):
        """Block until the graph's Values are made (for scripts and tests)."""
        job = getattr(self, "_values_job", None)
        if job is not None:
            job.wait()

    def shutdown(self):
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

    def _stepper(self):
        """The debugger (core/scopes/debug.py), once the worker has made it (None until then)."""
        job = getattr(self, "_values_job", None)
        if job is not None and not job.isFinished():
            self.said.setText("Making the engine's Values of the graph to step them… (a moment)")
            return None
        if self.stepper is None:
            made = getattr(self, "_made", {}).get("debugger")
            if made is None:
                self.said.setText("The graph's Values could not be made: it cannot be stepped.")
                return None
            self.stepper = made
            self._start_grads = self._made["start"]
            made.view = self.view
        return self.stepper

    def step(self):
        """One unit of the picture: a whole block's backward, or one op's (the small debugger's step).
        Returns the UnitStep -- or None when it runs on the worker (`moving`; see `_move`)."""
        if self.graph is None or self._stepper() is None:
            return None

        def said(record):
            if record is None:
                self.said.setText("The backward pass is done: every gradient is in.")
            else:
                self.moves += 1
                explain = f"  —  {record.explain}" if record.explain else ""
                self.said.setText(f"Step {self.moves}: {record.text}{explain}")

        return self._move(self.stepper.step, self.stepper.ops_of("step"), said)

    def step_back(self):
        """Undo the last unit run: its grads back to what they were before it."""
        if self.graph is None or self._stepper() is None:
            return None

        def said(record):
            if record is None:
                self.said.setText("At the start: nothing to step back.")
            else:
                self.moves = max(0, self.moves - 1)
                self.said.setText(f"Step back: {record.text}")

        return self._move(self.stepper.back, self.stepper.ops_of("back"), said)

    def step_into(self):
        """Open the block the next step would run, then step inside it."""
        if self.graph is None:
            return
        stepper = self._stepper()
        if stepper is None:
            return None
        u = stepper.next_unit()
        if u < 0 or not self._units.is_block(u):
            return self.step()
        self.open_block(int(self._units.scope[u]), then=self.step)
        return None

    def run_to_end(self):
        if self.graph is None or self._stepper() is None:
            return None
        return self._move(
            self.stepper.run_to_end, self.stepper.ops_of("end"), self._said_stopped("Ran the backward pass to its end.")
        )

    def run_to_unit(self, u):
        if self.graph is None or self._stepper() is None:
            return None
        work = lambda: self.stepper.run_to_unit(u)  # noqa: E731
        return self._move(work, self.stepper.ops_of("to", u), self._said_stopped("Ran up to the block: it runs next."))

    def _said_stopped(self, ran):
        def said(_move):
            reason = self.stepper.session.stop_reason
            self.said.setText(f"Stopped: {reason}" if reason else ran)

        return said

    def toggle_breakpoint(self, u):
        if self.graph is None or self._stepper() is None or self.moving:
            return False
        on = self.stepper.toggle_breakpoint(u)
        self.said.setText("A breakpoint before this block: a run stops there." if on else "Breakpoint removed.")
        self._mark()
        return on

    def set_quiz(self, on):
        if self._stepper() is None or self.moving:
            return
        self.stepper.session.set_quiz_mode(bool(on))
        self._after_move(None)

    def answer_quiz(self, text):
        if self.stepper is None or self.moving:
            return None
        move = self.stepper.session.answer_quiz(text)
        self.said.setText(move.answer[1] if move.answer else move.message or "Type a number.")
        self._after_move(move)
        return move

    def reset(self):
        if self._stepper() is None:
            return None

        def said(_move):
            self.moves = 0
            self.said.setText("Reset: every grad is 0, the output's is 1. Step runs the first block.")

        return self._move(self.stepper.reset, self.stepper.ops_of("reset"), said)

    # -- a move, here or on the worker ---------------------------------------------------

    @property
    def moving(self):
        """True while a long move of the debugger runs on the worker."""
        return self._moving is not None

    def _move(self, work, ops, said):
        """Run `work()` -- a move of the debugger: a UnitStep, a Move or None -- and the copy of
        the grads it changed into the picture's arrays; then say it (`said(outcome)`) and repaint.
        A move of at most SYNC_OPS steps (~5 ms) runs here and returns its outcome; a longer one
        (a whole position's block, Run to end and Reset of a 138k step: 25-110 ms) runs on a
        worker and returns None, the window answering meanwhile (`moving`, `wait_moved`)."""
        if self.moving:
            self.said.setText("Still running the backward pass… (a moment)")
            return None
        graph, debugger = self.graph, self.stepper

        def run():  # on the worker for a long move: the Values and the session are its alone meanwhile
            outcome = work()
            move = getattr(outcome, "move", outcome)
            if move is None:
                return outcome, None, None
            changed = debugger.changed_nodes(move)
            values = graph.values()
            grads = np.fromiter((values[i].grad for i in changed.tolist()), dtype=np.float64, count=len(changed))
            return outcome, changed, grads

        if ops <= SYNC_OPS:
            return self._moved(run(), said)
        self.said.setText("Running the backward pass… (the window keeps answering)")
        job = self._moving = Job(0, run, self, name="scope-move")

        def done(_token, result):
            job.wait()
            job.deleteLater()
            self._moving = None
            if isinstance(result, Exception):  # a bug of ours, said, never a lost window
                self.said.setText(f"Could not run the backward pass: {result}")
                return
            self._moved(result, said)

        job.done.connect(done)
        self._collector_held_for(job)
        job.start()
        return None

    def _collector_held_for(self, job, tidying=True):
        """No automatic collection while a worker makes or moves the graph's Values: a full one
        walks them all holding the interpreter (73 ms on the 138k step: a GUI turn as long), as
        while a graph opens (app/collector.py); released when the job ends."""
        collector.hold(tidying)

        def release():
            if not self.window.layout_pending:  # else the open releases it when done
                collector.release()

        job.finished.connect(release)

    def _moved(self, result, said):
        outcome, changed, grads = result
        self._sync()
        if changed is not None and len(changed):
            self.graph.grad[changed] = grads
        said(outcome)
        self._repaint_units(getattr(outcome, "move", outcome))
        return outcome

    def wait_moved(self, timeout_s=120.0):
        """For scripts and tests: return once a move running on the worker is shown."""
        from PySide6.QtCore import QDeadlineTimer, QEventLoop
        from PySide6.QtWidgets import QApplication

        deadline = QDeadlineTimer(int(timeout_s * 1000))
        while self.moving and not deadline.hasExpired():
            QApplication.processEvents(QEventLoop.AllEvents, 50)
        return not self.moving

    def _after_move(self, move):
        """A small move made here (the quiz's): copy the grads it changed, repaint the units."""
        g = self.graph
        self._sync()
        if move is not None:
            values = g.values()
            changed = self.stepper.changed_nodes(move)
            if len(changed):
                g.grad[changed] = np.fromiter((values[i].grad for i in changed.tolist()), dtype=np.float64,
                                              count=len(changed))  # fmt: skip
        self._repaint_units(move)

    def _sync(self):
        """Before the first move the picture shows the script's own grads; from then on the
        debugger's, which start where its session started (made with the Values, on the worker)."""
        if not self._synced:
            self.graph.grad[:] = self._start_grads
            self._synced = True

    def _repaint_units(self, move):
        """The units' numbers from the picture's arrays, the quiz's question, the marks."""
        g, debugger = self.graph, self.stepper
        hidden = {node_of(k) for k in debugger.session.ids_of(debugger.session.quiz_hidden())}
        question = debugger.session.quiz_question()
        self.answer.setVisible(bool(question))
        if question:
            self.said.setText(f"{self.said.text()}  —  {question}")
        for item in self.items.values():
            if item.block:
                summary = item.summary
                if summary.out_node >= 0:
                    item.summary = summary = replace(summary, grad=float(g.grad[summary.out_node]))
                lines = block_lines(summary)
            else:
                lines = node_lines(g, item.node, hidden=item.node in hidden)
            if lines != item.lines:  # only what changed is painted again (a whole view: ~8-18 ms)
                item.lines = lines
                item.update()
        self._mark()

    def _mark(self):
        """Paint what has run (core/scopes/debug.py `marks`: a pure function of the position)."""
        stepper, units = self.stepper, self._units
        if stepper is None or units is None or stepper.view.units() is not units:
            for item in self.items.values():
                item.set_marks(False, False)
            return
        stepped, current = stepper.marks()
        breaks = stepper.breakpoint_units()
        for u, item in self.items.items():
            item.set_marks(bool(stepped[u]), u == current)
            item.set_breakpoint(u in breaks)
        if current in self.items:
            self.canvas.ensureVisible(self.items[current], 40, 40)
        self.minimap.refresh(self.items)  # the stepped units turn green there too

    def enter(self):
        """Show this page in the canvas's place, the docks set aside for room."""
        window = self.window
        window.training.show("graph")
        if self._dock_state is None:
            self._dock_state = window.saveState()
            for dock in window.docks.values():
                if not dock.isHidden() and not dock.isFloating():
                    dock.hide()
            window.training._set_graph_chrome(False)  # the canvas's tools and numbers: not this page's
        window.training.stack.setCurrentWidget(self)

    def back(self):
        """The Graph workspace again, its docks as they were."""
        window = self.window
        window.training.stack.setCurrentWidget(window.training.graph_page)
        if self._dock_state is not None:
            window.restoreState(self._dock_state)
            self._dock_state = None
            window.training._set_graph_chrome(True)


def made_debugger(graph, view):
    """(on the worker) the debugger of the graph and its grads as its session starts."""
    import gc

    debugger = BlockDebugger(graph, view)
    start = np.fromiter((v.grad for v in graph.values()), dtype=np.float64, count=graph.n)
    gc.freeze()  # the Values live as long as the page: never walked by a collection (app/collector.py)
    return {"debugger": debugger, "start": start}


def first_budget(window):
    """(units, aspect) of a first picture legible in this window: boxes at ~3/4 of their
    size (13 px text at 1x, larger in presenter mode), about half the cells filled."""
    scale = window.scene.theme.scale
    width, height = max(600, window.width() - 40), max(400, window.height() - 170)
    zoom = 0.8 * scale
    cells = (width / (320 * zoom)) * (height / (122 * zoom))
    return max(8, int(cells * 0.55)), width / height


def legible_columns(window):
    """How many columns of blocks fit the canvas's width at the zoom the canvas never fits below
    (LEGIBLE_PX titles; READABLE_PX numbers in presenter mode): a picture no wider than that
    is read down the page, never scrolled sideways."""
    theme = window.scene.theme
    floor = LEGIBLE_PX / max(1, theme.font("label").pixelSize())
    if getattr(getattr(window, "appearance", None), "presenting", False):
        floor = max(floor, READABLE_PX / max(1, theme.font("number").pixelSize()))
    page = window.scope_page.current
    width = page.canvas.viewport().width() if page is not None and page.isVisible() else window.width() - 300
    return max(1, int(max(300, width - 40) / ((sizes.BLOCK_W + sizes.GAP_X) * theme.scale * floor)))


def page_of(window):
    """The window's ScopePage (its `scope_page`), made on first use."""
    return window.scope_page.get()


def make_page(window):
    """A ScopePage put beside the Graph workspace: what window.scope_page makes on first use."""
    page = ScopePage(window)
    window.training.stack.addWidget(page)
    window.appearance.changed.connect(page.restyle)
    return page


def shipped_script(path):
    """True for a script the studio ships (its resources/, in a checkout or installed)."""

    from core.resources import root

    return os.path.realpath(path).startswith(os.path.realpath(root()) + os.sep)


def confirm_script(window, path):
    """Ask before running a script that is not the studio's own (as Debug my engine asks)."""
    import sys

    from PySide6.QtWidgets import QApplication, QMessageBox

    from core import sandbox

    if QApplication.platformName() == "offscreen":  # a --screenshot run: nobody can answer, never wait for one
        note = (
            f"Not run: {path} -- a script that is not the studio's own runs only when you agree, and there is "
            "nobody to ask here (offscreen). To run it, say so: --run-python FILE.py"
        )
        print(note, file=sys.stderr)
        window.show_message(note)
        return False
    where = (
        "in a box: it sees its own folder (read-only) and nothing else of this computer, no network, "
        "no environment; at most 120 s"
        if sandbox.box_problem() is None
        else f"in a separate process with time and memory limits (no box here: {sandbox.box_problem()})"
    )
    answer = QMessageBox.question(
        window,
        "Open a Python script",
        f"To show {os.path.basename(path)}'s first training step, the studio runs the script up to its first "
        f"backward(), {where}.\n\nRun {path}?",
    )
    return answer == QMessageBox.Yes


def open_script(window, path, ask=True):
    """Trace the script at path (in a box: core/scopes/script.py) and show its step collapsed
    by scope. A script the studio does not ship is run only if the user agrees (`ask`)."""

    from core.scopes.script import trace_script

    if ask and not shipped_script(path) and not confirm_script(window, path):
        window.show_message(f"{os.path.basename(path)} was not run.")
        return False
    budget, aspect = first_budget(window)
    columns = legible_columns(window)

    def job():
        result = trace_script(path)
        if result.graph is None:
            return result
        first = ScopeView.first(result.graph, budget)
        return result, first, picture(first, aspect, columns)

    def then(outcome):
        if isinstance(outcome, Exception):
            window.show_message(f"Could not trace {path}: {outcome}")
            return False
        if not isinstance(outcome, tuple):
            window.show_message(f"Could not trace {os.path.basename(path)}: {outcome.message}")
            return False
        result, first, made = outcome
        page = page_of(window)
        page.enter()
        page.show_graph(result.graph, first, made, os.path.basename(path), (budget, columns))
        window.show_message(f"{os.path.basename(path)}: {result.message}")
        return True

    window.arranger.run_in_worker(job, then, f"Tracing {os.path.basename(path)} (its first training step)…")
    return True


def open_scoped(window, graph, title):
    """Show a graph recorded in this process (`ScopedGraph.from_values` of a step built
    under `recording()`, what `show(loss, scopes=rec)` hands over) collapsed by scope;
    the first picture is made on a worker, as for a traced script."""
    budget, aspect = first_budget(window)
    columns = legible_columns(window)

    def job():
        first = ScopeView.first(graph, budget)
        return first, picture(first, aspect, columns)

    def then(outcome):
        if isinstance(outcome, Exception):
            window.show_message(f"Could not show {title}: {outcome}")
            return False
        first, made = outcome
        page = page_of(window)
        page.enter()
        page.show_graph(graph, first, made, title, (budget, columns))
        return True

    window.arranger.run_in_worker(job, then, f"Grouping {title} by scope…")
    return True


def open_collapsed(window, value, count):
    """Show a graph too big to read op by op (`show(loss)` of a whole training step) collapsed:
    grouped on a worker by core/scopes/infer.py's `collapsed` -- recorded scopes where there are
    some, else the blocks its own structure shows -- and its first picture made there too."""
    from core.scopes.infer import collapsed

    budget, aspect = first_budget(window)
    columns = legible_columns(window)
    title = (getattr(value, "label", "") if isinstance(getattr(value, "label", ""), str) else "") or "your graph"

    def job():
        graph = collapsed(value)
        first = ScopeView.first(graph, budget)
        return graph, first, picture(first, aspect, columns)

    def then(outcome):
        if isinstance(outcome, Exception):
            window.show_message(f"Could not show {title}: {outcome}")
            return False
        graph, first, made = outcome
        page = page_of(window)
        page.enter()
        page.show_graph(graph, first, made, f"{title}, collapsed", (budget, columns))
        window.show_message("; ".join(graph.notes[-1:]), timeout=0)
        return True

    window.arranger.run_in_worker(job, then, f"Grouping {title} ({count:,} nodes) into blocks…")
    return True


def install_scopes(window):
    """File → Open microgpt Step: the example, opened as `python main.py FILE` and File › Open
    open it -- run as Python (app/editor/code_runner.py), its big graph collapsed by scope here."""
    from core.resources import shipped

    example = shipped("examples", "microgpt_step.py")
    window.add_action(
        "File",
        "Open &microgpt Step",
        lambda: window.open_file(example),
        key="open microgpt",
        tip="One training step of a GPT built of scalar Values (43,021 nodes), collapsed by scope",
    )
