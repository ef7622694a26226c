"""Opening a big graph on the big-graph page: a traced script, a recorded graph, a collapsed one.

A graph of tens of thousands of ops cannot be read op by op; the big-graph page
(app/graph/scope_page.py) shows it collapsed by scope. Three ways lead there, all
through `ScopeOpener`, and each does its slow part on the window's worker
(`LayoutRunner.run_in_worker`): the grouping, the first picture's view (`ScopeView.first`:
as many blocks as a picture legible in this window holds, `first_budget`) and its
layout (core/scopes/layout.py `picture`, at most `legible_columns` wide so that it is
read down the page, never scrolled sideways). The GUI thread then only builds the items.

    open_script(path)             trace a script in a box up to its first backward()
                                  (core/scopes/script.py) -- asked first, unless the
                                  studio ships it (`shipped_script`, `confirm_script`)
    open_scoped(graph, title)     a ScopedGraph recorded in this process (`show(loss,
                                  scopes=rec)`, a pasted cell's big graph)
    open_collapsed(value, count)  a Value graph too big to read, grouped by
                                  core/scopes/infer.py's `collapsed`
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from app.graph.scope_canvas import legible_floor
from app.services import LazyPage, Services
from core.scopes import layout as sizes
from core.scopes.graph import ScopedGraph
from core.scopes.layout import picture
from core.scopes.view import ScopeView

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from app.graph.layout_runner import LayoutRunner
    from app.graph.scope_page import ScopePage
    from app.look.theme import Theme


def first_budget(parent: QWidget, theme: Theme) -> tuple[int, float]:
    """(units, aspect) of a first picture legible in the window `parent` (Services.parent): boxes
    at ~3/4 of their size (13 px text at 1x, larger in presenter mode), about half the cells filled."""
    scale = theme.scale
    width, height = max(600, parent.width() - 40), max(400, parent.height() - 170)
    zoom = 0.8 * scale
    cells = (width / (320 * zoom)) * (height / (122 * zoom))
    return max(8, int(cells * 0.55)), width / height


def legible_columns(parent: QWidget, theme: Theme, presenting: bool, page: ScopePage | None) -> int:
    """How many columns of blocks fit the canvas's width at the zoom the canvas never fits below
    (scope_canvas.legible_floor): a picture no wider than that is read down the page, never
    scrolled sideways. The canvas's width if the page is showing, else the window's less the overview."""
    floor = legible_floor(theme, presenting)
    width = page.canvas.viewport().width() if page is not None and page.isVisible() else parent.width() - 300
    return max(1, int(max(300, width - 40) / ((sizes.BLOCK_W + sizes.GAP_X) * theme.scale * floor)))


def shipped_script(path: str) -> bool:
    """True for a script the studio ships (its resources/, in a checkout or installed)."""

    from core.resources import root

    return os.path.realpath(path).startswith(os.path.realpath(root()) + os.sep)


def confirm_script(services: Services, path: str) -> bool:
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
        services.say(note)
        return False
    where = (
        "in a box: it sees its own folder (read-only) and nothing else of this computer, no network, "
        "no environment; at most 120 s"
        if sandbox.box_problem() is None
        else f"in a separate process with time and memory limits (no box here: {sandbox.box_problem()})"
    )
    answer = QMessageBox.question(
        services.parent,
        "Open a Python script",
        f"To show {os.path.basename(path)}'s first training step, the studio runs the script up to its first "
        f"backward(), {where}.\n\nRun {path}?",
    )
    return answer == QMessageBox.StandardButton.Yes


class ScopeOpener:
    """Opens big graphs on the window's big-graph page (see the module docstring)."""

    def __init__(
        self,
        services: Services,
        arranger: LayoutRunner,
        page: LazyPage[ScopePage],
        presenting: Callable[[], bool],
    ) -> None:
        self.services = services
        self.arranger = arranger  # its worker does the slow part of every open
        self.page = page  # the big-graph page, made on the first open
        self.presenting = presenting  # presenter mode is on: the first picture is for the back row

    def _fitting(self) -> tuple[int, float, int]:
        """(budget, aspect, columns): the first picture for the window as it is now."""
        parent, theme = self.services.parent, self.services.scene.theme
        budget, aspect = first_budget(parent, theme)
        return budget, aspect, legible_columns(parent, theme, self.presenting(), self.page.current)

    def _show(self, graph: ScopedGraph, first: ScopeView, made: Any, title: str, made_for: tuple[int, int]) -> None:
        page = self.page.get()
        page.enter()
        page.show_graph(graph, first, made, title, made_for)

    def open_script(self, path: str, ask: bool = True) -> bool:
        """Trace the script at path (in a box: core/scopes/script.py) and show its step collapsed
        by scope. A script the studio does not ship is run only if the user agrees (`ask`)."""
        from core.scopes.script import trace_script

        say = self.services.say
        if ask and not shipped_script(path) and not confirm_script(self.services, path):
            say(f"{os.path.basename(path)} was not run.")
            return False
        budget, aspect, columns = self._fitting()

        def job() -> Any:
            result = trace_script(path)
            if result.graph is None:
                return result
            first = ScopeView.first(result.graph, budget)
            return result, first, picture(first, aspect, columns)

        def then(outcome: Any) -> bool:
            if isinstance(outcome, Exception):
                say(f"Could not trace {path}: {outcome}")
                return False
            if not isinstance(outcome, tuple):
                say(f"Could not trace {os.path.basename(path)}: {outcome.message}")
                return False
            result, first, made = outcome
            self._show(result.graph, first, made, os.path.basename(path), (budget, columns))
            say(f"{os.path.basename(path)}: {result.message}")
            return True

        self.arranger.run_in_worker(job, then, f"Tracing {os.path.basename(path)} (its first training step)…")
        return True

    def open_scoped(self, graph: ScopedGraph, title: str) -> bool:
        """Show a graph recorded in this process (`ScopedGraph.from_values` of a step built
        under `recording()`, what `show(loss, scopes=rec)` hands over) collapsed by scope;
        the first picture is made on a worker, as for a traced script."""
        budget, aspect, columns = self._fitting()

        def job() -> Any:
            first = ScopeView.first(graph, budget)
            return first, picture(first, aspect, columns)

        def then(outcome: Any) -> bool:
            if isinstance(outcome, Exception):
                self.services.say(f"Could not show {title}: {outcome}")
                return False
            first, made = outcome
            self._show(graph, first, made, title, (budget, columns))
            return True

        self.arranger.run_in_worker(job, then, f"Grouping {title} by scope…")
        return True

    def open_collapsed(self, value: Any, count: int) -> bool:
        """Show a graph too big to read op by op (`show(loss)` of a whole training step) collapsed:
        grouped on a worker by core/scopes/infer.py's `collapsed` -- recorded scopes where there are
        some, else the blocks its own structure shows -- and its first picture made there too."""
        from core.scopes.infer import collapsed

        budget, aspect, columns = self._fitting()
        label = getattr(value, "label", "")
        title = (label if isinstance(label, str) else "") or "your graph"

        def job() -> Any:
            graph = collapsed(value)
            first = ScopeView.first(graph, budget)
            return graph, first, picture(first, aspect, columns)

        def then(outcome: Any) -> bool:
            if isinstance(outcome, Exception):
                self.services.say(f"Could not show {title}: {outcome}")
                return False
            graph, first, made = outcome
            self._show(graph, first, made, f"{title}, collapsed", (budget, columns))
            self.services.say("; ".join(graph.notes[-1:]), timeout=0)
            return True

        self.arranger.run_in_worker(job, then, f"Grouping {title} ({count:,} nodes) into blocks…")
        return True
