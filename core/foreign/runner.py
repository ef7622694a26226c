"""Checking a learner's engine file or package in a box; the verdict is made here.

The learner's file is their code: it may loop forever, call `sys.exit`, ask for
10 GB, read a classmate's files or not even parse. So the studio never imports
it. `check_file(path)` sends the test programs (core/foreign/battery.py) to a
child process in a box of its own (core/sandbox/: bubblewrap where Linux
gives one, else a supervisor with limits), where the only studio code is the
harness of core/foreign/child -- the standard library, no engine, no checker.
The child returns plain numbers; this process judges them (core/foreign/judge.py)
and returns a report (a dict of plain data): `status` is 'ok', 'wrong' (a wrong
gradient: see `fault`), 'unusable' (with a `message` that says why: a timeout
names the test that was running), 'raised' (their code raised, with its line)
or 'unchecked' (nothing could be compared: their class lacks the ops).
"""

from __future__ import annotations

import json
import math
import os
import re
import secrets
import tempfile
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from core import sandbox  # noqa: E402
from core.foreign.words import WORDS  # noqa: E402 -- the report's word for each special method

TIMEOUT = 20.0  # seconds of wall time for the whole battery
UNSTEPPED = {  # why the child could not step their code node by node (core/foreign/child/probe.py step_all)
    "grad-method": "your grad is computed by a method, so it cannot be zeroed and seeded from outside",
    "read-only": "your grad cannot be set from outside",
    "no-node-code": "your nodes carry no gradient code of their own -- no _backward closure, local grads or "
    "chain_rule -- your backward pass computes every grad itself",
}
MEMORY = sandbox.MEMORY  # bytes: address space per process, resident memory of all together


# -----------------------------------------------------------------------------
# The parent side


def check_file(
    path: str | os.PathLike[str],
    timeout: float = TIMEOUT,
    memory: int = MEMORY,
    expression: str | None = None,
    seed: int | None = None,
    box: bool | None = None,
    big: bool = False,
) -> dict[str, Any]:
    """Check the learner's engine in `path` (a .py file, or a package folder such as
    MiniTorch's `minitorch/`) in a child process; return the report.

    `expression`: their own expression too (text in the studio's syntax), checked
    first. It is parsed here, never run; one that cannot be read gives an
    'unusable' report naming line and column, and no process starts. `seed`: the
    test points are drawn afresh for this run (-1); an int draws them from that seed,
    None (the default) takes the battery's written points -- tests and the
    debugger's examples; the command line and class grading draw (-1). `box`: see
    `core.sandbox.run_boxed` (None: in a box where one can be had). `big`: the report's "big"
    also holds the biggest graph their file built at module level, when it is too big to read op by
    op (core/foreign/child/habits.py `big_graph`; Debug my engine opens it collapsed)."""
    from core.foreign import battery  # not at the top: a module the child never imports
    from core.foreign.child.main import LAUNCHER
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
    request = {"engine": path, "memory": int(memory), "big": bool(big), **battery.request(own + tests, templates)}
    known = {c.name: c for c in own + tests}
    with tempfile.TemporaryDirectory(prefix="bps-engine-") as tmp:
        launcher = os.path.join(tmp, "probe_main.py")
        with open(launcher, "w", encoding="utf-8") as f:
            f.write(LAUNCHER)
        name = os.path.basename(path.rstrip(os.sep)) or "engine.py"
        request["engine"] = name  # in the box's scratch folder, beside the harness
        request_path = os.path.join(tmp, "request.json")
        with open(request_path, "w", encoding="utf-8") as f:
            json.dump(request, f, allow_nan=False)
        key = secrets.token_hex(16)
        files = {name: path, "request.json": request_path}
        args = ["request.json", str(int(memory)), str(int(math.ceil(timeout)))]
        result = sandbox.run_boxed(
            launcher, args, files, stdin=key.encode() + b"\n", timeout=timeout, memory=memory, box=box,
            shared={"bps_child": CHILD}, preload=PRELOAD,
        )  # fmt: skip
        lines = sandbox.verified(result.data, key)
    output = _host_paths(result.output[:2000], name, path)
    if lines is None:
        return _unusable(path, "the check's report was forged or cut (a line not written by the studio): refused")
    lines = _host_paths(lines, name, path)  # their files by the names they know, before anything quotes them
    report = _report(path, lines, result, timeout, memory, output, known, templates, own)
    report["seed"] = seed
    report["boxed"] = result.boxed
    return report


def _package_in(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "__init__.py")) or any(
        os.path.isfile(os.path.join(path, d, "__init__.py")) for d in os.listdir(path)
    )


CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child")
# what a warm box's supervisor imports once for every submission it runs (sandbox.warm): the
# harness, and numpy, which engines import (its import alone is ~0.1 s of CPU a submission)
PRELOAD = ("bps_child.main", "bps_child.run", "numpy")


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


DOMAIN = re.compile(r"math domain error|complex|ValueError|ZeroDivisionError|OverflowError")


def _outside_domains(cases: list[dict[str, Any]], methods: list[str], notes: list[str]) -> None:
    """A method of theirs the studio does not know is tested at points it chose blind (x = -1.3
    among them): where it raised a domain error (their `sqrt` at a negative x: math domain
    error, or a complex number) while it works at another point, the point is outside its
    domain -- not checked, and said -- rather than their code raising."""
    for method in methods:
        mine = [c for c in cases if c.get("name", "").startswith(f"{method}(x)")]
        fine = [c for c in mine if c.get("status") in ("pass", "fail")]
        for c in mine:
            error = str(c.get("error") or "")
            if fine and c.get("status") == "error" and "building the expression" in error and DOMAIN.search(error):
                c.pop("error", None)
                c.update(status="unchecked", why=f"outside your {method}'s domain: {error}", fault=None)
                notes.append(f"{c['name']}: outside your {method}'s domain (it raised there), not checked")


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


def _expression(case):
    """'x * y' of 'x * y at x=0.0, y=3.0': the test's expression without its point."""
    return case["name"].split(" at ")[0]


def _telling_error(cases):
    """The test that raised to lead the report with: one whose expression raised at every
    point it was tried (a fault of the op itself) before one that raised at one point only
    (a symptom there: a zero derivative dropped at x = 0 says less than every one-input
    function failing); else the first. None when nothing raised."""
    errors = [c for c in cases if c["status"] == "error"]
    everywhere = []
    for c in errors:
        tried = [o for o in cases if _expression(o) == _expression(c)]
        if len(tried) > 1 and all(o["status"] == "error" for o in tried):  # one point says nothing of the others
            everywhere.append(c)
    return (everywhere or errors or [None])[0]


def _only_here(error, cases):
    """' -- only at this point: x * y passed at its 2 other point(s)' when it raised at its point only."""
    passed = [c for c in cases if _expression(c) == _expression(error) and c["status"] == "pass"]
    if not passed:
        return ""
    return f" -- only at this point: {_expression(error)} passed at its {len(passed)} other point(s)"


def _report(path, lines, run, timeout, memory, output, known, templates, own=()):
    """The report from the child's lines: each test judged here (core/foreign/judge.py).
    `run`: the run's core.sandbox.BoxResult (how it ended)."""
    from core.foreign import judge, quoting, whole_pass
    from core.foreign.diagnosis import their_names, their_words

    code, timed_out = run.code, run.timed_out
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
            result = judge.judge(case, item, max(eps, item.get("eps", eps)), keep=case.name in own_names)
            fault = result.get("fault") or {}
            if fault.get("op") in ("order", "backward()") and start and start.get("backward_line"):
                fault["line"] = quoting.line_text(start["backward_line"])
            if case.name in own_names:
                result["own"] = True
            cases.append(result)
    for item in lines:
        if item.get("kind") == "zeroing" and "result" in item:
            extra_item = whole_pass.zeroing_item(item["result"])
            if extra_item and extra_item["kind"] == "note":
                notes.append(extra_item["text"])
            elif extra_item:
                cases.append(extra_item)
        if item.get("kind") == "topo" and "result" in item:
            failed = any(c["status"] == "fail" for c in cases)
            extra_item = whole_pass.topo_item(item["result"], failed)
            if extra_item and extra_item["kind"] == "note" and not any(c["status"] == "pass" for c in cases):
                extra_item = None  # "your grads came out right anyway" needs grads that came out right
            if extra_item and extra_item["kind"] == "note":
                notes.append(extra_item["text"])
            elif extra_item:
                cases.append(extra_item)
    _outside_domains(cases, (start or {}).get("unknown_methods", []), notes)
    if any(c.get("ops_inferred") for c in cases):  # said once, not as a note on every node of every test
        notes.append(
            "your nodes carry no op name (no `_op`): the studio recognised each op from its numbers "
            "(x·y as mul, ...); a failing test's notes say where that reading was unsure"
        )
    if start and start.get("stand_ins"):
        names = ", ".join(start["stand_ins"])
        notes.append(f"not installed here, replaced by an inert stand-in while your code loaded: {names}")
    unstepped = [c.get("unstepped", "") for c in cases if c.get("stepped") is False]
    if unstepped:
        why = UNSTEPPED.get(unstepped[0], UNSTEPPED["read-only"])
        notes.append(
            f"your gradient code could not be stepped node by node ({why}): judged by your backward()'s results"
        )
    if start and start.get("leaf_note"):
        notes.append(f"your class's leaves need an opt-in flag: {start['leaf_note']}")
    if problem:
        return _unusable(path, problem["message"], cases=cases, **extra)
    read_as = (start or {}).get("read_as") or {}
    near = [(theirs, meant) for theirs, meant in (start or {}).get("near_misses", []) if theirs not in read_as.values()]
    misspelt = [f"`{theirs}` (the studio looks for `{meant}`)" for theirs, meant in near]
    if start and start.get("gradient_code") is False and (start.get("shape") or {}).get("method"):
        grad = start["shape"]["grad"]
        return _unusable(
            path,
            f"your {start['class']} computes a gradient by calling `{grad}()` on a node, which pulls it from the "
            f"nodes that use it (reverse mode, pull style): the studio checks a backward() pass that fills a number "
            f"`.{grad}` on every node, so it cannot check this design -- add such a backward() to have it checked",
            **extra,
        )
    if start and start.get("gradient_code") is False:
        found = f"Your class has {', '.join(misspelt)}: misspelt? " if misspelt else ""
        return _unusable(
            path,
            f"{found}Under the names the studio reads, your {start['class']} has no backward() and no gradient "
            "code on its nodes (no _backward closure, no local grads, no chain_rule): nothing computes a gradient "
            "yet -- write them, or, if you did, check that they are indented inside the class",
            **extra,
        )
    if read_as:
        took = " and ".join(
            f"`{theirs}` as {'backward()' if kind == 'pass' else '_backward'}"
            for kind, theirs in sorted(read_as.items())
        )
        notes.append(f"the studio read your {took}: misspelt? (micrograd's names are backward and _backward)")
    if misspelt:
        notes.append(f"your class has {', '.join(misspelt)}: misspelt? The check used only the names it knows")
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
    if run.ended in ("memory", "processes", "lost", "stopped"):  # the run was ended from outside: say why, truly
        return _unusable(path, f"the check was stopped: your code {run.message()}.", cases=cases, **extra)
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
    error = _telling_error(cases)
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
        message = f"your code raised in test {error['name']!r}: {error['error']}{_only_here(error, cases)}"
    elif own_unchecked is not None:
        status = "unchecked"
        message = f"could not check {own_unchecked['name']!r}: {own_unchecked['why']}"
    elif not checked:
        status = "unchecked"
        why = next((c.get("why") for c in cases if c.get("why")), None)
        message = "could not check: " + (why or "your class offers none of the ops the tests use (+, *, ...)")
    else:
        status = "ok"
    style = next((c["style"] for c in cases if c.get("style")), "closures")
    notes = [their_words(note, style) for note in notes]  # MiniTorch's derivatives, not micrograd's grads
    names = (start or {}).get("names") or {}
    if style != "minitorch" and names:  # their backprop() and .back for micrograd's backward() and _backward
        notes = [their_names(note, names) for note in notes]
        message = their_names(message, names)
        if fault and isinstance(fault.get("cause"), str):
            fault["cause"] = their_names(fault["cause"], names)
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
        "big": next((x for x in lines if x.get("kind") == "big"), None),  # the big graph their file built
        **extra,
    }


def _offered_words(start):
    """What their class offers, in the report's words: add, mul, rsub, tanh, sin ..."""
    if not start:
        return []
    return sorted({WORDS.get(o, o) for o in start.get("offered", [])} | set(start.get("unknown_methods", [])))


# -----------------------------------------------------------------------------
# The child side (runs the learner's code)


def _host_paths(x: Any, inside: str, path: str) -> Any:
    """`x` with the box's path of the learner's file or folder (`/box/NAME`, or the
    scratch folder's `.../box/NAME` without a box) replaced by theirs."""
    if isinstance(x, str):
        return re.sub(r"[^\s'\"`(]*/box/" + re.escape(inside), lambda _: path, x)
    if isinstance(x, dict):
        return {k: _host_paths(v, inside, path) for k, v in x.items()}
    if isinstance(x, list):
        return [_host_paths(v, inside, path) for v in x]
    return x
