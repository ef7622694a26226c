"""The dark and high-contrast palettes read on a projector (issue 38 item 6): node
borders, wires and marks at least 3:1 against the canvas (WCAG 2.1 non-text contrast),
text at least 4.5:1 against what it is drawn on."""

import pytest

from core.palette import DARK, HIGH_CONTRAST


def luminance(color):
    """WCAG relative luminance of '#rrggbb' (an alpha suffix is ignored)."""
    channels = [int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b):
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_contrast_is_wcags():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


BORDERS = ["node_border", "op_border", "edge", "overlay_border", "output", "highlight", "selection", "status_untouched"]
TEXTS = [
    ("label_text", "node_fill"),
    ("number_text", "node_fill"),
    ("caption_text", "node_fill"),
    ("number_text", "grad_zero"),
    ("caption_text", "grad_zero"),
    ("op_text", "op_fill"),
    ("overlay_text", "overlay_fill"),
    ("output_text", "output"),
]


@pytest.mark.parametrize("palette", [DARK, HIGH_CONTRAST], ids=lambda p: p.name)
@pytest.mark.parametrize("role", BORDERS)
def test_borders_and_marks_stand_out_from_the_canvas(palette, role):
    # repro: dark node borders were 1.75:1 against the canvas
    assert contrast(getattr(palette, role), palette.background) >= 3.0


@pytest.mark.parametrize("palette", [DARK, HIGH_CONTRAST], ids=lambda p: p.name)
@pytest.mark.parametrize("text, fill", TEXTS)
def test_text_reads_on_its_fill(palette, text, fill):
    assert contrast(getattr(palette, text), getattr(palette, fill)) >= 4.5
