"""When to repaint which part of the Training panel while it trains.

The controller ticks at ~30 Hz. Painting everything on every tick -- the loss
curves, the boundary image, the network's per-neuron heatmaps -- would take
the GUI thread most of each tick, so while playing each part is redrawn at most
every `REDRAW_INTERVALS[part]` seconds, and at most ONE part per tick: the one
waiting longest. Paused, everything that changed is drawn at once.
"""

import time

# seconds between two redraws of a part while playing
REDRAW_INTERVALS = {"curves": 0.1, "image": 0.125, "network": 0.35}


class RedrawScheduler:
    """The parts waiting for a redraw ('curves' 'image' 'network'), and which of them to draw now."""

    def __init__(self, intervals=None, clock=time.perf_counter):
        self.intervals = dict(intervals or REDRAW_INTERVALS)
        self.clock = clock
        self.dirty = set()
        self.drawn_at = dict.fromkeys(self.intervals, 0.0)

    def mark(self, *parts):
        self.dirty.update(parts)

    def clear(self):
        self.dirty.clear()

    def take(self, everything=False):
        """The parts to draw now, no longer dirty: every dirty part if `everything`, else the
        most overdue part whose interval has passed (or none)."""
        if not self.dirty:
            return []
        now = self.clock()
        if everything:
            parts = sorted(self.dirty)
        else:
            due = [p for p in self.dirty if now - self.drawn_at[p] >= self.intervals[p]]
            parts = [min(sorted(due), key=self.drawn_at.get)] if due else []
        for part in parts:
            self.dirty.discard(part)
            self.drawn_at[part] = now
        return parts
