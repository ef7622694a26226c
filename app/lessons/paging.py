"""A step's text and verdict in pages, in presenter mode on a screen too small to show
them whole (core/lessons/pages.py cuts them; this mixin measures and shows them).

`StepPages` is mixed into `LessonsPanel`. The panel keeps the step's whole text
(`markdown`); presenter mode's layout (app/lessons/presenter_layout.py) calls
`paginate(height)` with the text's room once it has sized the dock: a step that
fits shows whole; a longer one shows page k of n, each page whole with
"▼ more: Next ▶ shows page k+1 of n" at its foot, and "page k of n" beside
"Step i of m". A verdict taller than its room is cut the same way, between its
lines. Next (and the presenter's clicker) shows the verdict's next page, then the
text's, then the next step; Back the page before. After an answer the text shows
the page holding what the answer revealed.
"""

from collections.abc import Iterator
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont

from app.lessons.reading import LessonDocument, set_document_markdown, set_markdown
from core.lessons import pages as cut

PAGE_FONT = 0.8  # a paged step's text: a little smaller than the scale's, more lines a page
MARGIN = 12  # the document's margins the viewport must hold besides its lines


HEADING = "####"  # a paged step's headings: bold, the text's size (a title-sized one filled a page)


class StepPages:
    # what LessonsPanel provides
    text: Any
    where: Any
    title: Any
    snapshot: Any
    runner: Any
    verdict: Any
    question_box: Any
    metrics_label: Any
    network_view: Any
    page_layout: Any
    scroller: Any
    pageShown: Any
    metrics_text: Any
    _update_controls: Any

    def _init_pages(self) -> None:
        self.markdown = ""  # the step's whole text, as the runner renders it
        self.pages = [""]
        self.page = 0
        self.verdict_lines: list[list[str]] = []  # the verdict's pages: lists of its lines
        self.verdict_page = 0
        self.heading: str | None = None  # a paged step's opening heading, shown as the title
        self.revealed: str | None = None  # the word the last answer revealed (paging shows its page)
        self._page_room: tuple[int, int] | None = None  # (width, height) the pages were cut for
        self._text_factor = 1.0
        self._measure = LessonDocument()  # measures a page at the text's font and width
        self._measured: str | None = None  # the Markdown it holds
        self._heights: dict[tuple, int] = {}  # (markdown, px, family, width) -> height

    # -- measuring -------------------------------------------------------------------

    def text_font(self, factor: float | None = None) -> QFont:
        factor = self._text_factor if factor is None else factor
        font = QFont(self.text.font())
        if factor < 1.0 and font.pixelSize() > 0:
            font.setPixelSize(max(1, round(font.pixelSize() * factor)))
        return font

    def markdown_height(self, markdown: str, factor: float | None = None, width: int | None = None) -> int:
        """Height (px) `markdown` takes in the text's viewport at `factor` of its font
        (remembered: a fit asks the same a few times over while the layout settles)."""
        font = self.text_font(factor)
        width = width if width is not None else self.text.viewport().width()
        key = (markdown, font.pixelSize(), font.family(), width)
        known = self._heights.get(key)
        if known is not None:
            return known
        doc = self._measure
        if self._measured != markdown:
            set_document_markdown(doc, markdown)
            self._measured = markdown
        doc.setDefaultFont(font)
        doc.setTextWidth(width)
        if len(self._heights) > 4000:
            self._heights.clear()
        self._heights[key] = height = int(doc.size().height()) + MARGIN
        return height

    # -- showing ---------------------------------------------------------------------

    def set_step_text(self, markdown: str, keep_page: bool = False) -> None:
        """The step's text, whole until `paginate` cuts it; `keep_page` (the same step
        after an answer): cut for the same room, at the page holding what changed."""
        before = self.markdown
        self.markdown = markdown
        room = self._page_room if keep_page else None
        page = self.page
        self.pages, self.heading = [markdown], None
        self.page = 0
        if not keep_page:
            self._text_factor = 1.0
            self._page_room = None
        if keep_page:
            self.revealed = cut.changed_word(before, markdown) or self.revealed
        else:
            self.revealed = None
        if room is not None:
            self._cut(*room)
            self.page = min(page, len(self.pages) - 1)
            self._to_revealed()
        self._show_page()

    def _to_revealed(self) -> None:
        """After an answer: the page holding what it revealed (its `+=` line, its value)."""
        found = cut.page_of(self.pages, self.revealed)
        if found is not None:
            self.page = found

    def revealed_in_view(self) -> bool:
        """Is what the last answer revealed on the page shown (or nothing revealed)?"""
        return not self.revealed or self.revealed in self.pages[self.page]

    def set_text_factor(self, factor: float) -> None:
        self._text_factor = factor
        self.text.document().setDefaultFont(self.text_font())

    def show_metrics(self) -> None:
        """The network's numbers; in pages at PAGE_FONT of their size, like the text,
        one a line beside the boundary (`LessonNetworkView.set_compact`)."""
        text = self.metrics_text()
        px = self.metrics_label.font().pixelSize()
        compact = len(self.pages) > 1 and getattr(self, "_presenting", False)  # a side dock is too narrow for beside
        self.network_view.set_compact(compact)
        if compact:
            text = text.replace(" · ", "\n")
        if compact and text and px > 0:
            lines = "<br>".join(line.replace("&", "&amp;").replace("<", "&lt;") for line in text.splitlines())
            text = f"<span style='font-size:{round(px * PAGE_FONT)}px'>{lines}</span>"
        self.metrics_label.setText(text)

    def _show_page(self) -> None:
        set_markdown(self.text, self.pages[self.page])
        if self.snapshot is not None and self.snapshot.kind == "network":
            self.show_metrics()
        self.text.document().setDefaultFont(self.text_font())
        self.text.verticalScrollBar().setValue(0)
        self._show_where()

    def _show_where(self) -> None:
        """ "Step k of n" (", page p of q" when paged); a paged step's title on one line."""
        if self.snapshot is None or self.runner is None:
            return
        k, n = self.snapshot.progress
        text = f"Step {k} of {n}"
        if len(self.pages) > 1:
            text += f", page {self.page + 1} of {len(self.pages)}"
        self.where.setText(text)
        presenting = getattr(self, "_presenting", False)
        self.page_layout.fixed = presenting
        self.page_layout.invalidate()
        self.fit_title()
        self._update_controls()
        self.pageShown.emit()

    def fit_title(self) -> None:
        """The lesson's title (a paged step's heading), on one line elided to the head's row
        beside "Step k of n" in presenter mode and in a side dock; again whenever the row's
        width changes (LessonsPanel.resizeEvent)."""
        if self.snapshot is None or self.runner is None:
            return
        title = self.heading or self.runner.lesson.title  # a paged step: its heading
        presenting = getattr(self, "_presenting", False)
        one_line = presenting or getattr(self, "side_sized", False)
        side = one_line and not presenting  # (presenter mode's fixed page ignores the title's wrapping)
        self.title.setWordWrap(not side)  # a title wrapping or not moved a side dock's room: the cut came and went
        self.title.setMinimumWidth(1 if side else 0)  # one line, elided: never widening the dock
        if one_line:  # the room is the text's: the title one line, the rest elided
            # the head's row less "Step k of n, page p of q" beside it (the title's own width is
            # the last layout's: with a longer "page" beside it the "…" was cut off)
            row = self.scroller.viewport().width() - self.where.sizeHint().width() - 2 * self.page_layout.spacing()
            width = max(1, self.title.width())
            if presenting and row > 0:  # the row, never the label's own width: an elided title's label
                width = row  # shrank to its text, and the next elision followed it ("The chai…" at 2x 1920)
            elif row > 0:  # a side dock
                width = max(1, min(width, row))
            title = self.title.fontMetrics().elidedText(title, Qt.TextElideMode.ElideRight, width)
        self.title.setText(title)

    def paged(self) -> bool:
        return len(self.pages) > 1 or len(self.verdict_lines) > 1

    def paginate(self, height: int | None, factor: float = PAGE_FONT) -> None:
        """Cut the step's text into pages of `height` px of the viewport (None: show
        it whole) at `factor` of the scale's size (presenter mode: PAGE_FONT; a
        laptop's side dock, app/lessons/side_fit.py: 1.0)."""
        if height is None:
            if len(self.pages) > 1 or self._page_room is not None:
                self._page_room = None
                self.pages, self.page, self.heading = [self.markdown], 0, None
                self._show_page()
            return
        room = (self.text.viewport().width(), int(height))
        if room == self._page_room and self._text_factor == factor:
            return
        self._page_room = room
        self._text_factor = factor
        page = self.page
        self._cut(*room)
        self.page = min(page, len(self.pages) - 1)
        self._to_revealed()
        self._show_page()

    def _cut(self, width: int, height: int) -> None:
        def fits(markdown: str) -> bool:
            return self.markdown_height(markdown, self._text_factor, width) <= height

        if fits(self.markdown):
            self.pages, self.heading = [self.markdown], None
            return
        self.heading, rest = cut.split_heading(self.markdown)  # the title's line shows it
        self.pages = cut.paginate(rest, fits, heading=HEADING) if rest.strip() else [rest]

    # -- the verdict's pages -------------------------------------------------------------

    def paginate_verdict(self, height: int | None) -> None:
        """The verdict's lines in pages of `height` px (None: whole)."""
        shown = getattr(self.question_box, "_shown", None)
        if shown is None or not self.verdict.isVisibleTo(self):
            self.verdict_lines, self.verdict_page = [], 0
            return
        explanation, _ = shown
        lines = explanation.splitlines()
        pages: list[list[str]] = []
        if height is None:
            pages = [lines]
        else:
            page: list[str] = []
            for line in self._verdict_pieces(lines, height):
                first = not pages
                if page and self.question_box.result_height(page + [line], True, first) > height:
                    pages.append(page)
                    page = []
                page.append(line)
            pages.append(page)
        if pages != self.verdict_lines:
            self.verdict_lines = pages
            self.verdict_page = min(self.verdict_page, len(pages) - 1)
            self._show_verdict_page()
            self._update_controls()

    def _verdict_pieces(self, lines: list[str], height: int) -> Iterator[str]:
        """The verdict's lines, one too tall for a part alone cut between words."""
        box = self.question_box
        for k, line in enumerate(lines):
            if box.result_height([line], True, k == 0) <= height:
                yield line
                continue
            words: list[str] = []
            for word in line.split():
                if words and box.result_height([" ".join(words + [word])], True, k == 0) > height:
                    yield " ".join(words)
                    words = []
                words.append(word)
            if words:
                yield " ".join(words)

    def _show_verdict_page(self) -> None:
        n = len(self.verdict_lines)
        lines = self.verdict_lines[self.verdict_page] if n else None
        k = self.verdict_page + 1
        more = f"▼ part {k} of {n}: More ▼ shows the rest" if k < n else None
        self.question_box.show_lines(lines, more, self.verdict_page == 0)
        self.pageShown.emit()

    # -- moving through the pages --------------------------------------------------------

    def next_page_left(self) -> bool:
        """Has the step a page (of its text or verdict) after the one shown?"""
        return self.verdict_page + 1 < len(self.verdict_lines) or self.page + 1 < len(self.pages)

    def next_page(self) -> bool:
        """Next within the step: the verdict's next page, else the text's. False at the end."""
        if not self.next_page_left():
            return False
        self.revealed = None  # shown: a later re-cut keeps the page the class moved to
        if self.verdict_page + 1 < len(self.verdict_lines):
            self.verdict_page += 1
            self._show_verdict_page()
            self._update_controls()
            return True
        if self.page + 1 < len(self.pages):
            self.page += 1
            self._show_page()
            return True
        return False

    def back_page(self) -> bool:
        if self.verdict_page > 0 or self.page > 0:
            self.revealed = None  # as for next_page
        if self.verdict_page > 0:
            self.verdict_page -= 1
            self._show_verdict_page()
            self._update_controls()
            return True
        if self.page > 0:
            self.page -= 1
            self._show_page()
            return True
        return False
