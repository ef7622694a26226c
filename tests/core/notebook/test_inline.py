"""core/notebook/inline.py: a picture at a readable size, sanitizer-proof, stored once (issue 39 item 1)."""

import re

from core.engine import Value
from core.notebook import draw
from core.notebook.inline import MIN_DIGIT_PX, data_uri, decode_pictures, picture_html, svg_size
from core.palette import METRICS


def test_never_shrunk_below_11_px_digits():
    """The repro: a notebook's max-width:100% scaled a wide graph to 19 % (3 px digits)."""
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="3200" height="900" viewBox="0 0 3200 900"></svg>'
    html = picture_html(svg, "a graph")
    style = re.search(r'<img [^>]*style="([^"]*)"', html).group(1)
    assert "max-width:3200px" in style and "width:100%" in style  # fits a wide cell, never enlarged
    smallest = int(re.search(r"min-width:(\d+)px", style).group(1))
    assert smallest * METRICS.number_px / 3200 >= MIN_DIGIT_PX - 0.01  # the smallest digits are still 11 px
    assert 'width="3200" height="900"' in html and "overflow:auto" in html  # past that, the box scrolls


def test_an_img_of_the_svg_the_sanitizer_keeps():
    x = Value(2.0, label="<b>x</b>")
    f = x * x
    f.backward()
    graph = draw(f)
    html = graph._repr_html_()
    assert "<svg" not in html and "<b>" not in html  # no inline svg for a sanitizer to strip, no markup of labels
    assert html.count("<img ") == 1 and 'src="data:image/svg+xml;base64,' in html
    assert decode_pictures(html) == [graph.svg]


def test_a_picture_is_stored_once():
    x = Value(2.0, label="x")
    f = x * x
    graph = draw(f)
    assert not hasattr(graph, "_repr_svg_")  # a notebook keeps text/html only, not image/svg+xml beside it
    assert len(graph._repr_html_()) < 1.4 * len(graph.svg) + 600  # base64's 4/3 and the box: no second copy


def test_svg_size_and_data_uri():
    assert svg_size('<svg width="12" height="34.5" viewBox="0 0 1 1"><rect width="99"/></svg>') == (12.0, 34.5)
    assert data_uri("<svg/>") == "data:image/svg+xml;base64,PHN2Zy8+"
