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

**Collections on the GUI thread only** (`pin`). A collection runs in whichever
thread's allocation trips the threshold -- a worker checking an engine, the
autosave writer -- and a cycle it frees may hold a Qt object of the GUI thread,
destroyed then from the wrong thread: the studio crashed so (a segfault in a
worker's dictionary comprehension while a test's GUI thread polled its widgets;
pyqtgraph's GarbageCollector and novelWriter#2927 describe the same). So the
running studio turns automatic collection off and a GUI-thread timer collects
instead, generation by generation as CPython's thresholds would (`collect_due`).
"""

import gc

from PySide6.QtCore import QCoreApplication, QTimer

TIDY_OBJECTS = 10_000  # objects made since the last collection that make a tidy-up due
TIDY_MS = 20  # how often a hold looks

PIN_MS = 100  # how often the GUI thread looks whether a collection is due, while pinned

_held = False
_tidy_timer = None  # the QTimer of the tidy-ups while held (made at the first hold)
_pinned = 0  # pin() calls not yet unpinned: collections on the GUI thread only
_gui_timer = None  # the QTimer that collects on the GUI thread while pinned


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
    if not _pinned:  # pinned: the GUI thread's timer collects, never an allocation in a worker
        gc.enable()


def held() -> bool:
    return _held


def pin() -> None:
    """Collect on the GUI thread only, from now until the matching `unpin` (the studio's
    startup, show(), each app test): automatic collection off, a timer of this thread
    collecting what is due. Call it on the GUI thread, with a QApplication."""
    global _pinned, _gui_timer
    _pinned += 1
    if _pinned > 1:
        return
    gc.disable()
    if _gui_timer is None and QCoreApplication.instance() is not None:
        _gui_timer = QTimer()
        _gui_timer.setInterval(PIN_MS)
        _gui_timer.timeout.connect(collect_due)
    if _gui_timer is not None:
        _gui_timer.start()


def unpin() -> None:
    """Undo one `pin`; the last gives collection back to CPython (unless held)."""
    global _pinned
    if _pinned == 0:
        return
    _pinned -= 1
    if _pinned:
        return
    if _gui_timer is not None:
        _gui_timer.stop()
    if not _held:
        gc.enable()


def collect_due() -> int:
    """While pinned and not held: collect the oldest generation CPython would collect now
    (a generation is due when its count passes its threshold, the younger ones first), on
    this thread. Returns the generation collected, -1 for none."""
    if _held or not _pinned:
        return -1
    counts, limits = gc.get_count(), gc.get_threshold()
    due = -1
    for generation in range(3):
        if limits[generation] <= 0 or counts[generation] <= limits[generation]:
            break
        due = generation
    if due >= 0:
        gc.collect(due)
    return due


def collecting() -> bool:
    """Are cycles being collected now: automatically, or by the GUI thread while pinned?"""
    return not _held and (gc.isenabled() or _pinned > 0)
