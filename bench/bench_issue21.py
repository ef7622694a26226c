"""Every goal of issue 21 ("Training at Playground speed"), measured side by side in ONE run.

    python bench/bench_issue21.py [--quick]

Runs, one after the other, each in a fresh process as a user's script runs,
the benchmarks that measure the issue's goals, each printing its own details
as it goes:

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
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

PLAYGROUND = "Playground: 2-8-8-1 tanh, MSE, 250 points"
DEMO = "micrograd demo: 2-16-16-1 relu, hinge + L2, 100 points"
LIVE = "moons 500, 16-16 tanh, full batch (issue 21)"


def machine():
    """One line naming the machine and its load (bench_engine's)."""
    import bench_engine

    return bench_engine.machine()


def tape_steps_per_second(steps=5):
    """The trainer's path before issue 21 on the live config, bare: the median of `steps` steps,
    as steps/s (run in its own process like the rest)."""
    import statistics

    import bench_gui_training
    import bench_training

    step = bench_training.tape(bench_gui_training.CONFIGS[LIVE])
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    return 1 / statistics.median(times)


def run(script, *args):
    """Run bench/<script> in a fresh process, as a user runs it; show what it prints; return the
    figures it gives on its last line (--json)."""
    out = subprocess.run(
        [sys.executable, os.path.join(HERE, script), *args, "--json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    *shown, figures = out.strip().splitlines()
    print("\n".join(line for line in shown if "propagateSizeHints" not in line), flush=True)
    return json.loads(figures)


def heading(text):
    print(f"\n=== {text} ===", flush=True)


def main(argv):
    if argv[:1] == ["--tape"]:  # the "before" figure, in a process of its own
        print(json.dumps(tape_steps_per_second()))
        return
    quick = "--quick" in argv
    started = time.perf_counter()
    print(machine())
    print("Each benchmark runs in a fresh process, as a user's script runs (what the process already")
    print("holds changes what Python's collector costs: PyTorch's objects made micrograd 1.5x slower).")

    heading("1. a training step: ours vs PyTorch float64, one thread (bench_training.py)")
    training = run("bench_training.py", "3" if quick else "7")

    heading("2. micrograd's demo step rebuilt every step, collector on (bench_engine.py)")
    engine = run("bench_engine.py", "3" if quick else "7")

    heading("2. deep chains, collector on and paused, beside the floor (bench_deep_chain.py)")
    chain = run("bench_deep_chain.py", "3" if quick else "7")

    heading("3. live training in the panel (bench_gui_training.py)")
    before = run("bench_issue21.py", "--tape")
    print(f"before issue 21 (core/tape.py replay of the whole batch's graph, bare, no GUI): {before:.1f} steps/s")
    live = run("bench_gui_training.py", "1.5" if quick else "2", "5" if quick else "10", "issue 21")[LIVE]

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
        f"{live['latency_max_on']} ms (GUI's own CPU in it {live['latency_max_cpu_on']:.0f} ms)",
        live["latency_max_on"] <= 50,
    )

    heading(f"issue 21, every goal in this one run ({(time.perf_counter() - started) / 60:.1f} min)")
    print(machine())
    width = max(len(goal) for goal, _, _ in rows)
    for goal, measured, verdict in rows:
        print(f"  {goal:<{width}}  {measured:<34} {verdict}")


if __name__ == "__main__":
    main(sys.argv[1:])
