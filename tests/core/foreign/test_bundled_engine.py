"""resources/engines/tutorial_value.py, the file lesson 19 ("Write your own Value") asks
the learner to check: it has the one bug the lesson promises (the power rule in __pow__)
and everything else is right, so the check stops on the first `**` test."""

import pathlib
import subprocess
import sys

from core.foreign.report import exit_code
from core.foreign.runner import check_file

ROOT = pathlib.Path(__file__).resolve().parents[3]
BUNDLED = ROOT / "resources" / "engines" / "tutorial_value.py"
LESSON = ROOT / "resources" / "lessons" / "19_write_your_own_value.json"


def test_the_bundled_engine_stops_at_the_power_rule():
    report = check_file(str(BUNDLED), timeout=300.0)
    assert exit_code(report) == 1
    fault = report["fault"]
    assert fault["case"] == "x**2 at x=-1.5" and fault["op"] == "**2" and fault["diagnosis"] == "power-rule"
    failing = [c["name"] for c in report["cases"] if c["status"] != "pass"]
    assert all("**" in name for name in failing)  # only the pow cases: one bug, nothing else
    assert "tutorial_value.py" in LESSON.read_text(encoding="utf-8")
    assert "`__pow__`" in LESSON.read_text(encoding="utf-8")


def test_the_bundled_engine_runs_as_a_script_and_shows_the_wrong_grad():
    out = subprocess.run([sys.executable, str(BUNDLED)], capture_output=True, text=True, timeout=300, check=True)
    assert "x.grad = -3.0, y.grad = 20.0" in out.stdout  # y.grad should be -4: the bug shows
