"""Autosave and crash recovery: unsaved work is written every 30 s, offered back after a crash.

Each running window owns one *session* in the recovery folder (by default
`QStandardPaths.AppDataLocation/recovery`; the environment variable
`BACKPROP_STUDIO_DATA_DIR` moves it, for tests and portable installs):

    <session>.json   the unsaved document (a graph file, see core/files/recovery.py)
    <session>.lock   a QLockFile held while the window lives

While the document has unsaved changes, a QTimer writes `<session>.json`
every `INTERVAL_MS` (only if something changed since the last write); once
the document is saved, or the window closes cleanly, the file is deleted. So
at start-up a `.json` whose lock nobody holds any more belongs to a session
that died -- a crash, a kill, a power cut. `QLockFile` tells a dead owner from
a live one by its process id (stale time 0: a lock is never taken from a
live window just because it is old), so two windows open at once never take
each other's work. Taking an orphan's lock first means two new windows never
offer the same work twice.

Writes are atomic (core.files.atomic: temporary file + os.replace): a crash
during an autosave leaves the previous autosave whole. The scan at start-up
looks only at regular files and reads them with the strict reader, so a FIFO
or a link to /dev/zero named `*.json` in the folder can neither hang it nor
fill the memory. The JSON is made and written on a worker
thread from a plain-data snapshot of the document; a save or a clean exit that
happens meanwhile voids that write, so a saved document never leaves a
recovery file behind.
"""

import os
import stat
import threading
import uuid
from datetime import datetime, timezone

from PySide6.QtCore import QLockFile, QObject, QTimer

from app.settings import data_dir
from core.files import recovery
from core.files.atomic import write_atomically

INTERVAL_MS = 30_000


def _is_regular_file(path):
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


class Orphan:
    """The autosave of a session that died; holds its lock until resolved."""

    def __init__(self, path, lock):
        self.path, self.lock = path, lock
        self.recovered = None  # core.files.recovery.Recovered once read
        self.error = None  # the FormatError / OSError if it could not be read

    def read(self):
        try:  # the strict reader: regular files only, at most graph_file.MAX_BYTES
            self.recovered = recovery.load(self.path)
        except (OSError, ValueError) as e:
            self.error = e
        return self.recovered

    def discard(self):
        """Delete the autosave: the user chose not to restore it."""
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        self.release(remove_lock=True)

    def release(self, remove_lock=False):
        """Let go of it (it stays for the next start unless discarded)."""
        self.lock.unlock()
        if remove_lock:
            try:
                os.unlink(self.lock.fileName())
            except FileNotFoundError:
                pass


class AutosaveManager(QObject):
    """The recovery file of one window. `snapshot()` is asked what to write:
    (doc, meta, groups, source path, title), or None when there is nothing unsaved."""

    def __init__(self, snapshot, directory=None, interval_ms=INTERVAL_MS, parent=None):
        super().__init__(parent)
        self.snapshot = snapshot
        self.directory = directory or os.path.join(data_dir(), "recovery")
        os.makedirs(self.directory, exist_ok=True)
        self.session_id = uuid.uuid4().hex[:16]
        self.path = os.path.join(self.directory, f"{self.session_id}.json")
        self.lock = QLockFile(os.path.join(self.directory, f"{self.session_id}.lock"))
        self.lock.setStaleLockTime(0)
        self.lock.tryLock(0)
        self.revision = 0  # bumped on every document change
        self._written = None  # the revision last written (None: no file)
        self._generation = 0  # bumped by remove(): older writes are void
        self._io = threading.Lock()
        self._worker = None  # the thread writing the file, if any
        self.last_error = None
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.tick)
        self.timer.start()

    def changed(self, *_):
        self.revision += 1

    def tick(self, wait=False):
        """Write the unsaved work if it changed since the last write; True if a write began.

        The document is copied to plain data here (milliseconds); the JSON and the
        disk happen on a worker thread, so even a 5,000-node graph does not freeze
        the window. `wait=True` returns only when the file is written (tests, scripts)."""
        data = self.snapshot()
        if data is None:
            self.remove()
            return False
        if self._written == self.revision and os.path.exists(self.path):
            return False
        if self._worker is not None and self._worker.is_alive():
            if not wait:
                return False  # still writing the last one; the next tick catches up
            self._worker.join()
        doc, meta, groups, source, title = data
        plain = recovery.snapshot(doc)
        meta, groups = dict(meta), [dict(g, nodes=list(g["nodes"])) for g in groups]
        revision, generation = self.revision, self._generation
        stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")

        def write():
            try:
                text = recovery.dumps_snapshot(plain, meta, groups, source, stamp, title)
                if self._replace(text, generation):
                    self._written = revision
            except (OSError, ValueError) as e:  # a full disk must not take the window down
                self.last_error = e

        self._worker = threading.Thread(target=write, name="autosave", daemon=True)
        self._worker.start()
        if wait:
            self._worker.join()
        return True

    def _replace(self, text, generation):
        """Put text in place, unless the work was saved (or closed) since it was taken."""

        def commit(rename):
            with self._io:
                if generation != self._generation:
                    return False
                rename()
                return True

        return write_atomically(self.path, text, commit=commit)

    def wait(self, timeout=10.0):
        if self._worker is not None:
            self._worker.join(timeout)

    def remove(self):
        with self._io:
            self._generation += 1  # a write in flight will not bring the file back
            self._written = None
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass

    def close(self):
        """A clean end: no recovery file, no lock, no thread."""
        self.timer.stop()
        self.wait()
        self.remove()
        self.lock.unlock()

    def orphans(self):
        """Autosaves of sessions that died, newest first, each with its lock taken."""
        found = []
        try:
            names = os.listdir(self.directory)
        except OSError:
            return []
        for name in names:
            if not name.endswith(".json") or name == os.path.basename(self.path):
                continue
            path = os.path.join(self.directory, name)
            if not _is_regular_file(path):
                continue  # we only ever write regular files: a FIFO or a link to /dev/zero is not ours
            lock = QLockFile(path[: -len(".json")] + ".lock")
            lock.setStaleLockTime(0)
            if lock.tryLock(0):  # its owner is gone (or there never was a lock)
                found.append(Orphan(path, lock))
        found.sort(key=lambda o: os.path.getmtime(o.path) if os.path.exists(o.path) else 0, reverse=True)
        return found
