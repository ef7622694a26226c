"""Checking a class's engines at once: a folder of submissions becomes a table.

A teacher with 30 students who each wrote a `Value` class wants to know who is
right, what each got wrong, and which mistake the class makes most. So:

    files_of(paths)   every .py of a folder (or the files named), sorted
    check_many(...)   each file checked exactly as `--check-engine FILE` checks
                      one (runner.check_file: its own child process, the same
                      limits and categories), several at once -- one thread per
                      check waiting on its child, as many as there are cores
    row_of(report)    one row per submission: file, category, the first fault's
                      test, op and diagnosis, expressions passed / run, seconds
    histogram(rows)   how many submissions share each first-fault diagnosis
                      ("`=` instead of `+=`: 12 of 30"), most common first

`to_text`, `to_json` and `to_csv` write the table for a person, a script and a
gradebook. Nothing here runs a learner's code: check_file does, in its child.
"""

from __future__ import annotations

import csv
import io
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

from core.foreign import hints
from core.foreign.diagnosis import DIAGNOSES
from core.foreign.report import exit_code
from core.foreign.runner import TIMEOUT, check_file, plain

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


def row_of(report: dict[str, Any], seconds: float) -> dict[str, Any]:
    """One submission's row of the class table."""
    cases = report.get("cases", [])
    fault = report.get("fault") or {}
    return {
        "file": report["file"],
        "category": report["status"],
        "exit": exit_code(report),
        "test": fault.get("case", ""),
        "op": fault.get("op") or "",
        "diagnosis": fault.get("diagnosis", "") if report["status"] in ("wrong", "raised") else "",
        "passed": sum(c["status"] == "pass" for c in cases),
        "run": len(cases),
        "seconds": round(seconds, 2),
        "message": report.get("message", ""),
        "fault": fault or None,
    }


def check_many(
    paths: list[str],
    jobs: int | None = None,
    timeout: float = TIMEOUT,
    progress: Callable[[int, int, dict[str, Any]], None] | None = None,
    check: Callable[..., dict[str, Any]] = check_file,
) -> list[dict[str, Any]]:
    """Check every file; rows in the order of `paths`. `progress(done, total, row)` is
    called as each check ends (from a worker thread)."""
    jobs = max(1, jobs or os.cpu_count() or 1)
    rows: dict[str, dict[str, Any]] = {}

    def one(path: str) -> dict[str, Any]:
        start = time.monotonic()
        return row_of(check(path, timeout=timeout, seed=-1), time.monotonic() - start)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(one, path): path for path in paths}
        for future in as_completed(futures):
            row = future.result()
            rows[futures[future]] = row
            if progress is not None:
                progress(len(rows), len(paths), row)
    return [rows[p] for p in paths]


def histogram(rows: list[dict[str, Any]]) -> list[tuple[str, int]]:
    """[(diagnosis, submissions)] of the first faults, most common first."""
    counts = Counter(r["diagnosis"] for r in rows if r["diagnosis"])
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def words(diagnosis: str) -> str:
    return WORDS.get(diagnosis, diagnosis)


# -----------------------------------------------------------------------------
# Writing the table


def to_text(rows: list[dict[str, Any]], hint_rungs: int = 0) -> str:
    name_width = max(len(os.path.basename(r["file"])) for r in rows)
    lines = [f"{'file':<{name_width}}  {'category':<9}  {'passed':>9}  {'s':>6}  first fault"]
    for r in rows:
        first = f"{words(r['diagnosis'])} at op {r['op']} ({r['test']})" if r["diagnosis"] else r["message"]
        passed = f"{r['passed']}/{r['run']}"
        name = os.path.basename(r["file"])
        lines.append(f"{name:<{name_width}}  {r['category']:<9}  {passed:>9}  {r['seconds']:>6.1f}  {first}")
        if hint_rungs and r.get("fault") and r["category"] == "wrong":
            lines += [
                f"{'':<{name_width}}    hint {i}: {h}" for i, h in enumerate(hints.climb(r["fault"], hint_rungs), 1)
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
        row = dict(r)
        if hint_rungs and r.get("fault"):
            row["hints"] = hints.climb(r["fault"], hint_rungs)
        out.append(row)
    summary = {
        "submissions": out,
        "histogram": [{"diagnosis": d, "words": words(d), "count": n} for d, n in histogram(rows)],
    }
    return json.dumps(plain(summary), indent=2, sort_keys=True, allow_nan=False)


def to_csv(rows: list[dict[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for r in rows:
        writer.writerow({**r, "file": os.path.basename(r["file"])})
    return buffer.getvalue()
