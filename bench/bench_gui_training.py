"""Training throughput in the Training panel, live plots on vs off, and how responsive the GUI stays.

    python bench/bench_gui_training.py [SECONDS] [ROUNDS] [NAME]

For two configs -- micrograd's demo (full batch, ~66k Values a step) and a
small mini-batch network (a few ms a step, where per-step overhead shows) --
it runs ONE panel offscreen, shown, training throughout, and switches its
live plots off and on in alternating segments of SECONDS (default 2), ROUNDS
times (default 8), so that the load of other processes on a shared machine
hits both alike (NAME: only the configs whose name contains it, e.g.
"issue 21"); medians are reported. (Until 2026-12-03 evening each segment was
a new panel of 4-5 s, 3 rounds: pairs then swung 0.68-1.15 on a quiet machine.)

* headless: a bare Trainer.step() loop on a thread, no GUI at all
* live off: the panel trains, only the step counter moves
* live on:  the panel trains with every plot and the network diagram live

and prints steps/s, the ratio live-on / live-off (goal >= 0.9), and the
event-loop latency while training (a 10 ms QTimer ping: how late each ping
came, max and median), and the GUI thread's own CPU time over wall time (what
it takes from the worker: the two share one interpreter). Timings vary 2-4x between runs on shared machines:
compare the ratios, measured side by side.
"""

import json
import os
import statistics
import sys
import threading
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from PySide6.QtCore import QElapsedTimer, QEventLoop, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from app.training.tuning import tune_process  # noqa: E402
from core.training.config import MICROGRAD_DEMO, TrainConfig  # noqa: E402
from core.training.trainer import Trainer  # noqa: E402

CONFIGS = {
    "micrograd demo (full batch 100, 16-16)": MICROGRAD_DEMO.replace(steps=10**6, lr_decay=0.0, lr=0.05),
    "moons 200, 8-8 tanh, batch 10": TrainConfig(
        dataset="moons",
        n_samples=200,
        hidden_sizes=(8, 8),
        activation="tanh",
        batch_size=10,
        optimizer="adam",
        lr=0.01,
        lr_decay=0.0,
        steps=10**6,
        test_ratio=0.2,
    ),
    "moons 500, 16-16 tanh, full batch (issue 21)": TrainConfig(
        dataset="moons",
        n_samples=500,
        hidden_sizes=(16, 16),
        activation="tanh",
        optimizer="adam",
        lr=0.01,
        lr_decay=0.0,
        steps=10**6,
    ),
}


def pump(app, seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.002)


def headless(cfg, seconds):
    trainer = Trainer(cfg)
    trainer.step()
    stop = threading.Event()

    def loop():
        while not stop.is_set():
            trainer.step()

    thread = threading.Thread(target=loop)
    start = trainer.steps_done
    t0 = time.perf_counter()
    thread.start()
    time.sleep(seconds)
    stop.set()
    thread.join()
    return (trainer.steps_done - start) / (time.perf_counter() - t0)


def segment(panel, seconds):
    """Let the panel train for `seconds` in the real event loop (not a processEvents() loop, so the
    ping measures what a user feels); return (steps/s, latency max ms, latency median ms, GUI
    thread CPU share, the GUI thread's own CPU time in the gap of the latest ping, ms): a gap
    much longer than its CPU time was a wait, for a core (other processes) or for the interpreter."""
    gaps = []  # (how late the ping came, ms; the GUI thread's own CPU time since the last ping, ms)
    clock = QElapsedTimer()
    clock.start()
    last = [clock.elapsed(), time.thread_time()]

    def ping():
        now, cpu = clock.elapsed(), time.thread_time()
        gaps.append((now - last[0] - 10, (cpu - last[1]) * 1e3))
        last[0], last[1] = now, cpu

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(ping)
    start = panel.steps
    t0 = time.perf_counter()
    gui_cpu0 = time.thread_time()
    timer.start()
    loop = QEventLoop()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()
    timer.stop()
    wall = time.perf_counter() - t0
    gui_share = (time.thread_time() - gui_cpu0) / wall
    late = max(gaps)
    return (panel.steps - start) / wall, late[0], statistics.median(g[0] for g in gaps), gui_share, late[1]


def in_panel(app, cfg, seconds, rounds):
    """One panel, training throughout; live plots off and on in alternating segments of `seconds`
    (after 0.5 s to settle at each switch), so a busy moment of the machine hits both alike.
    Returns {False: [segment results live off], True: [... live on]}."""
    from app.training.panel import TrainingPanel

    panel = TrainingPanel(cfg)
    panel.resize(1440, 880)
    panel.show()
    pump(app, 0.5)
    panel.play()
    pump(app, 1.0)  # warm up
    runs = {False: [], True: []}
    for _ in range(rounds):
        for live in (False, True):
            panel.set_live(live)
            pump(app, 0.5)
            runs[live].append(segment(panel, seconds))
    panel.pause()
    panel.close()
    return runs


def main(argv):
    seconds = float(argv[0]) if argv else 2.0
    rounds = int(argv[1]) if len(argv) > 1 else 8
    only = argv[2] if len(argv) > 2 else ""
    app = QApplication.instance() or QApplication([])
    tune_process()
    print(f"{rounds} rounds of {seconds:g} s live off then {seconds:g} s live on, in one panel per config")
    results = {}
    for name, cfg in CONFIGS.items():
        if only not in name:
            continue
        bare = headless(cfg, seconds)
        runs = in_panel(app, cfg, seconds, rounds)
        ratios = [on[0] / off[0] for off, on in zip(runs[False], runs[True])]
        lines = [f"{name}:", f"  headless {bare:7.1f} steps/s"]
        for live, label in ((False, "live off"), (True, "live on ")):
            rates = [r[0] for r in runs[live]]
            lines.append(
                f"  {label} {statistics.median(rates):7.1f} steps/s (segments {min(rates):.0f}-{max(rates):.0f})"
                f"   event-loop latency max {max(r[1] for r in runs[live]):4d} ms "
                f"(its GUI-thread CPU {max(runs[live], key=lambda r: r[1])[4]:.0f} ms), "
                f"median {statistics.median(r[2] for r in runs[live]):4.1f} ms, "
                f"GUI thread CPU {statistics.median(r[3] for r in runs[live]):.0%} of wall time"
            )
        on = statistics.median(r[0] for r in runs[True])
        quartiles = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
        lines.append(
            f"  ratio live on / off: median {statistics.median(ratios):.2f} of {len(ratios)} pairs "
            f"(quartiles {quartiles[0]:.2f}-{quartiles[2]:.2f}, all {min(ratios):.2f}-{max(ratios):.2f}; "
            f"goal >= 0.9);  live on / headless {on / bare:.2f}"
        )
        print("\n".join(lines), flush=True)
        results[name] = {
            "headless": bare,
            "live_off": statistics.median(r[0] for r in runs[False]),
            "live_on": on,
            "on_off": statistics.median(ratios),
            "latency_max_on": max(r[1] for r in runs[True]),
            "latency_max_cpu_on": max(runs[True], key=lambda r: r[1])[4],
            "gui_cpu_on": statistics.median(r[3] for r in runs[True]),
        }
    return results


if __name__ == "__main__":
    results = main([arg for arg in sys.argv[1:] if arg != "--json"])
    if "--json" in sys.argv:  # the last line, for bench_issue21.py
        print(json.dumps(results))
