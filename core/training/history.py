"""The metric history of a run: one row per training step, as preallocated numpy columns.

The plots `setData` on views of these columns (no copy per repaint), so the
arrays grow by doubling rather than per row. NaN marks "no value" (a run
without test points has no test loss). The column names, `HISTORY_KEYS`, are
also the session file's (core/files/training_session.py imports them from here:
the file format sits on top of training, never under it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from core.training.events import Progress

HISTORY_KEYS = ("step", "loss", "accuracy", "test_loss", "test_accuracy", "lr")


class History:
    """Progress rows as numpy columns that grow by doubling; NaN marks 'no value'."""

    def __init__(self, capacity: int = 1024) -> None:
        self._columns = {key: np.full(capacity, np.nan) for key in HISTORY_KEYS}
        self.n = 0

    def __len__(self) -> int:
        return self.n

    def column(self, key: str) -> NDArray[np.float64]:
        """A view of the first n entries (no copy)."""
        return self._columns[key][: self.n]

    def _grow(self, need: int) -> None:
        capacity = len(self._columns["step"])
        if need <= capacity:
            return
        while capacity < need:
            capacity *= 2
        for key, old in self._columns.items():
            new = np.full(capacity, np.nan)
            new[: self.n] = old[: self.n]
            self._columns[key] = new

    def append(self, p: Progress) -> None:
        self._grow(self.n + 1)
        i = self.n
        row = (p.step, p.loss, p.accuracy, p.test_loss, p.test_accuracy, p.lr)
        for key, x in zip(HISTORY_KEYS, row):
            self._columns[key][i] = np.nan if x is None else x
        self.n += 1

    def clear(self) -> None:
        self.n = 0

    def to_dict(self) -> dict[str, list[float]]:
        return {
            key: ([int(x) for x in self.column(key)] if key == "step" else [float(x) for x in self.column(key)])
            for key in HISTORY_KEYS
        }

    def load(self, columns: Mapping[str, Sequence[float | None]]) -> None:
        n = len(columns.get("step", []))
        self.clear()
        self._grow(max(n, 1))
        for key in HISTORY_KEYS:
            values = columns.get(key, [])
            self._columns[key][:n] = [np.nan if v is None else v for v in values]
        self.n = n
