"""A tiny signal: the model announces changes, views subscribe.

The core is Qt-free, so it cannot use Qt signals. A `Signal` keeps a list of
callbacks; `emit(*args)` calls each in the order they connected. Bound methods
are held weakly, so a view that is deleted does not stay alive (or get called)
just because it once subscribed; plain functions are held strongly.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any


class Signal:
    def __init__(self) -> None:
        self._slots: list[Any] = []  # weakref.WeakMethod or a plain callable

    def connect(self, callback: Callable[..., object]) -> None:
        if hasattr(callback, "__self__") and hasattr(callback, "__func__"):
            self._slots.append(weakref.WeakMethod(callback))
        else:
            self._slots.append(callback)

    def disconnect(self, callback: Callable[..., object]) -> None:
        for slot in list(self._slots):
            if _resolve(slot) == callback:
                self._slots.remove(slot)
                return
        raise ValueError(f"{callback!r} is not connected")

    def emit(self, *args: Any) -> None:
        for slot in list(self._slots):
            callback = _resolve(slot)
            if callback is None:  # its object was deleted
                self._slots.remove(slot)
            else:
                callback(*args)

    def __len__(self) -> int:
        return sum(1 for slot in self._slots if _resolve(slot) is not None)


def _resolve(slot: Any) -> Callable[..., object] | None:
    return slot() if isinstance(slot, weakref.WeakMethod) else slot
