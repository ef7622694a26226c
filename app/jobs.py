"""Work off the GUI thread: the one kind of worker the window hands work to.

Anything that may take longer than a frame -- arranging a large graph, reading a
large file, a lesson move that trains, checking a learner's engine in a child
process, writing the recovery file, a training run -- runs as a `Job`:

    job = Job(token, work, parent)          # work: plain Python that touches no widget
    job.done.connect(on_done)               # on_done(token, outcome), on the GUI thread
    job.start()

`work()` runs on the job's own QThread. Its return value, or the exception it
raised, comes back exactly once as `done(token, outcome)`: an exception is an
outcome to show, never a crash of the window. A job that reports as it goes
calls `job.report(what)` (the `progress` signal), and one that can be abandoned
checks `job.stopped` between its steps; `stop()` asks it to end.

The token is the caller's: a window that starts a newer job for the same thing
drops outcomes whose token is no longer the one it waits for.

A subclass may define `work` as a method instead of passing it (LessonWorker).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal


class Job(QThread):
    """Runs `work()` on its own thread and reports its outcome once: done(token, outcome)."""

    progress = Signal(int, object)  # (token, what is being done)
    done = Signal(int, object)  # (token, the result of work(), or the exception it raised)

    def __init__(
        self, token: int = 0, work: Callable[[], Any] | None = None, parent: QObject | None = None, name: str = "job"
    ) -> None:
        super().__init__(parent)
        self.token = token
        if work is not None:
            self.work = work  # type: ignore[method-assign]
        self._stop = threading.Event()
        self.setObjectName(name)

    def work(self) -> Any:
        raise NotImplementedError("pass work= or define work() in a subclass")

    # -- what the work can use -----------------------------------------------------

    @property
    def stopped(self) -> bool:
        """True once stop() was called: work that runs in steps ends at the next one."""
        return self._stop.is_set()

    def report(self, what: Any) -> None:
        """Say what is being done now (shown by whoever listens to `progress`)."""
        self.progress.emit(self.token, what)

    # -- what the GUI thread uses --------------------------------------------------

    def stop(self) -> None:
        self._stop.set()

    def run(self) -> None:
        try:
            outcome = self.work()
        except Exception as e:  # the outcome to show: a bug in a job never takes the window down
            outcome = e
        self.done.emit(self.token, outcome)
