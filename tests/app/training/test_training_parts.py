"""The Training panel's Qt-free parts: the redraw schedule, CSV reading, metrics text, tuning."""

import os
import subprocess
import sys

import pytest

from app.training.data_box import read_points_csv
from app.training.output_box import metrics_text
from app.training.redraw import RedrawScheduler

# -----------------------------------------------------------------------------
# the redraw schedule


class Clock:
    def __init__(self):
        self.t = 10.0

    def __call__(self):
        return self.t


def test_one_part_per_tick_the_most_overdue_first():
    clock = Clock()
    r = RedrawScheduler({"curves": 0.1, "image": 0.1, "network": 0.3}, clock, cpu_clock=lambda: 0.0)
    r.drawn_at.update(curves=9.5, image=9.0, network=9.8)
    r.mark("curves", "image", "network")
    assert r.take() == ["image"]
    assert r.take() == ["curves"]
    assert r.take() == []  # the network was drawn 0.2 s ago, its interval is 0.3 s
    clock.t += 0.25
    assert r.take() == ["network"]
    assert r.take() == [] and not r.dirty


def test_the_network_heatmaps_and_weights_are_drawn_in_different_ticks():
    """Both in one tick made the GUI's longest turn while training (27-43 ms every 0.4 s,
    56 ms at worst on micrograd's demo); as two parts they never share a turn."""
    clock = Clock()
    r = RedrawScheduler(clock=clock, cpu_clock=lambda: 0.0)
    r.mark("heatmaps", "weights")
    first, second = r.take(), r.take()
    assert sorted(first + second) == ["heatmaps", "weights"] and len(first) == len(second) == 1


def test_a_busy_gui_thread_redraws_only_every_max_interval():
    from app.training import redraw

    clock, cpu = Clock(), Clock()
    r = RedrawScheduler({"curves": 0.1, "image": 0.1, "network": 0.1}, clock, cpu_clock=cpu)
    r.mark("curves")
    assert r.take() == ["curves"]  # the first sample: nothing measured yet
    for _ in range(10):  # then 0.3 s of wall time, 0.1 s of it the GUI's CPU
        clock.t += 0.03
        cpu.t += 0.01
        r.mark("curves")
        assert r.take() == []  # 33% > GUI_CPU_SHARE: its 0.1 s interval is not enough
    assert r.gui_cpu_share(clock.t) > redraw.GUI_CPU_SHARE
    clock.t += redraw.MAX_INTERVAL  # a second on, with the GUI idle meanwhile...
    assert r.take() == ["curves"]  # ...it is drawn again (and at least this often anyway)
    r.mark("image")
    clock.t += 0.1
    assert r.take() == ["image"]  # an idle GUI thread: the normal interval again


def test_everything_at_once_when_asked():
    r = RedrawScheduler(clock=Clock())
    r.mark("network", "curves")
    assert r.take(everything=True) == ["curves", "network"]
    r.mark("image")
    r.clear()
    assert r.take(everything=True) == []


# -----------------------------------------------------------------------------
# CSV and metrics


def test_read_points_csv(tmp_path):
    good = tmp_path / "good.csv"
    good.write_text("x1,x2,label\n0,0,0\n1,1,1\n")
    assert read_points_csv(str(good)) == ([(0.0, 0.0), (1.0, 1.0)], [-1.0, 1.0])
    bad = tmp_path / "bad.csv"
    bad.write_text("x1,x2,label\n0,0,0\n1,oops,1\n")
    with pytest.raises(ValueError, match=r"bad.csv: .*line 3.*Nothing was imported"):
        read_points_csv(str(bad))
    one = tmp_path / "one.csv"
    one.write_text("0,0,1\n")
    with pytest.raises(ValueError, match="at least 2 points"):
        read_points_csv(str(one))
    with pytest.raises(ValueError, match="cannot read it"):
        read_points_csv(str(tmp_path / "missing.csv"))


def test_metrics_text():
    assert metrics_text(0.5, 0.75, None, None) == "training  loss 0.5000   accuracy 75%"
    assert metrics_text(float("nan"), 1.0, 0.25, 0.5).splitlines() == [
        "training  loss —   accuracy 100%",
        "test      loss 0.2500   accuracy 50%",
    ]


def test_metrics_text_writes_a_large_loss_as_the_canvas_does_and_no_accuracy_for_regression():
    assert metrics_text(4429407.7772, 0.5, None, None) == "training  loss 4.429e+06   accuracy 50%"  # was 4429407.7772
    assert metrics_text(0.02, 0.9, 0.03, 0.8, regression=True).splitlines() == [
        "training  loss 0.0200",
        "test      loss 0.0300",
    ]


# -----------------------------------------------------------------------------
# process tuning at startup


def test_tuning_before_numpy_sets_the_environment_and_the_switch_interval():
    code = (
        "import os, sys\n"
        "from app.training.tuning import tune_process\n"
        "tune_process()\n"
        "assert 'numpy' not in sys.modules and 'PySide6' not in sys.modules\n"
        "print(os.environ['OPENBLAS_NUM_THREADS'], sys.getswitchinterval())\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["1", "0.0005"]


def test_tuned_allocator_lets_a_worker_thread_step_without_page_faults():
    # repro: before tune_process fixed glibc's thresholds, a 500-point 16-16 step on a thread
    # other than the main one gave its arrays back to the system and faulted them in again:
    # ~970 page faults a step, 2.3x slower than the same step on the main thread
    code = (
        "import resource, sys, threading\n"
        "from app.training.tuning import tune_process, keep_freed_memory\n"
        "tune_process()\n"
        "if not keep_freed_memory():\n"
        "    print('no-mallopt'); sys.exit()\n"
        "from core.training.config import TrainConfig\n"
        "from core.training.trainer import Trainer\n"
        "cfg = TrainConfig(dataset='moons', n_samples=500, hidden_sizes=(16, 16), activation='tanh',\n"
        "                  optimizer='adam', lr=0.01, lr_decay=0.0, steps=1000)\n"
        "faults = []\n"
        "def train():\n"
        "    trainer = Trainer(cfg)\n"
        "    for _ in range(5):\n"
        "        trainer.step()\n"
        "    before = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt\n"
        "    for _ in range(40):\n"
        "        trainer.step()\n"
        "    faults.append((resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - before) / 40)\n"
        "thread = threading.Thread(target=train)\n"
        "thread.start()\n"
        "thread.join()\n"
        "print(faults[0])\n"
    )
    if not sys.platform.startswith("linux"):
        pytest.skip("RUSAGE_THREAD and mallopt are Linux's")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True).stdout
    if out.strip() == "no-mallopt":
        pytest.skip("this C library has no mallopt (not glibc)")
    assert float(out) < 20, f"{out.strip()} page faults a training step on a worker thread"
