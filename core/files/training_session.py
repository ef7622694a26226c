"""Training sessions on disk: a run that a class can reopen exactly where it was.

A session is everything needed to put a training run back as it was: the
`TrainConfig` (which holds both seeds, the data settings or the drawn points,
the network and the optimizer settings), the `Trainer.state()` (the weights,
the optimizer's memory, the mini-batch rng, the step count) and the history of
the metrics so the curves come back too. One JSON object::

    {
      "format": "backprop-studio.training",
      "schema_version": 1,
      "meta": {"title": ...},
      "config": {... TrainConfig.to_dict() ...},
      "state": {"step": 37, "model": [[[w0, w1, b], ...], ...], "optimizer": {...}, "rng": [...]},
      "history": {"step": [...], "loss": [...], "accuracy": [...],
                  "test_loss": [...], "test_accuracy": [...], "lr": [...]}
    }

Numbers. JSON has no NaN, and the file is written with `allow_nan=False`. A
history entry that is not a finite number (the NaN loss of the step that
diverged, or no test loss without a test set) is written as `null` and read
back as NaN. Weights and optimizer memory are different: a NaN weight cannot be
trained on or looked at, so a state holding one is refused with a message
naming the weight, and the user resets or lowers the learning rate first.

Writing is atomic (a temporary file in the same directory, fsync, then
`os.replace`), so a crash never leaves half a session where a good one was.
Reading trusts nothing: every refusal is a `SessionError` saying what is wrong
and where, and a state that does not fit its config (a layer too many, a
weight missing) is caught by actually building the `Trainer` from it.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from typing import Any

from core.files import strict_json
from core.files.atomic import write_atomically
from core.training.config import TrainConfig
from core.training.history import HISTORY_KEYS
from core.training.trainer import Trainer

FORMAT = "backprop-studio.training"
SCHEMA_VERSION = 1
MAX_BYTES = 50 * 1024 * 1024
WHAT = "a training session"
RNG_VERSION = 3  # what random.Random.getstate() gives in every Python 3
RNG_WORDS = 624  # the Mersenne Twister's state words, each 32 bits, then its position
TOP_KEYS = ("format", "schema_version", "meta", "config", "state", "history")
STATE_KEYS = ("step", "model", "optimizer", "rng")


class SessionError(ValueError):
    """A session we will not write or load; the message says what and where."""


def empty_history() -> dict[str, list[Any]]:
    return {key: [] for key in HISTORY_KEYS}


@dataclasses.dataclass
class Session:
    """A saved training run: config, Trainer.state(), metric history and free-form meta."""

    config: TrainConfig
    state: dict
    history: dict = dataclasses.field(default_factory=empty_history)
    meta: dict = dataclasses.field(default_factory=dict)

    def trainer(self) -> Trainer:
        """A Trainer built from the config and put in the saved state."""
        trainer = Trainer(self.config)
        try:
            trainer.load_state(self.state)
        except (KeyError, TypeError, ValueError, IndexError, OverflowError) as e:
            raise SessionError(f"state: does not fit the config ({_reason(e)})") from None
        return trainer


def _reason(error):
    if isinstance(error, KeyError):
        return f"missing {error.args[0]!r}"
    return str(error)


# -----------------------------------------------------------------------------
# writing


def _finite_or_none(x):
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _check_finite_state(state):
    """SessionError naming the first weight or optimizer number that is not finite."""
    for i, layer in enumerate(state["model"]):
        for j, neuron in enumerate(layer):
            for k, number in enumerate(neuron):
                if not math.isfinite(number):
                    name = f"L{i}.n{j}." + ("b" if k == len(neuron) - 1 else f"w{k}")
                    raise SessionError(
                        f"cannot save: weight {name} is {number} -- the run diverged. "
                        "Reset (or lower the learning rate and Reset) before saving"
                    )
    for key, numbers in state["optimizer"].items():
        if isinstance(numbers, list):
            for k, number in enumerate(numbers):
                if not math.isfinite(number):
                    raise SessionError(
                        f"cannot save: the optimizer's {key}[{k}] is {number} -- the run diverged. Reset before saving"
                    )


def to_dict(session: Session) -> dict[str, Any]:
    """The session as JSON-ready data; SessionError if a weight is not finite."""
    state = session.state
    _check_finite_state(state)
    history = {}
    for key in HISTORY_KEYS:
        column = list(session.history.get(key, []))
        history[key] = [int(x) for x in column] if key == "step" else [_finite_or_none(x) for x in column]
    lengths = {len(column) for column in history.values()}
    if len(lengths) > 1:
        raise SessionError(
            f"history columns differ in length: {', '.join(f'{k} {len(v)}' for k, v in history.items())}"
        )
    version, internal, gauss_next = state["rng"]
    return {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "meta": dict(session.meta),
        "config": session.config.to_dict(),
        "state": {
            "step": int(state["step"]),
            "model": state["model"],
            "optimizer": state["optimizer"],
            "rng": [version, list(internal), gauss_next],
        },
        "history": history,
    }


def dumps(session: Session) -> str:
    try:
        return json.dumps(to_dict(session), allow_nan=False, sort_keys=True, indent=1) + "\n"
    except ValueError as e:
        if isinstance(e, SessionError):
            raise
        raise SessionError(f"cannot save: {e}") from None


def save(session: Session, path: str | os.PathLike[str]) -> None:
    """Write the session to path atomically: the old file stays whole until the new one is."""
    write_atomically(path, dumps(session))


# -----------------------------------------------------------------------------
# reading


def load(path: str | os.PathLike[str]) -> Session:
    """A Session from a file; SessionError names the fault and the file.

    The strict reader (core.files.strict_json) refuses a FIFO, a device, a folder
    or a missing path before reading, and reads at most MAX_BYTES."""
    path = os.fspath(path)
    try:
        return loads(strict_json.read_bytes(path, MAX_BYTES, WHAT))
    except strict_json.JSONFileError as e:
        raise SessionError(f"{path}: {_cannot_read(e)}") from None
    except SessionError as e:
        raise SessionError(f"{os.path.basename(path)}: {e}") from None


def _cannot_read(error):
    if error.fault in ("missing", "directory", "special", "unreadable"):
        return f"cannot read the file: {error.message}"
    return error.message


def loads(text: str | bytes) -> Session:
    """A Session from the file's text (str or UTF-8 bytes)."""
    try:
        data = strict_json.loads(text, WHAT, MAX_BYTES)
    except strict_json.JSONFileError as e:
        raise SessionError(e.message) from None
    return read(data)


def read(data: Any) -> Session:
    """A Session from parsed JSON, every field checked."""
    if not isinstance(data, dict):
        raise SessionError("a training session is one JSON object {...}")
    fmt = data.get("format")
    if fmt != FORMAT:
        if isinstance(fmt, str) and fmt.startswith("backprop-studio."):
            raise SessionError(
                f"this is a Backprop Studio {fmt.split('.', 1)[1]!r} file, "
                f"not a training session (format {fmt!r}, expected {FORMAT!r})"
            )
        raise SessionError(f"not a training session: format is {fmt!r} (expected {FORMAT!r})")
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise SessionError(f"schema_version must be an integer, got {version!r}")
    if version > SCHEMA_VERSION:
        raise SessionError(
            f"made by a newer Backprop Studio (schema {version}); this version reads "
            f"up to {SCHEMA_VERSION}. Update Backprop Studio to open it"
        )
    if version < 1:
        raise SessionError(f"unknown schema_version {version} (this version reads 1 to {SCHEMA_VERSION})")
    unknown = sorted(set(data) - set(TOP_KEYS))
    if unknown:
        raise SessionError(f"unknown top-level field(s): {', '.join(unknown)}")
    for key in ("config", "state"):
        if key not in data:
            raise SessionError(f"there is no {key!r} field")

    meta = data.get("meta", {})
    if not isinstance(meta, dict):
        raise SessionError("meta must be an object")

    if not isinstance(data["config"], dict):
        raise SessionError("config must be an object")
    try:
        config = TrainConfig.from_dict(data["config"])
    except (TypeError, ValueError, OverflowError) as e:
        raise SessionError(f"config: {e}") from None

    state = data["state"]
    if not isinstance(state, dict):
        raise SessionError("state must be an object")
    missing = [key for key in STATE_KEYS if key not in state]
    if missing:
        raise SessionError(f"state: missing {', '.join(missing)}")
    if not _is_int(state["step"]) or not 0 <= state["step"] < 2**63:
        raise SessionError(f"state: step must be an integer >= 0, got {_show(state['step'])}")
    if not isinstance(state["optimizer"], dict):
        raise SessionError("state: optimizer must be an object")
    _check_numbers(state["model"], "state: model")
    for key, value in state["optimizer"].items():
        if isinstance(value, list):  # one number per parameter: velocity, m, v
            for k, number in enumerate(value):
                if not _is_finite(number):
                    raise SessionError(f"state: optimizer {key}[{k}]: expected a finite number, got {_show(number)}")
        elif not _is_int(value) or not 0 <= value < 2**63:  # Adam's step count t
            raise SessionError(f"state: optimizer {key} must be a list of numbers or a step count, got {_show(value)}")
    _check_rng(state["rng"])

    history = _read_history(data.get("history", empty_history()))
    session = Session(config, state, history, meta)
    session.trainer()  # proves the state fits the config (raises SessionError otherwise)
    return session


def _check_rng(rng):
    """The state of a random.Random, word by word: random.setstate would raise
    OverflowError for a word of 2**70 or -1, and silently cut 2**40 to 32 bits."""
    if not (isinstance(rng, list) and len(rng) == 3 and isinstance(rng[1], list)):
        raise SessionError("state: rng must be [version, [ints...], gauss_next]")
    version, words, gauss_next = rng
    if not _is_int(version) or version != RNG_VERSION:
        raise SessionError(f"state: rng[0] (the version) must be {RNG_VERSION}, got {_show(version)}")
    if len(words) != RNG_WORDS + 1:
        raise SessionError(f"state: rng[1] must hold {RNG_WORDS + 1} integers, got {len(words)}")
    for i, word in enumerate(words[:RNG_WORDS]):
        if not _is_int(word) or not 0 <= word < 2**32:
            raise SessionError(f"state: rng[1][{i}] must be an integer from 0 to 2**32 - 1, got {_show(word)}")
    position = words[RNG_WORDS]
    if not _is_int(position) or not 0 <= position <= RNG_WORDS:
        raise SessionError(
            f"state: rng[1][{RNG_WORDS}] (the position) must be an integer from 0 to {RNG_WORDS}, got {_show(position)}"
        )
    if gauss_next is not None and not _is_finite(gauss_next):
        raise SessionError(f"state: rng[2] must be null or a finite number, got {_show(gauss_next)}")


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _is_finite(x):
    """x is a number (not true/false) that a float holds finitely (10**400 is not)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:
        return False


def _show(x):
    text = repr(x)
    return text if len(text) <= 40 else f"{text[:24]}… ({len(text)} characters)"


def _check_numbers(nested, where):
    """Every leaf of a nested list is a finite number."""
    if isinstance(nested, list):
        for i, item in enumerate(nested):
            _check_numbers(item, f"{where}[{i}]")
    elif not _is_finite(nested):
        raise SessionError(f"{where}: expected a finite number, got {_show(nested)}")


def _read_history(history):
    if not isinstance(history, dict):
        raise SessionError("history must be an object of columns")
    unknown = sorted(set(history) - set(HISTORY_KEYS))
    if unknown:
        raise SessionError(f"history: unknown column(s) {', '.join(unknown)}")
    out = {}
    for key in HISTORY_KEYS:
        column = history.get(key, [])
        if not isinstance(column, list):
            raise SessionError(f"history: {key} must be a list")
        values = []
        for i, x in enumerate(column):
            if key == "step":
                if not _is_int(x):
                    raise SessionError(f"history: step[{i}] must be an integer, got {_show(x)}")
                values.append(x)
            elif x is None:
                values.append(math.nan)
            elif not _is_finite(x):
                raise SessionError(f"history: {key}[{i}] must be a number or null, got {_show(x)}")
            else:
                values.append(float(x))
        out[key] = values
    lengths = {len(column) for column in out.values()}
    if len(lengths) > 1:
        raise SessionError("history: the columns differ in length")
    return out
