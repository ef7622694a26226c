"""The longest GUI turns while `show(loss)` opens the unrecorded 138k microgpt step and while it is stepped.

    python bench/bench_big_turns.py [--busy] [--runs N] [--reference DIR]

One run, in a child process: the 15-letter microgpt step on the studio's Value (138,451 nodes,
nothing recorded) is built, `show(loss, block=False)` opens it in an offscreen 1440x880 window, and
a 2 ms timer (as bench_gui_open.py's LatencyProbe) notes every turn of the event loop -- its wall time
and the GUI thread's own CPU in it -- first while the page opens (until the debugger's Values are
made), then while the page is stepped as a user clicks: Step x6, Step into, Step x3, Back x3, Run to
end, Reset, Step; each click 60 ms after the last move is shown. For each phase it prints the longest
turn (wall, and its CPU) and the GUI-thread calls that ran in it (the page's, its canvas's paint,
the slices), with their wall and CPU.

`--busy` keeps the other core busy meanwhile (a `while True: pass` process, ended after the run).
`--reference DIR`: the same measurement of another checkout (e.g. `git worktree add /tmp/ref
<commit>`), run alternately with this one, `--runs` times each (default 3): the medians side by side.
"""

import functools
import json
import os
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ACTIONS = ["step"] * 6 + ["step_into"] + ["step"] * 3 + ["step_back"] * 3 + ["run_to_end", "reset", "step"]
CLICK_MS = 60


def measure(root, busy):
    """One run in this process on the checkout at root: {phase: {...}} (see the module docstring)."""
    sys.path.insert(0, root)  # the checkout measured: its app and core (the bench's helpers put ours first)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QTimer

    from app.graph import scope_minimap, scope_page
    from app.show import show
    from app.slices import SlicedJob
    from app.startup import _application

    gui, log = threading.get_ident(), []

    def wrap(owner, name):
        f = getattr(owner, name, None)
        if f is None:
            return

        @functools.wraps(f)
        def timed(*args, **kwargs):
            if threading.get_ident() != gui:
                return f(*args, **kwargs)
            t, c = time.perf_counter(), time.thread_time()
            try:
                return f(*args, **kwargs)
            finally:
                log.append((t, time.perf_counter() - t, time.thread_time() - c, f"{owner.__name__}.{name}"))

        setattr(owner, name, timed)

    for name in ("show_graph", "_show", "_arrived", "_after_first_paint", "_after_move", "_moved", "_mark",
                 "_repaint_units", "restyle", *sorted(set(ACTIONS))):  # fmt: skip
        wrap(scope_page.ScopePage, name)
    for name in ("paintEvent", "fit", "resizeEvent"):
        wrap(scope_page.ScopeCanvas, name)
    wrap(scope_minimap.ScopeMinimap, "refresh")
    wrap(SlicedJob, "_slice")

    app = _application()
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None
    try:
        warm = show(microgpt_step(1), block=False)  # a first window: imports and fonts, not the graph
        warm.files.prompt_on_close = False
        while not getattr(warm.scope_page.current, "items", None):
            app.processEvents()
            time.sleep(0.001)
        warm.scope_page.current.wait_ready()
        warm.close()
        out = microgpt_step(15)
        probe = LatencyProbe()
        started = time.perf_counter()
        window = show(out, block=False)
        probe.start()
        window.files.prompt_on_close = False
        window.resize(1440, 880)
        while not ((page := window.scope_page.current) and page.items and not page.building):
            app.processEvents()
            time.sleep(0.001)
        ready = time.perf_counter() - started
        while not page._values_job.isFinished():
            app.processEvents()
            time.sleep(0.001)
        settle(app, 0.2)
        probe.stop()
        phases = {"open": longest(probe, log) | {"ready_s": ready}}
        log.clear()
        probe = LatencyProbe()
        probe.start()
        done = []

        def click(i=0):
            if i == len(ACTIONS):
                return
            if getattr(page, "moving", False) or window.layout_pending or page.building:
                QTimer.singleShot(10, lambda: click(i))
                return
            t, c = time.perf_counter(), time.thread_time()
            getattr(page, ACTIONS[i])()
            done.append((ACTIONS[i], (time.perf_counter() - t) * 1e3, (time.thread_time() - c) * 1e3))
            QTimer.singleShot(CLICK_MS, lambda: click(i + 1))

        QTimer.singleShot(0, click)
        end = time.perf_counter() + 120
        while time.perf_counter() < end and (
            len(done) < len(ACTIONS) or getattr(page, "moving", False) or window.layout_pending or page.building
        ):
            app.processEvents()
            time.sleep(0.001)
        settle(app, 0.2)
        probe.stop()
        phases["step"] = longest(probe, log) | {"clicks": done}
        window.close()
        return phases
    finally:
        if hog is not None:
            hog.kill()
            hog.wait()


def microgpt_step(letters):
    """One microgpt training step on the studio's Value, built and backward()ed (as bench_show_big.py)."""
    import random

    from core.microgpt.data import Tokenizer, load_names
    from core.microgpt.model import Config, MicroGPT, loss

    docs = load_names()
    rng = random.Random(42)
    rng.shuffle(docs)
    tokenizer = Tokenizer(docs)
    model = MicroGPT(Config(vocab_size=tokenizer.vocab_size), rng)
    out = loss(tokenizer.encode("abcdefghijklmnopqrstuvwxyz"[:letters]), model)
    out.backward()
    return out


class LatencyProbe:
    """bench_gui_open.py's: the time (and the GUI thread's CPU) at each tick of a 2 ms timer."""

    def __init__(self):
        from PySide6.QtCore import Qt, QTimer

        self.ticks, self.cpu = [], []
        self.timer = QTimer()
        self.timer.setTimerType(Qt.PreciseTimer)
        self.timer.setInterval(2)
        self.timer.timeout.connect(self._tick)

    def _tick(self):
        self.ticks.append(time.perf_counter())
        self.cpu.append(time.thread_time())

    def start(self):
        self._tick()
        self.timer.start()

    def stop(self):
        self.timer.stop()
        self._tick()

    def gaps(self):
        return [b - a for a, b in zip(self.ticks, self.ticks[1:])]

    def cpu_gaps(self):
        return [b - a for a, b in zip(self.cpu, self.cpu[1:])]


def settle(app, seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()


def longest(probe, log):
    """The longest turn: wall, its CPU, and the GUI-thread calls in it (over 2 ms)."""
    gaps, cpu = probe.gaps(), probe.cpu_gaps()
    k = max(range(len(gaps)), key=gaps.__getitem__)
    a, b = probe.ticks[k], probe.ticks[k + 1]
    calls = sorted(((w, c, n) for t, w, c, n in log if a <= t < b and w > 0.002), reverse=True)[:5]
    return {
        "wall_ms": gaps[k] * 1e3,
        "cpu_ms": cpu[k] * 1e3,
        "most_cpu_ms": max(cpu) * 1e3,
        "calls": [f"{n} {w * 1e3:.0f} ms ({c * 1e3:.0f} CPU)" for w, c, n in calls],
    }


def child(root, busy):
    args = [sys.executable, os.path.abspath(__file__), "--child", root] + (["--busy"] if busy else [])
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv):
    if "--child" in argv:
        root = argv[argv.index("--child") + 1]
        print(json.dumps(measure(root, "--busy" in argv)))
        return
    busy = "--busy" in argv
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 3
    trees = {"this": os.path.dirname(HERE)}
    if "--reference" in argv:
        trees = {"reference": os.path.abspath(argv[argv.index("--reference") + 1]), **trees}
    results = {name: [] for name in trees}
    load = os.getloadavg()[0]
    for r in range(runs):
        for name, root in trees.items():
            phases = child(root, busy)
            results[name].append(phases)
            for phase, got in phases.items():
                print(f"run {r + 1} {name:>9} {phase}: longest turn {got['wall_ms']:4.0f} ms wall "
                      f"({got['cpu_ms']:3.0f} CPU), most CPU in a turn {got['most_cpu_ms']:3.0f} ms; "
                      f"{'; '.join(got['calls'])}")  # fmt: skip
            sys.stdout.flush()
    print(f"\nmedians of {runs} runs ({'other core busy, ' if busy else ''}load average {load:.1f} at the start):")
    for name, got in results.items():
        for phase in ("open", "step"):
            wall = statistics.median(p[phase]["wall_ms"] for p in got)
            cpu = statistics.median(p[phase]["most_cpu_ms"] for p in got)
            print(f"  {name:>9} {phase}: longest turn {wall:4.0f} ms wall, most CPU in a turn {cpu:3.0f} ms")


if __name__ == "__main__":
    main(sys.argv[1:])
