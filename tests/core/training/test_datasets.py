"""Datasets: sizes, labels, seeds, shapes; the split; CSV import and its errors."""

import math
import random

import numpy as np
import pytest

from core.training.datasets import (
    DATASETS,
    REGRESSION_DATASETS,
    circles,
    make_dataset,
    moons,
    multi_gaussian,
    parse_csv,
    plane,
    train_test_split,
    xor,
)

CLASSIFICATION = [name for name in DATASETS if name not in REGRESSION_DATASETS]

# -----------------------------------------------------------------------------
# every generator


@pytest.mark.parametrize("name", CLASSIFICATION)
@pytest.mark.parametrize("n", [0, 1, 7, 100])
def test_sizes_and_labels(name, n):
    points, labels = DATASETS[name](n, 0.1, random.Random(0))
    assert len(points) == len(labels) == n
    assert set(labels) <= {-1.0, 1.0}
    assert all(len(p) == 2 and all(math.isfinite(v) for v in p) for p in points)
    if n >= 7:
        assert set(labels) == {-1.0, 1.0}


@pytest.mark.parametrize("name", REGRESSION_DATASETS)
@pytest.mark.parametrize("n", [0, 1, 7, 100])
def test_regression_sizes_and_targets_in_minus_one_to_one(name, n):
    points, targets = DATASETS[name](n, 0.1, random.Random(0))
    assert len(points) == len(targets) == n
    assert all(-1.0 <= t <= 1.0 for t in targets)
    assert all(-1.0 <= v <= 1.0 for p in points for v in p)
    if n >= 100:
        assert min(targets) < -0.3 and max(targets) > 0.3  # both signs, not just noise


def test_plane_without_noise_is_the_plane():
    points, targets = plane(50, 0.0, random.Random(2))
    assert all(t == (x + y) / 2 for (x, y), t in zip(points, targets))


def test_multi_gaussian_bumps_are_up_and_down_and_flat_between():
    points, targets = multi_gaussian(0, 0.0, random.Random(0))
    from core.training.datasets import _bump_target

    assert _bump_target(-2 / 3, 5 / 12) == 1.0  # an up bump's centre
    assert _bump_target(0.0, 5 / 12) == -1.0  # a down bump's centre
    assert _bump_target(0.0, 0.0) == 0.0  # between the rows: flat
    assert _bump_target(-2 / 3, 5 / 12 - 1 / 6) == pytest.approx(0.5)  # half way down the slope


@pytest.mark.parametrize("name", list(DATASETS))
def test_same_seed_same_points_and_global_random_untouched(name):
    before = random.getstate()
    a = make_dataset(name, 50, 0.2, seed=3)
    assert make_dataset(name, 50, 0.2, seed=3) == a
    assert make_dataset(name, 50, 0.2, seed=4) != a
    assert DATASETS[name](50, 0.2, random.Random(3)) == a
    assert random.getstate() == before


def test_make_dataset_names_the_choices():
    with pytest.raises(ValueError, match="unknown dataset 'swirl'; choose one of moons, circles"):
        make_dataset("swirl", 10, 0.1, 0)
    with pytest.raises(ValueError, match="noise"):
        moons(10, -0.1, random.Random(0))


# -----------------------------------------------------------------------------
# shapes


def test_moons_match_scikit_learns_construction():
    points, labels = moons(100, 0.0, random.Random(0))
    # scikit-learn's make_moons, written out in numpy
    t_out = np.linspace(0, np.pi, 50)
    t_in = np.linspace(0, np.pi, 50)
    outer = np.stack([np.cos(t_out), np.sin(t_out)], axis=1)
    inner = np.stack([1 - np.cos(t_in), 1 - np.sin(t_in) - 0.5], axis=1)
    ours_outer = sorted(p for p, y in zip(points, labels) if y == -1.0)
    ours_inner = sorted(p for p, y in zip(points, labels) if y == 1.0)
    np.testing.assert_allclose(ours_outer, sorted(map(tuple, outer)), atol=1e-12)
    np.testing.assert_allclose(ours_inner, sorted(map(tuple, inner)), atol=1e-12)


def test_moons_are_shuffled_and_noise_is_jitter():
    clean, labels = moons(100, 0.0, random.Random(1))
    assert labels != sorted(labels)
    noisy, noisy_labels = moons(100, 0.1, random.Random(1))
    assert noisy_labels == labels
    offsets = np.array(noisy) - np.array(clean)
    assert 0.07 < offsets.std() < 0.13


def test_circles_radii():
    points, labels = circles(60, 0.0, random.Random(0))
    for (x, y), label in zip(points, labels):
        assert math.hypot(x, y) == pytest.approx(1.0 if label < 0 else 0.5)


def test_xor_labels_are_the_sign_of_the_product():
    points, labels = xor(200, 0.0, random.Random(0))
    assert all(label == (1.0 if x * y > 0 else -1.0) for (x, y), label in zip(points, labels))
    assert all(min(abs(x), abs(y)) >= 0.05 for x, y in points)


# -----------------------------------------------------------------------------
# train/test split


def test_split_sizes_and_contents():
    points, labels = make_dataset("moons", 100, 0.1, 0)
    tr_p, tr_l, te_p, te_l = train_test_split(points, labels, 0.25, random.Random(0))
    assert len(tr_p) == len(tr_l) == 75 and len(te_p) == len(te_l) == 25
    assert sorted(zip(tr_p + te_p, tr_l + te_l)) == sorted(zip(points, labels))
    assert train_test_split(points, labels, 0.25, random.Random(0)) == (tr_p, tr_l, te_p, te_l)


def test_split_keeps_a_training_point():
    tr_p, _, te_p, _ = train_test_split([(0.0, 0.0), (1.0, 1.0)], [1.0, -1.0], 0.9, random.Random(0))
    assert len(tr_p) == 1 and len(te_p) == 1
    with pytest.raises(ValueError, match="test_ratio"):
        train_test_split([], [], 1.0, random.Random(0))


# -----------------------------------------------------------------------------
# CSV


def test_csv_with_header_blank_lines_and_zero_one_labels():
    points, labels = parse_csv("x1,x2,label\n0.5, -1.0, 1\n\n# a comment\n2,3,0\n")
    assert points == [(0.5, -1.0), (2.0, 3.0)]
    assert labels == [1.0, -1.0]


def test_csv_without_header_and_minus_one_labels():
    assert parse_csv("1,2,-1\n3,4,1.0") == ([(1.0, 2.0), (3.0, 4.0)], [-1.0, 1.0])


@pytest.mark.parametrize(
    "text, message",
    [
        ("x1,x2,label\n1,2,1\n3,4\n", "line 3: expected 3 comma-separated values"),
        ("1,2,1\n1,two,0\n", "line 2: x2 is not a number: 'two'"),
        ("1,2,1\n1,2,2\n", "line 2: the label must be 0 or 1"),
        ("1,2,-1\n1,2,1\n5,6,0\n", "line 3: label '0' mixes the -1/1 and 0/1 conventions"),
        ("1,nan,1\n", "line 1: x2 must be finite"),
        ("x1,x2,label\n\n", "no data rows"),
        ("x1,x2,label\nx1,x2,label\n", "line 2: x1 is not a number"),
    ],
)
def test_csv_errors_name_the_line(text, message):
    with pytest.raises(ValueError, match=message):
        parse_csv(text)
