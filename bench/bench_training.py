"""One training step: the trainer's batched replay vs PyTorch float64 on one thread, side by side.

    python bench/bench_training.py [RUNS]

Two steps, each timed in this one process, alternating between the engines,
median of RUNS (default 7) samples of 50 steps each:

* Playground: MLP 2-8-8-1 tanh, MSE, 250 moons points, full batch, SGD.
* micrograd's demo: MLP 2-16-16-1 relu, hinge + 1e-4 L2, 100 moons points, full batch, SGD.

What is timed:

* ours:   `Trainer.step()` (core/training/trainer.py): the batched replay of one
          sample's graph (core/training/replay.py) -- forward, loss, backward,
          the optimizer, the accuracy of the step's Progress
* tape:   the trainer's path before issue 21: the whole batch's Value graph
          recorded once, then `Tape.forward / zero_grad / backward` and SGD over
          the parameters (core/tape.py), collector paused during the step
* torch:  the same network as float64 tensors, `torch.set_num_threads(1)`:
          forward, loss, zero_grad, backward, SGD under no_grad

Goal (issue 21): ours / torch <= 3. PyTorch: `pip install torch==2.13.0`.
"""

import gc
import json
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from core.engine import Value  # noqa: E402
from core.losses import LOSSES, l2_regularization  # noqa: E402
from core.tape import Tape  # noqa: E402
from core.training.config import MICROGRAD_DEMO, TrainConfig  # noqa: E402
from core.training.trainer import Trainer  # noqa: E402

STEPS = 50
CASES = {
    "Playground: 2-8-8-1 tanh, MSE, 250 points": TrainConfig(
        dataset="moons",
        n_samples=250,
        hidden_sizes=(8, 8),
        activation="tanh",
        loss="mse",
        l2_alpha=0.0,
        optimizer="sgd",
        lr=0.01,
        lr_decay=0.0,
        steps=10**6,
    ),
    "micrograd demo: 2-16-16-1 relu, hinge + L2, 100 points": MICROGRAD_DEMO.replace(
        lr_decay=0.0, lr=0.05, steps=10**6
    ),
}


def ours(cfg):
    trainer = Trainer(cfg)
    trainer.step()
    return trainer.step


def tape(cfg):
    trainer = Trainer(cfg)
    scores = [trainer.model([Value(f) for f in row]) for row in trainer.train_inputs]
    loss = LOSSES[cfg.loss](scores, trainer.train_labels)
    if cfg.l2_alpha > 0:
        loss = loss + l2_regularization(trainer.params, cfg.l2_alpha)
    recorded = Tape(loss)
    params, lr = trainer.params, cfg.lr

    def step():
        gc.disable()
        recorded.forward()
        recorded.zero_grad()
        recorded.backward()
        for p in params:
            p.data -= lr * p.grad
        gc.enable()

    return step


def torch_step(cfg):
    import torch

    torch.set_num_threads(1)
    trainer = Trainer(cfg)
    X = torch.tensor(trainer.train_inputs, dtype=torch.float64)
    y = torch.tensor(trainer.train_labels, dtype=torch.float64)
    sizes = [len(cfg.features), *cfg.hidden_sizes, 1]
    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[cfg.activation]
    layers = []
    for i, (nin, nout) in enumerate(zip(sizes, sizes[1:])):
        layers.append(torch.nn.Linear(nin, nout))
        if i < len(sizes) - 2:
            layers.append(act())
    model = torch.nn.Sequential(*layers).double()
    params = list(model.parameters())
    alpha, lr = cfg.l2_alpha, cfg.lr

    def step():
        scores = model(X).squeeze(1)
        if cfg.loss == "mse":
            loss = ((scores - y) ** 2).mean()
        else:
            loss = torch.relu(1 - y * scores).mean()
        if alpha > 0:
            loss = loss + alpha * sum((p * p).sum() for p in params)
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= lr * p.grad

    step()
    return step


def per_step(step):
    t0 = time.perf_counter()
    for _ in range(STEPS):
        step()
    return (time.perf_counter() - t0) / STEPS


def main(argv):
    runs = int(argv[0]) if argv else 7
    random.seed(0)
    try:
        import torch

        version = torch.__version__
    except ImportError:
        version = None
        print("PyTorch not installed (pip install torch==2.13.0): its column is skipped")
    medians = {}
    for name, cfg in CASES.items():
        steps = {"ours": ours(cfg), "tape": tape(cfg)}
        if version:
            steps["torch"] = torch_step(cfg)
        samples = {key: [] for key in steps}
        for _ in range(runs):
            for key, step in steps.items():
                samples[key].append(per_step(step))
        med = medians[name] = {key: statistics.median(v) for key, v in samples.items()}
        print(f"{name}: median of {runs} x {STEPS} steps, ms per step")
        for key, seconds in med.items():
            print(f"  {key:<6}{seconds * 1e3:8.3f} ms   (runs {', '.join(f'{s * 1e3:.2f}' for s in samples[key])})")
        line = f"  ours / tape (before issue 21) = {med['ours'] / med['tape']:.3f}"
        if version:
            line += f";  ours / torch {version} float64 1 thread = {med['ours'] / med['torch']:.2f} (goal <= 3)"
        print(line, flush=True)
    return medians


if __name__ == "__main__":
    medians = main([arg for arg in sys.argv[1:] if arg != "--json"])
    if "--json" in sys.argv:  # the last line, for bench_issue21.py
        print(json.dumps(medians))
