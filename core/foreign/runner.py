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
import re
import secrets
import sys
import tempfile
import traceback
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if __name__ == "__main__":  # the child, in its box: the studio's package is beside this file
    sys.path.insert(0, ROOT)

from core import sandbox  # noqa: E402
from core.sandbox import (  # noqa: E402, F401 -- kept here for callers of the old home
    OUTPUT,
    child_env,
    children_of,
    end_descendants,
    limit_child,
    plain,
    run_supervised,
    sign,
)

TIMEOUT = 20.0  # seconds of wall time for the whole battery
MEMORY = sandbox.MEMORY  # bytes: address space per process, resident memory of all together


# -----------------------------------------------------------------------------
# The parent side


def check_file(
    path: str | os.PathLike[str],
    timeout: float = TIMEOUT,
    memory: int = MEMORY,
    expression: str | None = None,
    box: bool | None = None,
) -> dict[str, Any]:
    """Check the learner's engine in `path` in a child process; return the report.

    `expression`: their own expression too (text in the studio's syntax), checked
    first. It is parsed here, never run; one that cannot be read gives an
    'unusable' report naming line and column, and no process starts. `box`: see
    `core.sandbox.run_boxed` (None: in a box where one can be had)."""
    from core.foreign.expression import ExprError, program_of  # not at the top: the child finds core later

    path = os.path.abspath(path)
    program = None
    if expression is not None:
        try:
            program = program_of(expression)
        except ExprError as e:
            return _unusable(path, f"your expression {expression.strip()!r}: {e}")
    if os.path.isdir(path):
        return _unusable(path, f"{path} is a folder: give the .py file that defines your Value class")
    if not os.path.isfile(path):
        return _unusable(path, f"{path}: no such file")
    with tempfile.TemporaryDirectory(prefix="bps-engine-") as tmp:
        program_path = ""
        if program is not None:
            program_path = os.path.join(tmp, "expression.json")
            with open(program_path, "w", encoding="utf-8") as f:
                json.dump(program, f, allow_nan=False)
        key = secrets.token_hex(16)
        lines, result = _supervise(path, program_path, key, timeout, memory, box)
    output = result.output[:2000]
    if lines is None:
        return _unusable(path, "the check's report was forged or cut (a line not written by the studio): refused")
    own = [f"your expression: {program['text']}"] if program else []
    report = _report(path, lines, result, timeout, memory, output, own)
    return _host_paths(report, os.path.basename(path), path)


def _supervise(path, program_path, key, timeout, memory, box=None):
    """Run the battery's child in a box (core/sandbox.py): the learner's file copied
    in under its own name, the studio's `core` package bound read-only beside it.
    Returns (report lines, or None if one was forged; the run's BoxResult)."""
    name = os.path.basename(path) or "engine.py"
    files = {name: path, "studio/core": os.path.join(ROOT, "core")}
    args = [name, str(int(memory)), str(int(math.ceil(timeout)))]
    if program_path:
        files["expression.json"] = program_path
    args.append("expression.json" if program_path else "")
    result = sandbox.run_boxed(
        os.path.abspath(__file__), args, files, stdin=key.encode() + b"\n", timeout=timeout, memory=memory,
        box=box, flags=["--child"],
    )  # fmt: skip
    return sandbox.verified(result.data, key), result


def _host_paths(x, inside, path):
    """The report with the child's path of the learner's file replaced by theirs."""
    if isinstance(x, str):
        return re.sub(r"(?<![\w/.-])" + re.escape(inside), lambda _: path, x)
    if isinstance(x, dict):
        return {k: _host_paths(v, inside, path) for k, v in x.items()}
    if isinstance(x, list):
        return [_host_paths(v, inside, path) for v in x]
    return x


def _unusable(path, message, **extra):
    return {"file": path, "status": "unusable", "message": message, "cases": [], "notes": [], "fault": None, **extra}


def _specificity(case):
    """0 for a fault located at one op (`=` for `+=`, the power rule ...), 1 for the
    order of the walk, 2 for a result no step explains: the report leads with the
    most telling case, whichever test found it first."""
    fault = case["fault"]
    if fault.get("diagnosis") in ("set-order", "wrong-result"):
        return 2
    return 1 if fault.get("op") in ("order", "backward()", "zero_grad") else 0


def _matches_battery(start, cases, own):
    """Do the reported cases follow the battery the class's ops announce, in order?"""
    from core.foreign import battery

    if start is None:
        return False
    planned, _ = battery.cases_for(start.get("offered", []))
    expected = list(own) + [case.name for case in planned]
    names = [c.get("name") for c in cases if c.get("name") not in (battery.ZERO_GRAD_CASE, battery.TOPO_CASE)]
    return names == expected and start.get("cases") == len(expected)


def _report(path, lines, result, timeout, memory, output, own=()):
    code, timed_out = result.code, result.timed_out
    start = next((x for x in lines if x.get("kind") == "start"), None)
    cases = [x for x in lines if x.get("kind") == "case"]
    notes = [x["text"] for x in lines if x.get("kind") == "note"]
    problem = next((x for x in lines if x.get("kind") == "unusable"), None)
    extra = {"output": output}
    if problem:
        return _unusable(path, problem["message"], cases=cases, **extra)
    if timed_out:
        where = "while loading the file"
        if any(x.get("kind") == "loaded" for x in lines):  # their file ran; their class's methods did not return
            where = "while trying your class's operations (Value(2.0), + and * with a number ...): a loop in a method?"
        if start:
            begun = [x["name"] for x in lines if x.get("kind") == "begin"]
            where = (
                f"in test {len(begun)} of {start['cases']}, {begun[-1]!r}"
                if len(begun) > len(cases)
                else "after the last test (checking zero_grad or your topological sort)"
            )
        return _unusable(
            path,
            f"did not finish within {timeout:g} s ({where}): an infinite loop? The check was stopped.",
            cases=cases,
            **extra,
        )
    if result.ended in ("memory", "processes", "lost", "stopped"):  # the run was ended from outside: say why, truly
        return _unusable(path, f"the check was stopped: your code {result.message()}.", cases=cases, **extra)
    done = bool(lines) and lines[-1].get("kind") == "done"
    if done and not _matches_battery(start, cases, own):
        return _unusable(
            path,
            "the report does not match the tests the studio runs: refused (it was not written by the check)",
            **extra,
        )
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
    failing = [c for c in cases if c["status"] == "fail" and c.get("fault")]
    first = min(failing, key=_specificity, default=None)
    fault = {"case": first["name"], "expr": first.get("text", ""), **first["fault"]} if first else None
    error = next((c for c in cases if c["status"] == "error"), None)
    checked = [c for c in cases if c["status"] in ("pass", "fail")]
    own_unchecked = next((c for c in cases if c.get("own") and c["status"] == "unchecked"), None)
    message = ""
    if fault:
        status = "wrong"
    elif error is not None:
        status = "raised"
        fault = {"case": error["name"], "node": None, "op": None, "diagnosis": "raised", "cause": error["error"]}
        if error.get("fault"):  # the step that raised, for the debugger to stop on
            fault = {"case": error["name"], **error["fault"]}
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


def child_main(path: str, write_fd: int, memory: int, seconds: int, program_path: str = "") -> int:
    import runpy

    key = sys.stdin.readline().strip()  # before their code runs; stdin is then closed
    sys.stdin.close()
    os.set_inheritable(write_fd, False)  # programs their code starts do not get the pipe
    limit_child(memory, seconds)
    sys.path.insert(0, ROOT)
    from core.foreign.check import EngineError, check_class, find_value_class
    from core.foreign.expression import case_of

    own = []
    if program_path:  # written by the parent, before their code runs
        with open(program_path, encoding="utf-8") as f:
            own.append(case_of(json.load(f)))

    out = os.fdopen(write_fd, "w", encoding="utf-8")  # noqa: SIM115 -- open for the whole run
    me = os.getpid()

    def report(item: dict[str, Any]) -> None:
        if os.getpid() != me:  # a copy of this process their code forked: it does not report
            os._exit(0)
        text = json.dumps(plain(item), allow_nan=False)
        out.write(sign(key, text) + " " + text + "\n")
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
    report({"kind": "loaded"})  # their module ran to its end: a hang from here is in their class
    try:
        V = find_value_class(namespace)
    except EngineError as e:
        report({"kind": "unusable", "message": str(e)})
        return 0
    try:
        check_class(V, report, own, namespace)
    except MemoryError:
        report({"kind": "unusable", "message": f"the engine ran out of memory (limit {memory >> 20} MB)"})
        return 0
    except BaseException as e:  # noqa: BLE001 -- sys.exit inside their methods, and the like
        report({"kind": "unusable", "message": f"the check stopped: {type(e).__name__}: {e}"})
        return 0
    report({"kind": "done"})
    return 0


if __name__ == "__main__" and len(sys.argv) == 7 and sys.argv[1] == "--child":
    sys.exit(child_main(sys.argv[3], int(sys.argv[2]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]))  # FD first
