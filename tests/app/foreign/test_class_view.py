"""File → Check a class…: the table fills off the GUI thread, sorts, draws the class's
histogram, and a double-click opens a submission in the debugger at its fault."""

import os
import shutil

from app.foreign.class_view import check_a_class
from core.debugger.foreign_replay import ReplayStepper

ENGINES = os.path.join(os.path.dirname(__file__), "..", "..", "data", "engines")


def test_a_class_is_checked_and_a_row_opens_in_the_debugger(qtbot, window, tmp_path):
    for name in ("tutorial", "bug_assign", "bug_swapped_mul", "bug_tanh", "hostile_no_class"):
        shutil.copy(os.path.join(ENGINES, f"{name}.py"), tmp_path / f"{name}.py")
    dialog = check_a_class(window.engine_checks, str(tmp_path))
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.save_button.isEnabled(), timeout=300_000)
    table = dialog.table
    assert table.rowCount() == 5
    cells = {table.item(r, 0).text(): [table.item(r, c).text() for c in range(table.columnCount())] for r in range(5)}
    assert cells["tutorial.py"][1] == "ok" and cells["hostile_no_class.py"][1] == "unusable"
    assert cells["bug_assign.py"][1] == "wrong" and cells["bug_assign.py"][4] == "`=` instead of `+=`"
    assert [words for words, _ in dialog.chart.bars] and dialog.chart.total == 5
    table.sortItems(1)  # by category: the rows move together
    assert {table.item(r, 0).text(): table.item(r, 1).text() for r in range(5)}["tutorial.py"] == "ok"
    row = next(r for r in range(5) if table.item(r, 0).text() == "bug_swapped_mul.py")
    dialog.open_row(row, 0)
    qtbot.waitUntil(lambda: isinstance(window.debugger.controller.stepper, ReplayStepper), timeout=300_000)
    qtbot.waitUntil(lambda: "operands swapped" in window.debugger.controller.stop_reason, timeout=300_000)
    panel = window.debugger
    assert panel._hint_slot.isVisible()  # a learner's engine stopped at a fault: the Hint button shows
    assert "Hint 1 of 4" not in panel.explanation_text()  # nothing given away before it is asked for
    panel.climb_hint()
    assert "Hint 1 of 4" in panel.explanation_text() and "Hint 2" not in panel.explanation_text()
    for _ in range(5):
        panel.climb_hint()
    text = panel.explanation_text()
    assert "Hint 4 of 4: Fix:" in text and "other.data * out.grad" in text
    assert not panel.actions["hint"].isEnabled()  # the ladder has four rungs
    dialog.opened.close()
    dialog.close()


def test_the_hint_button_is_hidden_without_a_learners_fault(window):
    assert not window.debugger._hint_slot.isVisible()  # our own graph: nothing to hint at


def test_closing_the_dialog_cancels_the_checks_without_waiting(qtbot, window, tmp_path):
    shutil.copy(os.path.join(ENGINES, "tutorial.py"), tmp_path / "a_right.py")
    for i in range(4):
        (tmp_path / f"loop{i}.py").write_text("while True:\n    pass\n")  # 20 s each, if nothing stopped them
    dialog = check_a_class(window.engine_checks, str(tmp_path))
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 1, timeout=300_000)
    dialog.close()
    assert dialog.job.isRunning()  # close did not wait for the job on the GUI thread...
    qtbot.waitUntil(lambda: not dialog.job.isRunning(), timeout=15_000)  # ...which ends as soon as its boxes do
    assert "Stopped: 1 of 5" in dialog.status.text() and dialog.save_button.isEnabled()


def test_a_submission_that_kills_what_it_sees_leaves_the_window_and_the_run(qtbot, window, tmp_path):
    from core import sandbox

    if sandbox.box_problem():  # without a box, a learner's code runs as the teacher: see the README's table
        return
    (tmp_path / "a_killer.py").write_text(
        "import os, signal\n"
        "if os.getcwd() != '/box' or os.getppid() != 1:\n"  # never on the host, whatever happens
        "    raise SystemExit('not in a box')\n"
        "for pid in [os.getppid(), *[int(p) for p in os.listdir('/proc') if p.isdigit()]]:\n"
        "    try:\n        os.kill(pid, signal.SIGKILL)\n    except OSError:\n        pass\n"
    )
    shutil.copy(os.path.join(ENGINES, "tutorial.py"), tmp_path / "tutorial.py")
    dialog = check_a_class(window.engine_checks, str(tmp_path))
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.save_button.isEnabled(), timeout=300_000)
    assert dialog.table.rowCount() == 2 and window.isVisible() is not None


def test_a_hostile_name_and_message_are_shown_escaped(qtbot, window, tmp_path):
    from app.foreign.class_view import ClassCheckDialog
    from core.foreign import batch

    dialog = ClassCheckDialog(window.engine_checks, ["/c/=x\x1b.py"], str(tmp_path))
    qtbot.addWidget(dialog)
    row = batch.row_of({"file": "/c/=x\x1b.py", "status": "unusable", "message": "boom \x1b[2J\r"}, 0.1)
    dialog.add_row(row)
    cells = [dialog.table.item(0, c).text() for c in range(dialog.table.columnCount())]
    assert cells[0] == "=x\\x1b.py" and "\\x1b[2J" in cells[4] and not any("\x1b" in c for c in cells)
