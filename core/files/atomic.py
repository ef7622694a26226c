"""Writing a file so that a crash never leaves it half-written.

Writing over a file in place is not safe: a crash, a kill or a full disk midway
leaves neither the old content nor the new. Instead the new bytes go to a temp
file in the same directory, are flushed to the disk (`os.fsync`), and only then
renamed over the old name with `os.replace`, which is atomic: whoever opens the
file sees either the old version or the new one, never a mix. Graph files,
training sessions, code exports and the autosave all use this one function.

A write that fails says so for the person saving (`SaveError`): their file's name
and why in words ("the folder is read-only", "the disk is full"), never the temp
file's name or an errno. A temp file left by a save that was killed midway is
swept by `sweep_stale_temps` when the studio next starts.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable

_WHY = {
    errno.EROFS: "the folder is read-only",
    errno.EACCES: "the folder is read-only (you may not write in it)",
    errno.EPERM: "the folder is read-only (you may not write in it)",
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk is full (your share of it is used up)",
    errno.EFBIG: "the file is larger than this disk allows",
    errno.ENOENT: "the folder does not exist",
    errno.ENOTDIR: "a part of the folder's path is a file, not a folder",
    errno.EISDIR: "that name is a folder",
    errno.ENAMETOOLONG: "the name is too long",
}
# the temp files write_atomically makes: .NAME.PID.8HEX.tmp
_TEMP = re.compile(r"^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$")


class SaveError(OSError):
    """A write that failed, told for the person saving: their file, and why in words."""

    def __str__(self) -> str:
        return f"{self.filename} was not saved: {self.strerror}"


def _said(error: OSError, path: str) -> SaveError:
    why = _WHY.get(error.errno) if error.errno is not None else None
    return SaveError(error.errno, why or error.strerror or str(error), path)


def write_atomically(
    path: str | os.PathLike[str], payload: bytes | str, commit: Callable[[Callable[[], None]], bool] | None = None
) -> bool:
    """Replace the file at path by payload (bytes or str, UTF-8) atomically; True once done.

    A symlink is followed (its target is replaced, the link stays) and the old
    file's permissions are kept. `commit`, if given, is called with a function
    that does the final rename, and decides whether to call it (returning
    whether it did): the autosave uses it to drop a write that a save made
    stale, checking and renaming under its own lock. Without the rename the
    temporary file is removed and the result is False.
    """
    if isinstance(payload, str):
        payload = payload.encode("utf-8")
    given = os.fspath(path)  # errors name the file as the person gave it
    path = os.path.realpath(given)
    directory = os.path.dirname(path)
    if os.path.isdir(path):
        raise SaveError(errno.EISDIR, _WHY[errno.EISDIR], given)
    temp = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        return _write(path, directory, temp, payload, commit)
    except SaveError:
        raise
    except OSError as e:
        raise _said(e, given) from e


def _write(path, directory, temp, payload, commit):
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        if os.path.exists(path):
            os.chmod(temp, stat.S_IMODE(os.stat(path).st_mode))
        if commit is None:
            os.replace(temp, path)
        elif not commit(lambda: os.replace(temp, path)):
            os.unlink(temp)
            return False
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    _fsync_directory(directory)
    return True


def sweep_stale_temps(directory: str | os.PathLike[str]) -> list[str]:
    """Remove the temp files that saves killed midway left in directory (those of a
    process no longer running); the names removed. A live process's are its saves
    under way, and stay."""
    removed = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in names:
        m = _TEMP.match(name)
        if not m or _running(int(m.group(1))):
            continue
        try:
            os.unlink(os.path.join(directory, name))
            removed.append(name)
        except OSError:
            pass
    return removed


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError, ValueError):
        return True  # another user's process, or a number we cannot ask about: leave it
    return True


def _fsync_directory(directory):
    # the rename lives in the directory: sync it too, or a power cut may undo
    # it (POSIX only; Windows cannot open a directory, and needs no such step)
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
