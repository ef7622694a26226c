"""`show(loss)` of big graphs, recorded and not, against the time the script took to build them.

    python bench/bench_show_big.py [--quick]

A learner writes `loss = ...; loss.backward(); show(loss)` without asking the studio to record
scopes (core/scopes/record.py). For each graph, side by side in one run:

* **build**: the learner's code building the graph and running `backward()` (wall clock);
* **show, unrecorded**: `show(loss, block=False)` in an offscreen 1440x880 window, until the first
  picture's items are all on the canvas (`ScopePage.items`, not building): counting the graph,
  grouping it by its structure on the worker (core/scopes/infer.py `collapsed`), the first view
  and its layout, building the items. Boxes: units on that first picture;
* **show, recorded**: the same graph built again under `with recording() as rec:` (its build
  time too) and `show(loss, scopes=rec)`;
* **longest GUI turn** while the unrecorded graph opens: a 2 ms timer's largest gap (wall) and the
  GUI thread's CPU in that gap (as bench_gui_open.py);
* **memory**: Python's peak allocations (`tracemalloc`) while `collapsed(loss)` and the first
  picture are made, per node of the graph -- in a separate, untimed pass (tracing slows Python).

Graphs: one microgpt step on the studio's Value (names of 1, 4 and 15 letters: ~19k, ~43k, ~138k
nodes), an MLP(3, [16, 16, 1]) tanh regression over 15 and 75 samples (~10k and ~50k nodes), and
the learner's own local-grads class (resources/scripts/microgpt.py, 15 letters, ~139k nodes) --
the last shown unrecorded only (recording a learner's class is the traced-script path,
bench_scopes.py).
"""

import os
import random
import sys
import tempfile
import time
import tracemalloc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from core.engine import Value  # noqa: E402
from core.scopes.infer import collapsed  # noqa: E402
from core.scopes.layout import picture  # noqa: E402
from core.scopes.record import recording  # noqa: E402
from core.scopes.view import ScopeView  # noqa: E402

ALPHABET = "abcdefghijklmnopqrstuvwxyz"


def microgpt(letters):
    from core.microgpt.data import Tokenizer, load_names
    from core.microgpt.model import Config, MicroGPT, loss

    docs = load_names()
    rng = random.Random(42)
    rng.shuffle(docs)
    tokenizer = Tokenizer(docs)
    model = MicroGPT(Config(vocab_size=tokenizer.vocab_size), rng)
    tokens = tokenizer.encode(ALPHABET[:letters])

    def build():
        out = loss(tokens, model)
        out.backward()
        return out

    return build


def mlp(samples):
    from core.nn import MLP

    rng = random.Random(0)
    model = MLP(3, [16, 16, 1], activation="tanh", rng=rng)
    xs = [[rng.uniform(-1, 1) for _ in range(3)] for _ in range(samples)]
    ys = [rng.uniform(-1, 1) for _ in range(samples)]

    def build():
        out = sum(((model(x) - y) ** 2 for x, y in zip(xs, ys)), Value(0.0))
        out.backward()
        return out

    return build


def learner(letters):
    """The learner's script (its own Value class), run in this process up to its first backward()."""
    from bench_scopes import learner_copy

    path = learner_copy(os.path.join(tempfile.mkdtemp(), "copy"), letters)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    cut = text.index("loss.backward()") + len("loss.backward()")
    text = text[:cut] + "\n    break\n"

    def build():
        scope = {"__name__": "__main__", "__file__": path}
        argv, sys.argv = sys.argv, [path, "1"]
        stdout, sys.stdout = sys.stdout, open(os.devnull, "w")  # noqa: SIM115
        try:
            exec(compile(text, path, "exec"), scope)  # noqa: S102 (our own shipped script)
        finally:
            sys.stdout.close()
            sys.argv, sys.stdout = argv, stdout
        return scope["loss"]

    return build


def timed(build):
    started = time.perf_counter()
    out = build()
    return out, time.perf_counter() - started


def open_window(app, out, scopes=None, probe=None):
    """show(out) offscreen at 1440x880: (seconds until the first picture is on the canvas, boxes)."""
    from app.show import show

    started = time.perf_counter()
    window = show(out, block=False, scopes=scopes)
    if probe is not None:  # from the moment the window is there (before, show() runs in the caller's script)
        probe.start()
    window.files.prompt_on_close = False
    window.resize(1440, 880)
    while True:
        page = window.scope_page.current
        if page is not None and page.items and not page.building:
            break
        app.processEvents()
        time.sleep(0.001)
    ready = time.perf_counter() - started
    job = page._values_job  # the Values to step, made after the first paint: in the probe's window too
    while not job.isFinished():
        app.processEvents()
        time.sleep(0.001)
    end = time.perf_counter() + 0.1
    while time.perf_counter() < end:
        app.processEvents()
    if probe is not None:
        probe.stop()
    boxes = len(page.items)
    window.close()
    window.deleteLater()
    app.processEvents()
    return ready, boxes


def memory_per_node(out):
    tracemalloc.start()
    graph = collapsed(out)
    picture(ScopeView.first(graph, 48))
    _now, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / graph.n, graph.n


def main(argv):
    from bench_gui_open import LatencyProbe

    from app.startup import _application

    app = _application()
    quick = "--quick" in argv
    open_window(app, mlp(4)())  # a first window: imports and fonts, not the graph
    cases = [("MLP, 15 samples", mlp(15)), ("microgpt, 1 letter", microgpt(1)), ("microgpt, 4 letters", microgpt(4)),
             ("MLP, 75 samples", mlp(75))]  # fmt: skip
    if not quick:
        cases += [("microgpt, 15 letters", microgpt(15)), ("learner's class, 15 letters", learner(15))]
    print(f"{'graph':<28} {'nodes':>8} | {'build':>6} | {'show unrecorded':>22} {'boxes':>5} | "
          f"{'recorded build':>14} {'show recorded':>20} | longest GUI turn | peak B/node")  # fmt: skip
    for name, build in cases:
        out, built = timed(build)
        probe = LatencyProbe()
        ready, boxes = open_window(app, out, probe=probe)
        turn, cpu = max(probe.gaps()) * 1e3, max(probe.cpu_gaps()) * 1e3
        per_node, n = memory_per_node(out)
        recorded = "-"
        if isinstance(out, Value):
            with recording() as rec:
                again, built_rec = timed(build)
            ready_rec, boxes_rec = open_window(app, again, scopes=rec)
            recorded = f"{built_rec:6.2f} s        {ready_rec:5.2f} s ({ready_rec / built_rec:4.1f}x) {boxes_rec:3d}"
        print(f"{name:<28} {n:>8,} | {built:5.2f}s | {ready:5.2f} s ({ready / built:5.1f}x) {boxes:5d} | "
              f"{recorded:<36} | {turn:5.0f} ms ({cpu:3.0f} CPU) | {per_node:6.0f}")  # fmt: skip
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
