"""Engine vs micrograd 0.1.0: one full-batch training step of micrograd's demo, side by side.

    python bench/bench_engine.py [RUNS]     (needs `pip install micrograd==0.1.0`, the bench extra)

The step is the demo's: MLP(2, [16, 16, 1]) on 100 moons points, forward of the hinge + L2 loss,
zero_grad, backward, SGD update, and freeing the step's graph. Rows:

* micrograd:       micrograd 0.1.0 as shipped (its collector on)
* micrograd_nogc:  micrograd with the cyclic collector off during the step (its garbage, every node
                   a reference cycle, is collected after the clock stops)
* ours:            core.engine rebuilding the graph every step, as users write micrograd's loop,
                   collector on -- the row issue 21 item 2's goals are about
* ours_nogc:       the same with the collector off during the step
* tape_replay:     core/tape.py: the whole batch's graph recorded once, then forward / zero_grad /
                   backward replayed over the recorded order (the trainer's full-batch path before
                   issue 21's batched replay; the trainer's path now is timed by bench_training.py)

Each sample is one step from a fresh model after `gc.collect()`, both engines alternating, RUNS
samples (default 7), medians. Times are the process's CPU time (`time.process_time`): on a machine
shared with other jobs, the time another process holds the core is not counted. Reported as
ratios, since timings on shared machines vary 2-4x between runs.

Then, for information: the same steps run back to back as a user's loop runs them (no
`gc.collect()` in between, the previous step's graph alive until the next loss replaces it), where
the collector's full collections land in the steps; a small batch-16 step; PyTorch on the demo step.

Goals (issue 21 item 2), for the graph rebuilt every step with the collector on (the `ours` row):
<= 0.1 of micrograd as shipped and <= 0.5 of micrograd with its collector off.
"""

import gc
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core import engine, nn  # noqa: E402

clock = time.process_time  # CPU time of this process: other jobs on the machine do not count
from core.training.datasets import moons  # noqa: E402


def demo_step(model, Value, X, y, k=0):
    inputs = [list(map(Value, row)) for row in X]
    scores = list(map(model, inputs))
    losses = [(1 + -yi * si).relu() for yi, si in zip(y, scores)]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = 1e-4 * sum(p * p for p in model.parameters())
    total = data_loss + reg_loss
    t_forward = clock()
    model.zero_grad()
    total.backward()
    t_backward = clock()
    lr = 1.0 - 0.9 * k / 100
    for p in model.parameters():
        p.data -= lr * p.grad
    return total, t_forward, t_backward


def replay_timer(Value, X, y):
    """core/tape.py: the graph of the whole batch built once, then replayed over its recorded order."""
    from core.tape import Tape

    model = nn.MLP(2, [16, 16, 1], rng=random.Random(1337))
    total, _, _ = demo_step(model, Value, X, y)
    tape = Tape(total)
    params = model.parameters()

    def one_step(k=1):
        t0 = clock()
        tape.forward()
        t1 = clock()
        tape.zero_grad()
        tape.backward()
        t2 = clock()
        lr = 1.0 - 0.9 * k / 100
        for p in params:
            p.data -= lr * p.grad
        return clock() - t0, t1 - t0, t2 - t1

    return one_step


def count_nodes(root):
    return len(engine.topological_order(root))


def timed(make_model, Value, X, y, gc_on=True):
    model = make_model()
    was = gc.isenabled()
    if not gc_on:
        gc.disable()
    try:
        t0 = clock()
        total, t1, t2 = demo_step(model, Value, X, y)
        del total
        t3 = clock()
    finally:
        if was:
            gc.enable()
    return t3 - t0, t1 - t0, t2 - t1


def machine():
    """One line naming the machine and its load, for the README."""
    import os
    import platform

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"{cpu}, {os.cpu_count()} cores, load average {load}; Python {platform.python_version()}"


def in_a_row(ours, theirs, mg_value, X, y, runs, steps=6):
    """Steps back to back, as a user's training loop runs them: no gc.collect() between steps, the
    previous step's graph alive until the next loss replaces it. Here the collector's full
    collections (which walk every object in the process) fall inside the steps."""
    rows = {"ours": [], "micrograd_nogc": [], "micrograd": []}
    for _ in range(max(1, runs // 2)):
        for key, make_model, Value, gc_on in (
            ("ours", ours, engine.Value, True),
            ("micrograd_nogc", theirs, mg_value, False),
            ("micrograd", theirs, mg_value, True),
        ):
            model = make_model()
            gc.collect()
            was = gc.isenabled()
            if not gc_on:
                gc.disable()
            try:
                total = None
                for k in range(steps):
                    t0 = clock()
                    total, _, _ = demo_step(model, Value, X, y, k)
                    rows[key].append(clock() - t0)
                del total
            finally:
                if was:
                    gc.enable()
            gc.collect()
    med = {k: statistics.median(v) for k, v in rows.items()}
    print(
        f"{steps} steps in a row (a user's loop, no collect between), median of {len(rows['ours'])} steps:"
        f" ours {med['ours'] * 1e3:.1f} ms, micrograd gc off {med['micrograd_nogc'] * 1e3:.1f} ms,"
        f" micrograd as shipped {med['micrograd'] * 1e3:.1f} ms -> ours / micrograd as shipped"
        f" {med['ours'] / med['micrograd']:.3f}, / micrograd gc off {med['ours'] / med['micrograd_nogc']:.3f}"
        " (information, not the goal's method)"
    )


def main(runs=7):
    import micrograd.engine as mg_engine
    import micrograd.nn as mg_nn

    points, labels = moons(100, 0.1, random.Random(1))
    X = [list(p) for p in points]
    y = [float(label) for label in labels]

    ours = lambda: nn.MLP(2, [16, 16, 1], rng=random.Random(1337))  # noqa: E731

    def theirs():
        random.seed(1337)
        return mg_nn.MLP(2, [16, 16, 1])

    total, _, _ = demo_step(ours(), engine.Value, X, y)
    nodes = count_nodes(total)
    del total

    results = {key: [] for key in ("micrograd", "micrograd_nogc", "ours", "ours_nogc", "tape_replay")}
    replay = replay_timer(engine.Value, X, y)
    gc.collect()
    for _ in range(runs):
        results["tape_replay"].append(replay())
        results["micrograd"].append(timed(theirs, mg_engine.Value, X, y))
        gc.collect()
        results["ours"].append(timed(ours, engine.Value, X, y))
        results["micrograd_nogc"].append(timed(theirs, mg_engine.Value, X, y, gc_on=False))
        gc.collect()
        results["ours_nogc"].append(timed(ours, engine.Value, X, y, gc_on=False))
    med = {k: [statistics.median(r[i] for r in v) for i in range(3)] for k, v in results.items()}

    print(machine())
    print(f"demo step, MLP(2,[16,16,1]) on 100 moons points, {nodes} Value nodes, median of {runs}")
    print(f"{'engine':<22}{'step ms':>10}{'forward':>10}{'backward':>10}")
    for key, (step, fwd, bwd) in med.items():
        print(f"{key:<22}{step * 1e3:>10.1f}{fwd * 1e3:>10.1f}{bwd * 1e3:>10.1f}")
    print("ratios (lower is better)")
    goals = {"ours": "(goals <= 0.1, <= 0.5)", "ours_nogc": "", "tape_replay": ""}
    for key, goal in goals.items():
        print(
            f"  {key:<12} / micrograd as shipped: {med[key][0] / med['micrograd'][0]:.3f}"
            f"   / micrograd gc off: {med[key][0] / med['micrograd_nogc'][0]:.3f}  {goal}"
        )
    del replay  # its recorded graph would be walked by every full collection of the steps below
    gc.collect()
    in_a_row(ours, theirs, mg_engine.Value, X, y, runs)
    batch16(X, y, mg_engine.Value, mg_nn, runs)
    torch_step(X, y, runs)
    return med


def batch16(X, y, mg_value, mg_nn, runs):
    """A small mini-batch step, where per-step overhead shows: MLP(2,[8,8,1]), 16 points.
    Both engines build the batch's graph fresh (as core.training.trainer does for a mini-batch)."""
    X16, y16 = X[:16], y[:16]
    ours = lambda: nn.MLP(2, [8, 8, 1], rng=random.Random(1337))  # noqa: E731

    def theirs():
        random.seed(1337)
        return mg_nn.MLP(2, [8, 8, 1])

    rows = {"micrograd": [], "micrograd_nogc": [], "ours": [], "ours_nogc": []}
    for _ in range(runs):
        # 20 steps per sample, so the timer's resolution does not matter
        rows["micrograd"].append(sum(timed(theirs, mg_value, X16, y16)[0] for _ in range(20)) / 20)
        rows["micrograd_nogc"].append(sum(timed(theirs, mg_value, X16, y16, gc_on=False)[0] for _ in range(20)) / 20)
        rows["ours"].append(sum(timed(ours, engine.Value, X16, y16)[0] for _ in range(20)) / 20)
        rows["ours_nogc"].append(sum(timed(ours, engine.Value, X16, y16, gc_on=False)[0] for _ in range(20)) / 20)
    med = {k: statistics.median(v) for k, v in rows.items()}
    total, _, _ = demo_step(ours(), engine.Value, X16, y16)
    print(f"batch-16 step, MLP(2,[8,8,1]), {count_nodes(total)} Value nodes, median of {runs} x 20 steps")
    for key, seconds in med.items():
        print(f"  {key:<20}{seconds * 1e3:>8.2f} ms")
    for key in ("ours", "ours_nogc"):
        print(
            f"  {key:<10} / micrograd as shipped: {med[key] / med['micrograd']:.3f}"
            f"   / micrograd gc off: {med[key] / med['micrograd_nogc']:.3f}"
        )
    print(
        "  (a script may switch the collector off while it builds: our graphs hold no cycles, so that"
        " leaks nothing; the trainer builds no graph per step at all, see bench_training.py)"
    )


def torch_step(X, y, runs):
    """For context only: the same full-batch demo step in PyTorch on the CPU, as tensors."""
    try:
        import torch
    except ImportError:
        print("PyTorch not installed: skipped (pip install torch==2.13.0 for the context row)")
        return
    torch.manual_seed(1337)
    model = torch.nn.Sequential(
        torch.nn.Linear(2, 16), torch.nn.ReLU(), torch.nn.Linear(16, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1)
    )
    Xt = torch.tensor(X, dtype=torch.float64)
    yt = torch.tensor(y, dtype=torch.float64)
    model = model.double()
    params = list(model.parameters())

    def step():
        scores = model(Xt).squeeze(1)
        loss = torch.relu(1 - yt * scores).mean() + 1e-4 * sum((p * p).sum() for p in params)
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= 0.5 * p.grad

    for _ in range(20):
        step()  # warm up
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        for _ in range(100):
            step()
        samples.append((time.perf_counter() - t0) / 100)
    print(
        f"PyTorch {torch.__version__} CPU, the same full-batch step as tensors (float64):"
        f" {statistics.median(samples) * 1e3:.2f} ms (context, not a goal)"
    )


if __name__ == "__main__":
    args = [arg for arg in sys.argv[1:] if arg != "--json"]
    medians = main(int(args[0]) if args else 7)
    if "--json" in sys.argv:  # the last line, for bench_issue21.py
        print(json.dumps(medians))
