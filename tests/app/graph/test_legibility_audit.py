"""The legibility audit (issue 16): every shipped example, and every step of every lesson,
opened as a user opens it, at the window sizes a class meets -- 1440 x 880, 1280 x 720 and
presenter 2x at 1920 x 1080 -- must be readable in the first view, without any zooming:

* every grad is painted at least MIN_PX pixels tall on screen, and every node is in view (in
  presenter mode a lesson step may frame its own nodes at 28 px and say over the canvas which
  are a pan away, issue 38);
* no two node boxes overlap, and no wire runs through a node it does not touch;
* neither the legend nor the minimap covers a node;
* the window is not larger than the screen it was given.

A lesson's steps share one window per size (the panel moves on with Next, as in class), and
each step is looked at once, as the lesson left it: no fit here, since the lesson decides
where the camera is.
"""

import pathlib

import pytest
from PySide6.QtCore import QRectF

from app.graph.node_paint import number_screen_px
from app.lessons.panel import LESSONS_DIR
from core.document.layout import boxes_overlap
from core.lessons.format import load_lesson

ROOT = pathlib.Path(__file__).resolve().parents[3]
EXAMPLES = sorted((ROOT / "resources" / "examples").glob("*.json"))
LESSON_FILES = sorted(pathlib.Path(LESSONS_DIR).glob("*.json"))  # any lesson added later is audited too
SIZES = [(1440, 880, None), (1280, 720, None), (1920, 1080, 2.0)]
SIZE_IDS = [f"{w}x{h}" + (f"-presenter{p:g}" if p else "") for w, h, p in SIZES]
MIN_PX = 11.0  # on-screen pixel height of a digit a student can still read from the back
TRAIN_LIMIT = 2  # the network lessons' training is not what this audit looks at


def _present(window, size):
    width, height, presenter = size
    if presenter is not None:
        window.appearance.set_presenter(True, presenter, full_screen=False)
    window.resize(width, height)


def _open(window, qtbot, path, size):
    _present(window, size)
    assert window.files.open(str(path))
    qtbot.waitUntil(lambda: not window.layout_pending, timeout=60000)
    window.view.fit()
    return window.scene, window.view


def problems_on_screen(window, size):
    """What a reader of this window would trip over, as a list of sentences (empty: legible)."""
    scene, view = window.scene, window.view
    found = []
    # opening a graph never grows the window past the size it was given (a lesson once
    # made a 1,000-px-high screen's window 1,077 px high)
    if window.width() > size[0] or window.height() > size[1]:
        found.append(f"the window is {window.width()} x {window.height()}, larger than {size[0]} x {size[1]}")
    items = scene.node_items()
    if not view.isVisible() or not items:
        return found
    zoom = view.zoom()
    viewport = QRectF(view.viewport().rect())

    small = [
        (item.name, round(number_screen_px(item, zoom), 1))
        for item in items.values()
        if number_screen_px(item, zoom) < MIN_PX
    ]
    if small:
        found.append(f"grads painted under {MIN_PX} px at zoom {zoom:.2f}: {small[:8]}")

    boxes = {
        nid: view.mapFromScene(item.mapToScene(item.geometry.record)).boundingRect() for nid, item in items.items()
    }
    # a graph this size is shown whole: a dozen nodes at 1x, 35 in presenter mode (the class's screen);
    # in presenter mode a lesson step frames its own nodes with 28 px digits (issue 38) and what
    # that leaves out must be said over the canvas ("... a pan away")
    if len(items) <= (35 if size[2] else 12):
        outside = [items[nid].name for nid, box in boxes.items() if not viewport.contains(QRectF(box))]
        note = window.frame_note.current
        said = size[2] and window.lessons.snapshot is not None and note is not None and note.isVisible()
        if outside and not (said and "a pan away" in note.text()):
            found.append(f"not in the first view: {outside}")

    positions = {nid: (item.x(), item.y()) for nid, item in items.items()}
    sizes = {nid: (item.geometry.width, item.geometry.height) for nid, item in items.items()}
    hit = boxes_overlap(positions, sizes)
    if hit is not None:
        found.append(f"nodes overlap: {hit}")

    records = {
        nid: item.mapToScene(item.geometry.record).boundingRect().adjusted(2, 2, -2, -2) for nid, item in items.items()
    }
    for edge_item in scene.edge_items():
        src, dst = edge_item.edge[0], edge_item.edge[1]
        path = edge_item.mapToScene(edge_item.path())
        hull = path.boundingRect()
        near = [nid for nid, record in records.items() if nid not in (src, dst) and record.intersects(hull)]
        if not near:
            continue
        trace = [path.pointAtPercent(k / 200) for k in range(201)]  # the drawn line, not its hull
        for nid in near:
            if any(records[nid].contains(point) for point in trace):
                found.append(f"the wire {items[src].name} -> {items[dst].name} runs through {items[nid].name}")

    for overlay in (view.legend, view.minimap):
        if overlay.isVisible():
            covered = [items[nid].name for nid, box in boxes.items() if box.intersects(overlay.geometry())]
            if covered:
                found.append(f"{type(overlay).__name__} covers {covered[:8]}")
    return found


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_is_legible_in_its_first_view(window, qtbot, path, size):
    _open(window, qtbot, path, size)
    problems = problems_on_screen(window, size)
    assert not problems, "\n".join(problems)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize("path", LESSON_FILES, ids=lambda p: p.stem)
def test_every_lesson_step_is_legible_in_its_first_view(window, qtbot, path, size):
    lesson = load_lesson(path)
    panel = window.lessons
    panel.train_limit = TRAIN_LIMIT
    window.files.prompt_on_close = False
    _present(window, size)

    def settled():
        return not panel.busy and not window.layout_pending

    window.opening.show_lessons(lesson.id)
    problems = []
    while True:
        qtbot.waitUntil(settled, timeout=60000)
        qtbot.wait(1)  # the fit and follow queued behind the step's last slice run first
        qtbot.waitUntil(settled, timeout=60000)
        k = panel.runner.index
        problems += [f"step {k + 1}: {p}" for p in problems_on_screen(window, size)]
        if panel.runner.at_end:
            break
        while panel.next_page():  # a step longer than its side dock is in pages: Next shows them first
            pass
        assert panel.next()
        qtbot.waitUntil(lambda k=k: panel.runner.index == k + 1, timeout=60000)
    assert not problems, f"{lesson.title} at {size}:\n" + "\n".join(problems)


def test_a_small_graph_in_presenter_mode_is_drawn_for_the_back_row(window, qtbot):
    # issue 16: at 2x on 1920 x 1080, canvas numbers at least 28 px tall (the tutorial graph)
    scene, view = _open(window, qtbot, ROOT / "resources" / "examples" / "tutorial.json", (1920, 1080, 2.0))
    sizes = [number_screen_px(item, view.zoom()) for item in scene.node_items().values()]
    assert min(sizes) >= 28.0, sizes
