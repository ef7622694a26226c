"""A tour of the whole course as the class sees it: every step of every lesson, at a
window size and scale, with what is in view measured from the widgets' geometry.

    python main.py --tour OUTDIR [--size 1920x1080] [--presenter 2] [--quiz] [--train-limit N]

pages the course as a teacher does (`teach`): from Welcome's "Start the first lesson",
Next through every step of every lesson, answering every question (every second one
wrong first); with --quiz every grad a step computes is asked too. It saves
OUTDIR/<lesson>-<step>-<shown|answered>.png for each view and prints one line per view
(and a summary) with what breaks (`problems`) and the facts (`facts`): the panel, the
whole question, answer box and Next, the text and the verdict in view, the step's
nodes on the canvas and their digits measured from the painted picture, the decision
boundary. tests/app/lessons/test_tour.py runs the same flow and asserts the same facts.
"""

from PySide6.QtCore import QRect

from app.lessons.presenter_layout import size_presenter_docks


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


def _side(rect):
    return min(rect.width(), rect.height()) if not rect.isEmpty() else 0


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
        "boundary": _side(visible_rect(panel.boundary_view, window)) if panel.network_view.isVisible() else 0,
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
    view, scene = window.view, window.scene
    items = [scene.node_item(nid) for nid in focus if scene.node_item(nid) is not None]
    seen = view.mapToScene(view.viewport().rect()).boundingRect()
    if not items or not view.isVisible():
        return {"focus": len(focus), "in_view": 0, "em": 0.0, "ink": 0.0}
    inside = [item for item in items if seen.contains(item.sceneBoundingRect())]
    em = scene.theme.font("number").pixelSize() * view.zoom()  # the digits' font at this zoom (the ink is measured)
    ink = max((digit_ink(window, item.nid) for item in inside[:3]), default=0.0)
    return {"focus": len(items), "in_view": len(inside), "em": round(em, 1), "ink": round(ink, 1)}


def walk(window, lessons=None):
    """Open each lesson and page through it with Next; yield (lesson, step index) with
    the step on screen and the presenter layout settled."""
    from PySide6.QtWidgets import QApplication

    panel = window.lessons
    for lesson in lessons if lessons is not None else panel.lessons:
        window.opening.show_lessons(lesson.id, 0)
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

    from app.lessons.side_fit import fit_side

    before = None
    for _ in range(8):  # until the fit settles (a fit moves widths, which the next fit reads)
        QApplication.processEvents()
        if window.appearance.presenting:
            size_presenter_docks(window)
        else:
            fit_side(window)  # a laptop's side dock: the step whole, in pages if it must
        now = (window.docks["lessons"].height(), window.lessons.text.viewport().size())
        if now == before:
            break
        before = now
    QApplication.processEvents()


def from_welcome(window):
    """Start the course as a teacher does: the Welcome page, "Start the first lesson"."""
    dialog = window.opening.show_welcome()
    dialog.first_lesson.click()
    dialog.close()
    window.lessons.wait_idle()
    settle(window)


def teach(window, quiz=False, wrong_every=2, lessons=None):
    """The teacher's flow (issue 38): from Welcome, Next through every step of every
    lesson (or of `lessons`, ids), answering every question -- the step's own and, with
    the Quiz, every grad it asks -- every `wrong_every`-th one wrong first. Yields
    (lesson, step index, 'shown' or 'answered', facts) with the screen settled."""
    panel = window.lessons
    panel.quiz_check.setChecked(quiz)
    from_welcome(window)
    wanted = set(lessons) if lessons else None
    asked = 0
    step = None
    while panel.runner is not None:
        lesson, index = panel.runner.lesson, panel.runner.index
        last_page = not panel.next_page_left()
        if wanted is None or lesson.id in wanted:
            yield lesson, index, "shown" if (lesson.id, index) != step else "page", facts(window)
            step = (lesson.id, index)
            answered = 0
            while last_page and panel.quiz.current is not None and answered < 50:  # read to the end, then ask
                item = panel.quiz.current
                asked += 1
                if asked % wrong_every == 0:
                    panel.answer.setText(repr(item.truth + 1.0 + abs(item.truth)))  # wrong: a hint comes
                    panel.check_button.click()
                panel.answer.setText(repr(item.truth))
                panel.check_button.click()
                answered += 1
            if answered:
                settle(window)
                yield lesson, index, "answered", dict(facts(window), answered=True)
                if panel.next_page_left():  # the page with what the answer revealed: the rest after it
                    panel.next_button.click()
                    settle(window)
                    continue
        if panel.next_page_left():  # the step's next page (presenter mode on a small screen)
            before = (panel.page, panel.verdict_page)
            panel.next_button.click()
            settle(window)
            if (panel.page, panel.verdict_page) == before and panel.next_page_left():
                raise RuntimeError(f"{lesson.id} step {index + 1}: More does not move on (page {before})")
            continue
        if wanted is not None and index == len(lesson.steps) - 1:
            wanted.discard(lesson.id)
            if not wanted:
                return
        if not panel.next_button.isEnabled():
            return
        if wanted is not None and lesson.id not in wanted and index == 0 and len(lesson.steps) > 1:
            panel.goto(len(lesson.steps) - 1)  # a lesson not asked for: straight to its end
        else:
            panel.next_button.click()
        panel.wait_idle()
        settle(window)


def facts(window):
    """Everything the tour asserts about the screen now: `in_view`, the text and the
    verdict (visible pixels, pixels cut), the step's nodes on the canvas with their
    painted digits (`canvas_facts`), what the canvas's note says."""
    from app.lessons.presenter_layout import _frame_note, covered_nodes, cut_nodes, readable_px

    panel = window.lessons
    result = in_view(window)
    result["text_seen"] = visible_rect(panel.text.viewport(), window).height()
    result["line"] = panel.text.fontMetrics().height()
    result["verdict"] = panel.verdict.isVisible()
    result["verdict_seen"] = visible_rect(panel.verdict.viewport(), window).height() if result["verdict"] else 0
    result["verdict_cut"] = panel.verdict.verticalScrollBar().maximum() if result["verdict"] else 0
    result["verdict_whole"] = (
        result["verdict"] and result["verdict_cut"] == 0 and whole(panel.verdict.viewport(), window)
    )
    result["presenting"] = window.appearance.presenting
    result["readable_px"] = round(readable_px(window), 1)
    focus = panel.focus_ids() if panel.snapshot is not None and panel.snapshot.show_graph else []
    result.update(canvas_facts(window, focus))
    first = focus[0] if focus else None
    seen = window.view.mapToScene(window.view.viewport().rect()).boundingRect()
    item = window.scene.node_item(first) if first is not None else None
    result["first_in_view"] = item is not None and seen.contains(item.sceneBoundingRect())
    # a node the canvas's edge cuts is neither in view nor a pan away (chain-rule step 4 at
    # 2x on 1280x720: e cut at the bottom edge while c was framed)
    cut = cut_nodes(window) if window.view.isVisible() else []
    result["cut_nodes"] = len(cut)
    named = named_focus(panel, focus)
    result["focus_cut"] = sum(1 for nid in named if nid in cut)
    # told, not asserted: where the canvas is too short for the step's nodes and the note,
    # the frame prefers a place clear of the note but cannot always find one
    under = covered_nodes(window) if window.view.isVisible() else []
    result["focus_covered"] = sum(1 for nid in named if nid in under)
    note = _frame_note(window)
    result["note"] = note.text() if note.isVisible() else ""
    # a step in pages (presenter mode on a small screen, app/lessons/paging.py): which
    # page of its text and part of its verdict, and whether Next says there is more
    result["page"], result["pages"] = panel.page + 1, len(panel.pages)
    result["part"], result["parts"] = panel.verdict_page + 1, max(1, len(panel.verdict_lines))
    result["more"] = panel.next_button.isVisible() and panel.next_button.text().startswith("More")
    result["where_says"] = panel.where.text()
    result["revealed_seen"] = panel.revealed_in_view()  # what the last answer revealed is on the page shown
    return result


def named_focus(panel, focus):
    """The nodes the step names (its highlighted nodes and its question's node), of
    `focus` (which falls back to every node of a step that names none)."""
    snapshot, runner = panel.snapshot, panel.runner
    question = runner.step.question if runner is not None else None
    asked = runner.nid_of_label(question.node) if question is not None else None
    return [nid for nid in focus if nid in snapshot.highlight or nid == asked]


def problems(facts, where, whole=True):
    """What breaks issue 38 (and 28) in one view of the tour: a list of sentences.
    `whole`: no pixel of the text or the verdict may be cut or scrolled away, in
    presenter mode and in a laptop's side dock alike (else they may scroll, at least
    two lines of each in view)."""
    bad = []
    for key in ("panel", "next", "question"):
        if not facts[key]:
            bad.append(f"{where}: {key} not whole on screen")
    line = facts["line"]
    if facts["text_seen"] < min(2 * line, facts["text_height"]):
        bad.append(f"{where}: {facts['text_seen']} px of the text in view ({line} px a line)")
    if facts["verdict"]:
        if facts["verdict_seen"] < 2 * line and not facts["verdict_whole"]:
            bad.append(f"{where}: {facts['verdict_seen']} px of the verdict in view")
        if whole and facts["verdict_cut"] > 0:
            bad.append(f"{where}: {facts['verdict_cut']} px of the verdict cut")
    bad += page_problems(facts, where)
    if whole and facts["text_cut"] > 0:  # a laptop's side dock too (app/lessons/side_fit.py)
        bad.append(f"{where}: {facts['text_cut']} px of the text cut")
    if facts["presenting"]:
        if facts["focus"]:
            bad += canvas_problems(facts, where)
    if facts["presenting"] and facts["network"] and facts["boundary"] < BOUNDARY_PX:  # a side dock scrolls to it
        bad.append(f"{where}: the decision boundary is {facts['boundary']} px")
    return bad


def canvas_problems(facts, where):
    """Presenter mode, a step with nodes: their digits of the room's size (em and the
    painted ink), the first on the canvas, none cut at its edge or under the note, the
    rest said."""
    bad = []
    least = facts["readable_px"]
    if facts["em"] < least - 0.5:
        bad.append(f"{where}: digits {facts['em']} px em, under {least}")
    if facts["ink"] < INK_PER_EM * least:
        bad.append(f"{where}: digits painted {facts['ink']} px tall, under {INK_PER_EM * least:.1f}")
    if not facts["first_in_view"]:
        bad.append(f"{where}: the step's first node is off the canvas")
    if facts["focus_cut"]:
        bad.append(f"{where}: {facts['focus_cut']} of the step's nodes cut at the canvas's edge")
    if facts.get("focus_covered"):
        bad.append(f"{where}: {facts['focus_covered']} of the step's nodes under the note over the canvas")
    if facts["in_view"] < facts["focus"] and "a pan away" not in facts["note"]:
        bad.append(f"{where}: {facts['focus'] - facts['in_view']} of the step's nodes off the canvas, unsaid")
    return bad


def page_problems(facts, where):
    """A step in pages (presenter mode on a small screen): each page but the last says
    there is more (Next reads "More ▼"), and which page it is ("page 2 of 3")."""
    bad = []
    if (facts["page"] < facts["pages"] or facts["part"] < facts["parts"]) and not facts["more"]:
        bad.append(
            f"{where}: page {facts['page']} of {facts['pages']} (verdict {facts['part']} of "
            f"{facts['parts']}) and Next does not say More"
        )
    if facts["pages"] > 1 and f"page {facts['page']} of {facts['pages']}" not in facts["where_says"]:
        bad.append(f"{where}: page {facts['page']} of {facts['pages']} unsaid ({facts['where_says']!r})")
    if facts.get("answered") and not facts["revealed_seen"]:
        bad.append(f"{where}: what the answer revealed is not on the page shown")
    return bad


INK_PER_EM = 0.68  # DejaVu Sans Bold's digits stand 0.73 em tall; antialiasing and rounding take a pixel
BOUNDARY_PX = 120  # a decision boundary the back row can read the two classes of
