"""The metric history: numpy columns that grow by doubling and round-trip as plain data."""

import math

from core.training.events import Progress
from core.training.history import History


def test_history_grows_past_its_capacity():
    h = History(capacity=4)
    for k in range(10):
        h.append(Progress(k, 1.0 / (k + 1), 0.5, None, None, 0.1))
    assert len(h) == 10
    assert list(h.column("step")) == list(range(10))
    assert math.isnan(h.column("test_loss")[3])
    copy = History()
    copy.load(h.to_dict())
    assert list(copy.column("loss")) == list(h.column("loss"))
