"""Input features: one point (engine path) and many points (numpy path) agree."""

import math

import numpy as np

from core.training.features import feature_array, feature_row


def test_features():
    assert feature_row(2.0, 3.0, ("x1", "x2", "x1^2", "x2^2", "x1*x2", "sin_x1", "sin_x2")) == [
        2.0,
        3.0,
        4.0,
        9.0,
        6.0,
        math.sin(2.0),
        math.sin(3.0),
    ]
    arr = feature_array(np.array([2.0, 0.5]), np.array([3.0, -1.0]), ("x1*x2", "x2"))
    np.testing.assert_allclose(arr, [[6.0, 3.0], [-0.5, -1.0]])
