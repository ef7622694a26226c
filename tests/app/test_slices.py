"""SlicedJob (app/slices.py): a generator resumed a slice per event-loop turn."""

from PySide6.QtCore import QTimer

import app.slices
from app.slices import SlicedJob


def counting(done, n):
    for i in range(n):
        done.append(i)
        yield


def test_a_job_goes_back_to_the_event_loop_between_slices(qtbot, monkeypatch):
    monkeypatch.setattr(app.slices, "SLICE_SECONDS", 0.0)  # one step per slice
    done, turns = [], []
    other = QTimer()
    other.setInterval(0)
    other.timeout.connect(lambda: turns.append(len(done)))
    other.start()
    job = SlicedJob(counting(done, 5))
    with qtbot.waitSignal(job.finished, timeout=5000):
        job.start()
    other.stop()
    assert done == [0, 1, 2, 3, 4] and not job.active
    assert len({n for n in turns if 0 < n < 5}) >= 3  # the other timer ran in between, again and again


def test_run_to_end_does_the_rest_at_once(qapp):
    done, finished = [], []
    job = SlicedJob(counting(done, 4))
    job.finished.connect(lambda: finished.append(True))
    job.run_to_end()
    assert done == [0, 1, 2, 3] and finished == [True] and not job.active


def test_a_cancelled_job_stops_and_does_not_report_finished(qapp):
    done, finished = [], []
    job = SlicedJob(counting(done, 4))
    job.finished.connect(lambda: finished.append(True))
    job.cancel()
    job.run_to_end()
    assert done == [] and finished == [] and not job.active


def test_a_job_can_be_cancelled_by_its_own_step(qapp):
    job, done = None, []

    def steps():
        yield
        job.cancel()
        yield
        done.append("ran on")

    job = SlicedJob(steps())
    job.finished.connect(lambda: done.append("finished"))
    job.run_to_end()
    assert done == [] and not job.active


def test_finished_comes_in_a_turn_of_its_own_after_the_last_step(qtbot, monkeypatch):
    monkeypatch.setattr(app.slices, "SLICE_SECONDS", 10.0)  # every step in one slice
    done, turns, at_finish = [], [], []
    other = QTimer()
    other.setInterval(0)
    other.timeout.connect(lambda: turns.append(len(done)))
    job = SlicedJob(counting(done, 3))
    job.finished.connect(lambda: at_finish.append(list(turns)))
    other.start()
    with qtbot.waitSignal(job.finished, timeout=5000):
        job.start()
    other.stop()
    assert done == [0, 1, 2] and not job.active
    assert 3 in at_finish[0]  # the event loop ran between the last step and the report


def test_run_to_end_reports_at_once_when_the_last_step_ran_already(qapp, monkeypatch):
    monkeypatch.setattr(app.slices, "SLICE_SECONDS", 10.0)
    done, finished = [], []
    job = SlicedJob(counting(done, 3))
    job.finished.connect(lambda: finished.append(True))
    job.start()
    while done != [0, 1, 2]:
        qapp.processEvents()  # one slice runs every step
    assert job.active and not finished  # reported in the next turn
    job.run_to_end()
    assert finished == [True] and not job.active
