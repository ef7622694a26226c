"""The colormaps the lecture's plots name: anchors, mixed straight between (issue 42)."""

import numpy as np
import pytest

from core.lecture.colormaps import image, rgba, scaled


def test_the_ends_of_a_map_are_its_first_and_last_anchor():
    assert rgba("Spectral", 0.0)[:3] == pytest.approx((0x9E / 255, 0x01 / 255, 0x42 / 255))
    assert rgba("Spectral", 1.0)[:3] == pytest.approx((0x5E / 255, 0x4F / 255, 0xA2 / 255))
    assert rgba("Spectral_r", 0.0) == rgba("Spectral", 1.0)


def test_between_two_anchors_the_colour_is_their_mix():
    low, high = np.array(rgba("bwr", 0.0)[:3]), np.array(rgba("bwr", 0.5)[:3])
    assert rgba("bwr", 0.25)[:3] == pytest.approx(tuple((low + high) / 2))


def test_an_unknown_name_is_viridis():
    assert rgba("no such map", 0.3) == rgba("viridis", 0.3)


def test_a_two_valued_grid_is_two_colours_and_nan_is_transparent():
    picture = image([[0.0, 1.0], [None, 1.0]], "Spectral", alpha=0.8)
    assert picture.shape == (2, 2, 4) and picture.dtype == np.uint8
    assert tuple(picture[0, 1]) == tuple(picture[1, 1])
    assert tuple(picture[0, 0]) != tuple(picture[0, 1])
    assert picture[1, 0, 3] == 0 and picture[0, 0, 3] == round(0.8 * 255)
    assert list(scaled([2.0, 2.0])) == [0.5, 0.5]


def test_a_filled_contour_is_bands_between_the_grid_points():
    from core.lecture.colormaps import LEVELS, contour_image

    picture = contour_image([[0.0, 1.0], [0.0, 1.0]], "Spectral")
    assert picture.shape == (9, 9, 4)  # 8 pixels per cell, first point to last
    colours_along = {tuple(p) for p in picture[0]}
    assert 2 < len(colours_along) <= LEVELS  # the wide ends and the thin bands between
    assert tuple(picture[0, 0][:3]) != tuple(picture[0, -1][:3])
