"""The box's first process: limits, a watch, and the end of every process a run starts.

`run_boxed` (cold.py) starts this file as `python -I -S supervisor.py --supervise
CONFIG` for one run; a warm box (warm_boxes.py) starts it as `--serve CONFIG` and sends
it one request line per run. Either way it forks the harness (`_fork_harness`:
a fork of this small, already started interpreter, cheaper than a new one), sets
the harness's limits (`_start`), watches its processes' number and resident
memory every WATCH seconds until it ends or its time is up (`_watch`), then
ends every process it left (`end_descendants`): in a box it is the namespace's
PID 1, without one a child subreaper, so a double fork or a `setsid()` is still
below it.

It runs before anything of the studio is importable, in a box that holds only the
Python installation: so it imports nothing but the standard library, and only
what it uses (what the parent alone needs is imported in the parent's modules).
The limits' defaults live here too, the one place both sides read them.
"""

from __future__ import annotations

import io
import itertools
import json
import math
import os
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

MEMORY = 1 << 30  # bytes: each process's address space, and all its processes' resident memory together
PROCESSES = 16  # processes of one submission at once (the harness included)
OUTPUT = 4 << 20  # bytes of printed text (and of any one file written without a box)
DISK = 64 << 20  # bytes of scratch space in a box
REPORT = 64 << 20  # bytes of report the parent reads at most
GRACE = 10.0  # seconds the supervisor may take beyond the time limit to end everything
DISK_EVERY = 20  # looks between two sums of a writable folder's files (every 0.2 s in a box)
WATCH = 0.01  # seconds between two looks at the box's processes (0.1 without a box: /proc is the machine's)
BOX_DIR = "/box"


def python_dirs() -> list[str]:
    """The Python installation, bound read-only into the box (a venv and its base)."""
    dirs: list[str] = []
    for d in (sys.base_prefix, sys.prefix, os.path.dirname(os.path.realpath(sys.executable))):
        d = os.path.realpath(d)
        if not any(d == x or d.startswith(x + os.sep) for x in ["/usr", *dirs]):
            dirs.append(d)
    return dirs


def feed(pipe: Any, data: bytes) -> None:
    try:
        pipe.write(data)
        pipe.close()
    except (OSError, ValueError):
        pass


# -----------------------------------------------------------------------------
# The child side


def limit_child(memory: int, seconds: int, output: int = OUTPUT) -> None:
    """Limit this process, before a learner's code runs in it: `memory` bytes of
    address space, `seconds` (+1) of CPU, `output` bytes in any file it writes.
    A limit above one already set is kept at the lower one."""
    import resource

    for what, soft, hard in (
        (resource.RLIMIT_AS, memory, memory),
        (resource.RLIMIT_CPU, seconds + 1, seconds + 2),
        (resource.RLIMIT_FSIZE, output, output),
    ):
        now_soft, now_hard = resource.getrlimit(what)
        if now_hard != resource.RLIM_INFINITY:
            hard = min(hard, now_hard)
            soft = min(soft, hard)
        if now_soft != resource.RLIM_INFINITY:
            soft = min(soft, now_soft)
        resource.setrlimit(what, (soft, hard))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an over-long write raises instead of killing


def _start(memory: int, seconds: int, output: int, processes: int, argv: list[str]) -> None:
    """The first thing the harness's process (a fork of the supervisor) runs: its limits,
    then the harness as __main__ with `argv` (argv[0] the harness's path)."""
    import resource
    import runpy

    for what, soft, hard in (
        (resource.RLIMIT_AS, memory, memory),
        (resource.RLIMIT_CPU, seconds + 1, seconds + 2),
        (resource.RLIMIT_FSIZE, output, output),
        (resource.RLIMIT_CORE, 0, 0),
        (resource.RLIMIT_NPROC, processes, processes),
    ):
        if what == resource.RLIMIT_NPROC and not processes:
            continue
        try:
            resource.setrlimit(what, (soft, hard))
        except (ValueError, OSError):
            pass
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an over-long write raises instead of killing
    sys.argv = list(argv)
    runpy.run_path(argv[0], run_name="__main__")


# -----------------------------------------------------------------------------
# The supervisor: every process the learner's code starts ends with the run

PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_SET_DUMPABLE = 1, 36, 4


def _prctl(option: int, value: int) -> bool:
    """Linux's prctl, or False where there is none."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _die_with_parent() -> None:
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def all_pids() -> list[int]:
    try:
        return [int(n) for n in os.listdir("/proc") if n.isdigit()]
    except OSError:
        return []


def proc_stat(pid: int) -> list[str]:
    """/proc/PID/stat's fields after the name: [state, ppid, pgrp, session, ...]."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []


def children_of(pid: int) -> list[tuple[int, str]]:
    """[(pid, state)] of the processes whose parent is `pid`, from /proc."""
    found = []
    for p in all_pids():
        fields = proc_stat(p)
        if len(fields) > 1 and fields[1] == str(pid):
            found.append((p, fields[0]))
    return found


def descendants(root: int) -> list[int]:
    """Every live process below `root` (from /proc's parent links)."""
    parent: dict[int, int] = {}
    for p in all_pids():
        fields = proc_stat(p)
        if len(fields) > 1 and fields[0] != "Z":
            parent[p] = int(fields[1])
    below: list[int] = []
    frontier = {root}
    while frontier:
        frontier = {p for p, pp in parent.items() if pp in frontier}
        below += frontier
    return below


def resident(pids: list[int]) -> int:
    """Bytes of resident memory of these processes together."""
    page, total = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096, 0
    for p in pids:
        try:
            with open(f"/proc/{p}/statm", encoding="ascii") as f:
                total += int(f.read().split()[1]) * page
        except (OSError, IndexError, ValueError):
            pass
    return total


def end_descendants() -> int:
    """Kill and reap every descendant of this process. As a child subreaper (or a
    namespace's PID 1) it inherits every orphan below it -- a double fork or a
    setsid() included -- so killing its children until none is left ends them all."""
    killed = 0
    for _ in range(100_000):
        alive = [pid for pid, state in children_of(os.getpid()) if state != "Z"]
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except ProcessLookupError:
                pass
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
        if not alive and not children_of(os.getpid()):
            break
        time.sleep(0.005)  # let the kills land before the next look
    return killed


def _fork_harness(
    limits: list[int], argv: list[str], fd: int, boxed: bool, out: int = 2, warm: bool = False
) -> tuple[int, int]:
    """Start the harness by forking this (small, already started) interpreter rather
    than starting a new one: the child makes its own session, takes a fresh stdin
    pipe, keeps only the report pipe FD, and runs `_start(*limits, argv)`. Returns
    (its pid, the write end of its stdin)."""
    read_end, write_end = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        os.close(read_end)
        return pid, write_end
    code = 1
    try:
        os.setsid()
        if not boxed:
            _die_with_parent()
        _prctl(PR_SET_DUMPABLE, 1)  # its own /proc/self is its own again
        os.dup2(read_end, 0)
        os.dup2(out, 1)  # what it prints goes to the capped log, never to our status line
        os.dup2(out, 2)
        os.closerange(3, fd)
        os.closerange(fd + 1, 4096)
        sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding="utf-8")
        if warm:  # a warm box's supervisor set up site and ignores SIGINT (it is PID 1): the child does not
            signal.signal(signal.SIGINT, signal.default_int_handler)
            os.chdir(BOX_DIR)
        else:
            import site

            site.main()  # what `python -I` does at start and `-S` skipped: a venv's prefix, site-packages, .pth files
        memory, seconds, output, processes = limits
        _start(memory, seconds, output, processes, argv)
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:  # noqa: BLE001 -- printed, as python would, then the exit code says it
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code & 0xFF)
    raise AssertionError("unreachable")


def _folder_bytes(folders: Sequence[str]) -> int:
    """Bytes of the files under `folders` together (links not followed; a file that
    goes away meanwhile counts nothing)."""
    total = 0
    for folder in folders:
        for where, _dirs, names in os.walk(folder):
            for name in names:
                try:
                    total += os.lstat(os.path.join(where, name)).st_size
                except OSError:
                    pass
    return total


def _watch(
    pid: int, timeout: float, memory: int, processes: int, boxed: bool, watched: Sequence[str] = (), disk: int = 0
) -> tuple[str, int]:
    """Wait for the harness `pid`, looking at its processes' number and memory every
    WATCH seconds, and at what the `watched` host-visible folders hold every
    DISK_EVERY looks (a lecture cell's own folder: each file there is capped by
    RLIMIT_FSIZE, their total by `disk`); at a limit, kill its group. Returns (how it
    ended, wait status)."""
    ended, status = "exit", 0
    deadline = time.monotonic() + timeout
    every = 1 if boxed else 10  # looks between two scans: the machine's /proc is larger than a box's
    for turn in itertools.count():
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() >= deadline:
            ended = "timeout"
            break
        if turn % every == 0:
            pids = [p for p in all_pids() if p != os.getpid()] if boxed else descendants(os.getpid())
            if len(pids) > processes:
                ended = "processes"
                break
            if resident(pids) > memory:
                ended = "memory"
                break
        if watched and disk and turn % DISK_EVERY == 0 and _folder_bytes(watched) > disk:
            ended = "disk"
            break
        time.sleep(min(WATCH, max(0.0, deadline - time.monotonic())))
    if ended != "exit":
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    return ended, status


def supervise(config: dict[str, Any]) -> int:
    """Run the harness (`_start`, then HARNESS FD ARGS, in a fork of this process),
    watch its processes' memory and number, stop them all at the time limit, then
    end every process it started. Prints {"harness": pid}, then {"ended", "code",
    "killed"}."""
    boxed = bool(config["boxed"])
    _prctl(PR_SET_DUMPABLE, 0)  # the code we run cannot ptrace us
    if not boxed:
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
        _die_with_parent()
    request = sys.stdin.buffer.read()
    fd, memory, processes = int(config["fd"]), int(config["memory"]), int(config["processes"])
    timeout = float(config["timeout"])
    # RLIMIT_NPROC counts the user's processes: per box in its user namespace, but the whole machine's
    # without one (a teacher's browser included), so only a box sets it
    nproc = 4 * processes if boxed else 0
    limits = [memory, int(math.ceil(timeout)), int(config["output"]), nproc]
    pid, stdin = _fork_harness(limits, [*config["argv"], str(fd), *config["args"]], fd, boxed)
    os.close(fd)
    print(json.dumps({"harness": pid}), flush=True)
    threading.Thread(target=feed, args=(os.fdopen(stdin, "wb"), request), daemon=True).start()
    watched, disk = list(config.get("watched") or ()), int(config.get("folder") or 0)
    ended, status = _watch(pid, timeout, memory, processes, boxed, watched, disk)
    code = os.waitstatus_to_exitcode(status)
    killed = end_descendants()
    print(json.dumps({"ended": ended, "code": code, "killed": killed}), flush=True)
    return 0


def serve(config: dict[str, Any]) -> int:
    """A warm box's supervisor (its PID 1): import the harness once, then for each
    request line on stdin run one submission in a fresh fork and answer one line.
    See WarmBox. Nothing of one run is left for the next (`_clean`)."""
    import base64
    import importlib
    import site

    _prctl(PR_SET_DUMPABLE, 0)  # the code we run cannot ptrace us
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # PID 1 gets only the signals it handles: none
    os.chdir("/")
    site.main()
    sys.path.insert(0, str(config["path"]))
    for name in config["preload"]:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001, S112 -- a library not installed: their code imports it or fails
            continue
    answers = sys.stdout.buffer
    for line in sys.stdin.buffer:
        request = json.loads(line)
        for name, data in request["files"]:
            path = os.path.join(BOX_DIR, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(base64.b64decode(data))
        answer = _serve_one(request)
        killed, clean = _clean()
        answer["killed"] += killed
        answer["data"] = base64.b64encode(answer["data"]).decode()
        answers.write(json.dumps(answer).encode() + b"\n")
        answers.flush()
        if not clean:  # something of theirs could not be removed: no one else runs in this box
            return 1
    return 0


def _serve_one(request: dict[str, Any]) -> dict[str, Any]:
    import base64

    timeout, memory, processes = float(request["timeout"]), int(request["memory"]), int(request["processes"])
    output = int(request["output"])
    report_r, report_w = os.pipe()
    out_r, out_w = os.pipe()
    limits = [memory, int(math.ceil(timeout)), output, 4 * processes]
    pid, stdin = _fork_harness(limits, [*request["argv"], str(report_w), *request["args"]], report_w, True, out_w, True)
    os.close(report_w)
    os.close(out_w)
    got: dict[str, bytes] = {}
    readers = [
        threading.Thread(target=lambda: got.__setitem__("data", _read_all(report_r, REPORT))),
        threading.Thread(target=lambda: got.__setitem__("output", _read_head_tail(out_r, 6000, 2000))),
        threading.Thread(target=feed, args=(os.fdopen(stdin, "wb"), base64.b64decode(request["stdin"]))),
    ]
    for t in readers:
        t.daemon = True
        t.start()
    ended, status = _watch(pid, timeout, memory, processes, True)
    code = os.waitstatus_to_exitcode(status)
    killed = end_descendants()  # every writer of the two pipes is gone: the readers see their ends
    for t in readers:
        t.join(GRACE)
    os.close(report_r)
    os.close(out_r)
    printed = got.get("output", b"").decode("utf-8", "replace")
    return {"ended": ended, "code": code, "killed": killed, "data": got.get("data", b""), "output": printed}


def _read_all(fd: int, limit: int) -> bytes:
    """What is written to the pipe until its writers close it; the first `limit` bytes kept."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        if size < limit:
            chunks.append(chunk[: limit - size])
            size += len(chunks[-1])


def _read_head_tail(fd: int, head: int, tail: int) -> bytes:
    """What is printed, all of it when short, else its start and its end (as _head_and_tail)."""
    start, end = b"", b""
    cut = False
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        if len(start) < head:
            take = head - len(start)
            start, chunk = start + chunk[:take], chunk[take:]
        if chunk:
            end = (end + chunk)[-(tail + 1) :]
    if len(end) > tail:
        end, cut = end[-tail:], True
    return start + (b"\n...\n" if cut else b"") + end


def _clean() -> tuple[int, bool]:
    """Between two runs in a warm box: end every process but this one, then empty the
    writable places (/box, /tmp, /dev/shm, /dev/mqueue) and remove the box's System V
    shared memory, queues and semaphores. Returns (how many processes it ended,
    whether all is gone: when not, the box ends and the next run gets a new one)."""

    killed = end_descendants()
    keep = python_dirs()  # a Python installed under /tmp (a venv) is bound read-only inside it
    clean = all([_empty(top, keep) for top in (BOX_DIR, "/tmp", "/dev/shm", "/dev/mqueue")])  # each emptied
    _remove_ipc()
    return killed, clean


def _empty(top: str, keep: list[str]) -> bool:
    """Remove everything in the folder `top` but the folders in `keep` (and the way to
    them); True when nothing else is left."""
    import shutil

    try:
        names = os.listdir(top)
    except OSError:
        return True
    clean = True
    for name in names:
        path = os.path.join(top, name)
        if any(k == path or k.startswith(path + os.sep) for k in keep):
            clean = (path in keep or _empty(path, keep)) and clean
            continue
        _unlock(path)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            try:
                os.unlink(path)
            except OSError:
                pass
        clean = clean and not os.path.lexists(path)
    return clean


def _unlock(path: str) -> None:
    """Make a folder their code made unreadable or unwritable ours to remove again (the
    same user: chmod is allowed), all the way down."""
    if os.path.islink(path) or not os.path.isdir(path):
        return
    try:
        os.chmod(path, 0o700)
        names = os.listdir(path)
    except OSError:
        return
    for name in names:
        _unlock(os.path.join(path, name))


def _remove_ipc() -> None:
    """Remove every System V IPC object of the box (its own IPC namespace, shared by
    the runs of a warm box): /proc/sysvipc lists them, IPC_RMID (0) removes one."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
    except (OSError, AttributeError):
        return
    for kind, call in (("shm", "shmctl"), ("msg", "msgctl"), ("sem", "semctl")):
        try:
            with open(f"/proc/sysvipc/{kind}", encoding="ascii") as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) > 1:
                if kind == "sem":
                    libc.semctl(int(fields[1]), 0, 0)
                else:
                    getattr(libc, call)(int(fields[1]), 0, None)


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "--supervise":
    sys.exit(supervise(json.loads(sys.argv[2])))
if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "--serve":
    sys.exit(serve(json.loads(sys.argv[2])))
