"""Checking a class's engines at once: a folder of submissions becomes a table.

A teacher with 30 students who each wrote a `Value` class wants to know who is
right, what each got wrong, and which mistake the class makes most. So:

    files_of(paths)   every .py of a folder (or the files named), sorted
    check_many(...)   each file checked exactly as `--check-engine FILE` checks
                      one (runner.check_file: its own child process, the same
                      limits and categories), several at once -- one thread per
                      check waiting on its child, as many as there are cores,
                      each thread's checks in one warm box (core/sandbox.WarmBox)
    row_of(report)    one row per submission: file, category, the first fault's
                      test, op and diagnosis, expressions passed / run, seconds
    histogram(rows)   how many submissions share each first-fault diagnosis
                      ("`=` instead of `+=`: 12 of 30"), most common first

`to_text`, `to_json` and `to_csv` write the table for a person, a script and a
gradebook. Nothing here runs a learner's code: check_file does, in its box.

A class is hostile input too. A file name need not be UTF-8 (it is written with
`backslashreplace`), a name or message may begin with `=` (a CSV cell starting
with = + - @ is a formula to a spreadsheet: it gets a leading '), a message may
carry terminal control sequences (escaped in the text table). One check that
fails in any way is one row, never the end of the run; `stop` (or Ctrl+C)
ends the checks still running at once and `Stopped` carries the rows done.
"""

from __future__ import annotations

import csv
import io
import json
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

from core import sandbox
from core.foreign import hints
from core.foreign.diagnosis import DIAGNOSES
from core.foreign.report import exit_code
from core.foreign.runner import TIMEOUT, check_file
from core.sandbox import plain

# a diagnosis code in words, for the histogram and the table (the one table: core/foreign/diagnosis.py)
WORDS = {d.code: d.words for d in DIAGNOSES}

COLUMNS = ("file", "category", "exit", "test", "op", "diagnosis", "passed", "run", "seconds", "message")


class FolderError(OSError):
    """The folder (or a file named) cannot be read: the message says which and why."""


def is_package_engine(path: str) -> bool:
    """A folder that is one learner's engine: a Python package (MiniTorch's `minitorch/`
    as the course hands it in), or a folder holding `minitorch/` (a student's repository)."""
    return os.path.isdir(path) and (
        os.path.isfile(os.path.join(path, "__init__.py"))
        or os.path.isfile(os.path.join(path, "minitorch", "__init__.py"))
    )


def files_of(paths: Iterable[str]) -> list[str]:
    """Every .py in the folders given (not in subfolders), every student folder that
    holds a package (one MiniTorch per student), and the files given, sorted."""
    found: list[str] = []
    for path in paths:
        if is_package_engine(path):
            found.append(path)
        elif os.path.isdir(path):
            try:
                names = sorted(os.listdir(path))
            except OSError as e:
                raise FolderError(f"{path}: cannot read the folder: {e.strerror}") from None
            found += [os.path.join(path, n) for n in names if n.endswith(".py") and not n.startswith(".")]
            found += [os.path.join(path, n) for n in names if is_package_engine(os.path.join(path, n))]
        elif os.path.isfile(path):
            found.append(path)
        else:
            raise FolderError(f"{path}: no such file or folder")
    if not found:
        raise FolderError(f"no .py files in {', '.join(paths)}")
    return sorted(dict.fromkeys(os.path.abspath(p) for p in found))


class Stopped(Exception):
    """The run was stopped (Ctrl+C, or the dialog closed): `rows` are the checks that
    ended before, in the order of the paths; `total` how many there were."""

    def __init__(self, rows: list[dict[str, Any]], total: int) -> None:
        super().__init__(f"stopped after {len(rows)} of {total} submissions")
        self.rows, self.total = rows, total


def name_of(path: str) -> str:
    """A file's name, printable whatever bytes it is made of (not UTF-8: \\xNN)."""
    return os.fsencode(os.path.basename(path)).decode("utf-8", "backslashreplace")


def row_of(report: Any, seconds: float, path: str = "") -> dict[str, Any]:
    """One submission's row of the class table, from whatever the check returned
    (a key missing or of the wrong kind reads as empty)."""
    if not isinstance(report, dict):
        report = {"file": path, "status": "unusable", "message": f"the check returned {type(report).__name__}"}
    cases = [c for c in report.get("cases") or [] if isinstance(c, dict)]
    fault = report.get("fault") if isinstance(report.get("fault"), dict) else {}
    status = str(report.get("status") or "unusable")
    return {
        "file": str(report.get("file") or path),
        "category": status,
        "exit": exit_code({**report, "status": status}),
        "test": str(fault.get("case") or ""),
        "op": str(fault.get("op") or ""),
        "diagnosis": str(fault.get("diagnosis") or "") if status in ("wrong", "raised") else "",
        "passed": sum(c.get("status") == "pass" for c in cases),
        "run": len(cases),
        "seconds": round(seconds, 2),
        "message": str(report.get("message") or ""),
        "fault": fault or None,
        "cases": [{"name": str(c.get("name", "")), "status": str(c.get("status", ""))} for c in cases],
        "output": str(report.get("output") or "")[:2000],
    }


def check_many(
    paths: list[str],
    jobs: int | None = None,
    timeout: float = TIMEOUT,
    progress: Callable[[int, int, dict[str, Any]], None] | None = None,
    check: Callable[..., dict[str, Any]] = check_file,
    stop: threading.Event | None = None,
) -> list[dict[str, Any]]:
    """Check every file; rows in the order of `paths`. `progress(done, total, row)` is
    called as each check ends (from a worker thread). A check that raises is that
    submission's 'unusable' row. When `stop` is set, or Ctrl+C reaches this thread,
    the checks running are ended at once and `Stopped` is raised with the rows done."""
    jobs = max(1, jobs or os.cpu_count() or 1)
    stop = stop or threading.Event()
    rows: dict[str, dict[str, Any]] = {}
    lock = threading.Lock()

    def one(path: str) -> dict[str, Any] | None:
        if stop.is_set():
            return None
        start = time.monotonic()
        try:
            with sandbox.group(stop):
                report = check(path, timeout=timeout, seed=-1)  # points drawn afresh per run
        except Exception as e:  # noqa: BLE001 -- one submission never ends the run
            report = {"file": path, "status": "unusable", "message": f"the check itself failed: {e!r}"}
        if stop.is_set():
            return None  # ended by the stop: no verdict
        row = row_of(report, time.monotonic() - start, path)
        with lock:
            rows[path] = row
            done = len(rows)
        if progress is not None:
            try:
                progress(done, len(paths), row)
            except Exception:  # noqa: BLE001, S110 -- a progress line that cannot be shown stops nothing
                pass
        return row

    pool = ThreadPoolExecutor(max_workers=jobs)
    warm = sandbox.warm()  # one warm box per worker, its harness imported once (sandbox.WarmBox)
    warm.__enter__()
    try:
        futures = [pool.submit(one, path) for path in paths]
        for future in as_completed(futures):
            future.result()
            if stop.is_set():
                break
    except KeyboardInterrupt:
        stop.set()
    finally:
        if stop.is_set():
            sandbox.stop(stop)
        # the warm boxes end before their worker threads do: bwrap's --die-with-parent is tied to
        # the thread that started it, and a box killed so loses what its children's CPU time says
        warm.__exit__(None, None, None)
        pool.shutdown(wait=True, cancel_futures=True)  # the runs were ended: this is quick
    done = [rows[p] for p in paths if p in rows]
    if stop.is_set():
        raise Stopped(done, len(paths))
    return done


def histogram(rows: list[dict[str, Any]]) -> list[tuple[str, int]]:
    """[(diagnosis, submissions)] of the first faults, most common first."""
    counts = Counter(r["diagnosis"] for r in rows if r["diagnosis"])
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def words(diagnosis: str) -> str:
    return WORDS.get(diagnosis, diagnosis)


# -----------------------------------------------------------------------------
# Writing the table


def printable(text: Any, lines: bool = False) -> str:
    """`text` with control characters (a terminal's escape sequences, \\r ...) shown
    as escapes, so a learner's message cannot move the cursor or recolour a terminal;
    `lines`: newlines are kept (a report of several lines)."""
    text = str(text)
    if text.isprintable():
        return text
    keep = "\n" if lines else ""
    return "".join(c if c.isprintable() or c in keep else c.encode("unicode_escape").decode("ascii") for c in text)


def to_text(rows: list[dict[str, Any]], hint_rungs: int = 0) -> str:
    if not rows:
        return "no submissions were checked"
    name_width = max(len(printable(name_of(r["file"]))) for r in rows)
    lines = [f"{'file':<{name_width}}  {'category':<9}  {'passed':>9}  {'s':>6}  first fault"]
    for r in rows:
        first = f"{words(r['diagnosis'])} at op {r['op']} ({r['test']})" if r["diagnosis"] else r["message"]
        first = printable(first)
        passed = f"{r['passed']}/{r['run']}"
        name = printable(name_of(r["file"]))
        lines.append(f"{name:<{name_width}}  {r['category']:<9}  {passed:>9}  {r['seconds']:>6.1f}  {first}")
        if hint_rungs and r.get("fault") and r["category"] == "wrong":
            lines += [
                f"{'':<{name_width}}    hint {i}: {printable(h)}"
                for i, h in enumerate(hints.climb(r["fault"], hint_rungs), 1)
            ]
    total = len(rows)
    counts = Counter(r["category"] for r in rows)
    lines.append("")
    lines.append(
        f"{total} submissions: "
        + ", ".join(f"{counts[c]} {c}" for c in ("ok", "wrong", "raised", "unchecked", "unusable") if counts[c])
    )
    shown = histogram(rows)
    if shown:
        lines.append("First faults, most common first:")
        width = max(len(words(d)) for d, _ in shown)
        for diagnosis, n in shown:
            lines.append(f"  {words(diagnosis):<{width}}  {'#' * n} {n} of {total}")
    return "\n".join(lines)


def to_json(rows: list[dict[str, Any]], hint_rungs: int = 0) -> str:
    out = []
    for r in rows:
        row = {**r, "file": os.fsencode(r["file"]).decode("utf-8", "backslashreplace")}
        if hint_rungs and r.get("fault"):
            row["hints"] = hints.climb(r["fault"], hint_rungs)
        out.append(row)
    summary = {
        "submissions": out,
        "histogram": [{"diagnosis": d, "words": words(d), "count": n} for d, n in histogram(rows)],
    }
    return json.dumps(plain(summary), indent=2, sort_keys=True, allow_nan=False)


FORMULA = ("=", "+", "-", "@", "\t", "\r")  # what makes a spreadsheet read a cell as a formula


def cell(value: Any) -> Any:
    """A CSV cell that a spreadsheet shows as text: one beginning like a formula gets a
    leading ' (OWASP's advice for CSV injection), control characters are escaped;
    numbers stay numbers."""
    if not isinstance(value, str):
        return value
    if value.startswith(FORMULA):
        value = "'" + value
    return printable(value)


def to_csv(rows: list[dict[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow({k: cell(v) for k, v in {**r, "file": name_of(r["file"])}.items() if k in COLUMNS})
    return buffer.getvalue()
