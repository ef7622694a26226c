"""The big-graph page: microgpt's step opens collapsed by scope and legible, found, overviewed, exported."""

import os

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
EXAMPLE = os.path.join(ROOT, "resources", "examples", "microgpt_step.py")


def shown_titles(page):
    return [item.lines[0][1] for item in page.items.values()]


def open_example(window, qtbot):
    assert window.open_file(EXAMPLE)
    qtbot.waitUntil(lambda: bool(window.scope_page.current and window.scope_page.current.items), timeout=120_000)
    qtbot.waitUntil(lambda: window.scope_page.current._values_job.isFinished(), timeout=120_000)  # its Values, to step
    return window.scope_page.current


def test_the_microgpt_step_opens_collapsed_and_legible(window, qtbot):
    page = open_example(window, qtbot)
    assert window.training.stack.currentWidget() is page
    titles = shown_titles(page)
    assert [t for t in titles if t.startswith("pos_id")] == [f"pos_id = {k}" for k in range(5)]  # "emma": 5 positions
    assert len(titles) <= 40
    # the text is legible at the fitted zoom: a block's title at least 9 px on screen
    zoom = page.canvas.transform().m11()
    assert window.scene.theme.font("label").pixelSize() * zoom >= 9
    assert "43,021 nodes" in page.title.text()


def test_find_opens_the_way_to_a_block(window, qtbot):
    page = open_example(window, qtbot)
    assert page.find_text("h = 2")
    qtbot.waitUntil(lambda: "h = 2" in shown_titles(page), timeout=60_000)
    assert any(item.current and item.lines[0][1] == "h = 2" for item in page.items.values())


def test_the_microgpt_preset_trains_with_a_live_curve_and_samples(window, qtbot):
    from app.training.microgpt_panel import show_training
    from core.microgpt.train import train

    panel = show_training(window.microgpt_panel)
    panel.steps.setValue(12)
    panel.every.setValue(6)
    panel.start()
    panel.wait()
    assert panel.count == 12 and not panel.running
    assert np.allclose(panel.losses[:12], [p.loss for p in train(12)], rtol=0, atol=1e-12)
    assert panel.names.toPlainText().count("after step") == 2
    assert panel.curve.getData()[1] is not None and len(panel.curve.getData()[1]) == 12
    panel.close()


def test_the_overview_shows_a_picture_larger_than_the_view_and_moves_it(window, qtbot):
    page = open_example(window, qtbot)
    gpt = next(item for item in page.items.values() if item.block and item.lines[0][1] == "pos_id = 4")
    page.open_block(gpt.unit_scope)
    qtbot.waitUntil(lambda: "gpt" in shown_titles(page), timeout=60_000)
    inner = next(item for item in page.items.values() if item.block and item.lines[0][1] == "gpt")
    page.open_block(inner.unit_scope)
    qtbot.waitUntil(lambda: "li = 0" in shown_titles(page) and not page.building, timeout=60_000)
    page.canvas.scale(3, 3)  # zoomed in: most of the picture is out of view
    assert page.minimap.isVisible() and not page.minimap.geometry().intersects(page.canvas.geometry())
    before = page.minimap.visible_area().center()
    qtbot.mouseClick(page.minimap, Qt.LeftButton, pos=page.minimap.rect().bottomRight() - QPoint(5, 5))
    assert page.minimap.visible_area().center() != before


def test_a_script_dropped_on_the_window_or_chosen_in_open_goes_to_the_page(window, qtbot, monkeypatch):
    # repro: the command line and the File menu opened a .py, the Open dialog and a drop did not
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    from app.files import dialogs

    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(os.path.abspath(EXAMPLE))])
    assert window.files.dropped_path(mime) == os.path.abspath(EXAMPLE)
    window.dropEvent(QDropEvent(QPointF(20, 20), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier))
    qtbot.waitUntil(lambda: bool(window.scope_page.current and window.scope_page.current.items), timeout=120_000)
    assert "microgpt_step.py" in window.scope_page.current.title.text()
    assert "*.py" in dialogs.GRAPH_FILTER.split(";;")[0]
    monkeypatch.setattr(dialogs, "ask_open_path", lambda *args: os.path.abspath(EXAMPLE))
    assert window.files.open_dialog() is not False
    qtbot.waitUntil(lambda: not window.code_runner.running, timeout=120_000)  # run as Python (issue 42)
    window.wait_for_layout()
    qtbot.waitUntil(lambda: getattr(window.scope_page.current, "_values_job", None) is not None, timeout=120_000)
    qtbot.waitUntil(window.scope_page.current._values_job.isFinished, timeout=120_000)


def test_the_values_are_made_only_after_the_first_picture_is_painted(window, qtbot, monkeypatch):
    # a worker making 43k-139k Values while the canvas painted its Python items made each paint
    # wait for the interpreter: a 137-163 ms turn while the 139k learner step opened
    from app.graph import scope_canvas
    from app.jobs import Job

    events = []
    start, paint = Job.start, scope_canvas.ScopeCanvas.paintEvent

    def job_start(self, *args):
        if self.objectName() == "scope-values":
            events.append("values")
        return start(self, *args)

    def canvas_paint(self, event):
        events.append("paint")
        return paint(self, event)

    monkeypatch.setattr(Job, "start", job_start)
    monkeypatch.setattr(scope_canvas.ScopeCanvas, "paintEvent", canvas_paint)
    page = open_example(window, qtbot)
    assert "values" in events and "paint" in events[: events.index("values")]
    assert page._values_job.isFinished()


def output_whole_and_legible(window, page):
    """The loss (the output, where the backward pass and the debugger's first step start) is whole
    in the view, its name not cut, its numbers READABLE_PX high in presenter mode."""
    from app.graph.scope_canvas import LEGIBLE_PX, READABLE_PX

    item = page.output_item()
    assert item is not None
    canvas = page.canvas
    seen = canvas.mapToScene(canvas.viewport().rect()).boundingRect()
    assert seen.contains(item.sceneBoundingRect())
    title, pixels = item.shown_title()
    assert title == page.graph.name(page.graph.root) == "(1 / n) * sum(losses)"
    theme, zoom = window.scene.theme, canvas.transform().m11()
    assert pixels * zoom >= 0.8 * LEGIBLE_PX  # a long name's font a little smaller than a label's, no less
    if window.appearance.presenting:
        assert theme.font("number").pixelSize() * zoom >= READABLE_PX - 0.5
    assert "from the output: (1 / n) * sum(losses)" in page.said.text()


@pytest.mark.parametrize("scale", [2, 3])
def test_the_loss_node_is_whole_and_legible_in_presenter_mode(window, qtbot, scale):
    # repro: at presenter 2x the first view showed the top left of a picture taller than the view, the
    # loss cut off its bottom; the node's name was elided to "(1 / n) * su..."
    window.resize(1920, 1080)
    window.appearance.set_presenter(True, scale, full_screen=False)
    page = open_example(window, qtbot)
    assert page.settle()
    output_whole_and_legible(window, page)
    assert page.minimap.width() == 240  # not scaled with the rest: a 3x overview took a third of the width


def test_the_example_opens_in_a_clean_layout_whatever_the_last_run_left(qtbot, monkeypatch):
    # repro: after an ordinary run (docks shown, one floating) the command line's microgpt example opened
    # squeezed between the Editor and Debugger docks (the saved docks were restored after the page set them
    # aside), the debugger talking about the small canvas's hidden f, the picture laid out for a window
    # size it no longer had
    from PySide6.QtWidgets import QApplication

    from app import startup
    from app.main_window import MainWindow

    last = MainWindow()  # the last run
    qtbot.addWidget(last)
    last.resize(1400, 900)
    last.show()
    for key in ("editor", "debugger"):
        last.docks[key].show()
    last.docks["inspector"].setFloating(True)
    last.docks["inspector"].show()
    last.close()

    class NoLoop:  # main() up to the event loop, which the test then is
        def exec(self):
            return 0

    app = startup._application()
    monkeypatch.setattr(startup, "_application", lambda: app and NoLoop())
    before = set(QApplication.topLevelWidgets())
    assert startup.main([EXAMPLE, "--no-welcome"]) == 0
    (window,) = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w not in before]
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: bool(window.scope_page.current and window.scope_page.current.items), timeout=120_000)
    page = window.scope_page.current
    qtbot.waitUntil(lambda: page._values_job.isFinished(), timeout=120_000)
    assert page.settle()
    assert window.training.stack.currentWidget() is page
    assert [k for k, dock in window.docks.items() if dock.isVisible()] == []  # floating ones too
    assert page.canvas.width() >= window.width() - 300  # the page has the window's width, but the overview
    output_whole_and_legible(window, page)
    window.close()  # closed on the page: the docks the page set aside are what the next run restores
    again = MainWindow()
    qtbot.addWidget(again)
    again.window_state.restore_ui_state()
    again.show()
    assert again.docks["editor"].isVisible() and again.docks["debugger"].isVisible()
    again.close()
    for dock in [*last.docks.values(), *again.docks.values()]:
        dock.close()  # a floating one is a window of its own


def test_the_big_graph_exports_as_a_page_stepped_a_block_per_click(window, qtbot, example_page, tmp_path):
    # File → Export as Interactive Page wrote the op-by-op page only: a big graph open here had no page
    page = example_page
    page.step()
    qtbot.waitUntil(lambda: page.moves == 1, timeout=120_000)
    grads = [v.grad for v in page.graph.values()]
    path = tmp_path / "step.html"
    window.files.export_block_page(page.graph, "microgpt step", str(path))
    qtbot.waitUntil(lambda: window.files._page_job is None, timeout=300_000)  # walked on a worker, said done
    html = path.read_text(encoding="utf-8")
    from core.notebook.block_page import BlockStepper

    walked = BlockStepper.of_graph(page.graph)
    assert html.startswith("<!DOCTYPE html>") and f'"total":{walked.total}' in html
    assert 1 < walked.total < 100 and len(html) < 400_000  # a page of blocks, not of 43,021 ops
    # the page's own stepping was left where it was: its Values untouched by the export's walk
    assert page.moves == 1 and [v.grad for v in page.graph.values()] == grads
    assert "Exported" in window.statusBar().currentMessage()


def test_the_page_is_handed_what_it_uses_and_its_host_shows_it(window):
    # issue 41: the page takes Services and named collaborators, never the window; the workspaces
    # (its PageHost) put it in the canvas's place and set the docks aside once, until Back
    from PySide6.QtCore import QByteArray

    from app.graph.scope_page import ScopePage

    calls = []

    class Host:
        def show(self, name):
            calls.append(("show", name))

        def put(self, page):
            calls.append(("put", page))

        def set_docks_aside(self):
            calls.append(("aside",))
            return QByteArray(b"docks")

        def give_docks_back(self, state):
            calls.append(("back", bytes(state)))

    page = ScopePage(window.services(), window.arranger, Host(), lambda: False, lambda graph, title: True)
    page.enter()
    page.enter()  # opened again while shown: the docks were set aside already
    assert calls == [("show", "graph"), ("aside",), ("put", page), ("show", "graph"), ("put", page)]
    calls.clear()
    page.back()
    page.back()  # nothing more to give back
    assert calls == [("put", None), ("back", b"docks"), ("put", None)]
    assert page.export_page_dialog() is False  # no graph yet: nothing to export
    page.deleteLater()
