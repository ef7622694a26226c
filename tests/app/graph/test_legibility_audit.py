"""The legibility audit (issue 16): every shipped example, opened as a user opens it, at the
window sizes a class meets -- 1440 x 880, 1280 x 720 and presenter 2x at 1920 x 1080 -- must be
readable in the first view, without any zooming:

* every grad is painted at least MIN_PX pixels tall on screen, and every node is in view;
* no two node boxes overlap, and no wire runs through a node it does not touch;
* neither the legend nor the minimap covers a node;
* the window is not larger than the screen it was given.
"""

import pathlib

import pytest
from PySide6.QtCore import QRectF

from app.graph.node_paint import number_screen_px
from core.document.layout import boxes_overlap

ROOT = pathlib.Path(__file__).resolve().parents[3]
EXAMPLES = sorted((ROOT / "resources" / "examples").glob("*.json"))
SIZES = [(1440, 880, None), (1280, 720, None), (1920, 1080, 2.0)]
MIN_PX = 11.0  # on-screen pixel height of a digit a student can still read from the back


def _open(window, qtbot, path, size):
    width, height, presenter = size
    if presenter is not None:
        window.appearance.set_presenter(True, presenter, full_screen=False)
    window.resize(width, height)
    assert window.files.open(str(path))
    qtbot.waitUntil(lambda: not window.layout_pending, timeout=60000)
    window.view.fit()
    return window.scene, window.view


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}" + (f"-presenter{s[2]:g}" if s[2] else ""))
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_is_legible_in_its_first_view(window, qtbot, path, size):
    scene, view = _open(window, qtbot, path, size)
    items = scene.node_items()
    zoom = view.zoom()
    viewport = QRectF(view.viewport().rect())

    small = [
        (item.name, round(number_screen_px(item, zoom), 1))
        for item in items.values()
        if number_screen_px(item, zoom) < MIN_PX
    ]
    assert not small, f"grads painted under {MIN_PX} px at zoom {zoom:.2f}: {small}"

    boxes = {
        nid: view.mapFromScene(item.mapToScene(item.geometry.record)).boundingRect() for nid, item in items.items()
    }
    # a graph this size is shown whole: a dozen nodes at 1x, 35 in presenter mode (the class's screen)
    if len(items) <= (35 if size[2] else 12):
        outside = [items[nid].name for nid, box in boxes.items() if not viewport.contains(QRectF(box))]
        assert not outside, f"not in the first view: {outside}"

    positions = {nid: (item.x(), item.y()) for nid, item in items.items()}
    sizes = {nid: (item.geometry.width, item.geometry.height) for nid, item in items.items()}
    assert boxes_overlap(positions, sizes) is None

    for edge_item in scene.edge_items():
        src, dst = edge_item.edge[0], edge_item.edge[1]
        path = edge_item.mapToScene(edge_item.path())
        trace = [path.pointAtPercent(k / 200) for k in range(201)]  # the drawn line, not its hull
        for nid, item in items.items():
            if nid in (src, dst):
                continue
            record = item.mapToScene(item.geometry.record).boundingRect().adjusted(2, 2, -2, -2)
            assert not any(record.contains(point) for point in trace), f"the wire {src}->{dst} runs through {item.name}"

    for overlay in (view.legend, view.minimap):
        if overlay.isVisible():
            covered = [items[nid].name for nid, box in boxes.items() if box.intersects(overlay.geometry())]
            assert not covered, f"{type(overlay).__name__} covers {covered}"

    # opening a graph never grows the window past the size it was given (a lesson once
    # made a 1,000-px-high screen's window 1,077 px high)
    assert window.width() <= size[0] and window.height() <= size[1]


def test_a_small_graph_in_presenter_mode_is_drawn_for_the_back_row(window, qtbot):
    # issue 16: at 2x on 1920 x 1080, canvas numbers at least 28 px tall (the tutorial graph)
    scene, view = _open(window, qtbot, ROOT / "resources" / "examples" / "tutorial.json", (1920, 1080, 2.0))
    sizes = [number_screen_px(item, view.zoom()) for item in scene.node_items().values()]
    assert min(sizes) >= 28.0, sizes
