"""Input features: what the network sees of a point (x1, x2).

A small network draws straight-ish boundaries in the space of its inputs. Give
it x1^2 and x2^2 instead of x1 and x2 and a circle around the origin becomes a
straight line in that space, so one neuron can separate the `circles` dataset.
That is TensorFlow Playground's FEATURES column, and these are its names:

    x1  x2  x1^2  x2^2  x1*x2  sin_x1  sin_x2

`feature_row` turns one point into the network's input, in the config's order
(the engine path: floats that become leaf Values). `feature_array` does the
same for many points at once with numpy (the float path: the boundary grids).
The two must agree number for number; a test checks it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

FEATURES = ("x1", "x2", "x1^2", "x2^2", "x1*x2", "sin_x1", "sin_x2")


def feature_row(x1: float, x2: float, features: Sequence[str]) -> list[float]:
    """The network's input for one point: the named features of (x1, x2), in order."""
    row = []
    for name in features:
        if name == "x1":
            row.append(x1)
        elif name == "x2":
            row.append(x2)
        elif name == "x1^2":
            row.append(x1 * x1)
        elif name == "x2^2":
            row.append(x2 * x2)
        elif name == "x1*x2":
            row.append(x1 * x2)
        elif name == "sin_x1":
            row.append(math.sin(x1))
        elif name == "sin_x2":
            row.append(math.sin(x2))
        else:
            raise ValueError(f"unknown feature {name!r}; choose from {', '.join(FEATURES)}")
    return row


def feature_array(x1: NDArray[np.float64], x2: NDArray[np.float64], features: Sequence[str]) -> NDArray[np.float64]:
    """feature_row for many points at once: x1, x2 arrays of shape (n,) -> array (n, len(features))."""
    columns = []
    for name in features:
        if name == "x1":
            columns.append(x1)
        elif name == "x2":
            columns.append(x2)
        elif name == "x1^2":
            columns.append(x1 * x1)
        elif name == "x2^2":
            columns.append(x2 * x2)
        elif name == "x1*x2":
            columns.append(x1 * x2)
        elif name == "sin_x1":
            columns.append(np.sin(x1))
        elif name == "sin_x2":
            columns.append(np.sin(x2))
        else:
            raise ValueError(f"unknown feature {name!r}; choose from {', '.join(FEATURES)}")
    return np.stack(columns, axis=1)
