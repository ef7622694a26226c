"""How long one debugger step takes on a large graph, offscreen, GUI included.

    python bench/bench_gui_step.py [NODES] [STEPS]

Opens one sample through an MLP (about NODES nodes, default 5,000) in the main
window, starts the debugger and times STEPS single steps (default 200): the
core `_backward` call, the scene update (grads of the changed nodes, status
stripes, marks, wires), the panel (explanation, step list, timeline) and
`processEvents`, which paints the view. Budget: 16 ms a step (60 frames a
second). Also times the one-off full redraws: reset, a seek to the end, and a
forward step. Prints times only; they vary 2-4x between runs on shared
machines.
"""
import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from PySide6.QtWidgets import QApplication  # noqa: E402

from core.nn import MLP  # noqa: E402

SIZES = {1700: (3, [24, 20, 1]), 5000: (4, [36, 40, 1])}


def mlp_output(target):
    nin, hidden = SIZES.get(target) or (3, [max(2, int((target / 4) ** 0.5))] * 2 + [1])
    model = MLP(nin, hidden)
    return model([0.5 + 0.1 * i for i in range(nin)]), model


def timed(fn):
    t0 = time.perf_counter()
    fn()
    QApplication.processEvents()
    return time.perf_counter() - t0


def main(argv):
    from app.main_window import MainWindow
    target = int(argv[0]) if argv else 5000
    steps = int(argv[1]) if len(argv) > 1 else 200
    app = QApplication.instance() or QApplication([])
    window = MainWindow()
    window.resize(1440, 880)
    window.show()
    app.processEvents()
    out, model = mlp_output(target)
    window.open_value(out, model.parameters())
    window.wait_for_layout()
    window.view.fit()
    window.view.set_zoom(0.8)       # readable: node texts are drawn, so repaints are real
    app.processEvents()
    dbg = window.debugger
    nodes, edges = window.scene.counts()

    t_reset = timed(dbg.reset)
    core_only, total = [], []
    for _ in range(min(steps, len(dbg.stepper.order))):
        t0 = time.perf_counter()
        dbg.stepper.step()
        dbg.stepper.step_back()
        t1 = time.perf_counter()
        dbg.step()
        app.processEvents()
        t2 = time.perf_counter()
        core_only.append(t1 - t0)
        total.append(t2 - t1)
    t_seek = timed(lambda: dbg.seek(len(dbg.stepper.order)))
    t_back = timed(lambda: dbg.seek(0))
    t_forward_start = timed(dbg.forward_reset)
    forward = [timed(dbg.forward_step) for _ in range(50)]
    ms = 1000.0
    print(f"{nodes:,} nodes, {edges:,} edges, {len(dbg.stepper.order):,} steps in the backward pass")
    print(f"one debugger step ({len(total)} steps: core + scene + panel + processEvents): "
          f"median {statistics.median(total) * ms:.2f} ms, max {max(total) * ms:.2f} ms "
          f"(budget 16 ms)")
    print(f"  of which the core step itself: median {statistics.median(core_only) * ms / 2:.3f} ms")
    print(f"forward step: median {statistics.median(forward) * ms:.2f} ms, max {max(forward) * ms:.2f} ms")
    print(f"full redraws: reset {t_reset * ms:.0f} ms, seek to the end {t_seek * ms:.0f} ms, "
          f"seek back to 0 {t_back * ms:.0f} ms, forward start {t_forward_start * ms:.0f} ms")
    window.close()


if __name__ == "__main__":
    main(sys.argv[1:])
