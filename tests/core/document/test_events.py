import gc

import pytest

from core.document.events import Signal


class Listener:
    def __init__(self):
        self.seen = []

    def on(self, *args):
        self.seen.append(args)


def test_emit_calls_in_connection_order_and_disconnect():
    signal, calls = Signal(), []
    first = lambda x: calls.append(("first", x))  # noqa: E731
    signal.connect(first)
    signal.connect(lambda x: calls.append(("second", x)))
    signal.emit(1)
    assert calls == [("first", 1), ("second", 1)]
    signal.disconnect(first)
    signal.emit(2)
    assert calls[-1] == ("second", 2) and len(calls) == 3
    with pytest.raises(ValueError):
        signal.disconnect(first)


def test_bound_methods_are_weak():
    signal, listener = Signal(), Listener()
    signal.connect(listener.on)
    signal.emit("a", 1)
    assert listener.seen == [("a", 1)]
    del listener
    gc.collect()
    signal.emit("b")
    assert len(signal) == 0
