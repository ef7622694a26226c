"""The canvas on its own: a GraphSession, its GraphScene and a shown GraphView."""

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
