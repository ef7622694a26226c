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
from core.foreign.runner import check_file
from core.sandbox import children_of
from tests.core import box_probe

MARK = box_probe.marker()
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

_original = Value.backward


def _forking_backward(self):
    if not getattr(_forking_backward, "done", False):
        _forking_backward.done = True
        exec(SLEEPER, {})
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
    (folder / "forker.py").write_text(FORKER.replace("SLEEPER", repr(box_probe.sleeper(MARK))), encoding="utf-8")
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
        assert (row["category"], row["diagnosis"]) == (category, diagnosis), (name, row["message"], row["seconds"])
    assert by_name["forker"]["category"] == "ok"  # forking is no wrong gradient...
    assert by_name["raiser"]["category"] == "raised" and by_name["raiser"]["diagnosis"] == "raised"


@pytest.mark.slow
def test_nothing_any_submission_started_is_left_running(graded):
    _, rows, _ = graded
    forker = next(r for r in rows if os.path.basename(r["file"]) == "forker.py")
    assert f"started {MARK}" in forker["output"]  # ...but every process it forked is gone
    assert not box_probe.running(MARK)
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


# -- a hostile class: names, cells, control characters, a check that fails, a stop


def test_a_file_name_that_is_not_utf8_is_written_with_escapes(tmp_path):
    folder = os.fsencode(str(tmp_path))
    with open(os.path.join(folder, b"\xff\xfe.py"), "wb") as f:
        f.write(open(os.path.join(ENGINES, "tutorial.py"), "rb").read())
    (files,) = [batch.files_of([str(tmp_path)])]
    rows = batch.check_many(files, jobs=1)
    assert rows[0]["category"] == "ok"  # the box takes the name as it is
    text, table = batch.to_csv(rows), batch.to_text(rows)
    assert "\\xff\\xfe.py" in text and "\\xff\\xfe.py" in table
    text.encode("utf-8"), table.encode("utf-8"), batch.to_json(rows).encode("utf-8")  # no surrogate left


def fake(status="ok", message="", file="x.py"):
    return {"file": file, "status": status, "message": message, "cases": [{"name": "t", "status": "pass"}]}


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_a_cell_that_looks_like_a_formula_is_text_in_the_csv(start):
    rows = [batch.row_of(fake("unusable", f"{start}HYPERLINK(1)", file=f"/c/{start}cmd.py"), 0.1)]
    out = list(csv.DictReader(io.StringIO(batch.to_csv(rows))))[0]
    assert out["file"].startswith("'") and out["message"].startswith("'")
    assert out["seconds"] == "0.1"  # numbers stay numbers


def test_control_characters_are_escaped_in_the_text_table():
    rows = [batch.row_of(fake("unusable", "raised \x1b[2J\x1b[31mred\r\x07", file="/c/\x1b]0;x\x07.py"), 0.1)]
    text = batch.to_text(rows)
    assert "\x1b" not in text and "\x07" not in text and "\r" not in text
    assert "\\x1b[2J" in text


def test_a_check_that_fails_or_returns_nonsense_is_one_row(tmp_path):
    def check(path, timeout, seed=None):
        if path.endswith("a.py"):
            raise RuntimeError("the checker broke")
        if path.endswith("b.py"):
            return ["not", "a", "report"]
        return {"status": "wrong", "fault": "not a dict", "cases": [None, {"status": "pass"}]}

    rows = batch.check_many(["/c/a.py", "/c/b.py", "/c/c.py"], jobs=2, check=check)
    assert [r["category"] for r in rows] == ["unusable", "unusable", "wrong"]
    assert "the checker broke" in rows[0]["message"] and rows[2]["passed"] == 1
    batch.to_csv(rows), batch.to_text(rows), batch.to_json(rows)


def test_stop_ends_the_running_checks_at_once_and_keeps_the_rows_done(tmp_path):
    import threading
    import time

    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copy(os.path.join(ENGINES, "tutorial.py"), folder / "a_right.py")
    for i in range(3):
        (folder / f"loop{i}.py").write_text("while True:\n    pass\n")
    stop = threading.Event()

    def progress(done, total, row):
        stop.set()  # the teacher closes the dialog once the first row is in

    started = time.monotonic()
    with pytest.raises(batch.Stopped) as stopped:
        batch.check_many(batch.files_of([str(folder)]), jobs=2, timeout=600, progress=progress, stop=stop)
    assert time.monotonic() - started < 600  # the loops were ended, not waited for
    assert [os.path.basename(r["file"]) for r in stopped.value.rows] == ["a_right.py"]
    assert stopped.value.total == 4
    from core.sandbox import runs

    assert not runs.running()
