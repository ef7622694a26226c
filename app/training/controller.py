"""The training controller: one run at a time, steered from the GUI thread.

The controller is the single source of truth of the Training panel. It holds
the `TrainConfig` of the current run (widgets only reflect it), the metric
history, and the latest plain-data snapshots the worker reported (data,
boundary, weights, state). It starts and stops `TrainingWorker`s:

* Every run gets a new `token`. A run is replaced (Reset, a new network, new
  data) by stopping its worker without waiting for it -- its current step may
  take a while -- and starting the next one at once; whatever the old worker
  still posts carries the old token and is dropped.
* A timer (~30 Hz) drains the shared outbox and emits at most one signal of
  each kind per tick, so the plots repaint at most 30 times a second whatever
  the step rate.
* Settings that keep the network's shape (learning rate, loss, optimizer,
  batch, an added or removed point) are hot-swapped into the running worker:
  training carries on from the same weights. Anything else starts a new run.
* `shutdown()` stops every worker and joins its thread; the panel calls it
  when it closes.

The metric history is core/training/history.py; the one-sample scalar graph
behind a neuron, built from a weights snapshot, is core/training/sample_graph.py.
"""

import collections
import math

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal

from app.jobs import Job
from app.training.tuning import tune_process
from app.training.worker import TrainingWorker
from core.files.training_session import Session
from core.training.history import History

DRAIN_INTERVAL_MS = 33
# Changing any of these changes the data or the network itself: a new run.
RESET_FIELDS = (
    "dataset",
    "n_samples",
    "noise",
    "test_ratio",
    "data_seed",
    "features",
    "hidden_sizes",
    "activation",
    "init_seed",
)


# -----------------------------------------------------------------------------
# the controller


class TrainingController(QObject):
    configChanged = Signal(object)  # TrainConfig
    runStarted = Signal()  # a new run: the history was cleared (or loaded)
    progressed = Signal(int)  # new history rows arrived; the argument is the step count
    dataChanged = Signal(object)  # {"train_points", "train_labels", "test_points", "test_labels", "bounds"}
    boundaryChanged = Signal(object)  # core.training.events.Boundary
    weightsChanged = Signal(object)  # core.training.events.Weights
    statusChanged = Signal(str, str)  # status ('playing' 'paused' 'diverged' 'finished' 'error'), message
    idleReached = Signal(object)  # the worker's idle report (state, metrics, reason)
    ticked = Signal()  # a drain has finished: the moment to redraw (at most ~30 Hz)
    warningChanged = Signal(str)  # the run's health warning (core/training/health.py), "" when all is well

    def __init__(self, cfg, parent=None):
        super().__init__(parent)
        self.config = cfg
        self.history = History()
        self.token = 0
        self.status = "paused"
        self.message = ""
        self.warning = ""  # the latest step's health warning
        self.steps = 0
        self.idle = False  # the worker has confirmed it is not stepping
        self.data = None
        self.boundary = None
        self.weights = None
        self.state = None
        self.metrics = None
        self.speed = None  # steps per second, or None for as fast as possible
        self.live = True
        self._outbox = collections.deque()
        self._worker = None
        self._thread = None
        self._retired = []  # threads of replaced runs, still finishing their last step
        self._idle_callbacks = []
        self._closed = False
        self._timer = QTimer(self)
        self._timer.setInterval(DRAIN_INTERVAL_MS)
        self._timer.timeout.connect(self.drain)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)

    # -- runs --------------------------------------------------------------------

    def start_run(self, cfg, state=None, history=None, play=False):
        """Replace the current run by a new one from cfg (and optionally a saved state)."""
        if self._closed:
            return
        tune_process()  # done at startup by main(); here for a panel used without it (tests, embedding)
        self._retire_worker()
        self.config = cfg
        self.token += 1
        self.history.clear()
        if history:
            self.history.load(history)
        self.steps = int(state["step"]) if state else 0
        self.idle = False
        self.state = None
        self.weights = None
        self.boundary = None
        self._worker = TrainingWorker(cfg, self.token, self._outbox, state)
        self._worker.min_interval = 1.0 / self.speed if self.speed else 0.0
        self._worker.live = self.live
        # the worker reports through its outbox, errors included; the Job only runs it
        self._thread = Job(self.token, self._worker.run, self, name=f"training-run-{self.token}")
        self._thread.start()
        self._timer.start()
        self.configChanged.emit(cfg)
        self.runStarted.emit()
        self._set_warning("")
        self._set_status("paused", "")
        if play:
            self.play()

    def _retire_worker(self):
        if self._worker is None:
            return
        self._worker.stop()
        thread = self._thread
        self._retired.append(thread)
        thread.finished.connect(lambda: self._reap(thread))
        self._worker = self._thread = None

    def _reap(self, thread):
        if thread in self._retired:
            self._retired.remove(thread)
            thread.deleteLater()

    def shutdown(self):
        """Stop every run and join its thread (the panel is closing)."""
        if self._closed:
            return
        self._closed = True
        self._timer.stop()
        threads = list(self._retired)
        if self._worker is not None:
            self._worker.stop()
            threads.append(self._thread)
        for thread in threads:
            thread.wait()
        self._worker = self._thread = None
        self._retired.clear()
        self._outbox.clear()

    @property
    def closed(self):
        return self._closed

    def threads(self):
        """Every QThread this controller started that has not been reaped."""
        return [t for t in [self._thread, *self._retired] if t is not None]

    # -- play / pause / step -----------------------------------------------------

    @property
    def playing(self):
        return self.status == "playing"

    def play(self):
        if self._worker is None:
            return False
        if self.status == "diverged":
            self._set_status("diverged", self.message)
            return False
        self.idle = False
        self._worker.play()
        self._timer.start()
        self._set_status("playing", "")
        return True

    def pause(self):
        if self._worker is None:
            return
        self._worker.pause()
        if self.status == "playing":
            self._set_status("paused", "")

    def toggle(self):
        if self.playing:
            self.pause()
        else:
            self.play()

    def step_once(self):
        """Pause, then take exactly one step (in the worker: a step may take > 50 ms)."""
        if self._worker is None or self.status == "diverged":
            return False
        self.pause()
        self.idle = False
        self._worker.send("step")
        self._timer.start()
        return True

    def reset(self):
        """A new run with the same seeds: the same initial weights and the same data."""
        self.start_run(self.config, play=False)

    def reinitialise(self):
        """A new run with a new init seed: other initial weights, the same data."""
        self.start_run(self.config.replace(init_seed=self.config.init_seed + 1), play=False)

    # -- settings ----------------------------------------------------------------

    def apply_config(self, cfg, reset=None):
        """Make cfg the config: hot-swapped into the run if the network's shape stays, else a new run.

        `reset=True` forces a new run (e.g. an imported CSV is new data).
        """
        if cfg == self.config:
            return
        if reset is None:
            reset = any(getattr(cfg, f) != getattr(self.config, f) for f in RESET_FIELDS)
        if reset or self._worker is None:
            self.start_run(cfg, play=self.playing)
            return
        self.config = cfg
        self.idle = False
        self._worker.send("reconfigure", cfg)
        self._timer.start()
        if self.status in ("diverged", "finished"):
            self._set_status("paused", "")
        self.configChanged.emit(cfg)

    def set_speed(self, steps_per_second):
        """A speed limit in steps per second; None or 0 for as fast as possible."""
        self.speed = steps_per_second or None
        if self._worker is not None:
            self._worker.min_interval = 1.0 / self.speed if self.speed else 0.0
            self._worker.wake.set()

    def set_live(self, live):
        """Live plots on or off (off: the worker sends no boundary or weights while playing)."""
        self.live = bool(live)
        if self._worker is not None:
            self._worker.live = self.live

    def set_weight(self, layer, neuron, index, value):
        """Set one weight (index < nin) or the bias (index == nin); only while paused."""
        if self.playing or self._worker is None:
            return False
        if not math.isfinite(value):
            return False
        self.idle = False
        self._worker.send("set_weight", layer, neuron, index, float(value))
        self._timer.start()
        return True

    # -- points ------------------------------------------------------------------

    def all_points(self):
        """Every data point and its label: the config's own points, else the generated training and test points."""
        if self.config.points is not None:
            return list(self.config.points), list(self.config.labels)
        if self.data is None:
            return [], []
        return (
            list(self.data["train_points"]) + list(self.data["test_points"]),
            list(self.data["train_labels"]) + list(self.data["test_labels"]),
        )

    def _refuse_drawing_on_regression(self):
        """Drawn points carry a class (+1 or -1); a regression problem's points carry numbers
        from its generator. Says so and returns True when the current data is one."""
        if not self.config.regression:
            return False
        self._set_status(
            self.status,
            f"{self.config.dataset} is a regression problem: its points' numbers come from the generator, "
            "so points cannot be drawn or removed here. Choose moons, circles, xor, spiral or blobs to draw",
        )
        return True

    def add_point(self, x, y, label):
        if self._refuse_drawing_on_regression():
            return
        points, labels = self.all_points()
        points.append((float(x), float(y)))
        labels.append(1.0 if label > 0 else -1.0)
        self.apply_config(self.config.replace(points=tuple(points), labels=tuple(labels)), reset=False)

    def remove_nearest_point(self, x, y):
        """Remove the point nearest (x, y); False only if too few points would stay."""
        if self._refuse_drawing_on_regression():
            return True  # handled: the status line says why nothing changed
        points, labels = self.all_points()
        if len(points) <= 2:
            return False
        nearest = min(range(len(points)), key=lambda i: (points[i][0] - x) ** 2 + (points[i][1] - y) ** 2)
        del points[nearest], labels[nearest]
        self.apply_config(self.config.replace(points=tuple(points), labels=tuple(labels)), reset=False)
        return True

    # -- sessions ----------------------------------------------------------------

    def session(self, meta=None):
        """The current run as a Session (needs the worker idle: `call_when_idle`)."""
        if self.state is None:
            raise RuntimeError("the run's state is not known yet; pause and wait until idle")
        return Session(self.config, self.state, self.history.to_dict(), dict(meta or {}))

    def load_session(self, session):
        self.start_run(session.config, session.state, session.history)

    def call_when_idle(self, callback):
        """Call callback() once the worker is idle and its state is current (now if it already is)."""
        if self.idle and self.state is not None:
            callback()
        else:
            self._idle_callbacks.append(callback)
            self.pause()
            if self._worker is not None:
                self._worker.send("snapshot")

    # -- the outbox --------------------------------------------------------------

    def drain(self):
        """Take everything the workers posted; keep the current run's, drop the rest."""
        outbox = self._outbox
        token = self.token
        new_rows = False
        data = boundary = weights = idle = error = warning = None
        while outbox:
            run, kind, payload = outbox.popleft()
            if run != token:
                continue  # a replaced run's late word
            if kind == "progress":
                progress, steps = payload
                self.history.append(progress)
                self.steps = steps
                warning = progress.warning
                new_rows = True
                idle = None  # anything after an idle report makes it stale
            elif kind == "boundary":
                boundary = payload
            elif kind == "weights":
                weights = payload
            elif kind == "data":
                data = payload
            elif kind == "idle":
                idle = payload
            elif kind == "error":
                error = payload
        if data is not None:
            self.data = data
            self.dataChanged.emit(data)
        if new_rows:
            self.progressed.emit(self.steps)
        if warning is not None:
            self._set_warning(warning)
        if boundary is not None:
            self.boundary = boundary
            self.boundaryChanged.emit(boundary)
        if weights is not None:
            self.weights = weights
            self.weightsChanged.emit(weights)
        if error is not None:
            self._retire_worker()
            self._set_status("error", "training stopped by an internal error:\n" + error.strip().splitlines()[-1])
        if idle is not None:
            self._on_idle(idle)
        self.ticked.emit()
        if not self.playing and self.idle and not outbox:
            self._timer.stop()

    def _on_idle(self, info):
        self.idle = not (self._worker is not None and self._worker.play_event.is_set())
        self.state = info["state"]
        self.metrics = info["metrics"]
        self.steps = info["steps"]
        reason = info["reason"]
        if reason == "diverged":
            self._set_status(
                "diverged",
                info["message"] + ". Training is paused; the weights are kept: lower the learning rate, then Reset",
            )
        elif reason == "finished":
            self._set_status("finished", info["message"])
        elif not (self._worker is not None and self._worker.play_event.is_set()):
            if self.status not in ("diverged",):
                self._set_status("paused", info["message"])
        self.idleReached.emit(info)
        callbacks, self._idle_callbacks = self._idle_callbacks, []
        for callback in callbacks:
            callback()

    def _set_warning(self, text):
        if text != self.warning:
            self.warning = text
            self.warningChanged.emit(text)

    def _set_status(self, status, message):
        self.status = status
        self.message = message
        self.statusChanged.emit(status, message)
