"""How long a large traced graph takes to open in the window, offscreen.

    python bench/bench_gui_open.py [NODES ...]

For one sample pushed through an MLP (sized to about NODES nodes) it times the
stages of `MainWindow.open_value`: trace, layout, ReplaceDocument + compile +
backward + scene build, fit, and the first full paint of the view. It prints
times only; timings vary 2-4x between runs on shared machines.
"""
import os
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from PySide6.QtCore import QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from core.compile import trace  # noqa: E402
from core.nn import MLP  # noqa: E402

SIZES = {1700: (3, [24, 20, 1]), 5000: (4, [36, 40, 1])}


def mlp_output(target):
    nin, hidden = SIZES.get(target) or (3, [max(2, int((target / 4) ** 0.5))] * 2 + [1])
    model = MLP(nin, hidden)
    return model([0.5 + 0.1 * i for i in range(nin)]), model


def bench(window, target):
    out, model = mlp_output(target)
    t0 = time.perf_counter()
    doc, _values = trace(out, model.parameters())
    t1 = time.perf_counter()
    positions, routes = window.lay_out(doc)
    t2 = time.perf_counter()
    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start(5)
    ok = window.open_value(out, model.parameters())
    worker_started = time.perf_counter()
    while window.layout_pending:   # the event loop keeps running while the worker lays out
        QApplication.processEvents()
        time.sleep(0.001)
    timer.stop()
    t3 = time.perf_counter()
    during = [b - a for a, b in zip(ticks, ticks[1:]) if b < t3 - 0.0] or [0.0]
    gap = max([ticks[0] - worker_started] + during) if ticks else 0.0
    QApplication.processEvents()
    window.view.viewport().grab()
    t4 = time.perf_counter()
    window.view.fit()
    window.view.viewport().grab()
    t5 = time.perf_counter()
    nodes, edges = window.scene.counts()
    print(f"{nodes:6d} nodes {edges:6d} edges  ok={ok}  trace {t1 - t0:.3f}s  layout {t2 - t1:.3f}s  "
          f"open_value (trace + layout in a worker + replace + compile + scene) {t3 - t2:.3f}s  "
          f"first paint {t4 - t3:.3f}s  fit+paint {t5 - t4:.3f}s  total {t5 - t0 - (t2 - t0):.3f}s\n"
          f"        longest GUI stall while arranging + showing: {gap * 1000:.0f} ms")


def main(argv):
    from app.main_window import MainWindow
    app = QApplication.instance() or QApplication([])
    window = MainWindow()
    window.resize(1440, 880)
    window.show()
    app.processEvents()
    for target in [int(a) for a in argv] or [1700, 5000]:
        bench(window, target)
    window.close()


if __name__ == "__main__":
    main(sys.argv[1:])
