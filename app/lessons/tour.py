"""A tour of the whole course as the class sees it: every step of every lesson, at a
window size and scale, with what is in view measured from the widgets' geometry.

    python -m app.lessons.tour OUTDIR [--size 1920x1080] [--presenter 2] [--train-limit N]

saves OUTDIR/<lesson>-<step>.png for each step and prints one line per step (and a
summary): is the lesson panel on screen, are the whole question, answer box and Next
in view, how many pixels of text are out of view. tests/app/lessons/test_tour.py runs
the same walk (`walk`) and asserts on the same facts (`in_view`).
"""

import argparse
import os
import sys

from PySide6.QtCore import QRect


def visible_rect(widget, window):
    """The part of `widget` (in window coordinates) that no ancestor clips away: empty
    when it or an ancestor is hidden."""
    if not widget.isVisible():
        return QRect()
    rect = QRect(widget.mapTo(window, widget.rect().topLeft()), widget.size())
    parent = widget.parentWidget()
    while parent is not None:
        if not parent.isVisible():
            return QRect()
        rect = rect.intersected(QRect(parent.mapTo(window, parent.rect().topLeft()), parent.size()))
        if parent is window:
            break
        parent = parent.parentWidget()
    return rect


def whole(widget, window):
    """Is all of `widget` on screen?"""
    rect = visible_rect(widget, window)
    return not rect.isEmpty() and rect.size() == widget.size()


def in_view(window):
    """What the class sees of the step now on screen (facts from the widgets' geometry)."""
    panel = window.lessons
    box = panel.question_box
    asks = panel.snapshot is not None and (panel.snapshot.prompt is not None or panel.quiz.current is not None)
    facts = {
        "panel": whole(window.docks["lessons"], window) if window.docks["lessons"].isVisible() else False,
        "next": whole(panel.next_button, window),
        "asks": asks,
        "question": whole(box.prompt, window) and whole(box.answer, window) and whole(box.check_button, window)
        if asks
        else True,
        "text_cut": panel.text_cut(),
        "text_height": panel.text.viewport().height(),
        "network": panel.network_view.isVisible(),
        "boundary": min(panel.boundary_view.width(), panel.boundary_view.height())
        if panel.network_view.isVisible()
        else 0,
        "canvas": window.view.height() if window.view.isVisible() else 0,
    }
    return facts


def digit_ink(window, nid):
    """The painted height (screen pixels) of node `nid`'s data digits, measured from
    the canvas's picture: the rows of the number's cell holding ink that stands out
    from the cell's background. 0 when the node is not whole on the canvas."""
    from PySide6.QtGui import QColor

    view, item = window.view, window.scene.node_item(nid)
    if item is None:
        return 0
    row = item.geometry.data_rect
    pad = item.theme.length("pad")
    right = row.adjusted(row.width() * 0.45, 0, -pad, 0)  # the number, clear of the 'data' caption
    rect = view.mapFromScene(item.mapToScene(right)).boundingRect()
    edge = 2 + int(2 * item.theme.scale * view.zoom())  # the row's borders are not ink of digits
    rect = rect.adjusted(0, edge, 0, -edge)
    viewport = view.viewport().rect()
    if not viewport.contains(rect):
        return 0
    image = view.viewport().grab(rect).toImage()
    ratio = image.height() / max(1, rect.height())

    def luma(x, y):
        c = QColor(image.pixel(x, y))
        return 0.299 * c.red() + 0.587 * c.green() + 0.114 * c.blue()

    w, h = image.width(), image.height()
    background = sorted(luma(x, h // 2) for x in range(0, w, max(1, w // 40)))[-1]  # the cell's fill, light or dark
    inked = [y for y in range(h) if any(abs(luma(x, y) - background) > 110 for x in range(w))]
    if not inked:
        return 0
    return (inked[-1] - inked[0] + 1) / ratio


def canvas_facts(window, focus):
    """What the class sees of the step's nodes on the canvas: are they all whole in
    view, and how large are their digits (em from the zoom, ink from the picture)."""
    from app.graph.node_paint import number_screen_px

    view, scene = window.view, window.scene
    items = [scene.node_item(nid) for nid in focus if scene.node_item(nid) is not None]
    seen = view.mapToScene(view.viewport().rect()).boundingRect()
    if not items or not view.isVisible():
        return {"focus": len(focus), "in_view": 0, "em": 0.0, "ink": 0.0}
    inside = [item for item in items if seen.contains(item.sceneBoundingRect())]
    em = min(number_screen_px(item, view.zoom()) for item in items)
    ink = max((digit_ink(window, item.nid) for item in inside[:3]), default=0.0)
    return {"focus": len(items), "in_view": len(inside), "em": round(em, 1), "ink": round(ink, 1)}


def walk(window, lessons=None):
    """Open each lesson and page through it with Next; yield (lesson, step index) with
    the step on screen and the presenter layout settled."""
    from PySide6.QtWidgets import QApplication

    panel = window.lessons
    for lesson in lessons if lessons is not None else panel.lessons:
        window.show_lessons(lesson.id, 0)
        for index in range(len(lesson.steps)):
            if index:
                panel.goto(index)
            panel.wait_idle()
            settle(window)
            QApplication.processEvents()
            yield lesson, index


def settle(window):
    """Let the posted layout and the presenter's fit run (no waiting for time)."""
    from PySide6.QtWidgets import QApplication

    for _ in range(3):
        QApplication.processEvents()
        if window.appearance.presenting:
            window._size_presenter_docks()
    QApplication.processEvents()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--presenter", type=float, default=None)
    parser.add_argument("--train-limit", type=int, default=None)
    parser.add_argument("--lesson", action="append", help="only these lessons (ids)")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from app.main_window import MainWindow
    from app.startup import _application

    _application()
    os.makedirs(args.out, exist_ok=True)
    window = MainWindow()
    window.files.prompt_on_close = False
    window.lessons.train_limit = args.train_limit
    width, height = (int(n) for n in args.size.lower().split("x"))
    window.resize(width, height)
    window.show()
    window.wait_for_layout()
    if args.presenter:
        window.appearance.set_presenter(True, args.presenter, full_screen=False)
    lessons = [window.lessons.lesson(i) for i in args.lesson] if args.lesson else None
    bad = 0
    for lesson, index in walk(window, lessons):
        facts = in_view(window)
        name = f"{lesson.order:02d}-{lesson.id}-{index + 1}"
        window.grab().save(os.path.join(args.out, name + ".png"), "PNG")
        ok = facts["panel"] and facts["next"] and facts["question"]
        bad += not ok
        print(name, "ok" if ok else "NOT IN VIEW", " ".join(f"{k}={v}" for k, v in facts.items()), flush=True)
    if args.presenter:
        window.appearance.set_presenter(False)
    window.close()
    print(f"{bad} step(s) with the panel, the question or Next out of view")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
