"""Hostile engines: whatever a learner's file does, the check ends with the right
category and nothing it started is left running (the supervisor in runner.py is a
child subreaper: a double fork or a setsid() still ends with the check)."""

import os
import textwrap

import pytest

from core.foreign.report import exit_code, to_text
from core.foreign.runner import check_file
from core.sandbox import children_of
from tests.core import box_probe

ENGINES = os.path.join(os.path.dirname(__file__), "..", "..", "data", "engines")
SLOW_OK = 300.0

TUTORIAL = open(os.path.join(ENGINES, "tutorial.py"), encoding="utf-8").read()


def engine_with(tmp_path, code, backward_hook=""):
    """The lecture's (correct) Value, plus `code` at load and `backward_hook` run at
    the start of every backward()."""
    src = TUTORIAL.replace(
        "    def backward(self):\n", "    def backward(self):\n" + textwrap.indent(backward_hook, " " * 8)
    )
    path = tmp_path / "engine.py"
    path.write_text(code + "\n" + src, encoding="utf-8")
    return str(path)


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def pids_in(tmp_path):
    pids = tmp_path / "pids"
    return [int(x) for x in pids.read_text().split()] if pids.exists() else []


FORK = """
def _spawn_once():
    if getattr(_spawn_once, "done", False):
        return
    _spawn_once.done = True
    exec({code!r}, {{}})
"""


@pytest.mark.parametrize("box", [None, False], ids=["box", "no-box"])
@pytest.mark.parametrize("detach", [False, True], ids=["fork", "setsid-double-fork"])
def test_a_process_forked_in_backward_does_not_outlive_the_check(tmp_path, detach, box):
    mark = box_probe.marker()
    code = FORK.format(code=box_probe.sleeper(mark, detach))
    report = check_file(engine_with(tmp_path, code, "_spawn_once()\n"), timeout=SLOW_OK, box=box)
    assert report["status"] == "ok", to_text(report)  # the engine is right: forking is not a wrong gradient
    assert f"started {mark}" in report["output"], "the engine's child did not start"
    assert not box_probe.running(mark)


def test_a_forged_report_is_refused(tmp_path):
    forge = """
import json, os
for fd in range(3, 64):
    try:
        os.write(fd, (json.dumps({"kind": "done"}) + "\\n").encode())
    except OSError:
        pass
for name in ("results.jsonl", "report.jsonl"):
    with open(name, "w") as f:
        f.write(json.dumps({"kind": "done"}) + "\\n")
"""
    report = check_file(engine_with(tmp_path, forge), timeout=SLOW_OK)
    assert report["status"] == "unusable" and exit_code(report) == 2
    assert "forged" in report["message"]


def test_a_report_that_skips_the_battery_is_refused():
    from core.foreign import battery
    from core.foreign.runner import _report
    from core.sandbox import BoxResult

    tests, templates = battery.cases()
    start = {"kind": "start", "class": "Value", "offered": ["__add__", "__mul__"], "unknown_methods": []}
    known = {c.name: c for c in tests}
    report = _report(
        "engine.py", [start, {"kind": "done"}], BoxResult(b"", 0, "exit"), 20.0, 1 << 30, "", known, templates
    )
    assert report["status"] == "unusable" and "does not match" in report["message"]


def test_a_sleep_is_stopped_and_named(tmp_path):
    report = check_file(engine_with(tmp_path, "", "import time; time.sleep(600)\n"), timeout=5.0)
    assert report["status"] == "unusable" and exit_code(report) == 2
    assert "did not finish within 5 s" in report["message"] and "in test" in report["message"]


def test_ten_gigabytes_end_in_a_clear_message(tmp_path):
    report = check_file(engine_with(tmp_path, "", "_big = bytearray(10 * 1024**3)\n"), timeout=SLOW_OK)
    assert exit_code(report) in (2, 3)
    assert "memory" in to_text(report).lower() or "MemoryError" in to_text(report)


def test_endless_recursion_in_backward_is_their_code_raising(tmp_path):
    hook = "def _down(n):\n    return _down(n + 1)\n_down(0)\n"
    report = check_file(engine_with(tmp_path, "", hook), timeout=SLOW_OK)
    assert report["status"] == "raised" and exit_code(report) == 3, to_text(report)
    assert "recurs" in report["message"]


def test_a_repr_that_raises_does_not_matter(tmp_path):
    src = engine_with(tmp_path, "")
    text = (
        open(src, encoding="utf-8")
        .read()
        .replace("    def __repr__(self):\n", "    def __repr__(self):\n        raise RuntimeError('no repr')\n")
    )
    open(src, "w", encoding="utf-8").write(text)
    report = check_file(src, timeout=SLOW_OK)
    assert report["status"] == "ok", to_text(report)


def test_a_folder_is_named_as_a_folder(tmp_path):
    report = check_file(str(tmp_path), timeout=SLOW_OK)
    assert report["status"] == "unusable" and "is a folder" in report["message"]


def test_nothing_is_left_under_the_test_process():
    assert not [p for p, state in children_of(os.getpid()) if state != "Z"]


def test_a_loop_in_mul_is_not_blamed_on_loading_the_file(tmp_path):
    """Repro (issue 32 item 9): a loop in a learner's __mul__ was reported 'while loading the file'."""
    src = engine_with(tmp_path, "")
    text = (
        open(src, encoding="utf-8")
        .read()
        .replace(
            "    def __mul__(self, other):\n",
            "    def __mul__(self, other):\n        while True:\n            pass\n",
            1,
        )
    )
    open(src, "w", encoding="utf-8").write(text)
    report = check_file(src, timeout=5.0)
    assert report["status"] == "unusable" and "while loading the file" not in report["message"]
    assert "while trying your class's operations" in report["message"]


def test_without_a_box_an_engine_that_kills_its_supervisor_is_named_truly(tmp_path):
    # issue 37: the message said "did not finish within 20 s" after 1.4 s
    path = tmp_path / "engine.py"
    path.write_text("import os, signal, time\nos.kill(os.getppid(), signal.SIGKILL)\ntime.sleep(60)\n")
    report = check_file(str(path), timeout=20, box=False)
    assert report["status"] == "unusable"
    assert "supervisor was stopped or killed after" in report["message"] and "within" not in report["message"]
