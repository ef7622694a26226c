"""Presenter mode frames a lesson step's nodes (app/lessons/presenter_layout.py): a node
is whole on the canvas or wholly off it -- never cut at the canvas's edge -- and what
is off it is counted over the canvas ("N more nodes a pan away")."""

import re

import pytest

from app.lessons.presenter_layout import _frame_note, covered_nodes, cut_nodes, readable_px
from app.lessons.tour import digit_ink, named_focus, settle
from app.main_window import MainWindow


@pytest.fixture
def window(qtbot):
    w = MainWindow()
    w.files.prompt_on_close = False
    w.lessons.train_limit = 2
    qtbot.addWidget(w)
    yield w
    w.appearance.set_presenter(False)
    w.close()


def present(window, qtbot, size, lesson, step, quiz=False):
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    window.wait_for_layout()
    window.appearance.set_presenter(True, 2, full_screen=False)
    window.lessons.quiz_check.setChecked(quiz)
    window.opening.show_lessons(lesson, step)
    qtbot.waitUntil(lambda: not window.lessons.busy and window.lessons.snapshot is not None, timeout=30000)
    settle(window)


def seen_rect(window):
    view = window.view
    return view.mapToScene(view.viewport().rect()).boundingRect()


@pytest.mark.parametrize("quiz", [False, True])
def test_chain_rule_step_4_frames_c_and_e_whole_at_2x_on_1280x720(window, qtbot, quiz):
    # repro: c was framed, "6 more nodes a pan away" said, and e (the step's other
    # node) cut in half at the canvas's bottom edge
    present(window, qtbot, (1280, 720), "chain-rule", 3, quiz)
    panel, scene = window.lessons, window.scene
    names = {panel.runner.names[nid]: nid for nid in scene.node_items()}
    named = named_focus(panel, panel.focus_ids())
    assert {names["c"], names["e"]} <= set(named)
    cut = cut_nodes(window)
    assert not set(named) & set(cut), [panel.runner.names[n] for n in cut]
    seen = seen_rect(window)
    for label in ("c", "e"):  # whole on the canvas, at the room's digit size
        assert seen.contains(scene.node_item(names[label]).sceneBoundingRect()), label
        assert digit_ink(window, names[label]) >= 0.68 * readable_px(window), label  # measured from the picture
    # every node is whole in view, or counted as a pan away
    away = [nid for nid, item in scene.node_items().items() if not seen.contains(item.sceneBoundingRect())]
    note = _frame_note(window)
    if away:
        assert note.isVisible()
        assert re.search(rf"\b{len(away)} more nodes? a pan away", note.text()), note.text()
    assert not set(named) & set(covered_nodes(window))  # the note lies over none of them


def test_the_note_keeps_clear_of_the_steps_nodes_where_the_canvas_allows(window, qtbot):
    # repro: softmax-cross-entropy step 3 at 2x 1920x1080, a, b and c framed, c's label
    # under the note "Framed for the back row ..." at the canvas's top edge
    present(window, qtbot, (1920, 1080), "softmax-cross-entropy", 2, quiz=True)
    panel = window.lessons
    named = named_focus(panel, panel.focus_ids())
    assert len(named) == 3
    assert not set(named) & set(cut_nodes(window))
    assert not set(named) & set(covered_nodes(window))


def test_a_node_the_canvas_edge_would_cut_is_moved_whole_in_or_out(window, qtbot):
    # the rule, not the case: pan so that a framed step's node straddles the bottom edge,
    # frame again; no node of the step is cut, the framed ones are still whole
    from app.lessons.presenter_layout import frame_step

    present(window, qtbot, (1280, 720), "chain-rule", 3)
    view = window.view
    panel = window.lessons
    named = named_focus(panel, panel.focus_ids())
    item = window.scene.node_item(named[0])
    rect = item.sceneBoundingRect()
    view.centerOn(view.mapToScene(view.viewport().rect().center()).x(), rect.bottom() - 10)
    assert named[0] in cut_nodes(window) or item.sceneBoundingRect().intersects(seen_rect(window))
    frame_step(window)
    assert not set(named) & set(cut_nodes(window))
    assert seen_rect(window).contains(item.sceneBoundingRect())


def test_cut_nodes_reads_the_canvas(window, qtbot):
    # a node half over the edge is cut; whole in or wholly out is not
    present(window, qtbot, (1920, 1080), "chain-rule", 3)
    view = window.view
    nid, item = next(iter(window.scene.node_items().items()))
    rect = item.sceneBoundingRect()
    height = view.mapToScene(view.viewport().rect()).boundingRect().height()
    view.centerOn(rect.center().x(), rect.center().y() - height / 2)  # its centre on the top edge
    assert nid in cut_nodes(window)
    view.centerOn(rect.center())
    assert nid not in cut_nodes(window)
