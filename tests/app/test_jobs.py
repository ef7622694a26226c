"""app/jobs.py: work off the GUI thread reports its outcome once, on the GUI thread."""

import threading

from PySide6.QtCore import QThread

from app.jobs import Job


def test_the_outcome_comes_back_with_the_token_from_another_thread(qtbot):
    ran_on = []

    def work():
        ran_on.append(QThread.currentThread())
        return 6 * 7

    job = Job(17, work, name="answer")
    with qtbot.waitSignal(job.done, timeout=30000) as done:
        job.start()
    assert done.args == [17, 42]
    assert ran_on and ran_on[0] is not QThread.currentThread()
    assert job.wait(30000)


def test_an_exception_is_the_outcome_not_a_crash(qtbot):
    def work():
        raise ValueError("a bug in the job")

    job = Job(3, work)
    with qtbot.waitSignal(job.done, timeout=30000) as done:
        job.start()
    token, outcome = done.args
    assert token == 3 and isinstance(outcome, ValueError) and "a bug in the job" in str(outcome)
    assert job.wait(30000)


class Counting(Job):
    """A job in steps that reports each one and ends early when stopped."""

    def __init__(self, gate):
        super().__init__(1, name="counting")
        self.gate = gate

    def work(self):
        n = 0
        while not self.stopped:
            n += 1
            self.report(f"step {n}")
            self.gate.wait(30)  # the test lets it run on once it has seen a report
        return n


def test_progress_is_reported_and_stop_ends_the_work(qtbot):
    gate = threading.Event()
    job = Counting(gate)
    seen = []
    job.progress.connect(lambda token, what: seen.append((token, what)))
    job.start()
    qtbot.waitUntil(lambda: bool(seen), timeout=30000)
    with qtbot.waitSignal(job.done, timeout=30000) as done:
        job.stop()
        gate.set()
    assert seen[0] == (1, "step 1")
    assert isinstance(done.args[1], int) and done.args[1] >= 1
    assert job.wait(30000)
