"""Running untrusted Python: the one place where a learner's code runs.

A learner's file, a pasted lecture cell, a script opened to be traced: each is
their code. It may loop forever, ask for 10 GB, fork a hundred processes, read
the teacher's files, or try to kill whatever started it. So the studio never
imports it: `run_boxed` runs a *harness* (a small script of ours that loads
their code) in a child process, and returns what the harness wrote to its
report channel, plain bytes, for the caller to judge.

Two ways to run it, chosen at run time:

1. **In a box** (Linux with bubblewrap and unprivileged user namespaces). The
   harness runs under `bwrap` in new user, PID, network, IPC and UTS
   namespaces. Its file system is a private scratch folder `/box` (a tmpfs of
   `disk` bytes, holding copies of the files the caller names and nothing
   else; `/tmp` is another empty tmpfs of that size), the Python installation and `/usr` read-only, and nothing of `~`,
   the classmates' folder, the teacher's files or the studio's checkout. No
   network, a clean environment (no teacher's secrets), a new session (no
   terminal to write into). Our supervisor is the box's PID 1: a process in
   the box cannot kill or stop it (the kernel ignores such signals to a
   namespace's init), it ends every process of the box when the harness
   ends, and when it ends the kernel kills whatever is left. `--die-with-
   parent` ends the box if the studio dies.

2. **Without a box** (macOS, Windows, a Linux without user namespaces or
   bubblewrap; or `box=False`): today's supervisor. The same limits per
   process, the same watch of memory and processes, a child subreaper that
   ends double-forked and `setsid()` processes -- but the learner's code runs
   as the teacher, so it can read what the teacher can read, and kill its
   supervisor. `box_problem()` says why there is no box; callers say it once.

Limits, in both ways, per submission: `timeout` seconds of wall time;
`memory` bytes -- each process's address space (RLIMIT_AS) and, watched by
the supervisor every few milliseconds, the resident memory of all its
processes together; `processes` at once (the supervisor's watch everywhere;
and, in a box, RLIMIT_NPROC -- which counts threads too -- at 4x that, where
the kernel applies it: a user other than root); `output` bytes of printed text; `disk` bytes of scratch (in a
box the size of each of its two tmpfs, /box and /tmp; a per-file limit
without). Going over any of them ends
every process of the submission, and `BoxResult.ended` says which.

Memory and processes are watched by the supervisor, not by a cgroup: a cgroup
v2 subtree can be delegated to an unprivileged user only by systemd, which
the machines this was built on (a container on cgroup v1) do not have; the
watch works wherever /proc does. Its price: memory is summed as resident
pages every 10 ms, so a burst between two looks can overshoot; each process
stays under RLIMIT_AS whatever happens.

The harness runs as `python -I HARNESS FD ARGS...` would, in the scratch
folder -- it is a fork of the supervisor's `python -I -S`, with the
installation's site set up as `python -I` would (`site.main()`), which saves
a second interpreter start per run. It writes its report to the pipe FD and
reads its request from stdin (the bytes the caller gave). Everything the
child prints goes to a capped log, returned as `BoxResult.output` (its start
and its end).

A class is graded in warm boxes (`with warm():`, below): one box per worker
thread stays up, its supervisor with the harness imported, and forks a fresh
child per submission -- a box start and an interpreter start saved each time,
nothing of one submission left for the next (WarmBox says how).

For the checker (issue 37 item 1): `run_boxed(probe, [args], {"engine.py":
path}, stdin=request_json, timeout=..., memory=...)` runs a probe that needs
nothing of the studio in a box holding only the learner's file; `.data` is
what it wrote to FD, `.ended`/`.message()` say how the run ended.
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
import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import subprocess
    from collections.abc import Sequence

# The supervisor runs this file as a fresh `python -I -S` once per submission, so what it does
# not need is imported where the parent uses it (subprocess, tempfile, shutil, secrets,
# select, hmac): ~25 ms of CPU less per box.

HERE = os.path.abspath(__file__)
MEMORY = 1 << 30  # bytes: each process's address space, and all its processes' resident memory together
PROCESSES = 16  # processes of one submission at once (the harness included)
OUTPUT = 4 << 20  # bytes of printed text (and of any one file written without a box)
DISK = 64 << 20  # bytes of scratch space in a box
REPORT = 64 << 20  # bytes of report the parent reads at most
GRACE = 10.0  # seconds the supervisor may take beyond the time limit to end everything
DISK_EVERY = 20  # looks between two sums of a writable folder's files (every 0.2 s in a box)
WATCH = 0.01  # seconds between two looks at the box's processes (0.1 without a box: /proc is the machine's)
BOX_DIR = "/box"


class BoxResult:
    """What a run left: `data` (the bytes written to the report channel), `code`
    (the harness's exit code, negative for a signal, None when unknown), and
    `ended`: 'exit' (the harness ended by itself), 'timeout', 'memory',
    'processes' (a limit was reached and every process was ended), 'stopped' (the
    studio ended it: `stop()`) or 'lost' (the supervisor itself was killed or
    stopped: only possible without a box).
    `output`: what the child printed (capped); `boxed`: it ran in a box;
    `killed`: processes ended after the harness; `seconds` of wall time."""

    def __init__(
        self,
        data: bytes,
        code: int | None,
        ended: str,
        output: str = "",
        boxed: bool = False,
        killed: int = 0,
        seconds: float = 0.0,
        limits: dict[str, Any] | None = None,
    ) -> None:
        self.data, self.code, self.ended, self.output = data, code, ended, output
        self.boxed, self.killed, self.seconds, self.limits = boxed, killed, seconds, limits or {}

    def __repr__(self) -> str:
        return (
            f"BoxResult(ended={self.ended!r}, code={self.code!r}, boxed={self.boxed}, killed={self.killed}, "
            f"seconds={self.seconds:.2f}, data={self.data[:200]!r}, output={self.output[:200]!r})"
        )

    @property
    def timed_out(self) -> bool:
        return self.ended == "timeout"

    def message(self) -> str:
        """Why the run ended, in the learner's terms ('' when the harness ended by itself)."""
        limits = self.limits
        if self.ended == "timeout":
            return f"did not finish within {limits.get('timeout', 0):g} s and was stopped"
        if self.ended == "memory":
            return f"used more than {limits.get('memory', 0) >> 20} MB of memory (all its processes together)"
        if self.ended == "processes":
            return f"started more than {limits.get('processes', 0)} processes at once"
        if self.ended == "disk":
            return f"wrote more than {limits.get('folder', 0) >> 20} MB into its folder"
        if self.ended == "stopped":
            return "was stopped before it finished"
        if self.ended == "lost":
            return (
                f"its supervisor was stopped or killed after {self.seconds:.1f} s (by the code it ran?): "
                "the run was ended"
            )
        if self.code is not None and self.code < 0:
            return f"its process was killed by signal {-self.code} (out of memory? a crash?)"
        return ""

    def status(self) -> dict[str, Any]:
        """The supervisor's status as plain data (run_supervised's second result)."""
        return {
            "code": self.code,
            "timed_out": self.timed_out,
            "ended": self.ended,
            "killed": self.killed,
            "seconds": round(self.seconds, 3),
            "boxed": self.boxed,
            "message": self.message(),
        }


# -----------------------------------------------------------------------------
# Is there a box?


def bwrap_path() -> str | None:
    import shutil

    return shutil.which("bwrap")


_problem: list[str | None] = []  # the answer of box_problem, once asked


def box_problem() -> str | None:
    """None when a box can be had here; else one sentence saying why not (asked once
    per process: it starts a box that runs `python -c pass`)."""
    if not _problem:
        _problem.append(_find_problem())
    return _problem[0]


def forget_box_problem() -> None:
    """Ask again at the next box_problem() (tests, or after installing bubblewrap)."""
    _problem.clear()


def _find_problem() -> str | None:
    import subprocess

    if not sys.platform.startswith("linux"):
        return f"no sandbox on {sys.platform}: learner code runs with process limits only"
    if bwrap_path() is None:
        return "bubblewrap (bwrap) is not installed: learner code runs with process limits only"
    argv = [*_bwrap_argv([], BOX_DIR, DISK), "--", sys.executable, "-I", "-S", "-c", "pass"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=30, env={}, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as e:
        return f"bubblewrap could not start ({e}): learner code runs with process limits only"
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit code {done.returncode}"]
        return f"bubblewrap cannot make a box here ({why[0]}): learner code runs with process limits only"
    return None


_said: set[str] = set()


def say_once(write: Any = None) -> str | None:
    """Write why there is no box (to stderr, or with `write`) the first time it is
    asked in this process; return it (None when there is a box)."""
    problem = box_problem()
    if problem and problem not in _said:
        _said.add(problem)
        (write or (lambda text: print(text, file=sys.stderr)))(f"note: {problem}")
    return problem


def _python_dirs() -> list[str]:
    """The Python installation, bound read-only into the box (a venv and its base)."""
    dirs: list[str] = []
    for d in (sys.base_prefix, sys.prefix, os.path.dirname(os.path.realpath(sys.executable))):
        d = os.path.realpath(d)
        if not any(d == x or d.startswith(x + os.sep) for x in ["/usr", *dirs]):
            dirs.append(d)
    return dirs


def _bwrap_argv(binds: list[str], box: str, disk: int) -> list[str]:
    argv = [bwrap_path() or "bwrap", "--ro-bind", "/usr", "/usr"]
    for name in ("bin", "lib", "lib64", "lib32", "sbin"):
        target = os.path.join("/", name)
        if os.path.islink(target):
            argv += ["--symlink", os.readlink(target), target]
        elif os.path.isdir(target):
            argv += ["--ro-bind", target, target]
    for name in ("/etc/ld.so.cache", "/etc/localtime"):
        if os.path.exists(name):
            argv += ["--ro-bind", name, name]
    # /tmp first: a Python installed under /tmp (a test's venv) is then bound inside it
    argv += ["--size", str(int(disk)), "--tmpfs", "/tmp"]
    for d in _python_dirs():
        argv += ["--ro-bind", d, d]
    argv += ["--proc", "/proc", "--dev", "/dev", "--size", str(int(disk)), "--tmpfs", box]
    argv += binds
    argv += ["--remount-ro", "/", "--chdir", box, "--unshare-all", "--unshare-user", "--uid", "65534", "--gid", "65534"]
    argv += ["--disable-userns", "--die-with-parent", "--new-session", "--as-pid-1", "--clearenv"]
    for key, value in {**child_env(), "PATH": "/usr/bin:/bin", "HOME": box, "TMPDIR": box}.items():
        argv += ["--setenv", key, value]
    return argv


def child_env() -> dict[str, str]:
    """The environment of a child that runs a learner's code: a fixed hash seed,
    one BLAS thread, no .pyc files written, and nothing else of ours."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONHASHSEED": "0",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "LANG": "C.UTF-8",
    }


# -----------------------------------------------------------------------------
# The parent side

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
        _kill(process)
    return len(chosen)


def run_boxed(
    harness: str,
    args: Sequence[str] = (),
    files: dict[str, str] | None = None,
    *,
    stdin: bytes = b"",
    timeout: float = 20.0,
    memory: int = MEMORY,
    processes: int = PROCESSES,
    disk: int = DISK,
    output: int = OUTPUT,
    box: bool | None = None,
    flags: Sequence[str] = (),
    shared: dict[str, str] | None = None,
    preload: Sequence[str] = (),
    writable: dict[str, str] | None = None,
) -> BoxResult:
    """Run `python -I HARNESS *flags FD *args` with the limits above; see the module docstring.

    `files`: name in the scratch folder -> host path. A file is copied in (their
    writes never reach the host); a folder is bound read-only (it is made visible,
    never copied). `harness` is a host .py: copied in as its own name, or -- when it
    lies inside one of the folders named -- run from there (a harness that
    imports its package). `box`: None uses a box where one can be had, False
    never does (today's supervisor), True insists (raises OSError when none can be
    had). The request goes to the harness's stdin; `flags` come before FD.

    `shared`: name -> a folder of the studio's own (a harness package) the same for
    every run: read-only in the box beside their files, importable as `name`. Inside
    `with warm():` a boxed run with `shared` goes to this thread's warm box (see
    WarmBox), whose supervisor imported the modules named in `preload` once.

    `writable`: name -> a host folder bound read-write into the scratch folder, for
    exactly what the caller must see while the run goes on (a lecture cell's
    progress line, its Stop file, its big graph): each file there is capped at
    `output` bytes, the folder is the caller's to empty."""
    files = dict(files or {})
    problem = box_problem() if box is not False else "asked for no box"
    if box is True and problem:
        raise OSError(problem)
    boxed = problem is None
    harness = os.path.abspath(harness)
    limits = {
        "timeout": timeout,
        "memory": int(memory),
        "processes": int(processes),
        "disk": int(disk),
        "folder": max(int(disk), 2 * int(output)),
    }
    if boxed and shared and _warm_depth > 0 and not writable:
        warm_box = _warm_box(shared, preload, int(disk))
        return warm_box.run(harness, [*flags], [*args], files, stdin, limits, int(output))
    files.update(shared or {})
    inside = _harness_name(harness, files)
    import secrets
    import shutil
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bps-box-") as tmp:
        log_path = os.path.join(tmp, "output.txt")
        read_end, write_end = os.pipe()
        opened: list[int] = [write_end]
        token = secrets.token_hex(8)
        config: dict[str, Any] = {
            "timeout": float(timeout),
            "memory": int(memory),
            "processes": int(processes),
            "output": int(output),
            "fd": write_end,
            "argv": [inside, *flags],
            "args": list(args),
            "boxed": boxed,
            "token": token,
            "folder": max(int(disk), 2 * int(output)),  # bytes the `writable` folders may hold together
        }
        try:
            if boxed:
                binds: list[str] = ["--ro-bind", HERE, "/.sandbox/sandbox.py"]
                for name, host in (writable or {}).items():
                    binds += ["--bind", os.path.abspath(host), os.path.join(BOX_DIR, name)]
                for name, host in files.items():
                    target = os.path.join(BOX_DIR, name)
                    if os.path.isdir(host):
                        binds += ["--ro-bind", os.path.abspath(host), target]
                    else:
                        fd = os.open(host, os.O_RDONLY)
                        opened.append(fd)
                        binds += ["--perms", "0644", "--file", str(fd), target]
                if inside == os.path.basename(harness):
                    fd = os.open(harness, os.O_RDONLY)
                    opened.append(fd)
                    binds += ["--perms", "0644", "--file", str(fd), os.path.join(BOX_DIR, inside)]
                config["argv"][0] = os.path.join(BOX_DIR, inside)
                config["watched"] = [os.path.join(BOX_DIR, name) for name in writable or {}]
                argv = [*_bwrap_argv(binds, BOX_DIR, disk), "--", sys.executable, "-I", "-S", "/.sandbox/sandbox.py"]
                cwd, env = tmp, {}
            else:
                scratch = os.path.join(tmp, "box")
                os.mkdir(scratch)
                for name, host in {**files, **(writable or {})}.items():
                    _place(host, os.path.join(scratch, name))
                if inside == os.path.basename(harness):
                    shutil.copyfile(harness, os.path.join(scratch, inside))
                config["argv"][0] = os.path.join(scratch, inside)
                config["watched"] = [os.path.abspath(host) for host in (writable or {}).values()]
                argv = [sys.executable, "-I", "-S", HERE]
                cwd, env = scratch, {**child_env(), "BPS_BOX": token}
            argv += ["--supervise", json.dumps(config)]
            started = time.monotonic()
            with open(log_path, "wb") as log:
                supervisor = subprocess.Popen(
                    argv,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log,
                    cwd=cwd,
                    env=env,
                    pass_fds=tuple(opened),
                    start_new_session=True,
                )
            with _lock:
                key = getattr(_local, "group", None)
                _live[supervisor] = key
                late = key is not None and key in _ended_groups
                if late:  # its group was stopped while this run was starting
                    _stopped.add(supervisor.pid)
            if late:
                _kill(supervisor)
        except BaseException:
            os.close(read_end)
            raise
        finally:
            for fd in opened:
                os.close(fd)
        try:
            data, lines, lost = _wait(supervisor, read_end, stdin, timeout)
        except BaseException:  # Ctrl+C in this thread: nothing is left running
            _kill(supervisor)
            with _lock:
                _live.pop(supervisor, None)
            raise
        finally:
            os.close(read_end)
        seconds = time.monotonic() - started
        with _lock:
            _live.pop(supervisor, None)
            stopped = supervisor.pid in _stopped
            _stopped.discard(supervisor.pid)
        status = _status(lines)
        if stopped:
            status = {"ended": "stopped", "code": None, "killed": 0}
        if not boxed and (lost or stopped or status is None):
            _sweep(token, _int(_first(lines, "harness")))
        printed = _head_and_tail(log_path)
    if status is None:  # the supervisor never said how the run ended
        ended = "timeout" if seconds >= timeout else "lost"
        if boxed and ended == "lost" and supervisor.returncode not in (0, None):
            printed += f"\n(the box ended with code {supervisor.returncode})"
        return BoxResult(data, None, ended, printed, boxed, 0, seconds, limits)
    code = status.get("code")
    return BoxResult(
        data, code if isinstance(code, int) else None, str(status.get("ended", "exit")), printed, boxed,
        int(status.get("killed", 0)), seconds, limits,
    )  # fmt: skip


def _wait(supervisor: subprocess.Popen, read_end: int, stdin: bytes, timeout: float) -> tuple[bytes, list[str], bool]:
    """Feed the request, read the report until the run ends; (report, the supervisor's
    lines, lost)."""
    import subprocess

    threading.Thread(target=_feed, args=(supervisor.stdin, stdin), daemon=True).start()
    data, lost = _read_until_closed(read_end, supervisor, timeout + GRACE)
    if lost:  # without a box: their code stopped or killed its supervisor
        _kill(supervisor)
    try:
        supervisor.wait(timeout=GRACE)
    except subprocess.TimeoutExpired:
        _kill(supervisor)
        supervisor.wait()
    assert supervisor.stdout is not None  # PIPE above
    lines = supervisor.stdout.read().decode("utf-8", "replace").splitlines()
    supervisor.stdout.close()
    return data, lines, lost


def run_supervised(
    script: list[str], args: list[str], timeout: float, cwd: str, log_path: str, key: str = ""
) -> tuple[bytes, dict[str, Any]]:
    """Today's call, kept for callers not yet moved: `python -I *script FD *args` (no
    box: `cwd` and the paths in `args` are the host's), `key` as the first line of
    its stdin; the output goes to `log_path`. Returns (report bytes, status dict)."""
    del cwd  # the harness runs in a scratch folder; paths in args are absolute
    studio = os.path.dirname(os.path.dirname(HERE))  # a harness of the studio's runs in place: it finds its package
    files = {"studio": studio} if os.path.abspath(script[0]).startswith(studio + os.sep) else {}
    result = run_boxed(script[0], args, files, stdin=key.encode() + b"\n", timeout=timeout, box=False, flags=script[1:])
    with open(log_path, "w", encoding="utf-8") as f:
        f.write(result.output)
    return result.data, result.status()


def _harness_name(harness: str, files: dict[str, str]) -> str:
    for name, host in files.items():
        host = os.path.abspath(host)
        if os.path.isdir(host) and harness.startswith(host + os.sep):
            return os.path.join(name, os.path.relpath(harness, host))
    return os.path.basename(harness)


def _place(host: str, target: str) -> None:
    """Without a box: a file is copied into the scratch folder, a folder linked."""
    import shutil

    os.makedirs(os.path.dirname(target), exist_ok=True)
    if os.path.isdir(host):
        try:
            os.symlink(os.path.abspath(host), target, target_is_directory=True)
        except OSError:  # Windows without the right to make links
            shutil.copytree(host, target)
    else:
        shutil.copyfile(host, target)


def _feed(pipe: Any, data: bytes) -> None:
    try:
        pipe.write(data)
        pipe.close()
    except (OSError, ValueError):
        pass


def _read_until_closed(fd: int, supervisor: subprocess.Popen, limit: float) -> tuple[bytes, bool]:
    """Everything written to the pipe until every writer has closed it or `limit`
    seconds passed; at most REPORT bytes. Also (bytes, lost): True when the supervisor
    ended or stopped while writers were still alive (their code killed it)."""
    import select

    chunks: list[bytes] = []
    size = 0
    deadline = time.monotonic() + limit
    while size < REPORT:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        if not select.select([fd], [], [], min(left, 0.2))[0]:
            if supervisor.poll() is not None or _is_stopped(supervisor.pid):
                return b"".join(chunks) + _drain(fd), True
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)[:REPORT], False


def _drain(fd: int) -> bytes:
    import select

    chunks = []
    while select.select([fd], [], [], 0)[0]:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _is_stopped(pid: int) -> bool:
    fields = _stat(pid)
    return bool(fields) and fields[0] in ("T", "t")


def _status(lines: list[str]) -> dict[str, Any] | None:
    found = _first(lines, "ended")
    return found if isinstance(found, dict) else None


def _first(lines: list[str], key: str) -> Any:
    for line in reversed(lines):
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and key in item:
            return item if key == "ended" else item[key]
    return None


def _int(x: Any) -> int | None:
    return x if isinstance(x, int) and not isinstance(x, bool) else None


def _sweep(token: str, harness: int | None) -> int:
    """Without a box, after the supervisor was lost: end the processes of this run
    that are left -- those in the harness's session or process group, and those whose
    environment carries this run's token (a detached process keeps it)."""
    killed: list[int] = []
    me = os.getpid()
    for pid in _pids():
        if pid == me:
            continue
        fields = _stat(pid)
        ours = harness is not None and len(fields) > 4 and harness in (_int_or(fields[2]), _int_or(fields[3]))
        if not ours:
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    ours = f"BPS_BOX={token}".encode() in f.read().split(b"\0")
            except OSError:
                continue
        if ours:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except OSError:
                pass
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline and any(_stat(p)[:1] not in ([], ["Z"]) for p in killed):
        time.sleep(0.005)  # a killed process takes a moment to die
    return len(killed)


def _int_or(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def _kill(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()


def _head_and_tail(path: str, head: int = 6000, tail: int = 2000) -> str:
    """What the child printed: all of it when short, else its start and its end."""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            if size <= head + tail:
                return f.read().decode("utf-8", "replace")
            start = f.read(head)
            f.seek(size - tail)
            return (start + b"\n...\n" + f.read()).decode("utf-8", "replace")
    except OSError:
        return ""


def read_text(path: str, limit: int) -> str:
    """The first `limit` bytes of a file as text ('' when it cannot be read)."""
    try:
        with open(path, "rb") as f:
            return f.read(limit).decode("utf-8", "replace")
    except OSError:
        return ""


def sign(key: str, text: str) -> str:
    """The HMAC of one report line (a harness proves a line is its own with it)."""
    import hashlib
    import hmac

    return hmac.new(key.encode(), text.encode(), hashlib.sha256).hexdigest()


def verified(data: bytes, key: str) -> list[Any] | None:
    """The report's items, or None when any line is not signed with the key."""
    import hmac

    items = []
    for raw in data.decode("utf-8", "replace").splitlines():
        mac, _, text = raw.partition(" ")
        if not hmac.compare_digest(mac, sign(key, text)):
            return None
        try:
            items.append(json.loads(text))
        except ValueError:
            return None
    return items


def plain(x: Any) -> Any:
    """JSON-safe plain data: inf/nan become the strings 'inf', '-inf', 'nan'."""
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if x != x else ("inf" if x > 0 else "-inf")
    if isinstance(x, dict):
        return {str(k): plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    return x


# -----------------------------------------------------------------------------
# Warm boxes: a class graded without a box start and an interpreter start per submission
#
# A box costs a bwrap start, a Python start and the harness's imports (numpy's alone
# is ~0.1 s of CPU) before their code runs. Grading a class, `with warm():` keeps one
# box per worker thread alive instead: its supervisor (the box's PID 1) imported the
# harness once and forks a fresh child for each submission. What one submission
# leaves cannot reach the next: the child is a fork of a supervisor that never ran
# their code (their modules, patched builtins and globals die with it); before and
# after each run the supervisor ends every process in the box and empties /box,
# /tmp, /dev/shm and the box's System V IPC; each run gets its own limits, report
# channel and output pipe.

_warm_depth = 0  # how many `with warm():` are open in this process
_warm_all: list[WarmBox] = []  # every warm box started, to close at the end


class warm:  # noqa: N801 -- used as `with sandbox.warm():`
    """`with warm():` -- boxed runs with `shared` harness folders (the checker's) reuse
    one warm box per thread until the outermost `warm` closes, then every box ends."""

    def __enter__(self) -> warm:
        global _warm_depth
        with _lock:
            _warm_depth += 1
        return self

    def __exit__(self, *exc: Any) -> None:
        global _warm_depth
        with _lock:
            _warm_depth -= 1
            boxes = list(_warm_all) if _warm_depth == 0 else []
            if _warm_depth == 0:
                _warm_all.clear()
        for b in boxes:
            b.finish()  # all at once: each ends in parallel
        for b in boxes:
            b.close()


def _warm_box(shared: dict[str, str], preload: Sequence[str], disk: int) -> WarmBox:
    key = (tuple(sorted((k, os.path.abspath(v)) for k, v in shared.items())), tuple(preload), disk)
    boxes = getattr(_local, "warm", None)
    if boxes is None:
        boxes = _local.warm = {}
    found = boxes.get(key)
    if found is None or not found.alive():
        found = boxes[key] = WarmBox(shared, preload, disk)
        with _lock:
            _warm_all.append(found)
    return found


class WarmBox:
    """One long-lived bubblewrap box whose supervisor (`serve`) runs submissions one at
    a time, each in a fresh fork with its own scratch folder and limits. The box's
    `shared` folders are read-only at /.harness/NAME; the supervisor imported the
    modules named in `preload` (those that import) before the first submission."""

    def __init__(self, shared: dict[str, str], preload: Sequence[str], disk: int) -> None:
        import subprocess
        import tempfile

        self.tmp = tempfile.mkdtemp(prefix="bps-warm-")
        binds: list[str] = ["--ro-bind", HERE, "/.sandbox/sandbox.py"]
        for name, host in shared.items():
            binds += ["--ro-bind", os.path.abspath(host), f"/.harness/{name}"]
        config = {"preload": list(preload), "path": "/.harness"}
        argv = [*_bwrap_argv(binds, BOX_DIR, disk), "--", sys.executable, "-I", "-S", "/.sandbox/sandbox.py"]
        self.log = open(os.path.join(self.tmp, "box.txt"), "wb", buffering=0)  # noqa: SIM115 -- the box's own errors
        self.process = subprocess.Popen(
            [*argv, "--serve", json.dumps(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            cwd=self.tmp,
            env={},
            start_new_session=True,
        )
        self.buffer = b""
        self.runs = 0

    def alive(self) -> bool:
        return self.process.poll() is None

    def finish(self) -> None:
        """No more requests: the supervisor's loop ends, and the box with it."""
        try:
            self.process.stdin.close()  # type: ignore[union-attr]
        except (OSError, ValueError):
            pass

    def close(self) -> None:
        import shutil
        import subprocess

        try:  # no more requests: the supervisor ends its loop and the box ends with it
            self.finish()
            self.process.wait(timeout=GRACE)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            _kill(self.process)
            try:
                self.process.wait(timeout=GRACE)
            except subprocess.TimeoutExpired:
                pass
        for pipe in (self.process.stdin, self.process.stdout):
            try:
                pipe.close()  # type: ignore[union-attr]
            except OSError:
                pass
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run(
        self, harness: str, flags: list[str], args: list[str], files: dict[str, str], stdin: bytes,
        limits: dict[str, Any], output: int,
    ) -> BoxResult:  # fmt: skip
        """One submission: their `files` (copied in by content), the harness (a file
        sent too, or a path under a shared folder), the limits; as run_boxed returns."""
        import base64

        timeout = float(limits["timeout"])
        sent = _contents(files, int(limits["disk"]))
        inside = _harness_name(harness, files)
        if inside == os.path.basename(harness):
            with open(harness, "rb") as f:
                sent.append([inside, base64.b64encode(f.read()).decode()])
        request = {
            "files": sent,
            "argv": [os.path.join(BOX_DIR, inside), *flags],
            "args": args,
            "stdin": base64.b64encode(stdin).decode(),
            "timeout": timeout,
            "memory": int(limits["memory"]),
            "processes": int(limits["processes"]),
            "output": int(output),
        }
        started = time.monotonic()
        with _lock:
            key = getattr(_local, "group", None)
            late = key is not None and key in _ended_groups
            if not late:
                _live[self.process] = key
        if late:
            return BoxResult(b"", None, "stopped", "", True, 0, 0.0, limits)
        answer = None
        try:
            assert self.process.stdin is not None  # PIPE above
            self.process.stdin.write(json.dumps(request).encode() + b"\n")
            self.process.stdin.flush()
            answer = self._answer(timeout + GRACE)
        except (OSError, ValueError):
            pass
        except BaseException:  # Ctrl+C in this thread: nothing is left running
            _kill(self.process)
            raise
        finally:
            with _lock:
                _live.pop(self.process, None)
                stopped = self.process.pid in _stopped
                _stopped.discard(self.process.pid)
        seconds = time.monotonic() - started
        self.runs += 1
        if stopped:
            return BoxResult(b"", None, "stopped", "", True, 0, seconds, limits)
        if answer is None:  # the box never answered: it is ended, the next run starts another
            _kill(self.process)
            ended = "timeout" if seconds >= timeout else "lost"
            said = _head_and_tail(self.log.name)
            printed = f"(the warm box ended without an answer)\n{said}".strip()
            return BoxResult(b"", None, ended, printed, True, 0, seconds, limits)
        data = base64.b64decode(answer.get("data", ""))
        code = answer.get("code")
        return BoxResult(
            data, code if isinstance(code, int) else None, str(answer.get("ended", "exit")),
            str(answer.get("output", "")), True, int(answer.get("killed", 0)), seconds, limits,
        )  # fmt: skip

    def _answer(self, limit: float) -> dict[str, Any] | None:
        """The supervisor's one-line answer, or None when the box ended or `limit` passed."""
        import select

        assert self.process.stdout is not None  # PIPE above
        fd = self.process.stdout.fileno()
        deadline = time.monotonic() + limit
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        try:
            found = json.loads(line)
        except ValueError:
            return None
        return found if isinstance(found, dict) else None


def _contents(files: dict[str, str], limit: int) -> list[list[str]]:
    """[[name in the box, base64 of the bytes]] of their files (a folder's files under
    its name, caches left out), at most `limit` bytes in all: a warm box is not bound
    to any folder of the host, so what a run needs is sent."""
    import base64

    sent, size = [], 0
    for name, host in files.items():
        if os.path.isdir(host):
            found = []
            for top, dirs, names in os.walk(host):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
                found += [os.path.join(top, n) for n in sorted(names) if not n.endswith(".pyc")]
            pairs = [(os.path.join(name, os.path.relpath(p, host)), p) for p in found]
        else:
            pairs = [(name, host)]
        for inside, path in pairs:
            with open(path, "rb") as f:
                data = f.read(limit - size + 1)
            size += len(data)
            if size > limit:
                raise OSError(f"{name}: more than {limit >> 20} MB to copy into the box")
            sent.append([inside, base64.b64encode(data).decode()])
    return sent


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


def _pids() -> list[int]:
    try:
        return [int(n) for n in os.listdir("/proc") if n.isdigit()]
    except OSError:
        return []


def _stat(pid: int) -> list[str]:
    """/proc/PID/stat's fields after the name: [state, ppid, pgrp, session, ...]."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []


def children_of(pid: int) -> list[tuple[int, str]]:
    """[(pid, state)] of the processes whose parent is `pid`, from /proc."""
    found = []
    for p in _pids():
        fields = _stat(p)
        if len(fields) > 1 and fields[1] == str(pid):
            found.append((p, fields[0]))
    return found


def descendants(root: int) -> list[int]:
    """Every live process below `root` (from /proc's parent links)."""
    parent: dict[int, int] = {}
    for p in _pids():
        fields = _stat(p)
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
            pids = [p for p in _pids() if p != os.getpid()] if boxed else descendants(os.getpid())
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
    threading.Thread(target=_feed, args=(os.fdopen(stdin, "wb"), request), daemon=True).start()
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
        threading.Thread(target=_feed, args=(os.fdopen(stdin, "wb"), base64.b64decode(request["stdin"]))),
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
    keep = _python_dirs()  # a Python installed under /tmp (a venv) is bound read-only inside it
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
