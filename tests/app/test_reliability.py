"""Reliability of the training threads and of numbers in the GUI (issue: reliability).

Start and stop a run a hundred times; close mid-run; extreme settings. Whatever happens, no
thread is left behind, nothing hangs, and the app keeps running.
"""

import time

import pytest

from app.training.controller import TrainingController
from core.training.config import MICROGRAD_DEMO, TrainConfig

SMALL = TrainConfig(
    dataset="xor",
    n_samples=40,
    hidden_sizes=(4,),
    activation=("tanh", "linear"),
    steps=10_000,
    boundary_every=5,
    boundary_resolution=12,
    neuron_resolution=6,
)


def test_hundred_start_stop_cycles_leave_no_thread(qtbot):
    started = time.perf_counter()
    for cycle in range(100):
        controller = TrainingController(SMALL)
        controller.start_run(SMALL, play=cycle % 2 == 0)
        if cycle % 10 == 0:
            qtbot.waitUntil(lambda c=controller: c.steps > 0 or c.idle, timeout=5000)
        threads = controller.threads()
        controller.shutdown()
        assert all(not t.isRunning() for t in threads), f"cycle {cycle}: a thread is still running"
        controller.deleteLater()
    elapsed = time.perf_counter() - started
    print(f"100 start/stop cycles in {elapsed:.2f} s")
    assert elapsed < 60  # generous: a hang would blow far past this


def test_replacing_runs_quickly_never_leaks_threads(qtbot):
    controller = TrainingController(SMALL)
    for seed in range(20):
        controller.start_run(SMALL.replace(init_seed=seed), play=True)
    qtbot.waitUntil(lambda: controller.steps > 0, timeout=10000)
    threads = controller.threads()
    controller.shutdown()
    assert all(not t.isRunning() for t in threads)


def test_a_nonsense_learning_rate_is_refused_with_the_field_named():
    with pytest.raises(ValueError, match="lr must be a number > 0"):
        SMALL.replace(lr=-1e6)


@pytest.mark.parametrize("lr", [1e6, 1e300])
def test_extreme_learning_rates_diverge_cleanly(qtbot, lr):
    controller = TrainingController(MICROGRAD_DEMO)
    try:
        controller.start_run(SMALL.replace(lr=lr, optimizer="sgd"), play=True)
        qtbot.waitUntil(lambda: controller.status in ("diverged", "finished"), timeout=20000)
        assert controller.status == "diverged"
        assert "learning rate" in controller.message
    finally:
        controller.shutdown()


@pytest.mark.parametrize(
    "text, flagged",
    [
        ("x = Value(0.0, label='x')\nf = x.log()", "f"),
        ("x = Value(1e308, label='x')\nf = x * 10.0", "f"),
        ("x = Value(-1.0, label='x')\nf = x ** 0.5", "f"),
        ("x = Value(0.0, label='x')\nf = 1.0 / x", "f"),
        ("x = Value(800.0, label='x')\nf = x.exp() - x.exp()", "f"),
    ],
)
def test_non_finite_numbers_are_flagged_in_the_graph_never_a_crash(qtbot, text, flagged):
    from app.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    window.editor.set_text(text)
    window.editor.run()
    window.wait_for_layout()
    value = next(v for v in window.session.compiled.values.values() if v.label == flagged)
    assert not value.is_finite()
    nid = window.session.compiled.node_of(value)
    assert window.scene.node_item(nid).nonfinite
    window.close()
