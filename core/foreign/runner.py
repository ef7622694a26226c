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

import hashlib
import hmac
import json
import math
import os
import secrets
import select
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIMEOUT = 20.0  # seconds of wall time for the whole battery
MEMORY = 1 << 30  # bytes of address space for the child
OUTPUT = 4 << 20  # bytes the child may write to any one file
REPORT = 64 << 20  # bytes of report the parent reads at most
GRACE = 30.0  # seconds the supervisor may take beyond the limit to clean up


# -----------------------------------------------------------------------------
# The parent side


def check_file(
    path: str | os.PathLike[str],
    timeout: float = TIMEOUT,
    memory: int = MEMORY,
    expression: str | None = None,
    seed: int | None = None,
) -> dict[str, Any]:
    """Check the learner's engine in `path` (a .py file, or a package folder such as
    MiniTorch's `minitorch/`) in a child process; return the report.

    `expression`: their own expression too (text in the studio's syntax), checked
    first. It is parsed here, never run; one that cannot be read gives an
    'unusable' report naming line and column, and no process starts. `seed`: the
    test points are drawn afresh for this run (-1); an int draws them from that seed,
    None (the default) takes the battery's written points -- tests and the
    debugger's examples; the command line and class grading draw (-1)."""
    from core.foreign import battery  # not at the top: a module the child never imports
    from core.foreign.expression import ExprError, case_of, program_of

    path = os.path.abspath(path)
    own: list[battery.Case] = []
    if expression is not None:
        try:
            own.append(case_of(program_of(expression)))
        except ExprError as e:
            return _unusable(path, f"your expression {expression.strip()!r}: {e}")
    if not os.path.exists(path):
        return _unusable(path, f"{path}: no such file or folder")
    if os.path.isdir(path) and not _package_in(path):
        return _unusable(
            path, f"{path} is a folder with no Python package in it: give the .py file that defines your Value class"
        )
    if not os.path.isdir(path) and not os.path.isfile(path):
        return _unusable(path, f"{path} is not a regular file (a FIFO or a device?): give a .py file")
    if seed == -1:
        seed = secrets.randbelow(1 << 31)
    tests, templates = battery.cases(seed)
    request = {
        "engine": path,
        "memory": int(memory),
        "cases": [{"name": c.name, "program": c.program} for c in own + tests],
        "each_method": [{"name": c.name, "program": c.program} for c in templates],
        "topo": [{"name": c.name, "program": c.program} for c in battery.topo_cases()],
    }
    known = {c.name: c for c in own + tests}
    with tempfile.TemporaryDirectory(prefix="bps-engine-") as tmp:
        launcher = install_child(tmp)
        request_path = os.path.join(tmp, "request.json")
        with open(request_path, "w", encoding="utf-8") as f:
            json.dump(request, f, allow_nan=False)
        log_path = os.path.join(tmp, "output.txt")
        key = secrets.token_hex(16)
        args = [request_path, str(int(memory)), str(int(math.ceil(timeout)))]
        data, status = run_supervised([launcher], args, timeout, tmp, log_path, key)
        lines = _verified(data, key)
        output = _read_text(log_path, 2000)
    if lines is None:
        return _unusable(path, "the check's report was forged or cut (a line not written by the studio): refused")
    report = _report(path, lines, status["code"], status["timed_out"], timeout, memory, output, known, templates, own)
    report["seed"] = seed
    return report


def _package_in(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "__init__.py")) or any(
        os.path.isfile(os.path.join(path, d, "__init__.py")) for d in os.listdir(path)
    )


CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child")


def install_child(folder: str) -> str:
    """Copy the child's harness (core/foreign/child, standard library only) into
    `folder` as the package `bps_child`, with its launcher; return the launcher's
    path. The child runs this copy, never the studio's own modules."""
    import shutil

    from core.foreign.child.main import LAUNCHER

    target = os.path.join(folder, "bps_child")
    shutil.copytree(CHILD, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    launcher = os.path.join(folder, "probe_main.py")
    with open(launcher, "w", encoding="utf-8") as f:
        f.write(LAUNCHER)
    return launcher


def child_env() -> dict[str, str]:
    """The environment of a child that runs a learner's code: a fixed hash seed,
    one BLAS thread, no .pyc files written, and nothing else of ours."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONHASHSEED": "0",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def run_supervised(
    script: list[str], args: list[str], timeout: float, cwd: str, log_path: str, key: str = ""
) -> tuple[bytes, dict[str, Any]]:
    """Run `python -I *script FD *args` under the supervisor (this file, --supervise),
    which waits at most `timeout` s and then, whatever happened, kills every process
    the learner's code started. The child writes its report to the pipe FD; `key`
    reaches it as the first line of its stdin. Returns (the bytes written to the
    pipe, the supervisor's {code, timed_out}). Also the lecture-code runner's
    (core/lecture/run.py), so both have one way to end what a learner's code starts."""
    read_end, write_end = os.pipe()
    argv = [sys.executable, "-I", os.path.abspath(__file__), "--supervise", str(timeout), str(write_end)]
    argv += [str(len(script)), *script, *args]
    with open(log_path, "wb") as log:
        supervisor = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            cwd=cwd,
            env=child_env(),
            pass_fds=(write_end,),
            start_new_session=True,
        )
    os.close(write_end)
    assert supervisor.stdin is not None and supervisor.stdout is not None  # both PIPE above
    try:
        supervisor.stdin.write(key.encode() + b"\n")  # the key reaches the child through its stdin only
        supervisor.stdin.close()
    except OSError:
        pass
    data = _read_until_closed(read_end, timeout + GRACE)
    os.close(read_end)
    try:
        supervisor.wait(timeout=GRACE)
    except subprocess.TimeoutExpired:
        _kill(supervisor)
        supervisor.wait()
    out = supervisor.stdout.read()  # one short line: it never fills the pipe
    supervisor.stdout.close()
    try:
        status = json.loads(out.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        status = {"code": supervisor.returncode, "timed_out": True}
    return data, status


def _read_until_closed(fd, limit):
    """Everything written to the pipe until every writer has closed it (the supervisor
    has killed them all) or `limit` seconds passed; at most REPORT bytes."""
    chunks, size = [], 0
    deadline = time.monotonic() + limit
    while size < REPORT:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            break
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def sign(key: str, text: str) -> str:
    return hmac.new(key.encode(), text.encode(), hashlib.sha256).hexdigest()


def _verified(data, key):
    """The report's items, or None when any line is not signed with the key."""
    items = []
    for raw in data.decode("utf-8", "replace").splitlines():
        mac, _, text = raw.partition(" ")
        if not hmac.compare_digest(mac, sign(key, text)):
            return None
        items.append(json.loads(text))
    return items


def _kill(child):
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        child.kill()


def _read_text(path, limit):
    try:
        with open(path, "rb") as f:
            return f.read(limit).decode("utf-8", "replace")
    except OSError:
        return ""


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


def _report(path, lines, code, timed_out, timeout, memory, output, known, templates, own=()):
    """The report from the child's lines: each test judged here (core/foreign/judge.py)."""
    from core.foreign import judge

    start = next((x for x in lines if x.get("kind") == "start"), None)
    problem = next((x for x in lines if x.get("kind") == "unusable"), None)
    extra = {"output": output}
    eps = float(start.get("eps", 2.0**-52)) if start else 2.0**-52
    by_name = dict(known)
    for template in templates:  # the tests of ops the studio does not know, one per method of theirs
        for method in (start or {}).get("unknown_methods", []):
            from core.foreign.battery import Case

            name = template.name.replace("METHOD", method)
            steps = [{**s, "method": method} if s.get("method") == "METHOD" else s for s in template.program["steps"]]
            prog = {**template.program, "name": name, "steps": steps}
            by_name[name] = Case(name, prog, template.text.replace("METHOD", method))
    own_names = {c.name for c in own}
    cases, skipped, notes = [], [], []
    for item in lines:
        kind = item.get("kind")
        if kind == "case" and "skipped" in item and item.get("name") in own_names:
            missing = ", ".join(WORDS.get(m, m) for m in item["skipped"])
            why = f"your expression uses {missing}, which your class does not offer"
            cases.append(
                {
                    "name": item["name"],
                    "status": "unchecked",
                    "steps": 0,
                    "notes": [],
                    "fault": None,
                    "why": why,
                    "own": True,
                }
            )
        elif kind == "case" and "skipped" in item:
            skipped.append({"name": item["name"], "missing": [WORDS.get(m, m) for m in item["skipped"]]})
        elif kind == "case":
            case = by_name.get(item.get("name"))
            if case is None:
                return _unusable(path, "the check's report names a test the studio never asked for: refused", **extra)
            result = judge.judge(case, item, eps, keep=case.name in own_names)
            fault = result.get("fault") or {}
            if fault.get("op") in ("order", "backward()") and start and start.get("backward_line"):
                fault["line"] = judge.line_text(start["backward_line"])
            if case.name in own_names:
                result["own"] = True
            cases.append(result)
    for item in lines:
        if item.get("kind") == "zeroing" and "result" in item:
            extra_item = judge.zeroing_item(item["result"])
            if extra_item and extra_item["kind"] == "note":
                notes.append(extra_item["text"])
            elif extra_item:
                cases.append(extra_item)
        if item.get("kind") == "topo" and "result" in item:
            failed = any(c["status"] == "fail" for c in cases)
            extra_item = judge.topo_item(item["result"], failed)
            if extra_item and extra_item["kind"] == "note" and not any(c["status"] == "pass" for c in cases):
                extra_item = None  # "your grads came out right anyway" needs grads that came out right
            if extra_item and extra_item["kind"] == "note":
                notes.append(extra_item["text"])
            elif extra_item:
                cases.append(extra_item)
    if start and start.get("stand_ins"):
        names = ", ".join(start["stand_ins"])
        notes.append(f"not installed here, replaced by an inert stand-in while your code loaded: {names}")
    if any(c.get("stepped") is False for c in cases):
        notes.append(
            "your gradient code could not be stepped node by node (your grad cannot be set from outside): "
            "judged by your backward()'s results"
        )
    if start and start.get("leaf_note"):
        notes.append(f"your class's leaves need an opt-in flag: {start['leaf_note']}")
    if problem:
        return _unusable(path, problem["message"], cases=cases, **extra)
    if start and start.get("gradient_code") is False:
        return _unusable(
            path,
            f"your {start['class']} has no backward() and no gradient code on its nodes (no _backward closure, "
            "no local grads, no chain_rule): nothing of yours computes a gradient yet -- is a method indented "
            "outside the class?",
            **extra,
        )
    if timed_out:
        where = "while loading the file"
        if any(x.get("kind") == "loaded" for x in lines):  # their file ran; their class's methods did not return
            where = "while trying your class's operations (Value(2.0), + and * with a number ...): a loop in a method?"
        if start:
            begun = [x["name"] for x in lines if x.get("kind") == "begin"]
            done_cases = [x for x in lines if x.get("kind") == "case" and "skipped" not in x]
            where = (
                f"in test {len(begun)}, {begun[-1]!r}"
                if len(begun) > len(done_cases)
                else "after the last test (checking zero_grad or your topological sort)"
            )
        return _unusable(
            path,
            f"did not finish within {timeout:g} s ({where}): an infinite loop? The check was stopped.",
            cases=cases,
            **extra,
        )
    done = bool(lines) and lines[-1].get("kind") == "done"
    reported = {x.get("name") for x in lines if x.get("kind") == "case"}
    if done and start is not None and set(known) - reported:
        return _unusable(
            path,
            "the report does not match the tests the studio asked for: refused (it was not written by the check)",
            **extra,
        )
    if done and start is None:
        return _unusable(path, "the report does not say which class it checked: refused", **extra)
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
        fault = {"case": error["name"], "expr": error.get("text", ""), **(error.get("fault") or {})}
        fault.setdefault("diagnosis", "raised")
        fault.setdefault("cause", error["error"])
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
        "offered": _offered_words(start),
        "skipped": skipped,
        "cases": cases,
        "notes": notes,
        "fault": fault,
        "message": message,
        **extra,
    }


WORDS = {
    "__add__": "add", "__radd__": "radd", "__sub__": "sub", "__rsub__": "rsub", "__mul__": "mul",
    "__rmul__": "rmul", "__truediv__": "div", "__rtruediv__": "rdiv", "__pow__": "pow", "__rpow__": "rpow",
    "__neg__": "neg", "__abs__": "abs",
}  # fmt: skip


def _offered_words(start):
    """What their class offers, in the report's words: add, mul, rsub, tanh, sin ..."""
    if not start:
        return []
    return sorted({WORDS.get(o, o) for o in start.get("offered", [])} | set(start.get("unknown_methods", [])))


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


def limit_child(memory: int, seconds: int, output: int = OUTPUT) -> None:
    """Limit this process, before a learner's code runs in it: `memory` bytes of
    address space, `seconds` (+1) of CPU, `output` bytes in any file it writes."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (seconds + 1, seconds + 2))
    resource.setrlimit(resource.RLIMIT_FSIZE, (output, output))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an over-long write raises instead of killing


# -----------------------------------------------------------------------------
# The supervisor: every process the learner's code starts ends with the check

PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36


def _prctl(option: int, value: int) -> bool:
    """Linux's prctl, or False where there is none (the check then relies on the
    child's process group alone)."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _die_with_parent() -> None:
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def children_of(pid: int) -> list[tuple[int, str]]:
    """[(pid, state)] of the processes whose parent is `pid`, from /proc."""
    found: list[tuple[int, str]] = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.append((int(name), fields[0]))
    return found


def end_descendants() -> int:
    """Kill and reap every descendant of this process. As a child subreaper it
    inherits every orphan below it -- a double fork or a setsid() included -- so
    killing its children until none is left ends them all. Returns how many."""
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


def supervise(timeout: float, write_fd: int, script: list[str], args: list[str]) -> int:
    """Run the child (`python -I *script FD *args`), wait at most `timeout` s, then end
    every process the learner's code started; print {code, timed_out, killed} as JSON."""
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _die_with_parent()
    key = sys.stdin.readline()
    child = subprocess.Popen(
        [sys.executable, "-I", *script, str(write_fd), *args],
        stdin=subprocess.PIPE,
        stdout=sys.stderr,
        stderr=sys.stderr,
        pass_fds=(write_fd,),
        start_new_session=True,
        preexec_fn=_die_with_parent,  # noqa: PLW1509 -- this process runs no threads
    )
    os.close(write_fd)
    try:
        assert child.stdin is not None  # stdin=PIPE
        child.stdin.write(key.encode())
        child.stdin.close()
    except OSError:
        pass
    timed_out = False
    try:
        code = child.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill(child)
        code = child.wait()
    killed = end_descendants()
    print(json.dumps({"code": code, "timed_out": timed_out, "killed": killed}), flush=True)
    return 0


if __name__ == "__main__" and len(sys.argv) > 5 and sys.argv[1] == "--supervise":
    _n = int(sys.argv[4])  # TIMEOUT FD N SCRIPT... ARGS...: the child's script is N words
    sys.exit(supervise(float(sys.argv[2]), int(sys.argv[3]), sys.argv[5 : 5 + _n], sys.argv[5 + _n :]))
