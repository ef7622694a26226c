"""Training for a long time does not grow memory: graphs are freed (or replayed), nothing accumulates."""

import gc
import sys

import pytest

from core.training.config import TrainConfig
from core.training.trainer import Trainer

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")


def rss_kib():
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


@pytest.mark.parametrize("batch_size", [None, 8], ids=["full-batch replay", "mini-batch rebuild"])
def test_rss_growth_over_1000_steps_is_small(batch_size):
    cfg = TrainConfig(
        dataset="moons",
        n_samples=60,
        hidden_sizes=(8,),
        activation=("tanh", "linear"),
        steps=2000,
        batch_size=batch_size,
        lr=0.05,
    )
    trainer = Trainer(cfg)
    for _ in range(100):  # warm up: first graphs, caches, allocator pools
        trainer.step()
    gc.collect()
    before = rss_kib()
    for _ in range(1000):
        trainer.step()
    gc.collect()
    after = rss_kib()
    growth = (after - before) / before
    print(f"{batch_size=}: RSS {before} KiB -> {after} KiB ({growth:+.2%}) over 1000 steps")
    assert growth <= 0.10
