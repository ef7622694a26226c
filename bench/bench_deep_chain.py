"""Deep chains: forward + backward of chains 100k and 1M deep must scale linearly.

    python bench/bench_deep_chain.py [RUNS]

micrograd's recursive build_topo fails at ~1,000 deep (RecursionError); ours is
iterative. Goal: time(1M) / time(100k) <= 12 (10 would be exactly linear).

Both with Python's cyclic garbage collector on and paused. A chain of a
million ops is a million tracked objects, one per Value (its operands sit in
the Value's slots, its `_backward` is the op's shared function; micrograd's
closure per node made it ~7 million). While the chain is being built the
collector's full collections walk the survivors again each time they grow by
a quarter, and at 1M the graph is far out of the CPU's caches, so that is the
part of the gc-on figure that grows faster than linearly. Paused, what is left
is the engine's own scaling. Times are the process's CPU time
(`time.process_time`), so other jobs on a shared machine do not count; each
depth's median of RUNS (default 7), the two depths alternating. With 3 runs
one after the other the gc-on ratio ranged 10.0-16.3 on the same machine in
one afternoon: whether a full collection lands inside the short 100k run is
what moves it.

The floor, run side by side in the same process: a chain of the simplest
object Python's collector tracks (a class with one slot, no engine at all),
with as many objects as our chain has Values. Whatever an engine does, a
Value that is a Python object is at least that object, so no engine of them
scales better than the floor with the collector on. On this machine the floor
itself measures ~15 with the collector on (CPython 3.11; 3.12 and 3.13 ~16-17)
and ~10 paused: CPython's collector walks the survivors each time they grow by
a quarter once the heap is large, but only every 70,000 allocations while it
is small, so the 100k chain gets off cheaply and the 1M chain does not.
"""

import gc
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.engine import Value  # noqa: E402


def chain(depth):
    x = Value(0.5, label="x")
    node = x
    for i in range(depth):
        node = node * 1.0000001 if i % 2 else node + 0.000001
    return x, node


class Link:
    """The floor: the simplest object the collector tracks, one slot pointing at the one before."""

    __slots__ = ("before",)


def floor_chain(depth):
    """As many tracked objects as chain(depth) makes Values (an op and its constant per step)."""
    node = None
    for _ in range(2 * depth):
        link = Link()
        link.before = node
        node = link
    return None, node


def floor_walk(node):
    """The floor's backward: visit every link once."""
    while node is not None:
        node = node.before


def timed(depth, build=chain):
    gc.collect()
    t0 = time.process_time()
    x, out = build(depth)
    t1 = time.process_time()
    if build is chain:
        out.backward()
    else:
        floor_walk(out)
    t2 = time.process_time()
    del out
    t3 = time.process_time()
    return t1 - t0, t2 - t1, t3 - t2


def micrograd_limit():
    try:
        from micrograd.engine import Value as MgValue
    except ImportError:
        return "micrograd not installed"
    for depth in (500, 900, 996, 997, 1000, 2000):
        x = MgValue(0.5)
        node = x
        for _ in range(depth):
            node = node + 0.000001
        try:
            node.backward()
        except RecursionError:
            return f"RecursionError at depth {depth}"
    return "no failure up to 2000"


def scaling(runs, collector_on):
    """Print each depth's median times, ours and the floor's; return both time(1M) / time(100k),
    forward + backward."""
    rows = {}
    was_on = gc.isenabled()
    if not collector_on:
        gc.disable()
    try:
        runs_of = {(build, depth): [] for build in (chain, floor_chain) for depth in DEPTHS}
        for _ in range(runs):  # depths and chains alternate, so a busy moment of the machine hits all alike
            for build, depth in runs_of:
                runs_of[build, depth].append(timed(depth, build))
        for (build, depth), samples in runs_of.items():
            rows[build, depth] = [statistics.median(s[i] for s in samples) for i in range(3)]
            fwd, bwd, free = rows[build, depth]
            name = "ours " if build is chain else "floor"
            print(f"  {name} depth {depth:>9,}: forward {fwd:6.2f} s  backward {bwd:6.2f} s  free {free:5.2f} s")
    finally:
        if was_on:
            gc.enable()
    return tuple(sum(rows[build, DEPTHS[1]][:2]) / sum(rows[build, DEPTHS[0]][:2]) for build in (chain, floor_chain))


DEPTHS = (100_000, 1_000_000)


def main(runs=7):
    gc.collect()
    print(
        f"Python {sys.version.split()[0]}; the process holds {len(gc.get_objects()):,} objects the collector "
        f"tracks before the chains (a bare script holds ~11,000; the figures with the collector on depend on it).\n"
        f"{Link.__doc__}"
    )
    print("Python's cyclic garbage collector on (as a script runs by default):")
    with_gc, floor_with_gc = scaling(runs, collector_on=True)
    print("the collector paused (a script may do so while it builds: our graphs hold no cycles):")
    without_gc, floor_without_gc = scaling(runs, collector_on=False)
    print(
        f"time(1M) / time(100k), forward+backward: ours {with_gc:.1f} with the collector, "
        f"{without_gc:.1f} without (goal <= 12; linear = 10)\n"
        f"                                          floor {floor_with_gc:.1f} with the collector, "
        f"{floor_without_gc:.1f} without"
    )
    print(f"micrograd 0.1.0: {micrograd_limit()}")
    return {"ours_on": with_gc, "ours_off": without_gc, "floor_on": floor_with_gc, "floor_off": floor_without_gc}


if __name__ == "__main__":
    args = [arg for arg in sys.argv[1:] if arg != "--json"]
    ratios = main(int(args[0]) if args else 7)
    if "--json" in sys.argv:  # the last line, for bench_issue21.py
        print(json.dumps(ratios))
