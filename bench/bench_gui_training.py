"""Training throughput in the Training panel, live plots on vs off, and how responsive the GUI stays.

    python bench/bench_gui_training.py [SECONDS] [ROUNDS] [NAME]

For two configs -- micrograd's demo (full batch, ~66k Values a step) and a
small mini-batch network (a few ms a step, where per-step overhead shows) --
it runs the panel offscreen, shown, for SECONDS (default 5) each way, ROUNDS
times (default 3) alternating live off / live on so that the load of other
processes on a shared machine hits both alike (NAME: only the configs whose
name contains it, e.g. "issue 21"); medians are reported:

* headless: a bare Trainer.step() loop on a thread, no GUI at all
* live off: the panel trains, only the step counter moves
* live on:  the panel trains with every plot and the network diagram live

and prints steps/s, the ratio live-on / live-off (goal >= 0.9), and the
event-loop latency while training (a 10 ms QTimer ping: how late each ping
came, max and median). Timings vary 2-4x between runs on shared machines:
compare the ratios, measured side by side.
"""

import os
import statistics
import sys
import threading
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from PySide6.QtCore import QElapsedTimer, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

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


def in_panel(app, cfg, seconds, live):
    from app.training.panel import TrainingPanel

    panel = TrainingPanel(cfg)
    panel.resize(1440, 880)
    panel.show()
    pump(app, 0.5)
    panel.set_live(live)
    gaps = []
    clock = QElapsedTimer()
    clock.start()
    last = [clock.elapsed()]

    def ping():
        now = clock.elapsed()
        gaps.append(now - last[0] - 10)
        last[0] = now

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(ping)
    panel.play()
    pump(app, 0.5)  # warm up
    start = panel.steps
    t0 = time.perf_counter()
    last[0] = clock.elapsed()
    timer.start()
    # the real event loop, not a processEvents() loop, so the timer measures what a user feels
    QTimer.singleShot(int(seconds * 1000), app.quit)
    app.exec()
    timer.stop()
    rate = (panel.steps - start) / (time.perf_counter() - t0)
    panel.close()
    return rate, max(gaps), statistics.median(gaps)


def main(argv):
    seconds = float(argv[0]) if argv else 5.0
    rounds = int(argv[1]) if len(argv) > 1 else 3
    only = argv[2] if len(argv) > 2 else ""
    app = QApplication.instance() or QApplication([])
    for name, cfg in CONFIGS.items():
        if only not in name:
            continue
        bare = headless(cfg, seconds)
        runs = {False: [], True: []}
        for _ in range(rounds):
            for live in (False, True):
                runs[live].append(in_panel(app, cfg, seconds, live))
        ratios = [on[0] / off[0] for off, on in zip(runs[False], runs[True])]
        lines = [f"{name}:", f"  headless {bare:7.1f} steps/s"]
        for live, label in ((False, "live off"), (True, "live on ")):
            rates = [r[0] for r in runs[live]]
            lines.append(
                f"  {label} {statistics.median(rates):7.1f} steps/s (runs {', '.join(f'{r:.1f}' for r in rates)})"
                f"   event-loop latency max {max(r[1] for r in runs[live]):4d} ms, "
                f"median {statistics.median(r[2] for r in runs[live]):4.1f} ms"
            )
        on = statistics.median(r[0] for r in runs[True])
        lines.append(
            f"  ratio live on / off: median {statistics.median(ratios):.2f} "
            f"(pairs {', '.join(f'{r:.2f}' for r in ratios)}; goal >= 0.9);  live on / headless {on / bare:.2f}"
        )
        print("\n".join(lines), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
