"""Grading throughput: a synthetic class of N submissions, checked up to four ways side by side.

    python bench/bench_grading.py [N=200] [--jobs J] [--rounds R] [--no-before]

The class is N copies of the engines in tests/data/engines (right ones, the classic
bugs, the world's engines; the endless loops left out: each costs its time limit
whatever the grader does), named s000_<engine>.py, ... The same folder is checked

    before   the checker as it was before issue 37 (commit BEFORE, exported to a temporary
             folder and run in its own process): a supervisor and a child per file, no box
    no box   today's core/sandbox with box=False: a supervisor and a child per file, the watch added
    cold box the checker at COLD: each submission in its own bubblewrap box, started for it
    warm box today's default: one long-lived box per worker, its harness and numpy imported
             once, a fresh fork per submission (sandbox.WarmBox)

each with `batch.check_many(jobs=J)` (J = cores by default). Printed per way: wall
seconds, submissions per second, and the CPU seconds all the children used per
submission (getrusage of the children: the figure that does not swing with the
machine's load) and those of the grading process itself (judging, threads); and
whether every way gave every submission the same category. Rounds alternate the order of the ways.

Before the class, where the time of one box goes: 40 runs of a harness that does
nothing and of one that imports numpy (as engines do), each in a cold box and in
one warm box (its supervisor has numpy imported), CPU of the children per run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINES = os.path.join(ROOT, "tests", "data", "engines")
sys.path.insert(0, ROOT)  # this checkout's core, not an installed one
BEFORE = "4515b80"  # the last commit before core/sandbox.py
COLD = "4cb6a4a"  # the last commit with a cold box per submission (before the warm boxes)
GIT = os.environ.get("BPS_BENCH_GIT", ROOT)  # the repository holding BEFORE and COLD (when run from an export)

RUN = r"""
import json, os, resource, sys, time
sys.path.insert(0, sys.argv[1])
from core.foreign import batch
from core.foreign import runner
kwargs = json.loads(sys.argv[4])
files = batch.files_of([sys.argv[2]])
before = resource.getrusage(resource.RUSAGE_CHILDREN)
me = resource.getrusage(resource.RUSAGE_SELF)
t = time.perf_counter()
def check(path, timeout, **kw):
    return runner.check_file(path, timeout=timeout, **kw, **kwargs)
rows = batch.check_many(files, jobs=int(sys.argv[3]), check=check)
wall = time.perf_counter() - t
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
mine = resource.getrusage(resource.RUSAGE_SELF)
own = (mine.ru_utime - me.ru_utime) + (mine.ru_stime - me.ru_stime)
categories = {os.path.basename(r["file"]): r["category"] for r in rows}
print(json.dumps({"wall": wall, "cpu": cpu, "own": own, "categories": categories}))
"""


def make_class(folder: str, n: int) -> None:
    names = sorted(
        os.path.join(d, f)
        for d in (ENGINES, os.path.join(ENGINES, "world"))
        for f in os.listdir(d)
        if f.endswith(".py") and "loop" not in f
    )
    for i in range(n):
        src = names[i % len(names)]
        shutil.copy(src, os.path.join(folder, f"s{i:03d}_{os.path.basename(src)}"))


def export_before(into: str, commit: str = BEFORE) -> str:
    """The checker as it was at `commit`, in its own folder."""
    os.makedirs(into)
    archive = subprocess.run(["git", "-C", GIT, "archive", commit, "core"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)
    return into


def run_way(code_root: str, folder: str, jobs: int, kwargs: dict) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", RUN, code_root, folder, str(jobs), json.dumps(kwargs)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


EMPTY = r"""
import contextlib, json, os, resource, sys, tempfile, time
sys.path.insert(0, sys.argv[1])
from core import sandbox
n, body = int(sys.argv[2]), sys.argv[3]
out = {}
with tempfile.TemporaryDirectory() as tmp:
    shared = os.path.join(tmp, "shared")
    os.mkdir(shared)
    open(os.path.join(shared, "__init__.py"), "w").close()
    harness = os.path.join(tmp, "harness.py")
    with open(harness, "w") as f:
        f.write(body)
    for way in ("cold", "warm"):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        with sandbox.warm() if way == "warm" else contextlib.nullcontext():
            for _ in range(n):
                r = sandbox.run_boxed(harness, box=True, shared={"bps_shared": shared}, preload=["numpy"])
                assert r.ended == "exit" and r.code == 0, r
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        out[way] = [wall / n, (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) / n]
print(json.dumps(out))
"""


def profile_one_box(n: int = 40) -> None:
    for label, body in (("nothing", "pass\n"), ("import numpy", "import numpy\n")):
        done = subprocess.run([sys.executable, "-c", EMPTY, ROOT, str(n), body], capture_output=True, text=True)
        if done.returncode:
            print(f"  one box, {label}: failed {done.stderr[-300:]}")
            continue
        got = json.loads(done.stdout.strip().splitlines()[-1])
        print(
            f"  one run of a harness doing {label}: cold box {got['cold'][1] * 1000:4.0f} ms CPU "
            f"({got['cold'][0] * 1000:4.0f} ms wall), warm box {got['warm'][1] * 1000:4.0f} ms CPU "
            f"({got['warm'][0] * 1000:4.0f} ms wall)",
            flush=True,
        )


def main(argv: list[str]) -> None:
    n = int(argv[0]) if argv and argv[0].isdigit() else 200
    jobs = int(argv[argv.index("--jobs") + 1]) if "--jobs" in argv else (os.cpu_count() or 1)
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 1
    from core import sandbox

    print(f"{n} submissions, jobs={jobs}, box: {sandbox.box_problem() or 'bubblewrap ' + str(sandbox.bwrap_path())}")
    if sandbox.box_problem() is None:
        profile_one_box()
    with tempfile.TemporaryDirectory(prefix="bps-bench-grading-") as tmp:
        folder = os.path.join(tmp, "class")
        os.mkdir(folder)
        make_class(folder, n)
        ways = [("no box", ROOT, {"box": False}), ("cold box", export_before(os.path.join(tmp, "cold"), COLD), {})]
        ways.append(("warm box", ROOT, {}))
        if "--no-before" not in argv:
            ways.insert(0, ("before", export_before(os.path.join(tmp, "before")), {}))
        results: dict[str, list[dict]] = {name: [] for name, _, _ in ways}
        for r in range(rounds):
            order = ways if r % 2 == 0 else ways[::-1]
            for name, code_root, kwargs in order:
                t = time.perf_counter()
                out = run_way(code_root, folder, jobs, kwargs)
                out["total"] = time.perf_counter() - t
                results[name].append(out)
                print(
                    f"  round {r + 1} {name:>8}: {out['wall']:6.1f} s wall, {n / out['wall']:5.2f} submissions/s, "
                    f"CPU per submission: {out['cpu'] / n * 1000:4.0f} ms in the children, "
                    f"{out['own'] / n * 1000:4.0f} ms in the grading process",
                    flush=True,
                )
        first = results[ways[0][0]][-1]["categories"]
        same = all(res[-1]["categories"] == first for res in results.values())
        print(f"every submission in the same category every way: {same}")
        if not same:
            for name, res in results.items():
                diff = {k: v for k, v in res[-1]["categories"].items() if first[k] != v}
                print(f"  {name}: {diff}")
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"load average at the end: {load:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main(sys.argv[1:])
