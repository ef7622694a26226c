"""A class's folder of engines becomes a table and a histogram (core/foreign/batch.py):
the right category per submission, the right histogram, checks run side by side, and
nothing any submission started is left running."""

import csv
import io
import json
import os
import shutil

import pytest

from core.foreign import batch
from core.foreign.runner import check_file, children_of

ENGINES = os.path.join(os.path.dirname(__file__), "..", "..", "data", "engines")
SLOW_OK = 300.0

# submission: (category, first-fault diagnosis or "")
CLASS = {
    "tutorial": ("ok", ""),
    "micrograd_like": ("ok", ""),
    "local_grads": ("ok", ""),
    "world/numpy_grads": ("ok", ""),
    "world/minitorch_scalar": ("ok", ""),
    "world/label_ops": ("ok", ""),
    "bug_assign": ("wrong", "assign"),
    "world/bug_pow_assign": ("wrong", "assign"),
    "bug_missing_out_grad": ("wrong", "missing-out-grad"),
    "bug_swapped_mul": ("wrong", "swapped-operands"),
    "world/float32_bug_mul": ("wrong", "swapped-operands"),
    "bug_sub_sign": ("wrong", "sign"),
    "bug_power": ("wrong", "power-rule"),
    "bug_relu": ("wrong", "relu-derivative"),
    "bug_tanh": ("wrong", "tanh-derivative"),
    "bug_exp": ("wrong", "exp-derivative"),
    "bug_no_backward": ("wrong", "no-backward"),
    "bug_order_recursive": ("wrong", "order"),
    "bug_not_zeroed": ("wrong", "not-zeroed"),
    "world/bug_set_topo": ("wrong", "set-order"),
    "hostile_no_class": ("unusable", ""),
    "hostile_exit": ("unusable", ""),
    "hostile_loop": ("unusable", ""),
}

FORKER = (
    open(os.path.join(ENGINES, "tutorial.py"), encoding="utf-8").read()
    + '''

import os as _os, time as _time

_original = Value.backward


def _forking_backward(self, _pidfile=PIDFILE):
    if _os.fork() == 0:
        with open(_pidfile, "a") as f:
            f.write(f"{_os.getpid()}\\n")
        _time.sleep(600)
        _os._exit(0)
    return _original(self)


Value.backward = _forking_backward
'''
)

RAISER = (
    open(os.path.join(ENGINES, "tutorial.py"), encoding="utf-8")
    .read()
    .replace("        build_topo(self)\n", "        build_topo(self)\n        raise RuntimeError('unfinished')\n")
)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("class")
    for name in CLASS:
        shutil.copy(os.path.join(ENGINES, f"{name}.py"), folder / f"{os.path.basename(name)}.py")
    (folder / "forker.py").write_text(FORKER.replace("PIDFILE", repr(str(folder / "pids"))), encoding="utf-8")
    (folder / "raiser.py").write_text(RAISER, encoding="utf-8")
    (folder / "notes.txt").write_text("not a submission", encoding="utf-8")
    seen = []

    def check(path, timeout, seed=None):  # an endless loop is stopped after 2 s; the rest get all they need
        return check_file(path, timeout=2.0 if "loop" in path else SLOW_OK)

    files = batch.files_of([str(folder)])
    rows = batch.check_many(files, jobs=2, check=check, progress=lambda done, total, row: seen.append((done, total)))
    return folder, rows, seen


@pytest.mark.slow
def test_every_submission_gets_its_category_and_diagnosis(graded):
    folder, rows, _ = graded
    by_name = {os.path.basename(r["file"])[:-3]: r for r in rows}
    assert len(rows) == len(CLASS) + 2 >= 20  # notes.txt is not a submission
    for name, (category, diagnosis) in CLASS.items():
        row = by_name[os.path.basename(name)]
        assert (row["category"], row["diagnosis"]) == (category, diagnosis), (name, row)
    assert by_name["forker"]["category"] == "ok"  # forking is no wrong gradient...
    assert by_name["raiser"]["category"] == "raised" and by_name["raiser"]["diagnosis"] == "raised"


@pytest.mark.slow
def test_nothing_any_submission_started_is_left_running(graded):
    folder, _, _ = graded
    pids = [int(p) for p in (folder / "pids").read_text().split()]
    assert pids  # ...but every process it forked is gone
    for pid in pids:
        assert (
            not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"
        )
    assert not [p for p, state in children_of(os.getpid()) if state != "Z"]


@pytest.mark.slow
def test_progress_and_histogram(graded):
    _, rows, seen = graded
    assert [d for d, _ in seen] == list(range(1, len(rows) + 1)) and {t for _, t in seen} == {len(rows)}
    counts = dict(batch.histogram(rows))
    assert counts["assign"] == 2 and counts["swapped-operands"] == 2 and counts["sign"] == 1
    assert sum(counts.values()) == sum(1 for r in rows if r["category"] in ("wrong", "raised"))
    text = batch.to_text(rows)
    assert "`=` instead of `+=`" in text and "2 of 25" in text


@pytest.mark.slow
def test_json_and_csv_hold_the_whole_table(graded):
    _, rows, _ = graded
    table = json.loads(batch.to_json(rows, hint_rungs=2))
    assert len(table["submissions"]) == len(rows)
    assigned = next(s for s in table["submissions"] if s["file"].endswith("bug_assign.py"))
    assert len(assigned["hints"]) == 2
    assert table["histogram"][0]["count"] == max(n for _, n in batch.histogram(rows))
    read = list(csv.DictReader(io.StringIO(batch.to_csv(rows))))
    assert [r["file"] for r in read] == [os.path.basename(r["file"]) for r in rows]
    assert {r["category"] for r in read} == {"ok", "wrong", "unusable", "raised"}


def test_a_folder_that_cannot_be_read_is_named(tmp_path):
    with pytest.raises(batch.FolderError, match="no such file or folder"):
        batch.files_of([str(tmp_path / "nope")])
    with pytest.raises(batch.FolderError, match="no .py files"):
        batch.files_of([str(tmp_path)])
