"""The canvas on its own: a GraphSession, its GraphScene and a shown GraphView; the big-graph
page with the microgpt example open on it."""

import os

import pytest

from app.graph.scene import GraphScene
from app.graph.view import GraphView
from app.look.theme import DEFAULT
from app.session import GraphSession


@pytest.fixture
def canvas(qtbot):
    """(session, scene, view): a 900 x 600 view, shown and exposed; closed after."""
    session = GraphSession()
    scene = GraphScene(session, DEFAULT)
    view = GraphView(scene)
    qtbot.addWidget(view)
    view.resize(900, 600)
    view.show()
    qtbot.waitExposed(view)
    yield session, scene, view
    view.close()


EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "resources", "examples", "microgpt_step.py")


@pytest.fixture
def example_page(window, qtbot):
    """The window's big-graph page with the microgpt example open, its Values made (to step)."""
    assert window.open_file(EXAMPLE)
    qtbot.waitUntil(lambda: bool(window.scope_page.current and window.scope_page.current.items), timeout=120_000)
    qtbot.waitUntil(lambda: window.scope_page.current._values_job.isFinished(), timeout=120_000)
    return window.scope_page.current
