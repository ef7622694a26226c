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

Where each part lives (one idea a file):

- `run.py`        `run_boxed`, the one call: a warm box or a cold one
- `cold.py`       a box (or a supervisor without one) started for one run
- `warm_boxes.py` warm boxes: one per worker thread while a class is graded
- `supervisor.py` the box's PID 1: limits, the watch, ending every process (stdlib only)
- `box.py`        whether a box can be had here, and bubblewrap's command line
- `runs.py`       the runs going on, by group, and `stop`
- `result.py`     `BoxResult`: how a run ended, in the learner's words
- `signed.py`     the signed report pipe (`sign`, `verified`, `plain`)
"""

from core.sandbox.box import box_problem, bwrap_path, child_env, forget_box_problem, say_once
from core.sandbox.result import BoxResult
from core.sandbox.run import run_boxed, run_supervised
from core.sandbox.runs import group, stop
from core.sandbox.signed import plain, read_text, sign, verified
from core.sandbox.supervisor import (
    DISK,
    MEMORY,
    OUTPUT,
    PROCESSES,
    children_of,
    descendants,
    end_descendants,
    limit_child,
    resident,
)
from core.sandbox.warm_boxes import WarmBox, warm

__all__ = [
    "DISK", "MEMORY", "OUTPUT", "PROCESSES", "BoxResult", "WarmBox", "box_problem", "bwrap_path", "child_env",
    "children_of", "descendants", "end_descendants", "forget_box_problem", "group", "limit_child", "plain",
    "read_text", "resident", "run_boxed", "run_supervised", "say_once", "sign", "stop", "verified", "warm",
]  # fmt: skip
