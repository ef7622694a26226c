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

A frozen object is still freed by reference counting when the graph is
replaced; only a cycle among frozen objects would wait for `gc.unfreeze`.
"""

import gc

_held = False


def hold():
    """Pause automatic collections (idempotent) until `release`."""
    global _held
    if not _held:
        _held = True
        gc.disable()


def release():
    """Collect what was made during the hold, freeze what is alive, resume collecting."""
    global _held
    if not _held:
        return
    _held = False
    gc.collect(1)  # a hold's new objects are all still young: this finds any cycle among them
    gc.freeze()
    gc.enable()


def held():
    return _held
