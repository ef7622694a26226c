"""Warm boxes: a class graded without a box start and an interpreter start per submission.

A box costs a bwrap start, a Python start and the harness's imports (numpy's alone
is ~0.1 s of CPU) before their code runs. Grading a class, `with warm():` keeps one
box per worker thread alive instead: its supervisor (the box's PID 1) imported the
harness once and forks a fresh child for each submission. What one submission
leaves cannot reach the next: the child is a fork of a supervisor that never ran
their code (their modules, patched builtins and globals die with it); before and
after each run the supervisor ends every process in the box and empties /box,
/tmp, /dev/shm and the box's System V IPC; each run gets its own limits, report
channel and output pipe.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

from core.sandbox import runs
from core.sandbox.box import bwrap_argv
from core.sandbox.cold import SUPERVISOR, harness_name, head_and_tail
from core.sandbox.result import BoxResult
from core.sandbox.runs import kill
from core.sandbox.supervisor import BOX_DIR, GRACE

if TYPE_CHECKING:
    from collections.abc import Sequence

_lock = threading.Lock()
_local = threading.local()  # this thread's warm boxes: {(shared, preload, disk): WarmBox}

_warm_depth = 0  # how many `with warm():` are open in this process
_warm_all: list[WarmBox] = []  # every warm box started, to close at the end


def is_open() -> bool:
    """True inside a `with warm():` (of any thread)."""
    return _warm_depth > 0


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


def box_for(shared: dict[str, str], preload: Sequence[str], disk: int) -> WarmBox:
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
        binds: list[str] = ["--ro-bind", SUPERVISOR, "/.sandbox/supervisor.py"]
        for name, host in shared.items():
            binds += ["--ro-bind", os.path.abspath(host), f"/.harness/{name}"]
        config = {"preload": list(preload), "path": "/.harness"}
        argv = [*bwrap_argv(binds, BOX_DIR, disk), "--", sys.executable, "-I", "-S", "/.sandbox/supervisor.py"]
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
            kill(self.process)
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
        inside = harness_name(harness, files)
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
        if runs.started(self.process):  # its group was stopped before it started: the box runs on
            runs.finished(self.process)
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
            kill(self.process)
            raise
        finally:
            stopped = runs.finished(self.process)
        seconds = time.monotonic() - started
        self.runs += 1
        if stopped:
            return BoxResult(b"", None, "stopped", "", True, 0, seconds, limits)
        if answer is None:  # the box never answered: it is ended, the next run starts another
            kill(self.process)
            ended = "timeout" if seconds >= timeout else "lost"
            said = head_and_tail(self.log.name)
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
