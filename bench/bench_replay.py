"""The recorded graph's numpy replay, this tree against a reference commit, side by side.

    python bench/bench_replay.py [--ref COMMIT] [--this COMMIT] [--rounds N]

Issue 41 item 3 moved training's batched replay (core/training/batched.py) and
microgpt's trainer (core/microgpt/train.py) onto one recorded-graph format and
one replay (core/recorded.py). This bench says whether they kept their speed:
the reference commit is exported (`git archive`) to a temporary folder, and
each round runs one fresh process per tree, alternating which goes first. Each
process measures, in CPU seconds (`time.process_time`):

* training: `Trainer.step()` of bench_training.py's two cases (Playground 2-8-8-1 tanh
  MSE 250 points; micrograd's demo 2-16-16-1 relu hinge + L2 100 points), the median
  of 5 samples of 30 steps, per step;
* microgpt: recording the longest name's tape (`Trainer.tape`), then 100 training
  steps (`Trainer.step`), per step.

`--this COMMIT` measures that commit (exported too) instead of the working tree, so
that editing the tree meanwhile cannot change the figures. The figures are this tree /
the reference: the median of the rounds' ratios (< 1: faster), and the ratio of each
tree's best process (the machine is shared: a process's speed varies by a third with
the load, and the best is the one least disturbed).
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import json, statistics, sys, time
sys.path.insert(0, sys.argv[1])
from core.training.config import MICROGRAD_DEMO, TrainConfig
from core.training.trainer import Trainer
from core.microgpt.train import Trainer as GPTTrainer

cases = {
    "training: Playground 2-8-8-1": TrainConfig(dataset="moons", n_samples=250, hidden_sizes=(8, 8),
        activation="tanh", loss="mse", l2_alpha=0.0, optimizer="sgd", lr=0.01, lr_decay=0.0, steps=10**6),
    "training: micrograd demo 2-16-16-1": MICROGRAD_DEMO.replace(lr_decay=0.0, lr=0.05, steps=10**6),
}
out = {}
for name, cfg in cases.items():
    trainer = Trainer(cfg)
    trainer.step()
    samples = []
    for _ in range(5):
        t0 = time.process_time()
        for _ in range(30):
            trainer.step()
        samples.append((time.process_time() - t0) / 30)
    out[name] = statistics.median(samples)
gpt = GPTTrainer(steps=100)
t0 = time.process_time()
gpt.tape(1)
out["microgpt: record the tape"] = time.process_time() - t0
t0 = time.process_time()
for step in range(100):
    gpt.step(step)
out["microgpt: a training step"] = (time.process_time() - t0) / 100
print(json.dumps(out))
"""


def run(tree):
    done = subprocess.run([sys.executable, "-c", CHILD, tree], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def export(commit, folder):
    archive = subprocess.run(["git", "-C", ROOT, "archive", commit], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
    return folder


def main(argv):
    ref = argv[argv.index("--ref") + 1] if "--ref" in argv else "main"
    this = argv[argv.index("--this") + 1] if "--this" in argv else None
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 5
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as tmp_this:
        reference = export(ref, tmp)
        tree = export(this, tmp_this) if this else ROOT
        ours, theirs = [], []
        for r in range(rounds):
            if r % 2:
                theirs.append(run(reference))
                ours.append(run(tree))
            else:
                ours.append(run(tree))
                theirs.append(run(reference))
            print(f"round {r + 1}/{rounds} done", file=sys.stderr)
    print(f"this tree / {ref}, {rounds} rounds alternating (CPU seconds, medians)")
    head = f"{'measure':36} {'this tree':>10} {'reference':>10} {'ratio':>6} {'min-max':>10}"
    print(f"{head} {'best':>8} {'/':>8} {'ratio':>6}")
    for key in ours[0]:
        a = statistics.median(o[key] for o in ours)
        b = statistics.median(t[key] for t in theirs)
        ratios = [o[key] / t[key] for o, t in zip(ours, theirs)]
        spread = f"{min(ratios):.2f}-{max(ratios):.2f}"
        best_a, best_b = min(o[key] for o in ours), min(t[key] for t in theirs)
        print(
            f"{key:36} {a * 1e3:8.2f}ms {b * 1e3:8.2f}ms {statistics.median(ratios):6.2f} {spread:>10} "
            f"{best_a * 1e3:6.2f}ms {best_b * 1e3:6.2f}ms {best_a / best_b:6.2f}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
