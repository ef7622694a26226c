"""Benchmark GraphDocument.from_dict: does the order of a file's edges matter?

    python bench/bench_load.py
    git show REV:core/document/graph.py > /tmp/old_graph.py
    python bench/bench_load.py --against /tmp/old_graph.py   # the old loader too

A chain of N tanh nodes fed by one input is written twice: inputs first (each
wire's destination has nothing downstream yet) and output first (each new
wire's destination already feeds the rest of the chain). A loader that asks
"would this wire close a loop?" by walking downstream per wire is linear on the
first and quadratic on the second; one that checks for cycles once is linear on
both. Prints seconds (median of --repeat runs) per order and their ratio.
"""

import argparse
import importlib.util
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from core.document import graph  # noqa: E402


def chain(n, output_first):
    """to_dict() data of x -> tanh -> tanh -> ... (n nodes in all)."""
    nodes = [{"id": "n1", "kind": "input", "value": 0.5, "label": "x", "pos": [0, 0]}]
    nodes += [{"id": f"n{i}", "kind": "op", "op": "tanh", "label": "", "pos": [0, 0]} for i in range(2, n + 1)]
    edges = [{"src": f"n{i - 1}", "dst": f"n{i}", "port": 0} for i in range(2, n + 1)]
    if output_first:
        nodes, edges = nodes[::-1], edges[::-1]
    return {"nodes": nodes, "edges": edges, "output": None}


def seconds(module, data, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        module.GraphDocument.from_dict(data)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def load_module(path):
    spec = importlib.util.spec_from_file_location("graph_against", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2_000, 4_000, 8_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--against", metavar="GRAPH.PY", help="also time this version of graph.py")
    args = parser.parse_args()
    modules = [("now", graph)] + ([("other", load_module(args.against))] if args.against else [])
    print("| loader | chain nodes | inputs first, s | output first, s | output first / inputs first |")
    print("|---|---|---|---|---|")
    for name, module in modules:
        for n in args.sizes:
            forward = seconds(module, chain(n, False), args.repeat)
            backward = seconds(module, chain(n, True), args.repeat)
            print(f"| {name} | {n:,} | {forward:.3f} | {backward:.3f} | {backward / forward:.1f} |", flush=True)


if __name__ == "__main__":
    main()
