"""Python's cyclic garbage collector while a large graph opens, and after.

CPython frees almost everything by reference counting; its *cyclic* collector
only exists to find objects that keep each other alive. It runs on allocation
counts: a full collection -- a walk over every tracked object in the process --
starts whenever the objects that survived earlier ones have grown by a quarter.
Opening a 5,000-node graph makes ~90,000 long-lived objects (document nodes,
Values and their closures, canvas items), so while it opened, three or four
full collections of 30-40 ms each landed between the slices that build the
canvas, and each made a slice a stall the user could feel. They found nothing:
our graphs hold no reference cycles (core/engine.py), and replacing a large
graph leaves no cyclic garbage (tests/app/test_collector.py pins both).

So while a large graph is arranged and drawn, the collector is held off
(`hold`). When the canvas is complete, `release` runs one collection of the
two younger generations -- anything cyclic made meanwhile is found there -- in its own
event-loop turn, then freezes (`gc.freeze`) all that is alive, the graph
included: later collections no longer walk it, so a full collection while the
user steps through the graph costs what it costs with no graph open.
core/training/trainer.py freezes its recorded graph for the same reason.

That one collection walks every object the open made: ~110,000 of them for a
5,000-node file, ~45 ms in one turn. So while held, a timer looks at how many
objects were made since the last collection (`gc.get_count()`), and once there
are TIDY_OBJECTS it collects the two younger generations in a turn of its own
(~4 ms): the cycles among them are freed, the survivors move to the oldest
generation, and the release walks only what came after. A cycle that dies
between such a collection and the release waits, frozen, like one that dies
after the release.

A frozen object is still freed by reference counting when the graph is
replaced; only a cycle among frozen objects would wait for `gc.unfreeze`.
"""

import gc

from PySide6.QtCore import QCoreApplication, QTimer

TIDY_OBJECTS = 10_000  # objects made since the last collection that make a tidy-up due
TIDY_MS = 20  # how often a hold looks

_held = False
_tidy_timer = None  # the QTimer of the tidy-ups while held (made at the first hold)


def hold(tidying: bool = True) -> None:
    """Pause automatic collections (idempotent) until `release`; tidy up meanwhile -- unless
    `tidying` is False: a worker that makes objects meant to live (the big-graph page's Values)
    freezes them itself when done (`gc.freeze()`, no walk), and a tidy-up walking them on the
    GUI thread meanwhile would be a long turn (83 ms on the 138k step)."""
    global _held, _tidy_timer
    if not _held:
        _held = True
        gc.disable()
        if _tidy_timer is None and QCoreApplication.instance() is not None:  # else no event loop to run it
            _tidy_timer = QTimer()
            _tidy_timer.setInterval(TIDY_MS)
            _tidy_timer.timeout.connect(tidy)
        if _tidy_timer is not None and tidying:
            _tidy_timer.start()


def tidy() -> bool:
    """While held: collect the two younger generations once TIDY_OBJECTS were made
    since the last collection (the survivors go to the oldest generation, which
    `release` does not walk). True if it collected."""
    if not _held or gc.get_count()[0] < TIDY_OBJECTS:
        return False
    gc.collect(1)
    return True


def release() -> None:
    """Collect what was made during the hold, freeze what is alive, resume collecting."""
    global _held
    if not _held:
        return
    _held = False
    if _tidy_timer is not None:
        _tidy_timer.stop()
    gc.collect(1)  # what the hold made since the last tidy-up is still young: this finds any cycle among it
    gc.freeze()
    gc.enable()


def held() -> bool:
    return _held
