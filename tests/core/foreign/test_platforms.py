"""Gradescope's and PrairieLearn's results files, and a Gradescope autograder bundle run
in a folder laid out as Gradescope documents (/autograder/source, submission, results)."""

import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from core.foreign import platforms
from core.foreign.runner import check_file

ENGINES = os.path.join(os.path.dirname(__file__), "..", "..", "data", "engines")
VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}


def valid_gradescope(data):
    """The fields of Gradescope's results.json as its specification documents them."""
    assert isinstance(data["score"], float) and data["score"] >= 0
    assert data["visibility"] in VISIBILITY and data["stdout_visibility"] in VISIBILITY
    assert isinstance(data["output"], str) and data["tests"]
    for t in data["tests"]:
        assert set(t) <= {"score", "max_score", "status", "name", "name_format", "number", "output", "tags"} | {
            "visibility",
            "extra_data",
            "output_format",
        }
        assert isinstance(t["name"], str) and t["name"]
        assert isinstance(t["score"], float) and isinstance(t["max_score"], float) and 0 <= t["score"] <= t["max_score"]
        assert t["status"] in ("passed", "failed") and (t["status"] == "passed") == (t["score"] == t["max_score"])
        assert isinstance(t["output"], str) and t["visibility"] in VISIBILITY
    assert data["score"] == sum(t["score"] for t in data["tests"])
    json.dumps(data, allow_nan=False)


@pytest.fixture(scope="module")
def reports():
    return {name: check_file(os.path.join(ENGINES, f"{name}.py")) for name in ("tutorial", "bug_power")}


def test_a_right_engine_scores_every_test_it_runs(reports):
    data = platforms.gradescope(reports["tutorial"])
    valid_gradescope(data)
    ran = [t for t in data["tests"] if "your class has no" not in t["output"]]
    assert all(t["status"] == "passed" for t in ran) and len(ran) == len(reports["tutorial"]["cases"])


def test_a_wrong_engine_loses_the_tests_it_fails_and_says_why(reports):
    report = reports["bug_power"]
    data = platforms.gradescope(report)
    valid_gradescope(data)
    failed = [t for t in data["tests"] if t["status"] == "failed" and "power rule" in t["output"]]
    assert failed and data["score"] == sum(c["status"] == "pass" for c in report["cases"])
    missing = [t for t in data["tests"] if t["output"].startswith("your class has no") and "relu" in t["output"]]
    assert len(missing) == sum("relu" in s["missing"] for s in report["skipped"])  # an op it lacks scores 0


def test_an_unusable_file_is_one_failed_test_with_the_reason(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("class Value(:\n")
    report = check_file(str(path))
    data = platforms.gradescope(report)
    valid_gradescope(data)
    assert data["score"] == 0 and "syntax error" in data["tests"][0]["output"]
    pl = platforms.prairielearn(report)
    assert pl["gradable"] is False and "syntax error" in pl["format_errors"][0]


def test_prairielearn_scores_a_fraction_with_points(reports):
    pl = platforms.prairielearn(reports["bug_power"])
    assert pl["gradable"] is True and 0 < pl["score"] < 1
    assert pl["score"] == sum(t["points"] for t in pl["tests"]) / sum(t["max_points"] for t in pl["tests"])
    for t in pl["tests"]:
        assert {"name", "points", "max_points", "message", "output"} <= set(t)
    assert platforms.prairielearn(reports["tutorial"])["score"] < 1  # tutorial lacks some ops: those score 0
    json.dumps(pl, allow_nan=False)


def test_the_bundle_holds_what_gradescope_needs_at_its_root(tmp_path):
    out = platforms.autograder_zip(str(tmp_path / "ag.zip"))
    with zipfile.ZipFile(out) as z:
        names = set(z.namelist())
        bundled = {"setup.sh", "run_autograder", "studio/core/foreign/runner.py", "studio/core/sandbox/supervisor.py"}
        assert bundled <= names
        mode = z.getinfo("run_autograder").external_attr >> 16
        assert mode & 0o111  # executable
    for script in ("setup.sh", "run_autograder"):
        text = getattr(platforms, {"setup.sh": "SETUP_SH", "run_autograder": "RUN_AUTOGRADER"}[script])
        assert (
            text.startswith("#!/usr/bin/env bash")
            and subprocess.run(["bash", "-n"], input=text.encode()).returncode == 0
        )


@pytest.mark.slow
def test_the_bundle_runs_in_a_gradescope_folder_layout(tmp_path):
    """Unzipped into ROOT/source as Gradescope does, setup.sh run once, then run_autograder
    per submission: ROOT/results/results.json holds the verdict, valid field by field."""
    root = tmp_path / "autograder"
    (root / "source").mkdir(parents=True)
    with zipfile.ZipFile(platforms.autograder_zip(str(tmp_path / "ag.zip"))) as z:
        z.extractall(root / "source")
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")  # as Gradescope's image build does
    env = {**os.environ, "BPS_AUTOGRADER_ROOT": str(root), "BPS_NO_APT": "1", "BPS_PYTHON": sys.executable}
    env.pop("PYTHONPATH", None)
    setup = subprocess.run(["bash", str(root / "source" / "setup.sh")], env=env, capture_output=True, timeout=600)
    if setup.returncode != 0 and b"No matching distribution" in setup.stderr:
        pytest.skip("setup.sh needs PyPI for numpy here")  # a machine with neither numpy nor the network
    assert setup.returncode == 0, setup.stderr.decode()[-2000:]
    scores = {}
    for name in ("tutorial", "bug_power"):
        shutil.rmtree(root / "submission", ignore_errors=True)
        shutil.rmtree(root / "results", ignore_errors=True)
        (root / "submission").mkdir()
        shutil.copy(os.path.join(ENGINES, f"{name}.py"), root / "submission" / "engine.py")
        (root / "submission" / "README.txt").write_text("not code")
        run = subprocess.run(["bash", str(root / "run_autograder")], env=env, capture_output=True, timeout=300)
        assert run.returncode == 0, run.stderr.decode()[-2000:]
        data = json.loads((root / "results" / "results.json").read_text())
        valid_gradescope(data)
        scores[name] = data["score"]
        assert "engine.py" in data["output"]
    assert scores["tutorial"] > scores["bug_power"] > 0
    assert scores["tutorial"] == platforms.gradescope(check_file(os.path.join(ENGINES, "tutorial.py")))["score"]


def test_a_submission_in_a_folder_of_its_own_is_found_and_the_best_file_counts(tmp_path):
    inner = tmp_path / "sub" / "hw3"
    inner.mkdir(parents=True)
    (inner / "helpers.py").write_text("X = 1\n")
    shutil.copy(os.path.join(ENGINES, "bug_power.py"), inner / "engine.py")
    report = platforms.best_report([str(tmp_path / "sub")])
    assert report["file"].endswith("engine.py") and report["status"] == "wrong"
    empty = platforms.best_report([str(tmp_path / "nothing")])
    assert empty["status"] == "unusable" and "no .py" in empty["message"]
    valid_gradescope(platforms.gradescope(empty))
