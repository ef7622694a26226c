"""The child process's entry point: limit itself, run the probe, write numbers.

    python -I LAUNCHER FD REQUEST MEMORY SECONDS

reads the signing key from stdin (then closes it, before any code of theirs
runs), limits its address space, CPU time and file sizes, reads the parent's
request (a JSON file: the engine's path and the test programs), and writes one
signed JSON line per result to the pipe FD. Plain data only: floats, strings,
lists; an infinity or a NaN is written as the string 'inf', '-inf' or 'nan'.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import os
import signal
import sys
from typing import Any

OUTPUT = 4 << 20  # bytes their code may write to any one file


def plain(x: Any) -> Any:
    """JSON-safe plain data: inf/nan become the strings 'inf', '-inf', 'nan'."""
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if x != x else ("inf" if x > 0 else "-inf")
    if isinstance(x, dict):
        return {str(k): plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    return x


def sign(key: str, text: str) -> str:
    return hmac.new(key.encode(), text.encode(), hashlib.sha256).hexdigest()


def limit(memory: int, seconds: int, output: int = OUTPUT) -> None:
    """`memory` bytes of address space, `seconds` (+1) of CPU, `output` bytes a file."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (seconds + 1, seconds + 2))
    resource.setrlimit(resource.RLIMIT_FSIZE, (output, output))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an over-long write raises instead of killing


def main(argv: list[str]) -> int:
    from .run import run

    write_fd, request_path, memory, seconds = int(argv[0]), argv[1], int(argv[2]), int(argv[3])
    key = sys.stdin.readline().strip()
    sys.stdin.close()
    os.set_inheritable(write_fd, False)  # programs their code starts do not get the pipe
    with open(request_path, encoding="utf-8") as f:
        request = json.load(f)
    limit(memory, seconds)
    out = os.fdopen(write_fd, "w", encoding="utf-8")  # noqa: SIM115 -- open for the whole run
    me = os.getpid()

    def report(item: dict[str, Any]) -> None:
        if os.getpid() != me:  # a copy of this process their code forked: it does not report
            os._exit(0)
        text = json.dumps(plain(item), allow_nan=False)
        out.write(sign(key, text) + " " + text + "\n")
        out.flush()

    sys.path.insert(0, os.path.dirname(os.path.abspath(request["engine"])))
    sys.setrecursionlimit(10_000)
    try:
        run(request, report)
    except MemoryError:
        report({"kind": "unusable", "message": f"the engine ran out of memory (limit {memory >> 20} MB)"})
        return 0
    except BaseException as e:  # noqa: BLE001 -- sys.exit inside their methods, and the like
        from .load import their_error

        error = their_error("the check", e, (os.path.dirname(os.path.abspath(request["engine"])),))
        where = (
            f" ({os.path.basename(error['at'][0])}, line {error['at'][1]}: `{error['at'][2]}`)" if error["at"] else ""
        )
        said = f"{type(e).__name__}: {e}" if str(e) else f"{type(e).__name__} (with no message)"
        report({"kind": "unusable", "message": f"the check stopped: your code raised {said}{where}", "error": error})
        return 0
    report({"kind": "done"})
    return 0


LAUNCHER = """import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bps_child.main import main
sys.exit(main(sys.argv[1:]))
"""
