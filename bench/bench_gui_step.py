"""How long one debugger step takes on a large graph, offscreen, GUI included.

    python bench/bench_gui_step.py [NODES] [STEPS] [--file GRAPH.json]

Opens one sample through an MLP (about NODES nodes, default 5,000) in the main
window, starts the debugger and times STEPS single steps (default 200): the
core `_backward` call, the scene update (grads of the changed nodes, status
stripes, marks, wires), the panel (explanation, step list, timeline) and
`processEvents`, which paints the view. Budget: 16 ms a step (60 frames a
second). Also times the one-off full redraws: reset, a seek to the end, and a
forward step. Steps are timed twice: with the view following each step
(scrolling when the node is off screen, so the whole view repaints) and with
following off (only the changed nodes repaint). `--file` opens a saved graph
instead (laying out 5,000 nodes takes a while; save one with File → Save As).
Prints times only; they vary 2-4x between runs on shared machines.
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


def timed(fn, dbg=None):
    """(time until the call returned and its first paint, longest stall until every
    node is redrawn): a long jump redraws off-screen nodes a chunk per loop turn."""
    t0 = time.perf_counter()
    fn()
    QApplication.processEvents()
    first = time.perf_counter() - t0
    longest = first
    settle = None
    while dbg is not None and (dbg.controller.refreshing or settle is None
                               or time.perf_counter() < settle):
        if settle is None and not dbg.controller.refreshing:
            settle = time.perf_counter() + 0.15   # and the timers it started (the minimap)
        t1 = time.perf_counter()
        QApplication.processEvents()
        longest = max(longest, time.perf_counter() - t1)
        time.sleep(0.002)
    return first, longest


def time_steps(app, dbg, steps):
    """(core step times, wall times, CPU times) of `steps` debugger steps. CPU time
    (time.process_time) leaves out the moments another process had the core."""
    core_only, total, cpu = [], [], []
    for _ in range(min(steps, len(dbg.stepper.order) - dbg.stepper.position)):
        t0 = time.perf_counter()
        dbg.stepper.step()
        dbg.stepper.step_back()
        t1 = time.perf_counter()
        c1 = time.process_time()
        dbg.step()
        app.processEvents()
        t2 = time.perf_counter()
        cpu.append(time.process_time() - c1)
        core_only.append((t1 - t0) / 2)
        total.append(t2 - t1)
    return core_only, total, cpu


def main(argv):
    from app.main_window import MainWindow
    path = None
    if "--file" in argv:
        i = argv.index("--file")
        path, argv = argv[i + 1], argv[:i] + argv[i + 2:]
    target = int(argv[0]) if argv else 5000
    steps = int(argv[1]) if len(argv) > 1 else 200
    app = QApplication.instance() or QApplication([])
    window = MainWindow()
    window.resize(1440, 880)
    window.show()
    app.processEvents()
    if path:
        window.open_file(path)
    else:
        out, model = mlp_output(target)
        window.open_value(out, model.parameters())
    window.wait_for_layout(600)
    window.view.fit()
    window.view.set_zoom(0.8)       # readable: node texts are drawn, so repaints are real
    app.processEvents()
    dbg = window.debugger
    nodes, edges = window.scene.counts()

    t_reset = timed(dbg.reset, dbg)
    dbg.controller.follow = True
    core_only, total, total_cpu = time_steps(app, dbg, steps)
    dbg.controller.follow = False
    _core, still, still_cpu = time_steps(app, dbg, steps)
    t_seek = timed(lambda: dbg.seek(len(dbg.stepper.order)), dbg)
    t_back = timed(lambda: dbg.seek(0), dbg)
    t_forward_start = timed(dbg.forward_reset, dbg)
    forward = [timed(dbg.forward_step)[0] for _ in range(50)]
    ms = 1000.0
    print(f"{nodes:,} nodes, {edges:,} edges, {len(dbg.stepper.order):,} steps in the backward pass")
    print("one debugger step (core + scene + panel + processEvents), budget 16 ms:")
    for what, times, cpu in (("view follows the step", total, total_cpu),
                             ("view stays put", still, still_cpu)):
        print(f"  {what:22s} {len(times)} steps: wall median {statistics.median(times) * ms:.2f} ms, "
              f"max {max(times) * ms:.2f} ms; CPU median {statistics.median(cpu) * ms:.2f} ms, "
              f"max {max(cpu) * ms:.2f} ms")
    print(f"  of which the core step itself: median {statistics.median(core_only) * ms:.3f} ms")
    print(f"forward step: median {statistics.median(forward) * ms:.2f} ms, max {max(forward) * ms:.2f} ms")
    print("long jumps (until the first paint / longest stall while the rest is redrawn):")
    for what, (first, longest) in (("reset", t_reset), ("seek to the end", t_seek),
                                   ("seek back to 0", t_back), ("forward start", t_forward_start)):
        print(f"  {what:16s} {first * ms:5.0f} ms / {longest * ms:4.0f} ms")
    window.close()


if __name__ == "__main__":
    main(sys.argv[1:])
