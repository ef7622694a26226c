"""Every goal of issue 21 ("Training at Playground speed"), measured side by side in ONE run.

    python bench/bench_issue21.py [--quick]

Runs, one after the other in this one process, the benchmarks that measure
the issue's goals, each printing its own details as it goes:

1. bench_training.py    a training step: ours (the batched replay) vs PyTorch
                        float64 on one thread, on a Playground step and on
                        micrograd's demo                        goal <= 3x
2. bench_engine.py      micrograd's demo step rebuilt every step, as users
                        write it, collector on: ours vs micrograd 0.1.0 as
                        shipped and with its collector off      goals <= 0.1, <= 0.5
   bench_deep_chain.py  time(1M) / time(100k) for deep chains, collector on,
                        beside the floor (a chain of the simplest tracked
                        object, as many objects)                goal <= 12
3. bench_gui_training.py  live training in the Training panel on 500 points
                        and [16, 16]: steps per second against the trainer's
                        path before the issue (the whole batch's Value graph
                        replayed by core/tape.py, run bare, no GUI: more than
                        the old panel could do)                 goal >= 10x
                        live plots on / off                     goal >= 0.9
                        longest event-loop delay while training goal <= 50 ms

then a table of the goals, what was measured, and whether it is met. Needs
micrograd 0.1.0 (`pip install -e ".[bench]"`) and, for the PyTorch rows,
`pip install torch==2.13.0`. About 6 minutes (`--quick`: about 3, fewer runs).
"""

import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import bench_engine  # noqa: E402
import bench_gui_training  # noqa: E402
import bench_training  # noqa: E402

PLAYGROUND = "Playground: 2-8-8-1 tanh, MSE, 250 points"
DEMO = "micrograd demo: 2-16-16-1 relu, hinge + L2, 100 points"
LIVE = "moons 500, 16-16 tanh, full batch (issue 21)"


def tape_steps_per_second(cfg, steps=5):
    """The trainer's path before issue 21 on `cfg`, bare: the median of `steps` steps, as steps/s."""
    step = bench_training.tape(cfg)
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    return 1 / statistics.median(times)


def heading(text):
    print(f"\n=== {text} ===", flush=True)


def main(argv):
    quick = "--quick" in argv
    started = time.perf_counter()
    print(bench_engine.machine())

    heading("1. a training step: ours vs PyTorch float64, one thread (bench_training.py)")
    training = bench_training.main(["3" if quick else "7"])

    heading("2. micrograd's demo step rebuilt every step, collector on (bench_engine.py)")
    engine = bench_engine.main(3 if quick else 7)

    heading("2. deep chains, collector on and paused, beside the floor (bench_deep_chain.py)")
    # in a fresh process, as a user's script runs it: this one now holds PyTorch's and micrograd's
    # objects, and how many objects a process holds changes what the collector costs a chain
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_deep_chain.py")
    out = subprocess.run(
        [sys.executable, script, "3" if quick else "7", "--json"], capture_output=True, text=True, check=True
    ).stdout
    print(out.rsplit("\n", 2)[0])
    chain = json.loads(out.strip().splitlines()[-1])

    heading("3. live training in the panel (bench_gui_training.py)")
    live_cfg = bench_gui_training.CONFIGS[LIVE]
    before = tape_steps_per_second(live_cfg)
    print(f"before issue 21 (core/tape.py replay of the whole batch's graph, bare, no GUI): {before:.1f} steps/s")
    live = bench_gui_training.main(["1.5" if quick else "2", "5" if quick else "10", "issue 21"])[LIVE]

    rows = []

    def row(goal, measured, ok):
        rows.append((goal, measured, "met" if ok else "NOT met"))

    for case in (PLAYGROUND, DEMO):
        med = training[case]
        if "torch" in med:
            ratio = med["ours"] / med["torch"]
            row(f"1. step / PyTorch <= 3, {case.split(':')[0]}", f"{ratio:.2f}", ratio <= 3)
        else:
            row(f"1. step / PyTorch <= 3, {case.split(':')[0]}", "PyTorch not installed", False)
    step = {key: value[0] for key, value in engine.items()}
    shipped = step["ours"] / step["micrograd"]
    gc_off = step["ours"] / step["micrograd_nogc"]
    row("2. demo step / micrograd as shipped <= 0.1", f"{shipped:.3f}", shipped <= 0.1)
    row("2. demo step / micrograd collector off <= 0.5", f"{gc_off:.3f}", gc_off <= 0.5)
    row(
        "2. deep chain time(1M)/time(100k) <= 12, collector on",
        f"{chain['ours_on']:.1f} (floor {chain['floor_on']:.1f}; paused {chain['ours_off']:.1f})",
        chain["ours_on"] <= 12,
    )
    speedup = live["live_on"] / before
    row("3. live steps/s >= 10x before (500 points, 16-16)", f"{speedup:.0f}x ({live['live_on']:.0f}/s)", speedup >= 10)
    row("3. live plots on / off >= 0.9", f"{live['on_off']:.2f}", live["on_off"] >= 0.9)
    row(
        "3. GUI never blocked > 50 ms while training",
        f"{live['latency_max_on']} ms",
        live["latency_max_on"] <= 50,
    )

    heading(f"issue 21, every goal in this one run ({(time.perf_counter() - started) / 60:.1f} min)")
    print(bench_engine.machine())
    width = max(len(goal) for goal, _, _ in rows)
    for goal, measured, verdict in rows:
        print(f"  {goal:<{width}}  {measured:<34} {verdict}")


if __name__ == "__main__":
    main(sys.argv[1:])
