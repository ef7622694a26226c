"""app/graph/scope_minimap.py: the big-graph page's overview, drawn in the theme's colours."""

import pytest
from PySide6.QtGui import QColor

from core.palette import PALETTES


@pytest.mark.parametrize("name", ["light", "dark"])
def test_the_overview_is_drawn_on_the_themes_overlay_colour(window, qtbot, example_page, name):
    """Repro (session 12): the overview was a white box (255, 255, 255, 215) on the dark theme's
    page, its frame and the view's in the light palette's colours."""
    window.appearance.set_palette(name)
    page = window.scope_page.current
    qtbot.waitUntil(lambda: page.items and page.minimap._pixmap is not None, timeout=120_000)
    page.minimap.refresh(page.items)
    corner = page.minimap._pixmap.toImage().pixelColor(3, 3)
    want = QColor(PALETTES[name].overlay_fill[:7])
    assert (corner.red(), corner.green(), corner.blue()) == (want.red(), want.green(), want.blue())
