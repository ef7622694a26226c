"""No pauses: the longest garbage-collector pause while training, and the time to free a graph.

    python bench/bench_pauses.py

A GUI that trains must never stall for long: a pause over ~20 ms is a visible hitch.
We time every collection the cyclic GC makes (gc.callbacks) during 100 training steps of
micrograd's demo (core.training.trainer.Trainer, as the app runs it: the batched replay), and 20
steps in micrograd's own style (the graph rebuilt every step) with our engine and with micrograd
0.1.0 for reference; then the time to drop a 65k-node graph (freed by reference counting alone,
since our graphs hold no cycles), and the longest stall another thread sees when a worker drops a
finished trainer, or a recorded 65k-node graph at once or a node at a time (core.tape.release).
Times are wall clock (a pause is what a user sees).
"""

import gc
import random
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core import engine, nn  # noqa: E402
from core.tape import Tape  # noqa: E402
from core.training.config import MICROGRAD_DEMO  # noqa: E402
from core.training.datasets import moons  # noqa: E402
from core.training.trainer import Trainer  # noqa: E402


class PauseMeter:
    def __init__(self):
        self.pauses = []
        self._start = None

    def __call__(self, phase, info):
        if phase == "start":
            self._start = time.perf_counter()
        elif self._start is not None:
            self.pauses.append(time.perf_counter() - self._start)
            self._start = None

    def __enter__(self):
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc):
        gc.callbacks.remove(self)

    def report(self, what):
        longest = max(self.pauses, default=0.0)
        total = sum(self.pauses)
        print(
            f"{what:<46} {len(self.pauses):>5} collections, longest {longest * 1e3:7.1f} ms,"
            f" total {total * 1e3:8.1f} ms"
        )
        return longest


def micrograd_style_steps(Value, make_model, steps):
    points, labels = moons(100, 0.1, random.Random(1))
    model = make_model()
    for k in range(steps):
        inputs = [list(map(Value, p)) for p in points]
        scores = list(map(model, inputs))
        losses = [(1 + -yi * si).relu() for yi, si in zip(labels, scores)]
        total = sum(losses) * (1.0 / len(losses)) + 1e-4 * sum(p * p for p in model.parameters())
        model.zero_grad()
        total.backward()
        for p in model.parameters():
            p.data -= (1.0 - 0.9 * k / 100) * p.grad


def finished_trainer():
    """A trainer of micrograd's demo after one full-batch step, as a run leaves it."""
    trainer = Trainer(MICROGRAD_DEMO)
    trainer.step()
    return trainer


def recorded_tape():
    """micrograd's demo graph (the whole batch's loss) recorded on a core.tape.Tape."""
    model = nn.MLP(2, [16, 16, 1], rng=random.Random(1))
    points, labels = moons(100, 0.1, random.Random(1))
    scores = [model([engine.Value(a), engine.Value(b)]) for a, b in points]
    losses = [(1 + -yi * si).relu() for yi, si in zip(labels, scores)]
    return Tape(sum(losses) * (1.0 / len(losses)) + 1e-4 * sum(p * p for p in model.parameters()))


def stall_while(work):
    """Run work() on a thread; return the longest gap between this thread's 1 ms ticks."""
    done = threading.Event()

    def run():
        work()  # whatever work() returns is dropped here, before done is set
        done.set()

    thread = threading.Thread(target=run)
    longest, last = 0.0, time.perf_counter()
    thread.start()
    while not done.is_set():
        time.sleep(0.001)
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    thread.join()
    return longest


def main(steps=100):
    gc.collect()
    with PauseMeter() as ours:
        trainer = Trainer(MICROGRAD_DEMO.replace(steps=steps))
        for _ in range(steps):
            trainer.step()
    longest = ours.report(f"core.training.trainer, {steps} steps (the app's path)")

    with PauseMeter() as rebuilt:
        micrograd_style_steps(engine.Value, lambda: nn.MLP(2, [16, 16, 1], rng=random.Random(1)), 20)
    rebuilt.report("ours, rebuilding every step, gc on, 20 steps")

    try:
        import micrograd.engine as mg_engine
        import micrograd.nn as mg_nn

        gc.collect()
        with PauseMeter() as theirs:
            micrograd_style_steps(mg_engine.Value, lambda: mg_nn.MLP(2, [16, 16, 1]), 20)
        theirs.report("micrograd 0.1.0 as shipped, 20 steps")
    except ImportError:
        print("micrograd not installed: pip install micrograd==0.1.0")

    model = nn.MLP(2, [16, 16, 1], rng=random.Random(1))
    points, labels = moons(100, 0.1, random.Random(1))
    gc.collect()  # micrograd's leftover cycles are not ours to count
    gc.disable()
    scores = [model([engine.Value(a), engine.Value(b)]) for a, b in points]
    total = sum(scores)
    n = len(engine.topological_order(total))
    t0 = time.perf_counter()
    del total, scores
    freed = time.perf_counter() - t0
    found = gc.collect()
    gc.enable()
    print(
        f"dropping a {n}-node graph: freed in {freed * 1e3:.1f} ms by reference counting;"
        f" cyclic garbage left for gc: {found} objects"
    )

    # What the app's GUI thread feels when the training worker ends a run: the worker drops its
    # Trainer (the batched replay holds numpy tables, no Value graph) while this thread ticks.
    trainer_drops = []
    for _ in range(5):
        holder = [finished_trainer()]
        trainer_drops.append(stall_while(lambda h=holder: h.pop().close()))
    # 0.0 means the worker was done before this thread's first 1 ms tick
    print(
        f"a worker closes and drops a finished trainer of the demo: longest stall of another thread"
        f" {max(trainer_drops) * 1e3:.1f} ms, worst of 5 (median {statistics.median(trainer_drops) * 1e3:.1f};"
        f" 0.0 = done within the first 1 ms tick)"
    )
    # A 65k-node Value graph dropped by a worker: at once, or a node at a time (core.tape.release)
    at_once, sliced = [], []
    for _ in range(5):
        holder = [recorded_tape()]
        at_once.append(stall_while(lambda h=holder: h.pop()))
        holder = [recorded_tape()]
        sliced.append(stall_while(lambda h=holder: h.pop().release()))
    print(f"a worker drops a recorded demo graph ({len(recorded_tape())} nodes), longest stall of another thread:")
    print(
        f"  dropped at once (one refcount cascade) {max(at_once) * 1e3:7.1f} ms"
        f"  (median {statistics.median(at_once) * 1e3:.1f})"
    )
    print(
        f"  Tape.release() (a node at a time)      {max(sliced) * 1e3:7.1f} ms"
        f"  (median {statistics.median(sliced) * 1e3:.1f})"
    )
    longest = max(longest, max(trainer_drops))
    print(
        f"goal: no pause over 20 ms -> longest GC pause while training or stall"
        f" while a finished run is dropped: {longest * 1e3:.1f} ms"
    )


if __name__ == "__main__":
    main()
