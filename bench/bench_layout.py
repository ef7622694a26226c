"""Benchmark core.document.layout: time and crossings on random DAGs and on MLP graphs.

    python bench/bench_layout.py            # the full table (about a minute)
    python bench/bench_layout.py --quick    # skip the 50k row
    git show REV:core/document/layout.py > /tmp/old.py
    python bench/bench_layout.py --against /tmp/old.py   # time both, taking turns

For every graph: nodes, edges, dummy nodes added for long edges (and, if scipy
imports, the fewest any layering could need), seconds and CPU seconds (medians
of 3 runs of `sugiyama`), crossings in the given order (plain generation order,
dummies last) and after barycenter reduction, both counted on the proper graph.
With --against, the other version's dummies, times and crossings after, too.
With --networkx, the same layout run on networkx's plain layerings instead of
ours (`topological_generations` from the sources, and from the output on the
reversed graph), our crossing reduction and coordinates on top: dummies and
crossings after, to show what our layering passes add.
If Graphviz's `dot` program is installed (Debian: graphviz), it lays out the
same graphs once each, side by side, given up after `--dot-limit` seconds.
"""

import argparse
import importlib.util
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import time

import networkx as nx

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from core.document.layout import sugiyama  # noqa: E402

# -----------------------------------------------------------------------------
# graphs


def layered_dag(n, seed=0, width=12, p_long=0.1, reach=4):
    """A random layered DAG: levels of 1..2*width nodes; each node has 1-3 operands
    in the level before, and with probability p_long one from 2..reach levels back."""
    rng = random.Random(seed)
    levels, i = [], 0
    while i < n:
        k = min(n - i, rng.randint(1, 2 * width))
        levels.append([f"n{j}" for j in range(i, i + k)])
        i += k
    edges = []
    for li in range(1, len(levels)):
        for v in levels[li]:
            for _ in range(rng.randint(1, 3)):
                edges.append((rng.choice(levels[li - 1]), v))
            if li >= 2 and rng.random() < p_long:
                edges.append((rng.choice(levels[li - rng.randint(2, min(reach, li))]), v))
    return [v for level in levels for v in level], edges


def strand_dag(n, seed=0, window=10, p_leaf=0.1):
    """An expression-like DAG: node i is a leaf (p_leaf) or an op on 1-2 of the
    `window` nodes before it. Many strands start at leaves and join much later:
    the case where pulling single nodes right leaves long edges (README_layout.md)."""
    rng = random.Random(seed)
    nodes = [f"n{i}" for i in range(n)]
    edges = []
    for i in range(1, n):
        if rng.random() < p_leaf:
            continue
        for _ in range(rng.choice((1, 2, 2))):
            edges.append((nodes[rng.randrange(max(0, i - window), i)], nodes[i]))
    return nodes, edges


def mlp_sample(n_in=2, sizes=(16, 16, 1)):
    """One sample through micrograd's MLP(n_in, sizes) as scalar ops:
    act = ((w0*x0 + w1*x1) + ...) + b, relu on every layer but the last."""
    nodes, edges = [], []

    def new():
        nodes.append(f"n{len(nodes) + 1}")
        return nodes[-1]

    xs = [new() for _ in range(n_in)]
    for li, size in enumerate(sizes):
        outs = []
        for _ in range(size):
            act = None
            for x in xs:
                w, prod = new(), new()
                edges += [(w, prod), (x, prod)]
                if act is None:
                    act = prod
                else:
                    total = new()
                    edges += [(act, total), (prod, total)]
                    act = total
            b, total = new(), new()
            edges += [(act, total), (b, total)]
            act = total
            if li < len(sizes) - 1:
                relu = new()
                edges.append((act, relu))
                act = relu
            outs.append(act)
        xs = outs
    return nodes, edges


def mlp_loss(n_samples, n_in=2, sizes=(16, 16, 1)):
    """The trainer's loss graph: sum((score - y)^2) over n_samples passes through
    MLP(n_in, sizes), all sharing the same weights and biases."""
    nodes, edges = [], []

    def op(*args):
        nodes.append(f"n{len(nodes) + 1}")
        edges.extend((a, nodes[-1]) for a in args)
        return nodes[-1]

    params, dims = [], n_in
    for size in sizes:
        params.append([([op() for _ in range(dims)], op()) for _ in range(size)])
        dims = size
    loss = None
    for _ in range(n_samples):
        xs = [op() for _ in range(n_in)]
        for li, layer in enumerate(params):
            outs = []
            for ws, b in layer:
                act = None
                for w, x in zip(ws, xs):
                    prod = op(w, x)
                    act = prod if act is None else op(act, prod)
                act = op(act, b)
                outs.append(op(act) if li < len(params) - 1 else act)
            xs = outs
        diff = op(xs[0], op())
        square = op(diff, diff)
        loss = square if loss is None else op(loss, square)
    return nodes, edges


# -----------------------------------------------------------------------------
# networkx's own layerings, for `sugiyama(..., layering=...)`


def networkx_from_sources(ids, pairs):
    """Generation k: the nodes whose operands all sit in generations < k."""
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(ids)))
    graph.add_edges_from(pairs)
    layer = [0] * len(ids)
    for k, generation in enumerate(nx.topological_generations(graph)):
        for v in generation:
            layer[v] = k
    return layer


def networkx_from_output(ids, pairs):
    """Generations measured from the sinks on the reversed graph, mirrored: a
    weight sits just before its consumer, a long chain's start far left."""
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(ids)))
    graph.add_edges_from((v, u) for u, v in pairs)
    depth, layer = 0, [0] * len(ids)
    for k, generation in enumerate(nx.topological_generations(graph)):
        depth = k
        for v in generation:
            layer[v] = k
    return [depth - k for k in layer]


# -----------------------------------------------------------------------------
# measuring


def interleaved(fns, repeat):
    """[(median wall seconds, median CPU seconds)] per fn, the fns taking turns
    so that a load change on a shared machine hits them alike."""
    wall, cpu = [[] for _ in fns], [[] for _ in fns]
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            t, c = time.perf_counter(), time.process_time()
            fn()
            wall[i].append(time.perf_counter() - t)
            cpu[i].append(time.process_time() - c)
    return [(statistics.median(w), statistics.median(c)) for w, c in zip(wall, cpu)]


def load_layout(path):
    """Another version of core/document/layout.py, e.g. `git show REV:core/document/layout.py > old.py`."""
    spec = importlib.util.spec_from_file_location("layout_against", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def dot_seconds(nodes, edges, limit):
    """Seconds Graphviz `dot` takes to lay out the graph (one run; the `dot`
    program, Debian package graphviz), None if it is not installed, or
    float('inf') if it has not finished within `limit` seconds."""
    program = shutil.which("dot")
    if program is None:
        return None
    text = (
        "digraph g { rankdir=LR;\n"
        + "".join(f'"{v}";\n' for v in nodes)
        + "".join(f'"{a}" -> "{b}";\n' for a, b in edges)
        + "}\n"
    )
    t0 = time.perf_counter()
    try:
        subprocess.run([program, "-Tplain"], input=text, capture_output=True, text=True, timeout=limit, check=True)
    except subprocess.TimeoutExpired:
        return float("inf")
    return time.perf_counter() - t0


def optimal_dummies(nodes, edges):
    """The fewest dummies any layering can have (what Graphviz dot's network
    simplex finds): min sum(layer[dst] - layer[src] - 1) subject to
    layer[dst] - layer[src] >= 1, solved as an LP with scipy if it imports."""
    try:
        import numpy as np
        from scipy.optimize import linprog
        from scipy.sparse import coo_matrix
    except ImportError:
        return None
    index = {v: i for i, v in enumerate(nodes)}
    pairs = list(dict.fromkeys((index[a], index[b]) for a, b in edges))
    m = len(pairs)
    rows = np.repeat(np.arange(m), 2)
    cols = np.array([i for a, b in pairs for i in (b, a)])
    # each row: layer[src] - layer[dst] <= -1
    a_ub = coo_matrix((np.tile([-1.0, 1.0], m), (rows, cols)), shape=(m, len(nodes)))
    cost = np.zeros(len(nodes))
    for a, b in pairs:
        cost[b] += 1.0
        cost[a] -= 1.0
    res = linprog(cost, A_ub=a_ub, b_ub=-np.ones(m), bounds=(0, None), method="highs")
    return round(res.fun) - m if res.status == 0 else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the 50k row")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--against", metavar="LAYOUT.PY", help="also time this version of core/document/layout.py, taking turns"
    )
    parser.add_argument(
        "--networkx",
        action="store_true",
        help="also lay out on networkx's plain layerings (from the sources, from the output)",
    )
    parser.add_argument(
        "--dot-limit", type=float, default=120.0, help="seconds before Graphviz dot is given up on (default 120)"
    )
    args = parser.parse_args()
    other = load_layout(args.against) if args.against else None

    cases = [
        ("MLP(2,[16,16,1]) sample", mlp_sample()),
        ("MLP(2,[16,16,1]) loss, 10 samples", mlp_loss(10)),
        ("layered random DAG", layered_dag(1_000)),
        ("layered random DAG", layered_dag(10_000)),
        ("layered random DAG", layered_dag(50_000)),
        ("strand random DAG", strand_dag(1_000)),
        ("strand random DAG", strand_dag(10_000)),
    ]
    if args.quick:
        cases = [c for c in cases if len(c[1][0]) < 50_000]
    have_dot = shutil.which("dot") is not None

    print(
        f"Python {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} CPUs; median of {args.repeat} runs"
    )
    header = (
        "| graph | nodes | edges | dummies | fewest possible | seconds | CPU seconds "
        "| crossings before | crossings after |"
    )
    if other:
        header += " other: dummies | other: seconds | other: CPU seconds | CPU / other | other: crossings after |"
    if args.networkx:
        header += (
            " nx sources: dummies | nx sources: crossings after | nx output: dummies | nx output: crossings after |"
        )
    if have_dot:
        header += " dot seconds |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for name, (nodes, edges) in cases:
        fns = [lambda nodes=nodes, edges=edges: sugiyama(nodes, edges)]
        if other:
            fns.append(lambda nodes=nodes, edges=edges: other.sugiyama(nodes, edges))
        times = interleaved(fns, args.repeat)
        (seconds, cpu), lay = times[0], sugiyama(nodes, edges)
        fewest = optimal_dummies(nodes, edges)
        row = (
            f"| {name} | {len(nodes):,} | {len(edges):,} | {dummies(lay, nodes):,} | "
            f"{'-' if fewest is None else format(fewest, ',')} | {seconds:.3f} | {cpu:.3f} | "
            f"{lay.crossings_before:,} | {lay.crossings_after:,} |"
        )
        if other:
            old = other.sugiyama(nodes, edges)
            (old_seconds, old_cpu) = times[1]
            row += (
                f" {dummies(old, nodes):,} | {old_seconds:.3f} | {old_cpu:.3f} | {cpu / old_cpu:.2f} "
                f"| {old.crossings_after:,} |"
            )
        if args.networkx:
            for layering in (networkx_from_sources, networkx_from_output):
                plain = sugiyama(nodes, edges, layering=layering)
                row += f" {dummies(plain, nodes):,} | {plain.crossings_after:,} |"
        if have_dot:
            dot = dot_seconds(nodes, edges, args.dot_limit) if len(nodes) <= 10_000 else None
            row += " - |" if dot is None else f" > {args.dot_limit:.0f} |" if dot == float("inf") else f" {dot:.3f} |"
        print(row, flush=True)
    if not have_dot:
        print("(Graphviz dot is not installed: no dot comparison; apt-get install graphviz)")


def dummies(lay, nodes):
    return sum(len(layer) for layer in lay.layers) - len(nodes)


if __name__ == "__main__":
    main()
