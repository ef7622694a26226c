"""`python main.py --check-engine FILE [--json]`: a report and an exit code, no window."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
ENGINES = os.path.join(ROOT, "tests", "data", "engines")


def run(*args):
    return subprocess.run(
        [sys.executable, os.path.join(ROOT, "main.py"), "--check-engine", *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )


@pytest.mark.parametrize(
    "name, code, words",
    [
        ("tutorial.py", 0, "every gradient is right"),
        ("local_grads.py", 0, "every gradient is right"),
        ("bug_tanh.py", 1, "op tanh"),
        ("bug_swapped_mul.py", 1, "operands swapped in `*`"),
        ("bug_order_recursive.py", 1, "order of the backward pass"),
        ("hostile_no_class.py", 2, "no Value class"),
        ("hostile_exit.py", 2, "exit code 3"),
    ],
)
def test_exit_codes_and_report(name, code, words):
    done = run(os.path.join(ENGINES, name))
    assert done.returncode == code, done.stdout + done.stderr
    assert words in done.stdout


def test_json_names_the_op():
    done = run(os.path.join(ENGINES, "bug_relu.py"), "--json")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["status"] == "wrong" and report["fault"]["op"] == "ReLU"
    assert report["fault"]["diagnosis"] == "relu-derivative"


def test_the_five_categories_by_exit_code(tmp_path):
    raises = tmp_path / "raises.py"  # right forward, a backward() that raises
    raises.write_text(
        open(os.path.join(ENGINES, "tutorial.py"), encoding="utf-8")
        .read()
        .replace("        build_topo(self)\n", "        build_topo(self)\n        raise RuntimeError('not yet')\n"),
        encoding="utf-8",
    )
    for path, code, category in [
        (os.path.join(ENGINES, "tutorial.py"), 0, "ok"),
        (os.path.join(ENGINES, "bug_tanh.py"), 1, "wrong"),
        (os.path.join(ENGINES, "hostile_no_class.py"), 2, "unusable"),
        (str(raises), 3, "raised"),
    ]:
        done = run(path, "--json")
        report = json.loads(done.stdout)
        assert (done.returncode, report["category"], report["status"]) == (code, code, category), done.stdout
        assert all({"name", "status"} <= set(case) for case in report["cases"])
    done = run(os.path.join(ENGINES, "micrograd_like.py"), "--expr", "x = 2; x.tanh()")
    assert done.returncode == 4 and "does not offer" in done.stdout  # an op their class lacks: not a wrong gradient


def test_a_folder_gives_a_table_a_histogram_and_a_csv(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("tutorial.py", "bug_assign.py", "bug_tanh.py", "hostile_no_class.py"):
        (folder / name).write_text(open(os.path.join(ENGINES, name), encoding="utf-8").read(), encoding="utf-8")
    out = tmp_path / "grades.csv"
    done = run(str(folder), "--csv", str(out), "--hints", "1")
    assert done.returncode == 0, done.stdout + done.stderr  # every file could be checked, whatever its verdict
    assert "4 submissions: 1 ok, 2 wrong, 1 unusable" in done.stdout
    assert "`=` instead of `+=`  # 1 of 4" in done.stdout and "hint 1:" in done.stdout
    assert done.stderr.count("[") >= 4  # a progress line per file
    rows = out.read_text(encoding="utf-8").splitlines()
    assert rows[0].startswith("file,category,exit") and len(rows) == 5


def test_a_folder_that_is_not_there_exits_2(tmp_path):
    done = run(str(tmp_path / "nope"), str(tmp_path / "nope2"))
    assert done.returncode == 2 and "no such file or folder" in done.stderr


def test_a_reader_that_stops_reading_is_no_error(tmp_path):
    # repro: `--check-engine FOLDER | head -1` ended with a BrokenPipeError traceback
    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("tutorial.py", "bug_tanh.py"):
        (folder / name).write_text(open(os.path.join(ENGINES, name), encoding="utf-8").read(), encoding="utf-8")
    out = tmp_path / "grades.csv"
    command = [sys.executable, os.path.join(ROOT, "main.py"), "--check-engine", str(folder), "--csv", str(out)]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, text=True)
    child.stdout.close()  # like `head` closing the pipe before the table comes
    _out, err = child.communicate(timeout=600)
    assert child.returncode == 0, err
    assert "Traceback" not in err and "BrokenPipe" not in err
    assert len(out.read_text(encoding="utf-8").splitlines()) == 3  # the gradebook is still written
