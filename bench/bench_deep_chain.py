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
"""

import gc
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


def timed(depth):
    gc.collect()
    t0 = time.process_time()
    x, out = chain(depth)
    t1 = time.process_time()
    out.backward()
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
    """Print each depth's median times; return time(1M) / time(100k), forward + backward."""
    rows = {}
    was_on = gc.isenabled()
    if not collector_on:
        gc.disable()
    try:
        depths = (100_000, 1_000_000)
        samples = {depth: [] for depth in depths}
        for _ in range(runs):  # the depths alternate, so a busy moment of the machine hits both alike
            for depth in depths:
                samples[depth].append(timed(depth))
        for depth in depths:
            rows[depth] = [statistics.median(s[i] for s in samples[depth]) for i in range(3)]
            fwd, bwd, free = rows[depth]
            print(f"  depth {depth:>9,}: forward {fwd:6.2f} s  backward {bwd:6.2f} s  free {free:5.2f} s")
    finally:
        if was_on:
            gc.enable()
    return sum(rows[1_000_000][:2]) / sum(rows[100_000][:2])


def main(runs=7):
    print("Python's cyclic garbage collector on (as a script runs by default):")
    with_gc = scaling(runs, collector_on=True)
    print("the collector paused (a script may do so while it builds: our graphs hold no cycles):")
    without_gc = scaling(runs, collector_on=False)
    print(
        f"time(1M) / time(100k), forward+backward: {with_gc:.1f} with the collector, "
        f"{without_gc:.1f} without (goal <= 12; linear = 10)"
    )
    print(f"micrograd 0.1.0: {micrograd_limit()}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
