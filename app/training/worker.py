"""The training run on its own thread: core's training loop, steered by the GUI through plain data.

`TrainingWorker.run()` owns one `core.training.trainer.Trainer` and runs it
with `core.training.loop.run` -- the same loop a headless `train(cfg)` runs.
The loop decides what a step is, when a run diverges or finishes and what it
reports; the worker only decides when to pull its events, and passes them on.
Nothing else touches the trainer, so the engine's `Value`s never cross a thread.

The GUI steers the worker without waiting for it:

    play_event   set: keep pulling steps; clear: stop after the current step
    stop_event   set: leave (the thread then ends)
    commands     a queue of ("step",), ("set_weight", l, j, i, v), ("reconfigure", cfg), ...
    wake         a doorbell: set after any of the above, so an idle worker looks again

These are `threading` objects the GUI sets directly. A Qt slot queued to a
busy worker would only run when it returned to an event loop -- that is, never
while it trains -- so the worker has no event loop at all: the loop asks it
before every step (`should_stop`) whether to go on, and a pause, a stop or a
new command ends the loop's run there; the worker applies the commands and, if
still playing, runs the loop again. A `Job` (app/jobs.py) runs it on its own thread.

Everything the worker reports goes into `outbox`, a deque shared with the
controller, as `(token, kind, payload)` tuples whose payloads are floats, lists,
dicts and numpy arrays:

    data      the training and test points (after building or changing the data)
    progress  (Progress, steps_done) after every step
    boundary  a Boundary (score grid + per-neuron grids), a few per second while live
    weights   a Weights snapshot (every parameter and its last gradient), likewise
    idle      {reason, message, steps, state, metrics}: the worker has stopped stepping
    error     a traceback (a bug: the worker ends)
    exited    the last word of every run

The token is the run's: the controller drops whatever a replaced run still
posts. It drains the outbox on a timer, so a thousand steps a second never
become a thousand queued Qt events.
"""

import queue
import threading
import time
import traceback

import numpy as np

from core.training.events import Boundary, Progress, Result, Weights
from core.training.loop import run
from core.training.trainer import Trainer

# seconds between decision-boundary snapshots while playing: as often as the panel redraws the
# boundary image (app/training/redraw.py REDRAW_INTERVALS, 0.25 s) -- a snapshot costs the worker
# ~2-4 ms (500 points, 16-16), and one made between two redraws was never seen
BOUNDARY_INTERVAL = 1 / 4
WEIGHTS_INTERVAL = 1 / 2  # seconds between weight snapshots while playing: as often as they are drawn


def _never(step):
    return False


class TrainingWorker:
    """One training run. Create it in the GUI thread; `run()` in the worker thread."""

    def __init__(self, cfg, token, outbox, state=None):
        self.cfg = cfg
        self.token = token
        self.outbox = outbox
        self.initial_state = state
        self.stop_event = threading.Event()
        self.play_event = threading.Event()
        self.wake = threading.Event()
        self.commands = queue.SimpleQueue()
        # read between steps; a float or bool assignment is atomic
        self.min_interval = 0.0  # seconds per step at the speed limit; 0 means as fast as possible
        self.live = True  # False: no boundary/weight snapshots while playing (plots off)
        self._pending_steps = 0
        self._trainer = None
        self._next_due = 0.0  # when the next step may start, at the speed limit
        self._last_boundary = self._last_weights = 0.0

    # -- the GUI's side (any thread) ---------------------------------------------

    def play(self):
        self.play_event.set()
        self.wake.set()

    def pause(self):
        self.play_event.clear()
        self.wake.set()

    def stop(self):
        self.stop_event.set()
        self.play_event.clear()
        self.wake.set()

    def send(self, *command):
        self.commands.put(command)
        self.wake.set()

    # -- the worker thread ---------------------------------------------------------

    def _post(self, kind, payload=None):
        self.outbox.append((self.token, kind, payload))

    def run(self):
        try:
            # a diverging model overflows in the float path; that is shown, not warned about
            with np.errstate(all="ignore"):
                self._serve()
        except Exception:  # a bug: report it instead of dying silently
            self._post("error", traceback.format_exc())
        finally:
            if self._trainer is not None:
                self._trainer.close()  # the recorded graph, freed without stalling the GUI thread
            self._trainer = None
            self._post("exited")

    def _serve(self):
        """Wait for play or a step; run core's loop for it; report idle; until stopped."""
        trainer = Trainer(self.cfg)
        if self.initial_state is not None:
            trainer.load_state(self.initial_state)
        self._trainer = trainer
        self._post("data", trainer.data())
        reason, message = "ready", ""
        idle_posted = False
        while not self.stop_event.is_set():
            changed = self._run_commands()
            if changed:
                reason, message = changed
                idle_posted = False
            if self.stop_event.is_set():
                break
            playing = self.play_event.is_set()
            if not (playing or self._pending_steps):
                if not idle_posted:
                    self._post_idle(reason, message)
                    idle_posted = True
                self.wake.wait()
                self.wake.clear()
                continue
            idle_posted = False
            if playing and not self._pending_steps:
                reason, message = self._play()
            else:
                self._pending_steps -= 1
                reason, message = self._step_once()

    def _play(self):
        """Run the loop while playing: to cfg.steps (then pause, 'finished'), or on and on past it."""
        trainer = self._trainer
        until = trainer.cfg.steps if trainer.steps_done < trainer.cfg.steps else None
        result = self._forward(
            run(
                trainer,
                until=until,
                should_stop=self._should_stop,
                boundary_due=self._boundary_due,
                weights_due=self._weights_due,
            )
        )
        if result.status == "finished":
            self.play_event.clear()
            return "finished", result.message + ". Play continues training"
        if result.status == "diverged":
            self.play_event.clear()
            return "diverged", result.message
        return "paused", ""

    def _step_once(self):
        trainer = self._trainer
        result = self._forward(run(trainer, until=trainer.steps_done + 1, boundary_due=_never, weights_due=_never))
        if result.status == "diverged":
            self.play_event.clear()
            self._pending_steps = 0
            return "diverged", result.message
        return "stepped", ""

    def _forward(self, events):
        """Post every event of one run of the loop; return its Result."""
        for event in events:
            if isinstance(event, Progress):
                self._post("progress", (event, self._trainer.steps_done))
            elif isinstance(event, Boundary):
                self._post("boundary", event)
            elif isinstance(event, Weights):
                self._post("weights", event)
            elif isinstance(event, Result):
                return event
        raise RuntimeError("the training loop ended without a Result")

    # -- what the loop asks between steps ---------------------------------------------

    def _should_stop(self):
        """Before each step while playing: end the loop's run for a pause, a stop or a command;
        otherwise wait out the speed limit (waking early for any of those)."""
        while True:
            if (
                self.stop_event.is_set()
                or not self.play_event.is_set()
                or self._pending_steps
                or not self.commands.empty()
            ):
                return True
            delay = self._next_due - time.perf_counter() if self.min_interval > 0 else 0.0
            if delay <= 0:
                break
            self.wake.wait(delay)
            self.wake.clear()
        now = time.perf_counter()
        self._next_due = max(self._next_due + self.min_interval, now) if self.min_interval > 0 else 0.0
        return False

    def _boundary_due(self, step):
        now = time.perf_counter()
        if self.live and now - self._last_boundary >= BOUNDARY_INTERVAL:
            self._last_boundary = now
            return True
        return False

    def _weights_due(self, step):
        now = time.perf_counter()
        if self.live and now - self._last_weights >= WEIGHTS_INTERVAL:
            self._last_weights = now
            return True
        return False

    # -- idle ---------------------------------------------------------------------------

    def _post_idle(self, reason, message):
        trainer = self._trainer
        self._post("boundary", trainer.boundary())
        self._post("weights", trainer.weights())
        self._post(
            "idle",
            {
                "reason": reason,
                "message": message,
                "steps": trainer.steps_done,
                "state": trainer.state(),
                "metrics": trainer.metrics(),
            },
        )

    def _run_commands(self):
        """Apply queued commands; returns (reason, message) if the model or data changed."""
        changed = None
        while True:
            try:
                command = self.commands.get_nowait()
            except queue.Empty:
                return changed
            name, args = command[0], command[1:]
            if name == "step":
                self._pending_steps += 1
            elif name == "snapshot":
                changed = changed or ("paused", "")
            elif name == "set_weight":
                label = self._trainer.set_weight(*args)
                changed = ("edited", f"{label} set to {float(args[-1]):g}")
            elif name == "reconfigure":
                (cfg,) = args
                old = self._trainer
                self._trainer = old.continued(cfg)
                old.close()
                if (cfg.points, cfg.labels, cfg.test_ratio) != (old.cfg.points, old.cfg.labels, old.cfg.test_ratio):
                    self._post("data", self._trainer.data())
                changed = ("reconfigured", "")
            else:
                raise ValueError(f"unknown worker command {name!r}")
