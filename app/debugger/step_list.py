"""The step list: every `_backward` call of the backward pass, in the order it runs.

A table model over `stepper.order` -- one row per op node, computed when the
view asks for a row, so 5,000 steps cost nothing until they are scrolled to.
The row of the step shown is highlighted; rows not run yet are grey; a
breakpoint shows a red dot. Clicking a row seeks there (the panel does that).
"""

from PySide6.QtCore import QAbstractTableModel, QEvent, QModelIndex, Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QStyle, QStyledItemDelegate, QTableView

from app.look.theme import MONO_FAMILY
from core.ops import short_text

# the step column is the node's whole formula, 'n = x1*w1 + x2*w2 + b' (its name on the
# left): a separate node column ~60 px wide cut every name of the lecture to 'x...2'
COLUMNS = ("#", "op", "step", "")
STEP = 2
SAMPLES = ("● 000", "tanh", None, "◀ now")  # what each fixed column must hold (None: the rest)
_TOP = QModelIndex()  # the invisible root of a table model
# plain ints: comparing PySide6's enum members costs microseconds, and a repaint asks ~400 times
DISPLAY, FONT, BACKGROUND, FOREGROUND, TOOLTIP = (
    int(r) for r in (Qt.DisplayRole, Qt.FontRole, Qt.BackgroundRole, Qt.ForegroundRole, Qt.ToolTipRole)
)
_ROLES = frozenset((DISPLAY, FONT, BACKGROUND, FOREGROUND, TOOLTIP))


class StepListModel(QAbstractTableModel):
    def __init__(self, controller, theme, parent=None):
        super().__init__(parent)
        self.ctrl = controller
        self.theme = theme
        self._order = []
        self._shown = -1  # row of the step shown (position - 1)
        self._position = 0
        self._mono = QFont(MONO_FAMILY)
        self._bold = QFont()
        self._bold.setBold(True)
        self._texts = {}  # row -> (op, formula), made when first shown
        self.set_theme(theme)
        self.reload()

    def set_theme(self, theme):
        self.theme = theme
        shown = QColor(theme.color("highlight"))
        shown.setAlpha(150)
        self._shown_color = shown
        self._shown_text = theme.text_on(theme.color("highlight"))
        self._later_color = QColor(theme.color("caption_text"))
        self._break_color = QColor(theme.color("nonfinite"))
        self.refresh_all()

    def reload(self):
        """A new plan (another graph): all rows anew."""
        self.beginResetModel()
        st = self.ctrl.stepper
        self._order = list(st.order) if st is not None else []
        self._texts = {}
        self._position = self.ctrl.position
        self._shown = self._position - 1
        self.endResetModel()

    def set_position(self, position):
        """Repaint only the rows whose look changes (or all of them after a long jump)."""
        old = self._position
        if position == old and self._shown == position - 1:
            return
        self._position, self._shown = position, position - 1
        lo, hi = min(old, position) - 1, max(old, position)
        lo, hi = max(lo, 0), min(hi, len(self._order) - 1)
        if hi >= lo:
            self.dataChanged.emit(self.index(lo, 0), self.index(hi, len(COLUMNS) - 1))

    def refresh_all(self):
        if self._order:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._order) - 1, len(COLUMNS) - 1))

    def node(self, row):
        return self._order[row] if 0 <= row < len(self._order) else None

    # -- the Qt model ------------------------------------------------------------------

    def rowCount(self, parent=_TOP):
        return 0 if parent.isValid() else len(self._order)

    def columnCount(self, parent=_TOP):
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if orientation == Qt.Horizontal and role == Qt.DisplayRole:
            return COLUMNS[section]
        return None

    def texts(self, row):
        texts = self._texts.get(row)
        if texts is None:
            node = self._order[row]
            texts = self._texts[row] = (_op_text(node), self.ctrl.formula(node))
        return texts

    def rename(self):
        """Labels changed: the texts are made again when next shown."""
        self._texts = {}
        self.refresh_all()

    def data(self, index, role=DISPLAY):
        if role not in _ROLES:
            return None
        row, col = index.row(), index.column()
        if not 0 <= row < len(self._order):
            return None
        if role == DISPLAY:
            if col == 0:
                nid = self.ctrl.nid(self._order[row])
                return ("● " if nid in self.ctrl.breakpoint_ids else "") + str(row + 1)
            if col <= STEP:
                return self.texts(row)[col - 1]
            if row == self._shown:
                return "◀ now"
            if row == self._position and self.ctrl.phase == "backward":
                return "next"
            return "✓" if row < self._position else ""
        if role == BACKGROUND:
            return self._shown_color if row == self._shown else None
        if role == FOREGROUND:
            if row == self._shown:
                return self._shown_text
            if col == 0 and self.ctrl.nid(self._order[row]) in self.ctrl.breakpoint_ids:
                return self._break_color
            if row >= self._position and row != self._shown:
                return self._later_color
            return None
        if role == FONT:
            if row == self._shown:
                return self._bold
            return self._mono if col == STEP else None
        return f"Click to go to step {row + 1}: {self.texts(row)[1]} runs its _backward"


def _op_text(node):
    return short_text(node._op)


class _TintedSelection(QStyledItemDelegate):
    """The row of the graph's selected node is framed (and lightly tinted), so that
    the yellow of the step shown stays visible when it is the same row."""

    def __init__(self, view):
        super().__init__(view)
        self.frame = QColor(0, 0, 0)

    def paint(self, painter, option, index):
        selected = bool(option.state & QStyle.State_Selected)
        if selected:
            option.state &= ~QStyle.State_Selected
        super().paint(painter, option, index)
        if selected:
            r = option.rect
            if index.data(BACKGROUND) is None:
                tint = QColor(self.frame)
                tint.setAlpha(45)
                painter.fillRect(r, tint)
            painter.fillRect(r.left(), r.top(), r.width(), 2, self.frame)
            painter.fillRect(r.left(), r.bottom() - 1, r.width(), 2, self.frame)
            if index.column() == 0:
                painter.fillRect(r.left(), r.top(), 2, r.height(), self.frame)
            if index.column() == index.model().columnCount() - 1:
                painter.fillRect(r.right() - 1, r.top(), 2, r.height(), self.frame)


class StepListView(QTableView):
    """The step list's table: compact fixed-height rows, whole-row selection."""

    def __init__(self, model, parent=None):
        super().__init__(parent)
        self.setModel(model)
        self.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.setSelectionMode(QAbstractItemView.SingleSelection)
        self.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.setAlternatingRowColors(False)
        self.setWordWrap(False)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setTextElideMode(Qt.ElideRight)  # the name on the left stays whole first
        self.setShowGrid(False)
        self.setFocusPolicy(Qt.ClickFocus)
        self._delegate = _TintedSelection(self)
        self.setItemDelegate(self._delegate)
        self.apply_theme(model.theme)
        vh = self.verticalHeader()
        vh.setVisible(False)
        vh.setSectionResizeMode(QHeaderView.Fixed)
        vh.setDefaultSectionSize(round(self.fontMetrics().height() * 1.55))
        hh = self.horizontalHeader()
        hh.setHighlightSections(False)
        hh.setStretchLastSection(False)
        for col, sample in enumerate(SAMPLES):
            hh.setSectionResizeMode(col, QHeaderView.Stretch if sample is None else QHeaderView.Interactive)
        self.fit_columns()

    def fit_columns(self):
        """Fixed widths from the font (ResizeToContents would read up to 1,000 rows per
        change), again whenever the font changes: presenter mode's 2x cut 'tanh' to 't…'."""
        fm = self.fontMetrics()
        for col, sample in enumerate(SAMPLES):
            if sample is not None:
                self.setColumnWidth(col, fm.horizontalAdvance(sample) + round(fm.height() * 0.8))

    def changeEvent(self, event):
        super().changeEvent(event)
        if event.type() == QEvent.FontChange:
            self.fit_columns()
            self.verticalHeader().setDefaultSectionSize(round(self.fontMetrics().height() * 1.55))

    def apply_theme(self, theme):
        """Colours of the selection frame and the row height, from the theme."""
        self._delegate.frame = QColor(theme.color("selection"))
        palette = self.palette()  # the view paints a selected row's panel itself: make it clear
        palette.setColor(palette.ColorRole.Highlight, QColor(0, 0, 0, 0))
        palette.setColor(palette.ColorRole.HighlightedText, palette.color(palette.ColorRole.Text))
        self.setPalette(palette)
        self.viewport().update()
        rows = round(self.fontMetrics().height() * 1.55)
        self.verticalHeader().setDefaultSectionSize(rows)

    def show_row(self, row):
        """Scroll row into view only when it is out of it, and then a page at a time
        (scrolling one row per step would repaint the whole list every step)."""
        index = self.model().index(row, 0)
        if not self.viewport().rect().contains(self.visualRect(index)):
            self.scrollTo(index, QAbstractItemView.PositionAtTop)

    def select_row(self, row):
        """Select a row without seeking (the graph's selection moved)."""
        model = self.model()
        self.blockSignals(True)
        try:
            if row is None:
                self.clearSelection()
            else:
                self.selectRow(row)
                self.scrollTo(model.index(row, 0), QAbstractItemView.EnsureVisible)
        finally:
            self.blockSignals(False)
