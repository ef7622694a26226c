"""A node's box is wide enough for its caption and its number side by side."""

import pytest

from app.graph.node_geometry import geometry_for
from app.look.theme import DEFAULT


@pytest.mark.parametrize("scale", [1.0, 2.0, 3.0])
@pytest.mark.parametrize("grad", ["2.850e-07", "-7.253e-12", "123456.7890", "-12.3456", "-1.0980"])
def test_the_grad_caption_and_a_long_grad_do_not_touch(qapp, scale, grad):
    # repro: 'grad2.850e-07' -- the box was sized for 'data' + 6 px, and the grad row
    # also gives 6 px to its coloured edge, so a long grad ran into its caption
    theme = DEFAULT.with_(scale=scale)
    g = geometry_for(theme, "input", None, "w", "-3.1416", grad)
    pad = theme.length("pad")
    room = g.grad_rect.width() - 2 * pad - 6 * scale  # the row, less its padding and edge
    space = theme.text_width("caption", " ")
    assert theme.text_width("caption", "grad") + space + theme.text_width("number", grad) <= room
    assert theme.text_width("caption", "data") + space + theme.text_width("number", grad) <= room
