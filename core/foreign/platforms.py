"""The results formats of the platforms teachers grade on: Gradescope and PrairieLearn.

A course of a thousand students does not run the studio on a laptop: it grades
on Gradescope or PrairieLearn, which start a fresh container per submission
and read one JSON file of results. These functions turn a check's report
(`runner.check_file`: status, cases[] with name and status, skipped[], fault,
message) into those files:

    gradescope(report)     Gradescope's results.json: score, and one entry per
                           test (name, score, max_score, status, output,
                           visibility), as its autograder specification says
                           (gradescope-autograders.readthedocs.io/en/latest/specs)
    prairielearn(report)   PrairieLearn's external-grader results.json: gradable,
                           score in [0, 1], message, tests[] with points and
                           max_points (docs/externalGrading.md, "Grading results")
    autograder_zip(out)    a Gradescope autograder bundle: setup.sh installs the
                           studio's core from the wheel or the source in the zip,
                           run_autograder checks /autograder/submission and writes
                           /autograder/results/results.json

Each test the studio runs is worth one point; a test the learner's class could
not run because it lacks the op (a class with no relu) scores 0 and says so. A
file that could not be checked at all (a syntax error, an endless loop) is one
test worth 0 whose output is the reason.
"""

from __future__ import annotations

import os
import stat
import sys
import zipfile
from typing import Any

from core.foreign.report import to_text

VISIBILITY = "visible"  # Gradescope: 'hidden', 'after_due_date', 'after_published' or 'visible'
MAX_OUTPUT = 4000  # characters of output per test


def _tests(report: dict[str, Any]) -> list[dict[str, Any]]:
    """[{name, passed, output}] for every test of the report, skipped ones included."""
    tests = []
    for case in report.get("cases") or []:
        if not isinstance(case, dict):
            continue
        status = str(case.get("status", ""))
        output = ""
        fault = case.get("fault") if isinstance(case.get("fault"), dict) else None
        if status == "fail" and fault:
            output = str(fault.get("cause") or f"wrong gradient at {fault.get('node')}")
            wrong = fault.get("wrong") or []
            if wrong and isinstance(wrong[0], dict):
                w = wrong[0]
                output += f"\n{w.get('name')}.grad: expected {w.get('expected')}, got {w.get('got')}"
        elif status == "error":
            output = f"your code raised: {case.get('error', '')}"
        elif status == "unchecked":
            output = f"could not be checked: {case.get('why', '')}"
        if case.get("text"):
            output = f"{case['text']}\n{output}".strip()
        tests.append({"name": str(case.get("name", "?")), "passed": status == "pass", "output": output[:MAX_OUTPUT]})
    for skipped in report.get("skipped") or []:
        if isinstance(skipped, dict):
            missing = ", ".join(str(m) for m in skipped.get("missing") or [])
            name = str(skipped.get("name", "?"))
            tests.append({"name": name, "passed": False, "output": f"your class has no {missing}"})
    if report.get("status") == "unusable" or not tests:
        why = str(report.get("message", ""))
        tests.insert(0, {"name": "the engine can be checked", "passed": False, "output": why})
    return tests


def gradescope(report: dict[str, Any], visibility: str = VISIBILITY) -> dict[str, Any]:
    """Gradescope's results.json for one submission's report."""
    tests = _tests(report)
    entries = [
        {
            "name": t["name"],
            "score": 1.0 if t["passed"] else 0.0,
            "max_score": 1.0,
            "status": "passed" if t["passed"] else "failed",
            "output": t["output"],
            "visibility": visibility,
        }
        for t in tests
    ]
    return {
        "score": sum(e["score"] for e in entries),
        "output": to_text(report)[: MAX_OUTPUT * 4] if report.get("file") else str(report.get("message", "")),
        "visibility": visibility,
        "stdout_visibility": "hidden",
        "tests": entries,
    }


def prairielearn(report: dict[str, Any]) -> dict[str, Any]:
    """PrairieLearn's results.json: a file that does not even parse is not gradable
    (no attempt counted, as PrairieLearn advises); anything else is graded."""
    message = str(report.get("message", ""))
    if report.get("status") == "unusable" and "syntax error" in message:
        return {"gradable": False, "format_errors": [message], "message": message}
    tests = _tests(report)
    passed = sum(t["passed"] for t in tests)
    return {
        "gradable": True,
        "score": passed / len(tests) if tests else 0.0,
        "message": message or f"{passed} of {len(tests)} tests right",
        "output": to_text(report)[: MAX_OUTPUT * 4] if report.get("file") else message,
        "tests": [
            {
                "name": t["name"],
                "points": 1 if t["passed"] else 0,
                "max_points": 1,
                "message": "right" if t["passed"] else "wrong",
                "output": t["output"],
            }
            for t in tests
        ],
    }


SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image (working folder: anywhere).
# BPS_AUTOGRADER_ROOT (default /autograder) lets the same script run in a test folder.
set -euo pipefail
ROOT="${BPS_AUTOGRADER_ROOT:-/autograder}"
SRC="$ROOT/source"
if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ] && [ -z "${BPS_NO_APT:-}" ]; then
  # the box each submission runs in; without it the check still runs, with process limits only
  apt-get install -y -qq bubblewrap python3-venv >/dev/null 2>&1 || echo "bubblewrap not installed: no box"
fi
"${BPS_PYTHON:-python3}" -m venv --system-site-packages "$ROOT/venv"
if ls "$SRC"/dist/*.whl >/dev/null 2>&1; then
  "$ROOT/venv/bin/pip" install -q --no-deps "$SRC"/dist/*.whl   # the studio, without its GUI's packages
else
  # the studio's core as source: a .pth file puts it on the venv's path
  "$ROOT/venv/bin/python" -c \\
    "import site, sys; print(sys.argv[1], file=open(site.getsitepackages()[0] + '/bps.pth', 'w'))" "$SRC/studio"
fi
"$ROOT/venv/bin/pip" install -q "numpy>=1.26" "networkx>=3.4"
"$ROOT/venv/bin/python" -c "import core.foreign.platforms"  # fails the build here, not at the first submission
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for each submission: check it, write results/results.json.
set -uo pipefail
ROOT="${BPS_AUTOGRADER_ROOT:-/autograder}"
mkdir -p "$ROOT/results"
cd "$ROOT"
"$ROOT/venv/bin/python" -m core.foreign.platforms --gradescope-submission "$ROOT/submission" \\
  "$ROOT/results/results.json"
"""


def autograder_zip(out: str, wheel: str | None = None) -> str:
    """Write a Gradescope autograder bundle to `out`: setup.sh, run_autograder and the
    studio -- `wheel` (a built .whl, installed without the GUI's packages) or else
    this studio's `core` package as source (all the checker needs)."""
    core = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in (("setup.sh", SETUP_SH), ("run_autograder", RUN_AUTOGRADER)):
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (stat.S_IFREG | 0o755) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, text)
        if wheel:
            z.write(wheel, f"dist/{os.path.basename(wheel)}")
        else:
            for folder, dirs, files in os.walk(core):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                for f in sorted(files):
                    if not f.endswith((".pyc", ".pyo")):
                        path = os.path.join(folder, f)
                        z.write(path, os.path.join("studio", "core", os.path.relpath(path, core)))
    return out


def best_report(paths: list[str], check: Any = None) -> dict[str, Any]:
    """The report of one submission: every .py in `paths` (folders searched to any
    depth, as a submission may arrive in a folder of its own), the one that checks
    best (most tests passed); at most 20 are run. A submission with no .py gets an
    'unusable' report saying so."""
    if check is None:
        from core.foreign.runner import check_file as check
    files: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            for here, dirs, names in os.walk(path):
                dirs.sort()
                files += [os.path.join(here, n) for n in sorted(names) if n.endswith(".py") and not n.startswith(".")]
        elif os.path.isfile(path):
            files.append(path)
    if not files:
        return {"status": "unusable", "message": f"no .py file in the submission ({', '.join(paths)})", "cases": []}
    reports = [check(f) for f in files[:20]]
    return max(reports, key=lambda r: sum(c.get("status") == "pass" for c in r.get("cases") or []))


def grade_submission(folder: str, results: str, check: Any = None) -> dict[str, Any]:
    """Check the submission in `folder` (`best_report`) and write Gradescope's
    results.json to `results`. Never raises for the submission's sake."""
    import json
    import tempfile

    data = gradescope(best_report([folder], check))
    os.makedirs(os.path.dirname(os.path.abspath(results)), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(results)), suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:  # whole or not at all (core.files is a floor too high)
        json.dump(data, f, indent=2, allow_nan=False)
    os.replace(tmp, results)
    return data


if __name__ == "__main__" and len(sys.argv) == 4 and sys.argv[1] == "--gradescope-submission":
    grade_submission(sys.argv[2], sys.argv[3])
