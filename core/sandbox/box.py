"""Is there a box here, and the bubblewrap command line that makes one.

A box is a bubblewrap (`bwrap`) sandbox: new user, PID, network, IPC and UTS
namespaces, the Python installation and /usr read-only, a private tmpfs for
scratch, nothing of the user's home. `box_problem()` asks once per process
whether one can be made (it starts a box that runs `python -c pass`) and says
in one sentence why not; callers say it once (`say_once`).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from core.sandbox.supervisor import BOX_DIR, DISK, python_dirs


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
    argv = [*bwrap_argv([], BOX_DIR, DISK), "--", sys.executable, "-I", "-S", "-c", "pass"]
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


def bwrap_argv(binds: list[str], box: str, disk: int) -> list[str]:
    """The `bwrap` command (up to its `--`) of a box whose scratch folder `box` is a tmpfs of
    `disk` bytes, with `binds` (bwrap options) added."""
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
    for d in python_dirs():
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
