"""How long a large traced graph takes to open in the window, and how long the
window stops answering meanwhile, offscreen.

    python bench/bench_gui_open.py [NODES ...]

For one sample pushed through an MLP (sized to about NODES nodes) it calls
`MainWindow.open_value` (the Values read as plain data, the document built from
it on a worker, node sizes measured in slices, the layout and the
ReplaceDocument -- which also names and compiles the graph -- on a worker, then
the swap + backward + debugger plan in one turn, the canvas items built in
slices) and runs the event loop until the canvas holds every node and edge.
Then it saves that graph, starts a new one and opens the file (read, checked,
named and compiled on a worker, node sizes measured in slices, the items built
in slices), probed the same way.

The stall figure is an event-loop latency probe: a 2 ms timer notes every time
the GUI thread gets round to it, from just before `open_value` is called until
150 ms after the canvas is complete (so the last slice and the paint after it
are inside the window). The longest gap between two notes is the longest time
the window did not answer: any GUI-thread work, paints included, counts. Qt
runs timers after pending input and paints, so a gap may span a slice and the
paint after it: the figure is an upper bound. (Until 2026-12-03 17:00 a gap
often spanned two or three slices: Qt ran a zero-interval timer again in the
same pass over its timers; app/slices.py restarts it after each slice.) The synchronous part of
`open_value` itself is the first gap. The full garbage
collections that happen meanwhile are timed too (they are part of the stalls,
and their cost grows with everything in memory, not with the open's work).

On a shared machine a gap also holds the time the GUI thread waited for a
core: at a load average of 8 on 2 cores every gap is ~3x the work in it. So
the probe also notes the GUI thread's CPU time (`time.thread_time`) at each
tick, and the longest turn is given both ways: wall clock (what a user waits)
and the GUI thread's own work in that turn (what this code can change).

It prints times only; timings vary 2-4x between runs on shared machines.
"""

import gc
import os
import sys
import tempfile
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from PySide6.QtCore import QEventLoop, Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from core.document.compile import trace  # noqa: E402
from core.nn import MLP  # noqa: E402

SIZES = {1700: (3, [24, 20, 1]), 5000: (4, [36, 40, 1])}
PROBE_MS = 2  # the latency probe's interval
SETTLE_S = 0.15  # the probe keeps running this long after the canvas is complete
STALL_MS = 50  # the product rule: no longer stall than this


def mlp_output(target):
    nin, hidden = SIZES.get(target) or (3, [max(2, int((target / 4) ** 0.5))] * 2 + [1])
    model = MLP(nin, hidden)
    return model([0.5 + 0.1 * i for i in range(nin)]), model


class CollectorWatch:
    """Times the cyclic garbage collector's full collections (generation 2): with a
    5,000-node graph in memory each walks ~150k objects, a stall no slicing avoids."""

    def __init__(self):
        self.pauses = []
        self._started = None
        gc.callbacks.append(self._note)

    def _note(self, phase, info):
        if info["generation"] != 2:
            return
        if phase == "start":
            self._started = time.perf_counter()
        elif self._started is not None:
            self.pauses.append(time.perf_counter() - self._started)
            self._started = None

    def close(self):
        gc.callbacks.remove(self._note)


class LatencyProbe:
    """Notes the time whenever the event loop runs its timer; gaps are stalls."""

    def __init__(self, interval_ms=PROBE_MS):
        self.ticks = []
        self.cpu = []  # the GUI thread's CPU time at each tick
        self.timer = QTimer()
        self.timer.setTimerType(Qt.PreciseTimer)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._tick)

    def _tick(self):
        self.ticks.append(time.perf_counter())
        self.cpu.append(time.thread_time())

    def start(self):
        self.ticks, self.cpu = [], []
        self._tick()
        self.timer.start()

    def stop(self):
        self.timer.stop()
        self._tick()

    def gaps(self):
        return [b - a for a, b in zip(self.ticks, self.ticks[1:])]

    def cpu_gaps(self):
        """The GUI thread's own CPU time in each gap (the work, without the waits for a core)."""
        return [b - a for a, b in zip(self.cpu, self.cpu[1:])]


def opening(window):
    """True until the window has laid out the graph and built every canvas item."""
    return window.layout_pending or getattr(window.scene, "building", False)


def run_until_open(window, timeout_s=120.0):
    """Run the event loop until the graph is open, then SETTLE_S more; the time it was complete."""
    loop = QEventLoop()
    done = []
    deadline = time.perf_counter() + timeout_s

    def check():
        if done:
            return
        if not opening(window) or time.perf_counter() > deadline:
            done.append(time.perf_counter())
            QTimer.singleShot(int(SETTLE_S * 1000), loop.quit)

    poll = QTimer()
    poll.setInterval(1)
    poll.timeout.connect(check)
    poll.start()
    check()
    loop.exec()
    poll.stop()
    return done[0]


def bench(window, target):
    out, model = mlp_output(target)
    t0 = time.perf_counter()
    doc, _values = trace(out, model.parameters())
    t1 = time.perf_counter()
    window.arranger.lay_out(doc)
    t2 = time.perf_counter()
    probe = LatencyProbe()
    collector = CollectorWatch()
    probe.start()
    started = time.perf_counter()
    ok = window.open_value(out, model.parameters())
    returned = time.perf_counter()
    complete = run_until_open(window)
    probe.stop()
    collector.close()
    t3 = time.perf_counter()
    window.view.viewport().grab()  # a full repaint on demand, outside the probe
    t4 = time.perf_counter()
    window.view.fit()
    window.view.viewport().grab()
    t5 = time.perf_counter()
    gaps = probe.gaps()
    longest = max(gaps)
    over = sum(1 for g in gaps if g * 1000 > STALL_MS)
    nodes, edges = window.scene.counts()
    print(
        f"{nodes:6d} nodes {edges:6d} edges  ok={ok}  (alone: trace {t1 - t0:.3f}s  layout {t2 - t1:.3f}s)\n"
        f"        open_value returned after {returned - started:.3f}s; canvas complete after "
        f"{complete - started:.3f}s; full repaint {t4 - t3:.3f}s  fit+paint {t5 - t4:.3f}s  "
        f"total {complete - started + t5 - t3:.3f}s\n"
        f"        longest GUI stall while arranging + showing: {longest * 1000:.0f} ms, "
        f"longest GUI-thread work in one turn {max(probe.cpu_gaps()) * 1000:.0f} ms CPU  "
        f"({over} stalls over {STALL_MS} ms, {len(gaps)} probe ticks); full garbage collections "
        f"meanwhile: {len(collector.pauses)}, longest {max(collector.pauses, default=0) * 1000:.0f} ms"
    )


def bench_file(window, path):
    """Save the graph shown, start a new one, then open the file (File > Open), probed the same way."""
    window.files.save_to(path)
    window.files.new()
    run_until_open(window)
    probe = LatencyProbe()
    probe.start()
    started = time.perf_counter()
    ok = window.files.open(path, ask=False)
    returned = time.perf_counter()
    complete = run_until_open(window)
    probe.stop()
    gaps = probe.gaps()
    print(
        f"        the same graph saved ({os.path.getsize(path) / 1e6:.1f} MB) and opened as a file: ok={ok}, "
        f"open returned after {returned - started:.3f}s; canvas complete after {complete - started:.3f}s; "
        f"longest GUI stall {max(gaps) * 1000:.0f} ms, longest GUI-thread work in one turn "
        f"{max(probe.cpu_gaps()) * 1000:.0f} ms CPU ({sum(1 for g in gaps if g * 1000 > STALL_MS)} over {STALL_MS} ms)"
    )


def main(argv):
    from app.main_window import MainWindow
    from app.training.tuning import tune_process

    tune_process()  # as app.startup.main does: the layout worker hands the GIL back within 0.5 ms
    app = QApplication.instance() or QApplication([])
    window = MainWindow()
    window.files.prompt_on_close = False  # a measurement, not a session: nothing to ask on close
    window.resize(1440, 880)
    window.show()
    app.processEvents()
    with tempfile.TemporaryDirectory() as folder:
        for target in [int(a) for a in argv] or [1700, 5000]:
            bench(window, target)
            bench_file(window, os.path.join(folder, f"mlp{target}.json"))
    window.close()


if __name__ == "__main__":
    main(sys.argv[1:])
