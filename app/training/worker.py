"""The training loop, on its own thread, talking to the GUI only through plain data.

`TrainingWorker.run()` owns one `core.training.trainer.Trainer`: it builds it, steps
it and edits it, and nothing else ever touches it, so the engine's `Value`s
never cross a thread. The GUI steers the loop without waiting for it:

    play_event   set: keep stepping; clear: stop after the current step
    stop_event   set: leave the loop (the thread then ends)
    commands     a queue of ("step",), ("set_weight", l, j, i, v), ("reconfigure", cfg), ...
    wake         a doorbell: set after any of the above, so an idle loop looks again

These are `threading` objects the GUI sets directly. A Qt slot queued to a
busy worker would only run when the loop returned to an event loop -- that is,
never while it trains -- so the loop has no event loop at all and re-reads its
flags between steps instead. The loop is plain Python; `WorkerThread` is the
`QThread` that runs it.

Everything the loop reports goes into `outbox`, a deque shared with the
controller, as `(token, kind, payload)` tuples whose payloads are floats, lists,
dicts and numpy arrays:

    data      the training and test points (after building or changing the data)
    progress  (Progress, steps_done) after every step
    boundary  a Boundary (score grid + per-neuron grids), a few per second while live
    weights   a Weights snapshot (every parameter and its last gradient), likewise
    idle      {reason, message, steps, state, metrics}: the loop has stopped stepping
    error     a traceback (a bug: the loop ends)
    exited    the last word of every run

The controller drains the outbox on a timer, so a thousand steps a second
never become a thousand queued Qt events.
"""

import queue
import threading
import time
import traceback

import numpy as np
from PySide6.QtCore import QThread

from core.training.trainer import Trainer

BOUNDARY_INTERVAL = 1 / 12  # seconds between decision-boundary snapshots while playing
WEIGHTS_INTERVAL = 1 / 10  # seconds between weight snapshots while playing


def data_snapshot(trainer):
    """The trainer's data as plain lists."""
    return {
        "train_points": list(trainer.train_points), "train_labels": list(trainer.train_labels),
        "test_points": list(trainer.test_points), "test_labels": list(trainer.test_labels),
        "bounds": trainer.bounds,
    }


def metrics(trainer):
    """(train loss, train accuracy, test loss, test accuracy) of the model as it is now."""
    loss, acc = trainer.evaluate(trainer.train_inputs, trainer.train_labels)
    if trainer.test_inputs:
        test_loss, test_acc = trainer.evaluate(trainer.test_inputs, trainer.test_labels)
    else:
        test_loss = test_acc = None
    return loss, acc, test_loss, test_acc


def hot_swap(trainer, cfg):
    """A Trainer for `cfg` that carries on from `trainer`: same weights, step and batch rng.

    Only for changes that keep the network's shape (training settings, edited
    points); switching between SGD and Adam starts the new optimizer's memory at 0.
    """
    new = Trainer(cfg)
    state = trainer.state()
    if cfg.optimizer != trainer.cfg.optimizer:
        state["optimizer"] = new.optimizer.state()
    new.load_state(state)
    return new


class TrainingWorker:
    """One training run's loop. Create it in the GUI thread; `run()` in the worker thread."""

    def __init__(self, cfg, token, outbox, state=None):
        self.cfg = cfg
        self.token = token
        self.outbox = outbox
        self.initial_state = state
        self.stop_event = threading.Event()
        self.play_event = threading.Event()
        self.wake = threading.Event()
        self.commands = queue.SimpleQueue()
        # read by the loop between steps; a float or bool assignment is atomic
        self.min_interval = 0.0  # seconds per step at the speed limit; 0 means as fast as possible
        self.live = True  # False: no boundary/weight snapshots while playing (plots off)
        self._pending_steps = 0
        self._trainer = None

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

    # -- the loop (worker thread) ------------------------------------------------

    def _post(self, kind, payload=None):
        self.outbox.append((self.token, kind, payload))

    def run(self):
        try:
            # a diverging model overflows in the float path; that is shown, not warned about
            with np.errstate(all="ignore"):
                self._loop()
        except Exception:  # a bug: report it instead of dying silently
            self._post("error", traceback.format_exc())
        finally:
            if self._trainer is not None:
                self._trainer.close()  # the recorded graph, freed without stalling the GUI thread
            self._trainer = None
            self._post("exited")

    def _loop(self):
        trainer = Trainer(self.cfg)
        if self.initial_state is not None:
            trainer.load_state(self.initial_state)
        self._trainer = trainer
        self._post("data", data_snapshot(trainer))
        reason, message = "ready", ""
        idle_posted = False
        next_due = 0.0
        last_boundary = last_weights = 0.0
        while not self.stop_event.is_set():
            changed = self._run_commands()
            if changed:
                reason, message = changed
                idle_posted = False
            trainer = self._trainer
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
            if trainer.diverged:
                self.play_event.clear()
                self._pending_steps = 0
                reason, message, idle_posted = "diverged", trainer.diverged, False
                continue
            if playing and not self._pending_steps and self.min_interval > 0:
                delay = next_due - time.perf_counter()
                if delay > 0:
                    self.wake.wait(delay)  # wakes early for a command, pause or stop
                    self.wake.clear()
                    continue
            started = time.perf_counter()
            next_due = max(next_due + self.min_interval, started) if self.min_interval > 0 else 0.0
            single = self._pending_steps > 0
            if single:
                self._pending_steps -= 1
            idle_posted = False
            progress = trainer.step()
            self._post("progress", (progress, trainer.steps_done))
            reason, message = ("stepped" if single else "paused"), ""
            if trainer.diverged:
                self.play_event.clear()
                self._pending_steps = 0
                reason, message = "diverged", trainer.diverged
            elif playing and not single and trainer.steps_done == trainer.cfg.steps:
                self.play_event.clear()
                loss, acc, _, _ = metrics(trainer)
                reason = "finished"
                message = (f"finished {trainer.steps_done} steps: loss {loss:.4f}, "
                           f"training accuracy {acc:.0%}. Play continues training")
            elif self.live and self.play_event.is_set():
                now = time.perf_counter()
                if now - last_boundary >= BOUNDARY_INTERVAL:
                    self._post("boundary", trainer.boundary())
                    last_boundary = now
                if now - last_weights >= WEIGHTS_INTERVAL:
                    self._post("weights", trainer.weights())
                    last_weights = now

    def _post_idle(self, reason, message):
        trainer = self._trainer
        self._post("boundary", trainer.boundary())
        self._post("weights", trainer.weights())
        self._post("idle", {"reason": reason, "message": message, "steps": trainer.steps_done,
                            "state": trainer.state(), "metrics": metrics(trainer)})

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
                layer, neuron, index, value = args
                param = self._trainer.model.layers[layer].neurons[neuron].parameters()[index]
                param.data = float(value)
                changed = ("edited", f"{param.label} set to {param.data:g}")
            elif name == "reconfigure":
                (cfg,) = args
                old = self._trainer
                self._trainer = hot_swap(old, cfg)
                old.close()
                if (cfg.points, cfg.labels, cfg.test_ratio) != (old.cfg.points, old.cfg.labels, old.cfg.test_ratio):
                    self._post("data", data_snapshot(self._trainer))
                changed = ("reconfigured", "")
            else:
                raise ValueError(f"unknown worker command {name!r}")


class WorkerThread(QThread):
    """The QThread that runs one TrainingWorker's loop (it has no Qt event loop)."""

    def __init__(self, worker, parent=None):
        super().__init__(parent)
        self.worker = worker
        self.setObjectName(f"training-run-{worker.token}")

    def run(self):
        self.worker.run()
