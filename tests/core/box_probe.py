"""Helpers for the hostile tests: a process a learner's code leaves behind, found from
the host by a unique marker in its command line (its PID means nothing outside a box)."""

import os
import secrets


def marker() -> str:
    """A unique `sleep` duration: `sleep 600.<digits>` names one test's process."""
    return f"600.{secrets.randbelow(10**9):09d}"


def sleeper(mark: str, detach: bool = True) -> str:
    """Python code that leaves `sleep MARK` running: forked, then (detach) setsid and
    a second fork, as a daemon would. It prints `started MARK` once the sleep runs
    (a test checks that, so it cannot pass because nothing started)."""
    return (
        "import os as _os, time as _time\n"
        "if _os.fork() == 0:\n"
        f"    if {detach!r}:\n"
        "        _os.setsid()\n"
        "        if _os.fork() != 0:\n"
        "            _os._exit(0)\n"
        f"    _os.execv('/bin/sleep', ['sleep', {mark!r}])\n"
        "for _ in range(500):\n"
        "    _seen = []\n"
        "    for _p in _os.listdir('/proc'):\n"
        "        try:\n"
        f"            _seen += [_p] if {mark!r}.encode() in open(f'/proc/{{_p}}/cmdline', 'rb').read() else []\n"
        "        except OSError:\n"
        "            pass\n"
        "    if _seen:\n"
        f"        print('started', {mark!r}, flush=True)\n"
        "        break\n"
        "    _time.sleep(0.01)\n"
    )


def running(mark: str) -> list[int]:
    """PIDs (host) of live processes whose command line is `sleep MARK`."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            with open(f"/proc/{name}/stat", encoding="ascii") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if mark.encode() in argv and state != "Z":
            found.append(int(name))
    return found
