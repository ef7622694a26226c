"""How the big-graph page joins the window: its File menu entry, and the page made on first use.

`install_scopes` adds File → Open microgpt Step: the shipped example, opened as
`python main.py FILE` and File › Open open it -- run as Python (app/editor/code_runner.py),
its big graph collapsed by scope on the page.

`make_page` is what the window's `scope_page` holder (a `LazyPage`, app/services.py)
calls the first time a big graph opens: the page, handed what it uses by name, put in
the stack of pages that take the canvas's place, restyled whenever the theme or the
presenter scale changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import SignalInstance
from PySide6.QtWidgets import QStackedWidget

from app.graph.layout_runner import LayoutRunner
from app.graph.scope_page import PageHost, ScopePage
from app.services import Services
from core.scopes.graph import ScopedGraph


def install_scopes(services: Services, open_file: Callable[[str], Any]) -> None:
    """File → Open microgpt Step (see the module docstring): `open_file` is the window's
    File › Open of a path, which runs a .py as Python."""
    from core.resources import shipped

    example = shipped("examples", "microgpt_step.py")
    services.add_action(
        "File",
        "Open &microgpt Step",
        lambda: open_file(example),
        key="open microgpt",
        tip="One training step of a GPT built of scalar Values (43,021 nodes), collapsed by scope",
    )


def make_page(
    services: Services,
    arranger: LayoutRunner,
    host: PageHost,
    stack: QStackedWidget,
    restyled: SignalInstance,
    presenting: Callable[[], bool],
    export_page: Callable[[ScopedGraph, str], bool],
) -> ScopePage:
    """A ScopePage put in `stack` (the pages in the canvas's place) beside the Graph workspace,
    restyled on `restyled` (the theme or the presenter scale changed)."""
    page = ScopePage(services, arranger, host, presenting, export_page)
    stack.addWidget(page)
    restyled.connect(page.restyle)
    return page
