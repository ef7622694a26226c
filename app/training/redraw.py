"""When to repaint which part of the Training panel while it trains.

The controller ticks at ~30 Hz. Painting everything on every tick -- the loss
curves, the boundary image, the network's per-neuron heatmaps -- would take
the GUI thread most of each tick, so while playing each part is redrawn at most
every `REDRAW_INTERVALS[part]` seconds, and at most ONE part per tick: the one
waiting longest. Paused, everything that changed is drawn at once.

The GUI thread and the training worker share one interpreter, so every
millisecond the GUI spends painting is a millisecond the worker does not
train. The scheduler therefore also watches the GUI thread's own CPU time
(`time.thread_time`, read on the GUI thread): while it has used more than
`GUI_CPU_SHARE` of the last `CPU_WINDOW` seconds, no part is redrawn sooner
than `MAX_INTERVAL`. A fast machine gets every redraw; a slow or busy one
(a user dragging a splitter, a big plot) gets fewer, and training keeps its
speed -- measured in bench/bench_gui_training.py.
"""

import collections
import time

# seconds between two redraws of a part while playing
# (curves 5 a second, the boundary 4, the network 2: each paint is Python code holding the
# interpreter the worker needs; 10 a second cost live training ~10% of its steps, and at
# 5/5/2.5/2.5 the GUI thread used 11% of the wall time against 5% with live plots off,
# bench/bench_gui_training.py)
# The network diagram is two parts, its neurons' heatmaps and its weights, so that the two
# (each up to ~20 ms of Python on a 16-16 network) never land in one event-loop turn.
REDRAW_INTERVALS = {"curves": 0.2, "image": 0.25, "heatmaps": 0.5, "weights": 0.5}
GUI_CPU_SHARE = 0.08  # of wall time: above it, redraws wait (live plots off use ~0.05)
CPU_WINDOW = 1.0  # seconds over which the GUI thread's share is measured
MAX_INTERVAL = 1.0  # but a dirty part is redrawn at least this often


class RedrawScheduler:
    """The parts waiting for a redraw ('curves' 'image' 'heatmaps' 'weights'), and which of them to draw now."""

    def __init__(self, intervals=None, clock=time.perf_counter, cpu_clock=time.thread_time):
        self.intervals = dict(intervals or REDRAW_INTERVALS)
        self.clock = clock
        self.cpu_clock = cpu_clock
        self.dirty = set()
        self.drawn_at = dict.fromkeys(self.intervals, 0.0)
        self._samples = collections.deque()  # (wall, GUI thread CPU) at each take, last CPU_WINDOW s

    def mark(self, *parts):
        self.dirty.update(parts)

    def clear(self):
        self.dirty.clear()

    def gui_cpu_share(self, now):
        """The GUI thread's CPU time over wall time since the oldest sample in the window."""
        samples = self._samples
        samples.append((now, self.cpu_clock()))
        while len(samples) > 2 and now - samples[1][0] >= CPU_WINDOW:
            samples.popleft()
        (wall0, cpu0), (wall1, cpu1) = samples[0], samples[-1]
        return (cpu1 - cpu0) / (wall1 - wall0) if wall1 > wall0 else 0.0

    def take(self, everything=False):
        """The parts to draw now, no longer dirty: every dirty part if `everything`, else the
        most overdue part whose interval has passed (or none) -- its interval, or
        MAX_INTERVAL while the GUI thread is over its CPU share."""
        now = self.clock()
        busy = self.gui_cpu_share(now) > GUI_CPU_SHARE
        if not self.dirty:
            return []
        if everything:
            parts = sorted(self.dirty)
        else:
            due = [p for p in self.dirty if now - self.drawn_at[p] >= (MAX_INTERVAL if busy else self.intervals[p])]
            parts = [min(sorted(due), key=self.drawn_at.get)] if due else []
        for part in parts:
            self.dirty.discard(part)
            self.drawn_at[part] = now
        return parts
