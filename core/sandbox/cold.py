"""A run in a box of its own: a bubblewrap box and a supervisor started for this one run.

The box holds copies of the files the caller names (a folder is bound read-only),
the harness, and the supervisor (supervisor.py) as its PID 1; the report comes
back on a pipe the harness writes to, what it printed in a capped log. Without a
box (`boxed` False) the same supervisor runs as a child subreaper in a scratch
folder, and a run whose supervisor was killed is swept by a token in its
processes' environment (`_sweep`).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

from core.sandbox import runs
from core.sandbox.box import bwrap_argv, child_env
from core.sandbox.result import BoxResult
from core.sandbox.runs import kill
from core.sandbox.supervisor import BOX_DIR, GRACE, REPORT, all_pids, feed, proc_stat

if TYPE_CHECKING:
    import subprocess

SUPERVISOR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "supervisor.py")  # the box's PID 1


def run(
    harness: str, flags: list[str], args: list[str], files: dict[str, str], stdin: bytes, limits: dict[str, Any],
    output: int, boxed: bool, writable: dict[str, str] | None,
) -> BoxResult:  # fmt: skip
    """One run in a box of its own (`boxed`), or under a supervisor without one: see run_boxed."""
    timeout, memory, processes, disk = limits["timeout"], limits["memory"], limits["processes"], limits["disk"]
    inside = harness_name(harness, files)
    import secrets
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
                argv, cwd, env = _in_box(harness, inside, files, writable, int(disk), config, opened), tmp, {}
            else:
                scratch = os.path.join(tmp, "box")
                argv, cwd = _without_box(harness, inside, files, writable, scratch, config), scratch
                env = {**child_env(), "BPS_BOX": token}
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
            if runs.started(supervisor):  # its group was stopped while this run was starting
                kill(supervisor)
        except BaseException:
            os.close(read_end)
            raise
        finally:
            for fd in opened:
                os.close(fd)
        try:
            data, lines, lost = _wait(supervisor, read_end, stdin, timeout)
        except BaseException:  # Ctrl+C in this thread: nothing is left running
            kill(supervisor)
            runs.finished(supervisor)
            raise
        finally:
            os.close(read_end)
        seconds = time.monotonic() - started
        stopped = runs.finished(supervisor)
        status = _status(lines)
        if stopped:
            status = {"ended": "stopped", "code": None, "killed": 0}
        if not boxed and (lost or stopped or status is None):
            _sweep(token, _int(_first(lines, "harness")))
        printed = head_and_tail(log_path)
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


def _in_box(
    harness: str, inside: str, files: dict[str, str], writable: dict[str, str] | None, disk: int,
    config: dict[str, Any], opened: list[int],
) -> list[str]:  # fmt: skip
    """The command that starts the supervisor in a new box: their files passed in as open
    descriptors (copied by bwrap: their writes never reach the host), folders bound
    read-only, `writable` folders bound read-write. Opened descriptors go to `opened`."""
    binds: list[str] = ["--ro-bind", SUPERVISOR, "/.sandbox/supervisor.py"]
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
    return [*bwrap_argv(binds, BOX_DIR, disk), "--", sys.executable, "-I", "-S", "/.sandbox/supervisor.py"]


def _without_box(
    harness: str, inside: str, files: dict[str, str], writable: dict[str, str] | None, scratch: str,
    config: dict[str, Any],
) -> list[str]:  # fmt: skip
    """The command that starts the supervisor without a box, in the folder `scratch`
    (made here): files copied in, folders linked."""
    import shutil

    os.mkdir(scratch)
    for name, host in {**files, **(writable or {})}.items():
        _place(host, os.path.join(scratch, name))
    if inside == os.path.basename(harness):
        shutil.copyfile(harness, os.path.join(scratch, inside))
    config["argv"][0] = os.path.join(scratch, inside)
    config["watched"] = [os.path.abspath(host) for host in (writable or {}).values()]
    return [sys.executable, "-I", "-S", SUPERVISOR]


def _wait(supervisor: subprocess.Popen, read_end: int, stdin: bytes, timeout: float) -> tuple[bytes, list[str], bool]:
    """Feed the request, read the report until the run ends; (report, the supervisor's
    lines, lost)."""
    import subprocess

    threading.Thread(target=feed, args=(supervisor.stdin, stdin), daemon=True).start()
    data, lost = _read_until_closed(read_end, supervisor, timeout + GRACE)
    if lost:  # without a box: their code stopped or killed its supervisor
        kill(supervisor)
    try:
        supervisor.wait(timeout=GRACE)
    except subprocess.TimeoutExpired:
        kill(supervisor)
        supervisor.wait()
    assert supervisor.stdout is not None  # PIPE above
    lines = supervisor.stdout.read().decode("utf-8", "replace").splitlines()
    supervisor.stdout.close()
    return data, lines, lost


def harness_name(harness: str, files: dict[str, str]) -> str:
    """The harness's path inside the box: under the shared folder that holds it, else its own name."""
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
    fields = proc_stat(pid)
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
    for pid in all_pids():
        if pid == me:
            continue
        fields = proc_stat(pid)
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
    while time.monotonic() < deadline and any(proc_stat(p)[:1] not in ([], ["Z"]) for p in killed):
        time.sleep(0.005)  # a killed process takes a moment to die
    return len(killed)


def _int_or(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def head_and_tail(path: str, head: int = 6000, tail: int = 2000) -> str:
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
