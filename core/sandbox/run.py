"""`run_boxed`: run a harness on their code in a box, with limits; `run_supervised`, the older call.

A run goes to this thread's warm box (warm_boxes.py) when a class is being graded
(`with warm():`) and the harness lives in a shared folder of the studio's; every
other run starts a box of its own (cold.py).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from core.sandbox import cold, warm_boxes
from core.sandbox.box import box_problem
from core.sandbox.supervisor import DISK, MEMORY, OUTPUT, PROCESSES

if TYPE_CHECKING:
    from collections.abc import Sequence

    from core.sandbox.result import BoxResult


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
    if boxed and shared and warm_boxes.is_open() and not writable:
        warm_box = warm_boxes.box_for(shared, preload, int(disk))
        return warm_box.run(harness, [*flags], [*args], files, stdin, limits, int(output))
    files.update(shared or {})
    return cold.run(harness, [*flags], [*args], files, stdin, limits, int(output), boxed, writable)


def run_supervised(
    script: list[str], args: list[str], timeout: float, cwd: str, log_path: str, key: str = ""
) -> tuple[bytes, dict[str, Any]]:
    """Today's call, kept for callers not yet moved: `python -I *script FD *args` (no
    box: `cwd` and the paths in `args` are the host's), `key` as the first line of
    its stdin; the output goes to `log_path`. Returns (report bytes, status dict)."""
    del cwd  # the harness runs in a scratch folder; paths in args are absolute
    # a harness of the studio's runs in place: it finds its package
    studio = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    files = {"studio": studio} if os.path.abspath(script[0]).startswith(studio + os.sep) else {}
    result = run_boxed(script[0], args, files, stdin=key.encode() + b"\n", timeout=timeout, box=False, flags=script[1:])
    with open(log_path, "w", encoding="utf-8") as f:
        f.write(result.output)
    return result.data, result.status()
