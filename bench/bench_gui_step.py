"""How long one debugger step takes on a large graph, offscreen, GUI included.

    python bench/bench_gui_step.py [NODES] [STEPS] [--file GRAPH.json]

Opens one sample through an MLP (about NODES nodes, default 5,000) in the main
window, starts the debugger and times STEPS single steps (default 200): the
core `_backward` call, the scene update (grads of the changed nodes, status
stripes, marks, wires), the panel (explanation, step list, timeline) and
`processEvents`, which paints the view. Budget: 16 ms a step (60 frames a
second). Steps are timed twice: with the view following each step (it scrolls
when the step's node is out of sight, and then the whole view repaints; the
steps that scrolled and those that did not are also shown apart) and with
following off (the view stays where the first run left it, so it says how many
steps had their node in sight: only those repaint any node).

Also times the long jumps, which redraw every node: the nodes in sight at once,
the rest a chunk per event-loop turn. Three rounds of: reset, seek to the end,
seek back to 0, start the forward pass (then 20 forward steps), forward all,
reset, run to the end, stop debugging. For each jump: the call plus its first
paint, and the longest single event-loop turn until everything is redrawn (the
minimap's rebuild, 150 ms later, included), median and max of the rounds. The
product rule: no turn of the GUI thread longer than ~50 ms.

`--file` opens a saved graph instead (laying out 5,000 nodes takes a while;
save one with File → Save As). Prints times only; they vary 2-4x between runs
on shared machines, so run it two or three times.
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
JUMP_ROUNDS = 3  # each long jump is timed this many times
FORWARD_STEPS = 20  # forward steps timed per round


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
    while dbg is not None and (dbg.controller.refreshing or settle is None or time.perf_counter() < settle):
        if settle is None and not dbg.controller.refreshing:
            settle = time.perf_counter() + 0.15  # and the timers it started (the minimap)
        t1 = time.perf_counter()
        QApplication.processEvents()
        longest = max(longest, time.perf_counter() - t1)
        time.sleep(0.002)
    return first, longest


def time_steps(app, dbg, steps):
    """[(core step time, wall time, CPU time, scrolled?, node in sight?)] of `steps`
    debugger steps. CPU time (time.process_time) leaves out the moments another
    process had the core."""
    view = dbg.view
    rows = []
    for _ in range(min(steps, len(dbg.stepper.order) - dbg.stepper.position)):
        t0 = time.perf_counter()
        dbg.stepper.step()
        dbg.stepper.step_back()
        t1 = time.perf_counter()
        c1 = time.process_time()
        before = view.mapToScene(view.viewport().rect().center())
        item = dbg.scene.node_item(dbg.controller.nid(dbg.stepper.current))
        dbg.step()
        app.processEvents()
        t2 = time.perf_counter()
        cpu = time.process_time() - c1
        seen = view.mapToScene(view.viewport().rect()).boundingRect()
        scrolled = view.mapToScene(view.viewport().rect().center()) != before
        rows.append(((t1 - t0) / 2, t2 - t1, cpu, scrolled, seen.intersects(item.sceneBoundingRect())))
    return rows


def median_ms(values):
    return f"{statistics.median(values) * 1000:.2f} ms" if values else "—"


def main(argv):
    from app.main_window import MainWindow

    path = None
    if "--file" in argv:
        i = argv.index("--file")
        path, argv = argv[i + 1], argv[:i] + argv[i + 2 :]
    target = int(argv[0]) if argv else 5000
    steps = int(argv[1]) if len(argv) > 1 else 200
    from app.training.tuning import tune_process

    tune_process()  # as app.startup.main does
    app = QApplication.instance() or QApplication([])
    window = MainWindow()
    window.files.prompt_on_close = False  # a measurement, not a session: nothing to ask on close
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
    window.view.set_zoom(0.8)  # readable: node texts are drawn, so repaints are real
    app.processEvents()
    dbg = window.debugger
    nodes, edges = window.scene.counts()
    viewport = window.view.viewport().size()

    first_reset = timed(dbg.reset, dbg)
    dbg.controller.follow = True
    following = time_steps(app, dbg, steps)
    dbg.controller.follow = False
    still = time_steps(app, dbg, steps)
    forward, jumps = [], {"reset": [first_reset]}

    def jump(what, move):
        jumps.setdefault(what, []).append(timed(move, dbg))

    for _ in range(JUMP_ROUNDS):
        jump("reset", dbg.reset)
        jump("seek to the end", lambda: dbg.seek(len(dbg.stepper.order)))
        jump("seek back to 0", lambda: dbg.seek(0))
        jump("forward start", dbg.forward_reset)
        forward += [timed(dbg.forward_step)[0] for _ in range(FORWARD_STEPS)]
        jump("forward all", dbg.forward_all)
        jump("reset again", dbg.reset)
        jump("run to the end", dbg.run_to_end)
        jump("stop debugging", dbg.stop)
    ms = 1000.0
    print(
        f"{nodes:,} nodes, {edges:,} edges, {len(dbg.stepper.order):,} steps in the backward pass; "
        f"view {viewport.width()}x{viewport.height()} px at zoom 0.8"
    )
    print("one debugger step (core + scene + panel + processEvents), budget 16 ms:")
    for what, rows in (("view follows the step", following), ("view stays put", still)):
        wall, cpu = [r[1] for r in rows], [r[2] for r in rows]
        print(
            f"  {what:22s} {len(rows)} steps: wall median {median_ms(wall)}, max {max(wall) * ms:.2f} ms; "
            f"CPU median {median_ms(cpu)}, max {max(cpu) * ms:.2f} ms"
        )
    scrolled = [r[1] for r in following if r[3]]
    print(
        f"    following: {len(scrolled)} steps scrolled, median {median_ms(scrolled)}; "
        f"the other {len(following) - len(scrolled)}, median "
        f"{median_ms([r[1] for r in following if not r[3]])}"
    )
    print(f"    staying put: {sum(r[4] for r in still)} of {len(still)} steps had their node in sight")
    print(f"  of which the core step itself: median {median_ms([r[0] for r in following + still])}")
    print(f"forward step: {len(forward)} steps, median {median_ms(forward)}, max {max(forward) * ms:.2f} ms")
    print(
        f"long jumps, {JUMP_ROUNDS} rounds (the call and its first paint / the longest event-loop turn "
        f"until all is redrawn; median and max):"
    )
    for what, times in jumps.items():
        firsts, longest = [t[0] for t in times], [t[1] for t in times]
        print(
            f"  {what:16s} {statistics.median(firsts) * ms:4.0f} ms, max {max(firsts) * ms:4.0f} / "
            f"{statistics.median(longest) * ms:4.0f} ms, max {max(longest) * ms:4.0f}"
        )
    window.close()


if __name__ == "__main__":
    main(sys.argv[1:])
