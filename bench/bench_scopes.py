"""Big graphs by scope: trace + open time and memory at ~10k/40k/130k nodes, the layout's cost
curve, and microgpt training steps/s against the pure-Python script -- side by side in one run.

    python bench/bench_scopes.py [--no-gui]

1. **Trace and open.** One microgpt training step, on the studio's engine and on a learner's
   own "local grads" Value (resources/scripts/microgpt.py, the shape of Karpathy's script),
   for names of 1, 5 and 15 letters. For each:
   * `script`: the script itself building the step's graph and its backward() (the same
     file run with `python`, no tracing; wall clock minus the interpreter's own start-up);
   * `trace`: `trace_script` -- the child process running the script with the recorder on,
     reading the graph, writing it as arrays; the parent reading them back (wall clock);
   * `open`: the first picture in core (`ScopeView.first` + `picture`: units, layout,
     summaries), what the worker thread does before the canvas gets it;
   * memory: the child's peak RSS (`RUSAGE_CHILDREN`, the largest child so far: sizes run
     in increasing order), the parent's peak Python allocations while reading and opening
     (`tracemalloc`), and bytes per node of the arrays beside the engine's Value.
2. **Layout cost curve.** On the largest graph, the picture (units + layout + summaries)
   for views opened a level at a time: units against seconds.
3. **The window.** `MainWindow.open_file` of the 130k step offscreen: the time until the
   first picture is on the canvas, and the longest event-loop turn meanwhile (a 2 ms
   probe, as bench_gui_open.py; wall and the GUI thread's CPU).
4. **Training.** `core.microgpt.train.Trainer.step` (numpy replay, tapes recorded first)
   against resources/scripts/microgpt.py's own loop, steps/s, in this one run.
"""

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from core.scopes.layout import picture  # noqa: E402
from core.scopes.script import trace_script  # noqa: E402
from core.scopes.view import ScopeView  # noqa: E402

SCRIPT = os.path.join(ROOT, "resources", "scripts", "microgpt.py")
ALPHABET = "abcdefghijklmnopqrstuvwxyz"
STUDIO = '''import random, time
from core.microgpt.data import Tokenizer, load_names
from core.microgpt.model import Config, MicroGPT, loss
t0 = time.perf_counter()
docs = load_names()
rng = random.Random(42)
rng.shuffle(docs)
tokenizer = Tokenizer(docs)
model = MicroGPT(Config(vocab_size=tokenizer.vocab_size), rng)
step_loss = loss(tokenizer.encode({name!r}), model)
step_loss.backward()
print("built", time.perf_counter() - t0)
'''


def learner_copy(folder, letters):
    """The script, its sampling cut off, in folder/scripts with names of `letters` letters in folder/data."""
    os.makedirs(os.path.join(folder, "scripts"))
    os.makedirs(os.path.join(folder, "data"))
    with open(SCRIPT, encoding="utf-8") as f:
        text = f.read().split("# sampling")[0]
    text = text.replace("random.seed(42)", "import time\nt0 = time.perf_counter()\nrandom.seed(42)")
    text += '\nprint("built", time.perf_counter() - t0)\n'
    path = os.path.join(folder, "scripts", "microgpt.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    with open(os.path.join(folder, "data", "names.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join((ALPHABET[k:] + ALPHABET[:k])[:letters] for k in range(26)) + "\n")
    return path


def studio_copy(folder, letters):
    os.makedirs(folder)
    path = os.path.join(folder, "step.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(STUDIO.format(name=ALPHABET[:letters]))
    return path


def run_plain(path, extra=()):
    """The script run as a user runs it: its own 'built' time (from its first line to backward's end)."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, path, *extra], capture_output=True, text=True, env=env, check=True)
    return float(out.stdout.split("built")[-1])


def measure(kind, letters, folder):
    path = learner_copy(folder, letters) if kind == "learner" else studio_copy(folder, letters)
    extra = ("1",) if kind == "learner" else ()
    plain = run_plain(path, extra)
    started = time.perf_counter()
    tracemalloc.start()
    result = trace_script(path)
    traced = time.perf_counter() - started
    graph = result.graph
    if graph is None:
        tracemalloc.stop()
        print(f"{kind} {letters}: {result.message}")
        return None
    started = time.perf_counter()
    view = ScopeView.first(graph, 24)
    made = picture(view)
    opened = time.perf_counter() - started
    _now, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    per_node = graph.nbytes() / graph.n
    print(
        f"{kind:<8} {letters:>2} letters {graph.n:>8,} nodes {len(graph.scopes):>6,} scopes | script {plain:6.2f} s"
        f" | trace {traced:6.2f} s ({traced / plain:4.1f}x) | first picture {opened * 1e3:6.0f} ms,"
        f" {len(made[0])} units | child peak RSS {child:6.0f} MB | parent peak {peak / 2**20:6.1f} MB"
        f" | arrays {per_node:4.0f} B/node"
    )
    return graph


def layout_curve(graph):
    print("\nlayout cost curve (picture = units + layout + block summaries), on", f"{graph.n:,} nodes")
    view = ScopeView(graph)
    for _level in range(8):
        started = time.perf_counter()
        units, _pos, summaries, _frames = picture(view)
        took = time.perf_counter() - started
        print(f"  {len(units):>6,} units ({len(summaries):>5,} blocks) {took * 1e3:8.0f} ms")
        blocks = [int(units.scope[u]) for u in range(len(units)) if units.is_block(u)]
        if not blocks or len(units) > 20_000:
            break
        depth = min(int(graph.depth[s]) for s in blocks)
        view = ScopeView(graph, view.expanded | {s for s in blocks if graph.depth[s] == depth})


def window_open(path):
    from PySide6.QtWidgets import QApplication

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_gui_open import LatencyProbe

    from app.startup import _application

    app = _application()
    from app.main_window import MainWindow

    window = MainWindow()
    window.files.prompt_on_close = False
    window.resize(1440, 880)
    window.show()
    app.processEvents()
    probe = LatencyProbe()
    probe.start()
    started = time.perf_counter()
    window.scopes.open_script(path)  # traced to its first backward(); File › Open of a .py runs it whole (issue 42)
    while not (window.scope_page.current and window.scope_page.current.items):
        app.processEvents()
        time.sleep(0.001)
    shown = time.perf_counter() - started
    job = window.scope_page.current._values_job  # the Values to step, made after the first paint: measured too
    while not job.isFinished():
        app.processEvents()
        time.sleep(0.001)
    end = time.perf_counter() + 0.15
    while time.perf_counter() < end:
        app.processEvents()
    probe.stop()
    page = window.scope_page.current
    print(
        f"\nwindow: {page.graph.n:,} nodes on the canvas collapsed ({len(page.items)} units) in {shown:.2f} s;"
        f" longest GUI turn {max(probe.gaps()) * 1e3:.0f} ms wall, {max(probe.cpu_gaps()) * 1e3:.0f} ms CPU"
    )
    window.close()
    QApplication.processEvents()


def training(steps=20):
    from core.microgpt.train import Trainer

    trainer = Trainer(1000)
    for length in sorted({len(d) for d in trainer.docs}):
        trainer.tape(length)
    started = time.perf_counter()
    for step in range(steps * 5):
        trainer.step(step)
    ours = steps * 5 / (time.perf_counter() - started)
    walls = {}
    for count in (steps, 2 * steps):  # the difference: `steps` steps, without start-up and sampling
        started = time.perf_counter()
        subprocess.run([sys.executable, SCRIPT, str(count)], capture_output=True, text=True, check=True)
        walls[count] = time.perf_counter() - started
    theirs = steps / (walls[2 * steps] - walls[steps])
    print(
        f"\ntraining: numpy replay {ours:7.1f} steps/s | the script {theirs:5.2f} steps/s (wall of {2 * steps}"
        f" steps minus wall of {steps}) | ratio {ours / theirs:5.1f}x"
    )


END_TO_END = (
    "import sys\n"
    "from core.microgpt.train import train\n"
    "steps, every = int(sys.argv[1]), int(sys.argv[2])\n"
    "for progress in train(steps, sample_every=every):\n"
    "    pass\n"
    "print(progress.loss)\n"
)


def end_to_end(steps, every=100):
    """Train microgpt in the studio's way from a fresh process -- imports, the model, recording the
    tape, every step, the samples every `every` steps (the panel's defaults: 1,000 steps, every 100) --
    beside the script's own run of the same steps (its start-up and 20 samples included), one after
    the other on this machine: the speedup a learner sees, recording included."""

    def timed(argv, **kwargs):
        """(completed process, wall s, CPU s of the process): CPU time counts only this run's work,
        so a machine shared with other jobs slows the wall time of both, not the CPU ratio."""
        before, started = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, check=True, **kwargs)
        wall, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
        return done, wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    ours, ours_wall, ours_cpu = timed([sys.executable, "-c", END_TO_END, str(steps), str(every)], cwd=ROOT)
    theirs, theirs_wall, theirs_cpu = timed([sys.executable, SCRIPT, str(steps)])
    last = [line for line in theirs.stdout.splitlines() if line.startswith("step")][-1]
    same = abs(float(last.split("loss ")[1]) - float(ours.stdout.split()[-1]))
    print(
        f"\nend to end, {steps} steps (samples every {every}): studio {ours_cpu:6.2f} s CPU ({ours_wall:.2f} wall)"
        f" | the script {theirs_cpu:6.2f} s CPU ({theirs_wall:.2f} wall) | {theirs_cpu / ours_cpu:5.1f}x CPU,"
        f" {theirs_wall / ours_wall:5.1f}x wall | last losses differ by {same:.1e}",
        flush=True,
    )
    return theirs_cpu / ours_cpu


def main(argv):
    folder = tempfile.mkdtemp(prefix="bps-bench-scopes-")
    try:
        largest = None
        for letters in (1, 5, 15):
            for kind in ("studio", "learner"):
                graph = measure(kind, letters, os.path.join(folder, f"{kind}{letters}"))
                if graph is not None and kind == "studio":
                    largest = graph
        layout_curve(largest)
        if "--no-gui" not in argv:
            window_open(os.path.join(folder, "learner15", "scripts", "microgpt.py"))
        training()
        end_to_end(200)
        end_to_end(1000)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    if "--end-to-end" in sys.argv:  # only the training figures: python bench/bench_scopes.py --end-to-end
        end_to_end(200)
        end_to_end(1000)
    else:
        main(sys.argv[1:])
