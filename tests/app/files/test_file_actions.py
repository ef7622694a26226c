"""Files: save and reopen exactly, the title's `*`, the unsaved-changes question, recent
files, examples, revert, drop-to-open, code in and out, and every bad file refused by name
with the open document untouched."""

import json
import os
import pathlib

import pytest
from PySide6.QtCore import QMimeData, QPointF, QSettings, Qt, QUrl
from PySide6.QtGui import QCloseEvent, QDropEvent

import app.files.actions as file_actions
import app.files.dialogs as file_dialogs
from app.main_window import MainWindow
from core.document.expr import parse
from core.files import graph_file

DATA = pathlib.Path(__file__).resolve().parents[2] / "data"
BAD = sorted((DATA / "bad").glob("*.json"))


def build(window):
    """A small graph with a neuron block (so groups are saved too); returns the ids."""
    ids = window.builder.add_entry({"key": "neuron", "nin": 2, "activation": "tanh"}, QPointF(0, 0))
    window.builder.set_collapsed("N1", True)
    return ids


def answer(monkeypatch, reply, calls=None):
    def ask(parent, name):
        if calls is not None:
            calls.append(name)
        return reply

    monkeypatch.setattr(file_dialogs, "ask_save_changes", ask)


# -----------------------------------------------------------------------------
# save and open


def test_save_then_reopen_is_identical(window, qtbot, tmp_path):
    build(window)
    window.session.doc.set_output(None)
    path = tmp_path / "neuron.json"
    assert window.files.save_as(str(path))
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["meta"]["groups"][0]["id"] == "N1" and saved["meta"]["groups"][0]["collapsed"]
    assert "geometry" not in path.read_text() and "recentFiles" not in path.read_text()
    other = MainWindow(load_example=False)
    qtbot.addWidget(other)
    try:
        assert other.files.open(str(path))
        assert other.session.doc.to_dict() == window.session.doc.to_dict()
        assert other.session.groups.to_list() == window.session.groups.to_list()
        assert other.scene.group_layer.item("N1") is not None  # shown collapsed again
        assert other.files.meta == window.files.meta
        assert not other.undo_stack.canUndo() and not other.isWindowModified()
        # and saving it again gives the same bytes
        again = tmp_path / "again.json"
        other.files.meta["title"] = "neuron"
        assert other.files.save_to(str(again))
        assert again.read_bytes() == path.read_bytes()
    finally:
        other.close()


def test_title_shows_the_name_and_a_star_while_modified(window, tmp_path):
    assert window.windowTitle() == "Untitled[*] — Backprop Studio" and not window.isWindowModified()
    window.builder.add_entry({"key": "input"}, QPointF(0, 0))
    assert window.isWindowModified()
    path = tmp_path / "g.json"
    assert window.files.save_as(str(path))
    assert window.windowTitle() == "g.json[*] — Backprop Studio" and not window.isWindowModified()
    window.builder.add_entry({"key": "exp"}, QPointF(300, 0))
    assert window.isWindowModified()
    window.undo_stack.undo()  # back to what is on disk
    assert not window.isWindowModified()
    window.undo_stack.undo()  # before the save: modified again
    assert window.isWindowModified()


def test_save_without_a_path_asks_for_one(window, monkeypatch, tmp_path):
    target = tmp_path / "chosen"
    monkeypatch.setattr(file_dialogs, "ask_save_path", lambda *a, **k: str(target))
    assert window.files.save()
    assert (tmp_path / "chosen.json").exists() and window.files.path == str(tmp_path / "chosen.json")


def test_a_save_that_fails_says_why_and_keeps_the_work(window, isolated_files, tmp_path):
    window.builder.add_entry({"key": "input"}, QPointF(0, 300))
    before = window.session.doc.to_dict()
    assert not window.files.save_to(str(tmp_path / "no" / "such" / "dir" / "g.json"))
    assert isolated_files and "was not written" in isolated_files[-1][1]
    assert window.isWindowModified() and window.session.doc.to_dict() == before


# -----------------------------------------------------------------------------
# the unsaved-changes question


@pytest.mark.parametrize("reply", ["cancel", "discard", "save"])
def test_closing_with_unsaved_changes_asks(qtbot, monkeypatch, tmp_path, reply):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    w.builder.add_entry({"key": "input"}, QPointF(0, 0))
    calls = []
    answer(monkeypatch, reply, calls)
    path = tmp_path / "kept.json"
    monkeypatch.setattr(file_dialogs, "ask_save_path", lambda *a, **k: str(path))
    event = QCloseEvent()
    w.closeEvent(event)
    assert calls == ["Untitled"]
    if reply == "cancel":
        assert not event.isAccepted() and w.isVisible()
        answer(monkeypatch, "discard")
        w.close()
    else:
        assert event.isAccepted()
        assert path.exists() == (reply == "save")
    assert not os.path.exists(w.files.autosave.path)  # a clean end leaves no recovery file


def test_a_clean_window_closes_without_asking(qtbot, monkeypatch):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    calls = []
    answer(monkeypatch, "cancel", calls)
    w.close()
    assert calls == [] and not w.isVisible()


def test_opening_another_file_asks_first_and_cancel_keeps_everything(window, monkeypatch, tmp_path):
    path = tmp_path / "other.json"
    graph_file.save(parse("a.exp()"), path)
    window.builder.add_entry({"key": "input"}, QPointF(0, 0))
    before = window.session.doc.to_dict()
    calls = []
    answer(monkeypatch, "cancel", calls)
    assert not window.files.open(str(path))
    assert calls and window.session.doc.to_dict() == before and window.isWindowModified()
    answer(monkeypatch, "discard")
    assert window.files.open(str(path))
    assert window.files.path == str(path) and not window.isWindowModified()


def test_new_and_revert(window, monkeypatch, tmp_path):
    path = tmp_path / "g.json"
    assert window.files.save_as(str(path))
    saved = window.session.doc.to_dict()
    window.builder.add_entry({"key": "input"}, QPointF(0, 300))
    assert window.files.revert()
    assert window.session.doc.to_dict() == saved and not window.isWindowModified()
    monkeypatch.setattr(file_dialogs, "ask_confirm", lambda *a: False)
    window.builder.add_entry({"key": "input"}, QPointF(0, 300))
    assert not window.files.revert()  # the user said no
    answer(monkeypatch, "discard")
    assert window.files.new()
    assert not window.session.doc.nodes and window.files.path is None
    assert window.windowTitle().startswith("Untitled")


# -----------------------------------------------------------------------------
# recent files, examples, drop


def test_recent_files_are_remembered_in_qsettings(window, tmp_path, isolated_files):
    paths = []
    for name in ("a", "b", "c"):
        path = tmp_path / f"{name}.json"
        graph_file.save(parse(f"{name} + 1"), path)
        paths.append(str(path))
        assert window.files.open(str(path))
    assert window.files.recent_files() == paths[::-1]
    settings = QSettings(os.path.join(os.environ["BACKPROP_STUDIO_DATA_DIR"], "settings.ini"), QSettings.IniFormat)
    assert settings.value("recentFiles")[0] == paths[-1]
    window.files._fill_recent()
    texts = [a.text() for a in window.files.recent_menu.actions()]
    assert texts[:3] == ["c.json", "b.json", "a.json"]
    os.remove(paths[0])
    assert not window.files.open_recent(paths[0])
    assert "no longer there" in isolated_files[-1][1] and paths[0] not in window.files.recent_files()


def test_examples_menu_lists_titles_and_opens_an_untitled_copy(window):
    titles = [a.text() for a in window.files.examples_menu.actions()]
    examples = file_actions.examples()
    assert len(titles) == len(examples) >= 5 and titles == [t for t, _d, _p in examples]
    title, _description, path = examples[0]
    window.files.examples_menu.actions()[0].trigger()
    doc, _meta = graph_file.load(path)
    assert window.session.doc.to_dict() == doc.to_dict()
    assert window.files.path is None and title in window.windowTitle()


def test_a_json_file_dropped_on_the_window_opens(window, tmp_path):
    path = tmp_path / "dropped.json"
    graph_file.save(parse("q.tanh()"), path)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(QPointF(20, 20), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    window.dropEvent(event)
    assert window.files.path == str(path)
    assert {n.op for n in window.session.doc.nodes.values()} == {None, "tanh"}
    other = QMimeData()
    other.setUrls([QUrl.fromLocalFile(str(tmp_path / "picture.png"))])
    assert window.files.dropped_path(other) is None


# -----------------------------------------------------------------------------
# bad files


@pytest.fixture(scope="module")
def shared_window(qapp):
    """One window for the many bad files (a window per file would take most of a minute)."""
    w = MainWindow()
    w.show()
    yield w
    w.files.prompt_on_close = False
    w.close()
    w.deleteLater()


@pytest.mark.parametrize("bad", BAD, ids=[p.stem for p in BAD])
def test_every_bad_file_names_its_problem_and_changes_nothing(shared_window, isolated_files, bad):
    window = shared_window
    before = window.session.doc.to_dict()
    count, title = window.undo_stack.count(), window.windowTitle()
    try:
        graph_file.load(bad)
        pytest.fail(f"{bad.name} loaded")
    except graph_file.FormatError as e:
        expected = str(e)
    assert not window.files.open(str(bad))
    assert len(isolated_files) == 1
    dialog_title, text = isolated_files[0]
    assert dialog_title == "Could not open the file"
    assert expected in text and "unchanged" in text
    assert window.session.doc.to_dict() == before
    assert window.undo_stack.count() == count and window.windowTitle() == title
    assert window.files.path is None


def test_a_100_mb_file_is_refused_before_reading(window, isolated_files, tmp_path):
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as f:
        f.truncate(100 * 1024 * 1024)  # sparse: no 100 MB written
    before = window.session.doc.to_dict()
    assert not window.files.open(str(huge))
    assert "104.9 MB" in isolated_files[-1][1] and "at most 20 MB" in isolated_files[-1][1]
    assert window.session.doc.to_dict() == before


# -----------------------------------------------------------------------------
# a large file is read on a worker thread


def traced_file(tmp_path, name="big.json", hidden=(12, 8, 1)):
    """A saved traced MLP of ~500 nodes, with positions: it opens where it stands."""
    from core.document.compile import trace
    from core.document.layout import sugiyama
    from core.nn import MLP

    model = MLP(3, list(hidden))
    doc, _values = trace(model([0.5, 0.6, 0.7]), model.parameters())
    roomy = {nid: (300.0, 100.0) for nid in doc.nodes}  # larger than any box: none overlap
    layout = sugiyama(list(doc.nodes), [(e.src, e.dst) for e in doc.edges], sizes=roomy)
    for nid, pos in layout.positions.items():
        doc.nodes[nid].pos = pos
    path = tmp_path / name
    graph_file.save(doc, path, {})
    return path, doc


@pytest.fixture
def big_files(monkeypatch):
    monkeypatch.setattr(file_actions, "ASYNC_OPEN_BYTES", 1000)
    import app.slices

    monkeypatch.setattr(app.slices, "SLICE_SECONDS", 0.0005)


def test_a_large_file_opens_in_the_background(window, big_files, tmp_path, monkeypatch):
    import threading

    from core.document.graph import GraphDocument

    path, doc = traced_file(tmp_path)
    checked_on = []
    real = GraphDocument.from_dict.__func__
    monkeypatch.setattr(
        GraphDocument,
        "from_dict",
        classmethod(
            lambda cls, data, read_only=False: checked_on.append(threading.get_ident()) or real(cls, data, read_only)
        ),
    )
    before = window.session.doc.to_dict()
    assert window.files.open(str(path))
    assert window.layout_pending and window.session.doc.to_dict() == before  # not yet, and answering
    assert window.wait_for_layout()
    assert window.session.doc.to_dict() == GraphDocument.from_dict(doc.to_dict()).to_dict()
    assert window.scene.counts() == (len(doc.nodes), len(doc.edges))
    assert window.files.path == str(path) and "big.json" in window.windowTitle()
    assert not window.undo_stack.canUndo() and not window.isWindowModified()
    gui = threading.get_ident()
    assert checked_on[:-1] and gui not in checked_on[:-1]  # the file was checked off the GUI thread


def test_a_broken_large_file_is_refused_and_the_graph_stays(window, big_files, isolated_files, tmp_path):
    path, _doc = traced_file(tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["graph"]["edges"].append({"src": data["graph"]["nodes"][-1]["id"], "dst": "nowhere", "port": 0})
    path.write_text(json.dumps(data), encoding="utf-8")
    before, title = window.session.doc.to_dict(), window.windowTitle()
    assert window.files.open(str(path))  # reading began
    assert window.wait_for_layout()
    assert isolated_files and "nowhere" in isolated_files[-1][1] and "unchanged" in isolated_files[-1][1]
    assert window.session.doc.to_dict() == before and window.windowTitle() == title
    assert window.files.path is None and window.view.viewport().cursor().shape() != Qt.BusyCursor


def test_a_newer_open_wins_over_a_large_file_still_being_read(window, big_files, tmp_path):
    big, _doc = traced_file(tmp_path)
    small = tmp_path / "small.json"
    graph_file.save(parse("a = Value(1.0, label='a')\nb = a * 2\n"), small, {})
    assert window.files.open(str(big))
    file_actions.ASYNC_OPEN_BYTES = 10**9  # the small one is read at once
    assert window.files.open(str(small))
    assert window.wait_for_layout()
    assert {n.label for n in window.session.doc.nodes.values()} >= {"a"}
    assert len(window.session.doc.nodes) == 3 and window.files.path == str(small)


def test_a_missing_file_and_bad_groups_are_refused_too(window, isolated_files, tmp_path):
    assert not window.files.open(str(tmp_path / "nowhere.json"))
    assert "There is no file" in isolated_files[-1][1]
    bad = tmp_path / "groups.json"
    graph_file.save(parse("a + b"), bad, {"groups": [{"id": "g", "nodes": ["n42"]}]})
    assert not window.files.open(str(bad))
    assert "group 'g' names node 'n42', which is not in the graph" in isolated_files[-1][1]


def test_the_real_error_dialog_does_not_block(window, monkeypatch):
    monkeypatch.undo()  # the real show_error, for once
    box = file_dialogs.show_error(window, "t", "x")
    assert box.isVisible() and not box.isModal() or box.windowModality() == Qt.WindowModal
    window.files.close_event(QCloseEvent())
    assert not box.isVisible()


# -----------------------------------------------------------------------------
# graph <-> code


def test_export_python_and_pytorch_and_import_a_snippet(window, tmp_path):
    py, torch = tmp_path / "g.py", tmp_path / "g_torch.py"
    assert window.files.export_code("python", py)
    assert window.files.export_code("pytorch", torch)
    assert "Value(" in py.read_text() and "import torch" in torch.read_text()
    before = window.session.doc.to_dict()
    assert parse(py.read_text()).to_dict()["edges"] == before["edges"]
    snippet = tmp_path / "s.py"
    snippet.write_text("a = Value(1.5, label='a')\nb = a.exp()\n", encoding="utf-8")
    assert window.files.import_snippet(str(snippet))
    assert {n.label for n in window.session.doc.nodes.values()} == {"a", "b"}
    window.undo_stack.undo()  # importing is an edit: undoable
    assert window.session.doc.to_dict() == before


def test_a_bad_snippet_says_where(window, isolated_files, tmp_path):
    snippet = tmp_path / "bad.py"
    snippet.write_text("x = Value(2.0)\ny = x *\n", encoding="utf-8")
    before = window.session.doc.to_dict()
    assert not window.files.import_snippet(str(snippet))
    assert "line 2" in isolated_files[-1][1] and window.session.doc.to_dict() == before


def test_pytorch_export_without_an_output_is_refused(window, isolated_files, tmp_path):
    window.builder.set_output(None)
    window.builder.add_entry({"key": "input"}, QPointF(0, 300))  # a second sink
    assert window.session.doc.effective_output() is None
    assert not window.files.export_code("pytorch", tmp_path / "t.py")
    assert "single output" in isolated_files[-1][1]


# -----------------------------------------------------------------------------
# UI state lives in QSettings


def test_window_geometry_and_docks_go_to_qsettings(window, qtbot):
    window.docks["history"].raise_()
    window.resize(1100, 700)
    window.window_state.save_ui_state()
    other = MainWindow(load_example=False)
    qtbot.addWidget(other)
    try:
        assert other.window_state.restore_ui_state()
    finally:
        other.close()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_opening_or_importing_a_fifo_is_refused_and_never_blocks(window, isolated_files, tmp_path):
    # issue 20: a FIFO's size reads 0, so the window read it on the GUI thread and blocked forever
    from tests.core.files.hostile import fifo_guard

    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    before = window.session.doc.to_dict()
    with fifo_guard(fifo) as opened:
        assert not window.files.open(str(fifo))
        assert "named pipe" in isolated_files[-1][1] and "unchanged" in isolated_files[-1][1]
        assert not window.files.import_snippet(str(fifo))
        assert "named pipe" in isolated_files[-1][1]
    assert opened == [] and window.session.doc.to_dict() == before and window.files.path is None


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_opening_a_link_to_dev_zero_is_refused(window, isolated_files, tmp_path):
    link = tmp_path / "zero.json"
    link.symlink_to("/dev/zero")
    assert not window.files.open(str(link))
    assert "not a regular file" in isolated_files[-1][1]


# -----------------------------------------------------------------------------
# no surprises (issue 17.5)


def test_a_new_graph_starts_at_100_percent(window):
    window.view.set_zoom(2.5)
    assert window.files.new()
    assert window.view.zoom() == 1.0


def test_a_trace_makes_the_document_untitled_so_save_never_overwrites(window, tmp_path, monkeypatch):
    from core.engine import Value

    path = tmp_path / "six.json"
    assert window.files.save_as(str(path))
    before = path.read_bytes()
    assert window.open_value(Value(2.0, label="w").tanh())
    assert window.files.path is None and window.windowTitle().startswith("Untitled")
    asked = []
    monkeypatch.setattr(file_dialogs, "ask_save_path", lambda *args, **kwargs: asked.append(args) or "")
    assert not window.files.save()  # Save asks where (the test says: nowhere)
    assert asked and path.read_bytes() == before  # the file that was open is untouched
    assert asked[0][2] == str(tmp_path / "graph.json")  # offered beside it, not in ~


@pytest.mark.parametrize("run", ["run", "run as python"])
def test_running_the_text_again_keeps_the_open_file(window, qtbot, tmp_path, monkeypatch, run):
    # repro: after a Run, Save forgot six.json and offered ~/graph.json
    from core.files.graph_file import load

    path = tmp_path / "six.json"
    assert window.files.save_as(str(path))
    text = "a = Value(1.5, label='a')\nb = a.exp()\n"
    if run == "run":
        assert window.run_expression(text)
    else:
        window.editor.set_text(text)
        window.code_runner.run()
        assert window.code_runner.wait(120.0)
    assert window.files.path == str(path) and window.isWindowModified()
    asked = []
    monkeypatch.setattr(file_dialogs, "ask_save_path", lambda *args, **kwargs: asked.append(args) or "")
    assert window.files.save() and not asked
    assert {n.label for n in load(str(path))[0].nodes.values()} == {"a", "b"}


def test_a_file_that_cannot_open_is_not_reported_in_the_editors_box(window, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something else"}', encoding="utf-8")
    assert not window.open_file(bad)
    assert window.editor.error_text() == ""
    assert "bad.json" in window.statusBar().currentMessage()


def test_a_good_run_clears_the_old_error_from_the_status_bar(window):
    assert not window.run_expression("f = x * (x + \n")
    assert "Not run" in window.statusBar().currentMessage()
    assert window.run_expression("x = Value(2.0, label='x')\nf = x * x\n")
    assert "Not run" not in window.statusBar().currentMessage()
