"""Autosave and crash recovery: unsaved work is written, removed when saved or closed cleanly,
and after a real crash (SIGKILL) the next window offers it back and restores it exactly."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from PySide6.QtCore import QPointF

import app.files.dialogs as file_dialogs
from app.files.autosave import INTERVAL_MS, AutosaveManager
from app.main_window import MainWindow
from core.files import recovery

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


@pytest.fixture
def window(qtbot):
    w = MainWindow(load_example=False)
    qtbot.addWidget(w)
    w.show()
    yield w
    w.close()


def recovery_files(window):
    folder = window.files.autosave.directory
    return sorted(n for n in os.listdir(folder) if n.endswith(".json"))


def test_autosave_runs_every_30_s_and_only_when_modified(window):
    autosave = window.files.autosave
    assert INTERVAL_MS == 30_000 and autosave.timer.interval() == 30_000 and autosave.timer.isActive()
    assert not autosave.tick(wait=True) and not os.path.exists(autosave.path)  # clean: nothing
    window.builder.add_entry({"key": "input"}, QPointF(0, 0))
    assert autosave.tick(wait=True) and os.path.exists(autosave.path)
    assert not autosave.tick(wait=True)  # unchanged: not again
    window.builder.add_entry({"key": "tanh"}, QPointF(300, 0))
    assert autosave.tick(wait=True)
    back = recovery.loads(open(autosave.path, encoding="utf-8").read())
    assert back.doc.to_dict() == window.session.doc.to_dict() and back.source is None


def test_saving_or_a_clean_close_removes_the_recovery_file(window, tmp_path, qtbot):
    autosave = window.files.autosave
    window.builder.add_entry({"key": "input"}, QPointF(0, 0))
    autosave.tick(wait=True)
    assert window.files.save_as(str(tmp_path / "g.json"))
    assert not os.path.exists(autosave.path)
    window.builder.add_entry({"key": "exp"}, QPointF(300, 0))
    autosave.tick(wait=True)
    assert os.path.exists(autosave.path)
    window.undo_stack.undo()  # back to the saved state: nothing unsaved
    assert not os.path.exists(autosave.path)
    window.builder.add_entry({"key": "exp"}, QPointF(300, 0))
    autosave.tick(wait=True)
    window.close()  # the answer is "discard" (conftest)
    assert not os.path.exists(autosave.path) and recovery_files(window) == []


def test_a_write_in_flight_never_brings_back_a_removed_file(window):
    window.builder.add_entry({"key": "input"}, QPointF(0, 0))
    autosave = window.files.autosave
    for _ in range(20):
        autosave.changed()
        assert autosave.tick()  # the worker writes...
        autosave.remove()  # ...while the work is saved
        autosave.wait()
        assert not os.path.exists(autosave.path)
    assert [n for n in os.listdir(autosave.directory) if n.endswith(".tmp")] == []


def test_a_big_graph_is_autosaved_off_the_gui_thread(window):
    from core.document.compile import trace
    from core.nn import MLP

    model = MLP(4, [36, 40, 1])
    doc, _values = trace(model([0.5, 0.6, 0.7, 0.8]), model.parameters())
    window.show_document(doc.copy(), "big", layout=False)
    assert window.wait_for_layout()
    assert len(window.session.doc.nodes) == len(doc.nodes)
    autosave = window.files.autosave
    started = time.perf_counter()
    assert autosave.tick()
    on_gui = time.perf_counter() - started
    autosave.wait()
    total = time.perf_counter() - started
    print(
        f"\nautosave of {len(doc.nodes):,} nodes: {on_gui * 1000:.0f} ms on the GUI thread, "
        f"{total * 1000:.0f} ms in all"
    )
    back = recovery.loads(open(autosave.path, encoding="utf-8").read())
    assert back.doc.to_dict() == window.session.doc.to_dict()


def test_a_live_window_never_offers_another_live_windows_work(window, qtbot):
    window.builder.add_entry({"key": "input"}, QPointF(0, 0))
    window.files.autosave.tick(wait=True)
    other = MainWindow(load_example=False)
    qtbot.addWidget(other)
    try:
        assert other.files.autosave.orphans() == []
        assert not other.files.offer_recovery()
    finally:
        other.close()


def test_a_second_autosave_in_the_same_folder_is_independent(tmp_path, qapp):
    a = AutosaveManager(lambda: None, str(tmp_path))
    b = AutosaveManager(lambda: None, str(tmp_path))
    try:
        assert a.path != b.path and a.lock.isLocked() and b.lock.isLocked()
    finally:
        a.close()
        b.close()


CRASHER = textwrap.dedent('''
    import json, os, sys, time
    sys.path.insert(0, {root!r})
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QPointF
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    from app.main_window import MainWindow
    w = MainWindow(load_example=False)
    if {source!r}:
        w.files.open({source!r})
    b = w.builder
    b.add_entry({{"key": "neuron", "nin": 2, "activation": "tanh"}}, QPointF(0, 0))
    b.set_collapsed("N1", True)
    x = b.add_entry({{"key": "input"}}, QPointF(-300, 400))[0]
    b.apply_edit(x, {{"label": "z", "value": 0.25}})
    w.files.autosave.tick(wait=True)
    print(json.dumps({{"doc": w.session.doc.to_dict(), "groups": w.session.groups.to_list(),
                      "meta": w.files.meta, "path": w.files.path}}), flush=True)
    time.sleep(120)   # killed long before this
''')


def crash(tmp_path, source=None):
    """Run a window in a subprocess, edit, autosave, then SIGKILL it. Returns what it had."""
    script = tmp_path / "crasher.py"
    script.write_text(CRASHER.format(root=ROOT, source=str(source) if source else ""), encoding="utf-8")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        line = proc.stdout.readline()
        assert line, proc.stderr.read()
        state = json.loads(line)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    assert proc.returncode == -signal.SIGKILL
    return state


def test_after_a_crash_the_next_window_offers_the_work_and_restores_it_exactly(qtbot, monkeypatch, tmp_path):
    state = crash(tmp_path)
    offered = []

    def ask(parent, recovered, saved_at):
        offered.append((recovered.title, saved_at))
        return "restore"

    monkeypatch.setattr(file_dialogs, "ask_recover", ask)
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    try:
        assert w.files.offer_recovery()
        assert offered and offered[0][0] == "Untitled"
        assert w.session.doc.to_dict() == state["doc"]
        assert w.session.groups.to_list() == state["groups"]
        assert w.scene.group_layer.item("N1") is not None  # collapsed as it was
        assert w.isWindowModified() and w.files.path is None  # unsaved work, still unsaved
        assert w.undo_stack.canUndo()  # restoring is one step
        # the dead session's files are gone; our own autosave holds the work now
        assert recovery_files(w) == [os.path.basename(w.files.autosave.path)]
    finally:
        w.close()
    assert recovery_files(w) == []


def test_recovery_of_a_saved_file_keeps_its_path(qtbot, monkeypatch, tmp_path):
    from core.document.expr import parse
    from core.files import graph_file

    source = tmp_path / "mine.json"
    graph_file.save(parse("a = Value(1.0, label='a')\nb = a.exp()\n"), source, {"title": "mine"})
    state = crash(tmp_path, source)
    monkeypatch.setattr(file_dialogs, "ask_recover", lambda parent, recovered, saved_at: "restore")
    w = MainWindow(load_example=False)
    qtbot.addWidget(w)
    try:
        assert w.files.offer_recovery()
        assert w.files.path == str(source) == state["path"]
        assert w.files.meta == state["meta"] == {"title": "mine"}
        assert w.session.doc.to_dict() == state["doc"]
        assert "mine.json" in w.windowTitle() and w.isWindowModified()
    finally:
        w.close()


@pytest.mark.parametrize("reply", ["discard", "later"])
def test_discard_deletes_the_autosave_and_later_keeps_it(qtbot, monkeypatch, tmp_path, reply):
    crash(tmp_path)
    monkeypatch.setattr(file_dialogs, "ask_recover", lambda parent, recovered, saved_at: reply)
    w = MainWindow(load_example=False)
    qtbot.addWidget(w)
    try:
        assert not w.files.offer_recovery()
        assert not w.session.doc.nodes
        left = [n for n in recovery_files(w) if n != os.path.basename(w.files.autosave.path)]
        assert len(left) == (0 if reply == "discard" else 1)
    finally:
        w.close()
    if reply == "later":  # offered again next time
        asked = []
        monkeypatch.setattr(
            file_dialogs, "ask_recover", lambda parent, recovered, saved_at: asked.append(1) or "discard"
        )
        again = MainWindow(load_example=False)
        qtbot.addWidget(again)
        try:
            again.files.offer_recovery()
            assert asked == [1]
        finally:
            again.close()


def test_an_unreadable_autosave_is_reported_and_kept(qtbot, isolated_files):
    w = MainWindow(load_example=False)
    qtbot.addWidget(w)
    try:
        broken = os.path.join(w.files.autosave.directory, "deadbeef.json")
        with open(broken, "w", encoding="utf-8") as f:
            f.write('{"format": "backprop-studio.graph", "schema_version": 1, "graph": {"nodes": [')
        assert not w.files.offer_recovery()
        assert isolated_files and "could not be read" in isolated_files[-1][1]
        assert broken in isolated_files[-1][1] and os.path.exists(broken)
    finally:
        w.close()


@pytest.mark.skipif(
    not hasattr(os, "mkfifo") or not os.path.exists("/dev/zero"), reason="needs named pipes and /dev/zero"
)
def test_a_fifo_or_a_dev_zero_link_in_the_recovery_folder_neither_hangs_nor_is_read(qtbot, isolated_files):
    # issue 20: a FIFO named *.json hung start-up; a link to /dev/zero was read until MemoryError
    from tests.core.files.hostile import fifo_guard

    folder = os.path.join(os.environ["BACKPROP_STUDIO_DATA_DIR"], "recovery")
    os.makedirs(folder)
    fifo, zero = os.path.join(folder, "0123456789abcdef.json"), os.path.join(folder, "fedcba9876543210.json")
    os.mkfifo(fifo)
    os.symlink("/dev/zero", zero)
    w = MainWindow(load_example=False)
    qtbot.addWidget(w)
    try:
        with fifo_guard(fifo) as opened:
            assert w.files.autosave.orphans() == []  # not ours: we only write regular files
            assert not w.files.offer_recovery()
        assert opened == [] and isolated_files == []
        assert os.path.exists(fifo) and os.path.islink(zero)  # left alone
    finally:
        w.close()


def test_the_autosave_writes_through_cores_one_atomic_writer(window, monkeypatch):
    # issue 15: app/files/autosave.py had its own temp-file + os.replace
    import core.files.atomic

    calls = []
    real = core.files.atomic.write_atomically
    monkeypatch.setattr(
        "app.files.autosave.write_atomically",
        lambda path, text, commit=None: calls.append(path) or real(path, text, commit),
    )
    window.builder.add_entry({"key": "input"}, QPointF(0, 0))
    assert window.files.autosave.tick(wait=True)
    assert calls == [window.files.autosave.path] and os.path.exists(calls[0])
