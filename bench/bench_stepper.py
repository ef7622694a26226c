"""Stepper overhead: stepping to the end vs `backward()` on the same graph.

    python bench/bench_stepper.py

`backward()` sorts the graph and calls every `_backward` once. The stepper does
the same calls in the same order, and before each one saves the operands' grads
(all that an exact step-back needs; records, local derivatives and text are
built only when a view asks). Goal: building a stepper and running it to the
end <= 1.5x `backward()`. Also shown: `step()` one call at a time (each returns
its record, as the debugger's F10 does), a run after `reset()`, and stepping all
the way back. Runs alternate, median of 7.
"""

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.debugger.stepper import BackwardStepper  # noqa: E402
from core.engine import Value, zero_grad  # noqa: E402


def graph(n_ops=20_000, seed=0):
    rng = random.Random(seed)
    nodes = [Value(rng.uniform(-1, 1), label=f"x{i}") for i in range(20)]
    for _ in range(n_ops):
        a, b = rng.choice(nodes[-50:]), rng.choice(nodes)
        kind = rng.random()
        nodes.append(a * b if kind < 0.4 else a + b if kind < 0.8 else a.tanh())
    total = nodes[-1]
    for node in nodes[-200:]:
        total = total + node
    return total


def main(runs=7):
    root = graph()
    times = {"backward": [], "build_run": [], "build_step": [], "reset_run": [], "back": []}
    for _ in range(runs):
        zero_grad(root)
        t0 = time.perf_counter()
        root.backward()
        times["backward"].append(time.perf_counter() - t0)

        t0 = time.perf_counter()
        stepper = BackwardStepper(root)
        stepper.run_to_end()
        times["build_run"].append(time.perf_counter() - t0)

        t0 = time.perf_counter()
        stepper = BackwardStepper(root)
        while not stepper.done:
            stepper.step()
        times["build_step"].append(time.perf_counter() - t0)

        stepper.reset()
        t0 = time.perf_counter()
        stepper.run_to_end()
        times["reset_run"].append(time.perf_counter() - t0)

        t0 = time.perf_counter()
        stepper.seek(0)
        times["back"].append(time.perf_counter() - t0)
    median = {key: statistics.median(values) for key, values in times.items()}
    b = median["backward"]
    print(f"graph: {len(stepper.topo)} nodes, {len(stepper.order)} steps, median of {runs}")
    rows = [
        ("backward()", "backward"),
        ("BackwardStepper(root).run_to_end()", "build_run"),
        ("BackwardStepper(root) + step() x n", "build_step"),
        ("after reset(): run_to_end()", "reset_run"),
        ("seek(0): every step undone", "back"),
    ]
    for text, key in rows:
        print(f"{text:38s} {median[key] * 1e3:8.1f} ms  ratio {median[key] / b:.2f}")
    print("goal: BackwardStepper(root).run_to_end() <= 1.5x backward()")


if __name__ == "__main__":
    main()
