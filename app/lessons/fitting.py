"""How much room a lesson step needs, for presenter mode's layout (app/lessons/presenter_layout.py).

`StepFit` is mixed into `LessonsPanel`: it reads the panel's widgets (`title`,
`where`, `step_bar`, `text`, `network_view`, `body`, `bottom`, `scroller`, `list`)
and answers the layout's questions -- how tall the step is whole
(`wanted_height`), how tall the part that never scrolls is (`fixed_height`), how
much text is out of view (`text_cut`) -- and, for a step longer than the room,
steps its text down a little (`fit_text`) rather than cutting it.
"""

from PySide6.QtWidgets import QBoxLayout, QSizePolicy


class StepFit:
    def fixed_height(self):
        """Height of what must never scroll: the question, its answer box, the verdict,
        errors and Back/Next (at the panel's present width)."""
        layout = self.bottom.layout()
        width = max(1, self.bottom.width())
        if layout.hasHeightForWidth():
            return layout.heightForWidth(width)
        return self.bottom.sizeHint().height()

    def wanted_height(self, boundary=0):
        """The panel's height that shows this step whole: title, every line of the text,
        the network (its boundary at least `boundary` px square) and the fixed part."""
        margins = self.layout().contentsMargins()
        spacing = 6
        title_w = max(1, self.title.width())
        head = max(self.title.heightForWidth(title_w), self.title.sizeHint().height(), self.where.sizeHint().height())
        text = self.markdown_height(self.markdown, 1.0) + 2 * self.text.frameWidth()  # whole, not a page
        wide = self.body.direction() == QBoxLayout.LeftToRight
        body = text
        if self.verdict.isVisibleTo(self):  # beside the text when wide, under it when tall
            verdict = self.verdict_height()
            body = max(text, verdict) if wide else text + spacing + verdict
        if self.network_view.isVisibleTo(self):
            net = self.network_view.metrics_label.sizeHint().height() + max(boundary, 160) + 24
            body = max(body, net) if wide else body + spacing + net
        top = head + spacing + self.step_bar.maximumHeight() + spacing + body
        return margins.top() + margins.bottom() + top + spacing + self.fixed_height()

    def verdict_height(self):
        """Height of the whole verdict and its working at the width it has now."""
        label = self.verdict.widget()
        width = max(1, self.verdict.viewport().width())
        return label.heightForWidth(width) + 2 * self.verdict.frameWidth() + 12

    def fit_text(self, height, floor=0.75):
        """Presenter mode, a step whose text is longer than `height` px of reading room:
        its text a little smaller (down to `floor` of the scale's size) rather than cut.
        Returns the factor, or 0.0 when even `floor` does not fit (the text is then
        left at the scale's size: presenter mode shows it in pages, `paginate`)."""
        height -= 24  # the room is foretold before the dock's resize: keep a margin
        verdict = self.verdict.isVisibleTo(self)
        lines = self.question_box._shown[0].splitlines() if verdict else []

        def too_tall(factor):
            if self.markdown_height(self.markdown, factor) > height:
                return True
            if verdict:  # the working beside the text steps down with it
                self.question_box.scale_result(factor)
                return self.question_box.result_height(lines) > height
            return False

        factor = 1.0
        while factor > floor and too_tall(factor):
            factor = max(floor, factor - 0.05)
        if too_tall(factor):
            return 0.0
        self.set_text_factor(factor)
        return factor

    def set_presenting(self, on):
        """Presenter mode: the step takes the panel's whole width (the class reads the
        text, not the list of lessons; Help → Lessons and Page Down still move on)."""
        self.list.setVisible(not on)
        self._presenting = on
        if not on:  # a laptop's panel scrolls; pages are for the room
            self.paginate(None)
            self.paginate_verdict(None)
            self.set_text_factor(1.0)
        self.share_text()
        self._show_where()

    def share_text(self):
        """The text's vertical size policy. Presenter mode sizes the panel to its text
        (wanted_height): no 192 px floor of its own. In a side dock it keeps that floor,
        or the network's picture would leave it two lines; but with a verdict shown the
        text and the verdict share the room (the verdict used to push the text out)."""
        # presenter mode, or a side dock fitted to its room (app/lessons/side_fit.py)
        presenting = getattr(self, "_presenting", False) or getattr(self, "side_sized", False)
        shared = presenting or self.verdict.isVisibleTo(self)
        self.text.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Ignored if shared else QSizePolicy.Expanding)
        # presenter mode: the network's numbers and picture take the body's height, no
        # floor of their own (a wrapped label's floor made the step's page scroll, 105 px)
        self.network_view.setSizePolicy(
            QSizePolicy.Preferred, QSizePolicy.Ignored if presenting else QSizePolicy.Preferred
        )

    def text_cut(self):
        """How many pixels of the step's text are out of view (0: all of it shows)."""
        inner = self.text.verticalScrollBar().maximum()
        outer = self.scroller.verticalScrollBar().maximum()
        return inner + outer
