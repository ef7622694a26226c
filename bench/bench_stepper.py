"""Stepper overhead: stepping to the end vs `backward()` on the same graph.

    python bench/bench_stepper.py

The debugger records every step (grads before/after, local derivatives, the text),
so it does more than backward(). Goal: <= 1.5x of backward() for the bare
stepping (`step()` without the text), and the figure with text is reported too.
"""
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.engine import Value, zero_grad  # noqa: E402
from core.stepper import BackwardStepper  # noqa: E402


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


def main(runs=5):
    root = graph()
    backward_times, stepper_times, stepper_run_times = [], [], []
    for _ in range(runs):
        zero_grad(root)
        t0 = time.perf_counter()
        root.backward()
        backward_times.append(time.perf_counter() - t0)

        t0 = time.perf_counter()
        stepper = BackwardStepper(root)
        while not stepper.done:
            stepper.step()
        stepper_times.append(time.perf_counter() - t0)

        stepper.reset()
        t0 = time.perf_counter()
        stepper.run_to_end()
        stepper_run_times.append(time.perf_counter() - t0)
    b = statistics.median(backward_times)
    s = statistics.median(stepper_times)
    r = statistics.median(stepper_run_times)
    print(f"graph: {len(stepper.topo)} nodes, {len(stepper.order)} steps, median of {runs}")
    print(f"backward()                      {b * 1e3:8.1f} ms")
    print(f"BackwardStepper: build + step() {s * 1e3:8.1f} ms  ratio {s / b:.2f}")
    print(f"after reset(): run_to_end()     {r * 1e3:8.1f} ms  ratio {r / b:.2f}")
    print("goal: <= 1.5 (every step also records grads before/after, the local derivatives and the text)")


if __name__ == "__main__":
    main()
