"""Writing a file so that a crash never leaves it half-written.

Writing over a file in place is not safe: a crash, a kill or a full disk midway
leaves neither the old content nor the new. Instead the new bytes go to a temp
file in the same directory, are flushed to the disk (`os.fsync`), and only then
renamed over the old name with `os.replace`, which is atomic: whoever opens the
file sees either the old version or the new one, never a mix. Graph files,
training sessions, code exports and the autosave all use this one function.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable


def write_atomically(
    path: str | os.PathLike[str], payload: bytes | str, commit: Callable[[Callable[[], None]], bool] | None = None
) -> bool:
    """Replace the file at path by payload atomically (see `_write_atomically`). A
    failure is an OSError naming the user's file (never the temporary one) whose
    strerror says why in words: "the folder is read-only", "the disk is full"."""
    try:
        return _write_atomically(path, payload, commit)
    except OSError as e:
        raise OSError(e.errno, why_not_written(e), os.fspath(path)) from e


WHY = {
    errno.EROFS: "the folder is read-only",
    errno.EACCES: "you may not write in that folder (it is read-only to you)",
    errno.EPERM: "you may not write in that folder (it is read-only to you)",
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk is full (your quota is used up)",
    errno.EFBIG: "the file would be larger than the disk or a size limit allows",
    errno.ENOENT: "the folder does not exist",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EISDIR: "that name is a folder",
    errno.ENAMETOOLONG: "the name is too long",
}


def why_not_written(error: OSError) -> str:
    """What went wrong, in words a user acts on (the errno's text where none fits)."""
    return WHY.get(error.errno or 0, error.strerror or str(error))


TEMP = re.compile(r"^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$")  # what _write_atomically leaves if killed


def sweep_stale_temps(folder: str | os.PathLike[str]) -> list[str]:
    """Remove the temporary files that killed saves left in `folder` (their process
    is gone); returns their names. A save still running keeps its file."""
    removed: list[str] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        match = TEMP.match(name)
        if not match or _alive(int(match.group(1))):
            continue
        try:
            os.unlink(os.path.join(folder, name))
            removed.append(name)
        except OSError:
            pass
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _write_atomically(
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
    path = os.path.realpath(os.fspath(path))
    directory = os.path.dirname(path)
    temp = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
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
