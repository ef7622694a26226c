"""Long GUI-thread work in slices, so the window keeps answering.

Some work has to happen on the GUI thread (creating canvas items, measuring
text with the window's fonts) and grows with the graph: at 5,000 nodes it takes
longer than the ~50 ms the window may stop answering. Such work is written as
a generator that yields after each small piece (one item, one node measured).
A `SlicedJob` resumes the generator from a zero-interval QTimer until
SLICE_SECONDS have passed, then returns to the event loop -- which paints, runs
other timers and answers the mouse and keyboard -- and goes on in the next
turn. The work's code stays a plain loop; only the `yield`s mark where it may
pause.

    job = SlicedJob(build_items(), parent)
    job.finished.connect(done)
    job.start()            # or job.run_to_end() when the caller needs it finished now

A job that is no longer wanted is `cancel()`ed; its generator is closed and
`finished` is not emitted.

`finished` comes in an event-loop turn of its own, after the slice that ran
the last step: what follows the work (showing a graph once its node sizes are
measured, fitting the view once every item is built) is often a turn's worth of
work too, and a slice plus that would be one long stall. (`run_to_end` reports
at once: its caller wants the work done now.)
"""

import time

from PySide6.QtCore import QObject, QTimer, Signal

SLICE_SECONDS = 0.008  # one slice's work; the paint of what it built (~10-20 ms) comes on top, in the same turn


class SlicedJob(QObject):
    """Runs a generator a slice at a time from the event loop (see the module docstring)."""

    finished = Signal()

    def __init__(self, steps, parent=None) -> None:
        super().__init__(parent)
        self._steps = steps
        self._running = False  # inside a slice (a step may cancel the job)
        self._exhausted = False  # the last step ran; `finished` comes in the next turn
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._slice)

    @property
    def active(self) -> bool:
        """True until `finished` is emitted or the job is cancelled."""
        return self._steps is not None

    def start(self) -> None:
        if self._steps is not None:
            self._timer.start()

    def run_to_end(self) -> None:
        """Do the rest of the work now, without returning to the event loop. (Asked
        for by one of the job's own steps, it cannot: the slice goes on as usual.)"""
        if self._running or self._steps is None:
            return
        self._timer.stop()
        if self._exhausted:
            self._done()
        else:
            self._run(None)

    def cancel(self) -> None:
        """Drop the rest of the work; `finished` is not emitted."""
        self._timer.stop()
        steps, self._steps = self._steps, None
        if steps is not None and not self._running:
            steps.close()  # a running generator is closed when the slice lets go of it

    def _slice(self) -> None:
        if self._steps is None:
            self._timer.stop()
            return
        if self._exhausted:  # the last step ran in the turn before
            self._done()
            return
        self._run(time.perf_counter() + SLICE_SECONDS)
        if self._steps is not None:
            # started again, the timer is due from now on: left as it was, Qt found it due
            # again in the same pass over its timers (its due time is that pass's start)
            # and ran two or three slices before any other timer's turn
            self._timer.start()

    def _run(self, deadline) -> None:
        """Resume the generator until the deadline (None: to the end)."""
        steps = self._steps
        self._running = True
        try:
            for _ in steps:
                if self._steps is not steps:
                    return  # a step cancelled the job
                if deadline is not None and time.perf_counter() >= deadline:
                    return  # the timer brings us back after the event loop's turn
        finally:
            self._running = False
        if self._steps is not steps:
            return
        if deadline is None:
            self._done()
        else:
            self._exhausted = True  # the timer brings us back to report it

    def _done(self) -> None:
        self._timer.stop()
        self._steps = None
        self.finished.emit()
