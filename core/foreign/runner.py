"""Running a learner's file in a child process, with a time and a memory limit.

The learner's file is their code: it may loop forever, call `sys.exit` or
`os._exit`, ask for 10 GB, or not even parse. So the studio never imports it.
`check_file(path)` starts a fresh Python (`python -I this_file --child FILE
OUT`) which

    1. limits itself: address space (`RLIMIT_AS`, default 1 GiB), CPU seconds,
       and the size of any file it writes (their prints go to a capped file);
    2. loads their file, finds their Value class and runs the battery
       (`check.check_class`), writing one JSON line per result to OUT as it
       goes -- plain data only, never objects;

while the parent waits at most `timeout` seconds of wall time, then kills the
child's whole process group. Whatever happens, the parent reads the lines that
did arrive and returns a report (a dict of plain data): `status` is 'ok',
'wrong' (a wrong gradient: see `fault`) or 'unusable' (with a `message` that
says why: a timeout names the test that was running), 'raised' (their code
raised while building or running an expression) or 'unchecked' (nothing
could be compared: their class lacks the ops, or the expression's).
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import traceback
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIMEOUT = 20.0  # seconds of wall time for the whole battery
MEMORY = 1 << 30  # bytes of address space for the child
OUTPUT = 4 << 20  # bytes the child may write to any one file


# -----------------------------------------------------------------------------
# The parent side


def check_file(
    path: str | os.PathLike[str], timeout: float = TIMEOUT, memory: int = MEMORY, expression: str | None = None
) -> dict[str, Any]:
    """Check the learner's engine in `path` in a child process; return the report.

    `expression`: their own expression too (text in the studio's syntax), checked
    first. It is parsed here, never run; one that cannot be read gives an
    'unusable' report naming line and column, and no process starts."""
    from core.foreign.expression import ExprError, program_of  # not at the top: the child finds core later

    path = os.path.abspath(path)
    program = None
    if expression is not None:
        try:
            program = program_of(expression)
        except ExprError as e:
            return _unusable(path, f"your expression {expression.strip()!r}: {e}")
    if not os.path.isfile(path):
        return _unusable(path, f"{path}: no such file")
    with tempfile.TemporaryDirectory(prefix="bps-engine-") as tmp:
        out_path = os.path.join(tmp, "results.jsonl")
        log_path = os.path.join(tmp, "output.txt")
        program_path = ""
        if program is not None:
            program_path = os.path.join(tmp, "expression.json")
            with open(program_path, "w", encoding="utf-8") as f:
                json.dump(program, f, allow_nan=False)
        env = {
            "PATH": os.environ.get("PATH", ""),
            "PYTHONHASHSEED": "0",
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        with open(log_path, "wb") as log:
            child = subprocess.Popen(
                [
                    sys.executable,
                    "-I",
                    os.path.abspath(__file__),
                    "--child",
                    path,
                    out_path,
                    str(int(memory)),
                    str(int(math.ceil(timeout))),
                    program_path,
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                cwd=tmp,
                env=env,
                start_new_session=True,
            )
            timed_out = False
            try:
                code = child.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                _kill(child)
                code = child.wait()
        lines = _read_lines(out_path)
        output = _read_text(log_path, 2000)
    return _report(path, lines, code, timed_out, timeout, memory, output)


def _kill(child):
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        child.kill()


def _read_lines(path):
    results = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    results.append(json.loads(line))
                except ValueError:
                    break  # a line cut short by a kill
    except OSError:
        pass
    return results


def _read_text(path, limit):
    try:
        with open(path, "rb") as f:
            return f.read(limit).decode("utf-8", "replace")
    except OSError:
        return ""


def _unusable(path, message, **extra):
    return {"file": path, "status": "unusable", "message": message, "cases": [], "notes": [], "fault": None, **extra}


def _report(path, lines, code, timed_out, timeout, memory, output):
    start = next((x for x in lines if x.get("kind") == "start"), None)
    cases = [x for x in lines if x.get("kind") == "case"]
    notes = [x["text"] for x in lines if x.get("kind") == "note"]
    problem = next((x for x in lines if x.get("kind") == "unusable"), None)
    extra = {"output": output}
    if problem:
        return _unusable(path, problem["message"], cases=cases, **extra)
    if timed_out:
        where = "while loading the file"
        if start:
            begun = [x["name"] for x in lines if x.get("kind") == "begin"]
            where = (
                f"in test {len(begun)} of {start['cases']}, {begun[-1]!r}"
                if len(begun) > len(cases)
                else "after the last test (checking zero_grad)"
            )
        return _unusable(
            path,
            f"did not finish within {timeout:g} s ({where}): an infinite loop? The check was stopped.",
            cases=cases,
            **extra,
        )
    done = bool(lines) and lines[-1].get("kind") == "done"
    if not done:
        how = f"exit code {code}" if code is not None and code >= 0 else f"signal {-code}"
        hint = (
            "os._exit() or exit() in the file?"
            if code is not None and code >= 0
            else f"out of memory (limit {memory >> 20} MB) or a crash?"
        )
        return _unusable(
            path, f"the engine's process ended ({how}) before the check finished: {hint}", cases=cases, **extra
        )
    fault = next(({"case": c["name"], **c["fault"]} for c in cases if c["status"] == "fail" and c.get("fault")), None)
    error = next((c for c in cases if c["status"] == "error"), None)
    checked = [c for c in cases if c["status"] in ("pass", "fail")]
    own_unchecked = next((c for c in cases if c.get("own") and c["status"] == "unchecked"), None)
    message = ""
    if fault:
        status = "wrong"
    elif error is not None:
        status = "raised"
        fault = {"case": error["name"], "node": None, "op": None, "diagnosis": "raised", "cause": error["error"]}
        message = f"your code raised in test {error['name']!r}: {error['error']}"
    elif own_unchecked is not None:
        status = "unchecked"
        message = f"could not check {own_unchecked['name']!r}: {own_unchecked['why']}"
    elif not checked:
        status = "unchecked"
        why = next((c.get("why") for c in cases if c.get("why")), None)
        message = "could not check: " + (why or "your class offers none of the ops the tests use (+, *, ...)")
    else:
        status = "ok"
    return {
        "file": path,
        "status": status,
        "class": start["class"] if start else None,
        "offered": start["offered"] if start else [],
        "skipped": start["skipped"] if start else [],
        "cases": cases,
        "notes": notes,
        "fault": fault,
        "message": message,
        **extra,
    }


# -----------------------------------------------------------------------------
# The child side (runs the learner's code)


def plain(x: Any) -> Any:
    """JSON-safe plain data: inf/nan become the strings 'inf', '-inf', 'nan'."""
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if x != x else ("inf" if x > 0 else "-inf")
    if isinstance(x, dict):
        return {str(k): plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    return x


def child_main(path: str, out_path: str, memory: int, seconds: int, program_path: str = "") -> int:
    import resource
    import runpy

    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (seconds + 1, seconds + 2))
    resource.setrlimit(resource.RLIMIT_FSIZE, (OUTPUT, OUTPUT))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an over-long write raises instead of killing
    sys.path.insert(0, ROOT)
    from core.foreign.check import EngineError, check_class, find_value_class
    from core.foreign.expression import case_of

    own = []
    if program_path:  # written by the parent, before their code runs
        with open(program_path, encoding="utf-8") as f:
            own.append(case_of(json.load(f)))

    out = open(out_path, "w", encoding="utf-8")  # noqa: SIM115 -- open for the whole run

    def report(item: dict[str, Any]) -> None:
        out.write(json.dumps(plain(item), allow_nan=False) + "\n")
        out.flush()

    sys.path.insert(0, os.path.dirname(path))
    sys.setrecursionlimit(10_000)
    try:
        namespace = runpy.run_path(path, run_name="learner_engine")  # their code, in this child only
    except SyntaxError as e:
        report({"kind": "unusable", "message": f"{path}, line {e.lineno}: syntax error: {e.msg}"})
        return 0
    except MemoryError:
        report(
            {
                "kind": "unusable",
                "message": f"loading {path} ran out of memory (limit {memory >> 20} MB): a huge allocation?",
            }
        )
        return 0
    except SystemExit as e:
        report(
            {
                "kind": "unusable",
                "message": f"loading {path} called sys.exit({e.code!r}): "
                f"remove it (or put it under if __name__ == '__main__':)",
            }
        )
        return 0
    except BaseException as e:  # noqa: BLE001 -- anything their file raises
        where = traceback.extract_tb(e.__traceback__)[-1]
        report({"kind": "unusable", "message": f"loading {path} raised {type(e).__name__}: {e} (line {where.lineno})"})
        return 0
    try:
        V = find_value_class(namespace)
    except EngineError as e:
        report({"kind": "unusable", "message": str(e)})
        return 0
    try:
        check_class(V, report, own)
    except MemoryError:
        report({"kind": "unusable", "message": f"the engine ran out of memory (limit {memory >> 20} MB)"})
        return 0
    except BaseException as e:  # noqa: BLE001 -- sys.exit inside their methods, and the like
        report({"kind": "unusable", "message": f"the check stopped: {type(e).__name__}: {e}"})
        return 0
    report({"kind": "done"})
    return 0


if __name__ == "__main__" and len(sys.argv) == 7 and sys.argv[1] == "--child":
    sys.exit(child_main(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]))
