"""The runs going on now, so that the studio can stop them: a class check's Stop.

Each run (a cold box's supervisor, or a warm box while it runs one submission)
is registered while it runs, under the group its thread was in (`with
group(key):`). `stop(key)` ends every run of that group -- and a run of that
group that starts later ends at once (`started` says so): a class check stopped
while its workers were starting their next submission leaves nothing running.
"""

from __future__ import annotations

import os
import signal
import threading
import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import subprocess

_live: dict[subprocess.Popen, Any] = {}  # the supervisors running now -> their group
_stopped: set[int] = set()  # pids of supervisors ended by stop()
_ended_groups: weakref.WeakSet = weakref.WeakSet()  # groups stopped: a run of theirs starting later ends at once
_lock = threading.Lock()
_local = threading.local()


class group:  # noqa: N801 -- used as `with sandbox.group(key):`
    """`with group(key):` -- the runs this thread starts inside belong to `key`, and
    `stop(key)` ends them (a class check's runs, when the teacher stops it)."""

    def __init__(self, key: Any) -> None:
        self.key = key

    def __enter__(self) -> Any:
        self.before = getattr(_local, "group", None)
        _local.group = self.key
        return self.key

    def __exit__(self, *exc: Any) -> None:
        _local.group = self.before


def stop(key: Any = None) -> int:
    """End the runs of group `key` now (every run of this process when None): their
    BoxResult says ended='stopped'. Returns how many were running."""
    with _lock:
        if key is not None:
            _ended_groups.add(key)
        chosen = [p for p, g in _live.items() if key is None or g is key]
        _stopped.update(p.pid for p in chosen)
    for process in chosen:
        kill(process)
    return len(chosen)


def started(process: subprocess.Popen) -> bool:
    """Register `process` as running for this thread's group. True when that group was
    stopped already: the run counts as stopped, and the caller ends it at once."""
    with _lock:
        key = getattr(_local, "group", None)
        _live[process] = key
        late = key is not None and key in _ended_groups
        if late:
            _stopped.add(process.pid)
    return late


def finished(process: subprocess.Popen) -> bool:
    """Forget `process` (its run is over); True when `stop()` ended it."""
    with _lock:
        _live.pop(process, None)
        stopped = process.pid in _stopped
        _stopped.discard(process.pid)
    return stopped


def running() -> int:
    """How many runs are registered now (a test's look: none after a class check)."""
    with _lock:
        return len(_live)


def kill(process: subprocess.Popen) -> None:
    """End a supervisor and every process of its session (SIGKILL)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()
