"""How a big graph's units look on the canvas: a block per collapsed scope, a box per single op.

A **block** (a collapsed call, loop turn or section of the traced code) shows,
top down: its title as the code names it (`softmax`, `h = 2`), the line that
made it (`probs = softmax(logits)`), its size and wires (`110 nodes · 27 in →
1 out`), and the data and grad of its output. Its colour says its kind: a
call, a loop's turn, a numbered section, the inputs. Double-click opens it in
place (core/scopes/view.py); the frame drawn around what an opened block
holds carries its title, and a double-click on the frame closes it again.

A **node** (one op of an opened block) shows the name the code gives it
(`val - max_val`, `scale`), its op, and its data and grad. The unit the
backward pass stepped last is outlined in the highlight colour; units whose
backward has run are marked with a green bar.

Sizes come from core/scopes/layout.py times the theme's scale, so presenter
mode enlarges boxes and text together.
"""

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPen
from PySide6.QtWidgets import QGraphicsItem

from app.look.theme import format_number
from core.scopes import layout as sizes
from core.scopes.view import Summary

KIND_TINT = {
    "block": "#e3ecf7",
    "shared": "#eef0e0",
    "call": "#dbe7fb",
    "loop": "#ece1fa",
    "section": "#dff3e6",
    "inputs": "#eceef2",
    "root": "#ffffff",
}
KIND_WORD = {
    "block": "block",
    "shared": "read by all after it",
    "call": "call",
    "loop": "loop turn",
    "section": "section",
    "inputs": "inputs",
}


def _elide(theme, role, text, width):
    return theme.font_metrics(role).elidedText(text, Qt.ElideRight, int(width))


class UnitItem(QGraphicsItem):
    """One unit: a block (summary given) or a single node."""

    unit_scope: int  # a block's scope (the page sets it)
    summary: Summary  # a block's summary (core/scopes/view.py)
    node: int  # a single node's index

    def __init__(self, theme, unit, lines, kind, block):
        super().__init__()
        self.theme, self.unit, self.lines, self.kind, self.block = theme, unit, lines, kind, block
        w, h = (sizes.BLOCK_W, sizes.BLOCK_H) if block else (sizes.NODE_W, sizes.NODE_H)
        s = theme.scale
        self._rect = QRectF(-w * s / 2, -h * s / 2, w * s, h * s)
        self.stepped = False  # its backward has run
        self.current = False  # the last step ran it
        self.breakpoint = False  # a run stops before it
        self.setAcceptHoverEvents(True)

    def boundingRect(self):
        return self._rect.adjusted(-4, -4, 4, 4)

    def set_marks(self, stepped, current):
        if (stepped, current) != (self.stepped, self.current):
            self.stepped, self.current = stepped, current
            self.update()

    def set_breakpoint(self, on):
        if on != self.breakpoint:
            self.breakpoint = on
            self.update()

    def paint(self, painter, option, widget=None):
        theme, s, r = self.theme, self.theme.scale, self._rect
        fill = QColor(KIND_TINT.get(self.kind, "#ffffff")) if self.block else theme.color("node_fill")
        if self.block and theme.color("background").lightness() < 128:  # a dark theme: dark tints
            fill = fill.darker(330)
        border = theme.color("highlight") if self.current else theme.color("node_border")
        painter.setPen(QPen(border, (3.0 if self.current else 1.2) * s))
        painter.setBrush(fill)
        painter.drawRoundedRect(r, 8 * s, 8 * s)
        if self.stepped:
            painter.fillRect(QRectF(r.left() + 4 * s, r.bottom() - 5 * s, r.width() - 8 * s, 3 * s),
                             theme.color("status_final"))  # fmt: skip
        if self.breakpoint:  # the debugger's red dot, as on the small graph's canvas
            painter.setPen(Qt.NoPen)
            painter.setBrush(QColor("#d62728"))
            painter.drawEllipse(QRectF(r.left() - 5 * s, r.top() - 5 * s, 10 * s, 10 * s))
        pad = 8 * s
        x, y, width = r.left() + pad, r.top() + 4 * s, r.width() - 2 * pad
        for row, (role, text, color) in enumerate(self.lines):
            if role == "op":  # the op's name at the right of the data row: the name gets the width
                painter.setFont(theme.font("caption"))
                painter.setPen(theme.color(color))
                top = r.top() + 4 * s + theme.font_metrics("label").height() + 1 * s
                painter.drawText(QRectF(x, top, width, theme.font_metrics("number").height()),
                                 Qt.AlignRight | Qt.AlignVCenter, text)  # fmt: skip
                continue
            height = theme.font_metrics(role).height()
            font = node_title_font(theme, text, width) if row == 0 and not self.block else theme.font(role)
            painter.setFont(font)
            painter.setPen(theme.color(color))
            painter.drawText(QRectF(x, y, width, height), Qt.AlignLeft | Qt.AlignVCenter,
                             QFontMetricsF(font).elidedText(text, Qt.ElideRight, width))  # fmt: skip
            y += height + 1 * s

    def shown_title(self):
        """(the title as painted -- elided where it does not fit --, its font's pixel size)."""
        role, text = self.lines[0][0], self.lines[0][1]
        width = self._rect.width() - 16 * self.theme.scale
        font = node_title_font(self.theme, text, width) if not self.block else self.theme.font(role)
        return QFontMetricsF(font).elidedText(text, Qt.ElideRight, width), font.pixelSize()


def node_title_font(theme, text, width):
    """The font of a single op's name: the label's, made smaller where the name is too long
    for the box (the loss's `(1 / n) * sum(losses)`) so that it shows whole -- never smaller
    than the caption's (a longer name is elided)."""
    font = theme.font("label")
    wide = theme.font_metrics("label").horizontalAdvance(text)
    if wide <= width:
        return font
    font = QFont(font)
    font.setPixelSize(max(theme.font("caption").pixelSize(), int(font.pixelSize() * width / wide)))
    return font


def block_lines(summary):
    """The rows of a collapsed block: title, the line that made it, size and wires, and the
    numbers of its output, named: 'out 3.51  ∇ 0.0625' (the value the block hands on, and
    the gradient that value has received so far; the tooltip says so in words)."""
    inner = f" · {summary.blocks} blocks" if summary.blocks else ""
    return [
        ("label", summary.title, "label_text"),
        ("caption", summary.site if summary.kind != "inputs" else KIND_WORD["inputs"], "caption_text"),
        ("caption", f"{summary.nodes:,} nodes{inner} · {summary.ins:,} in → {summary.outs:,} out", "caption_text"),
        ("number", f"out {format_number(summary.data)}  ∇ {format_number(summary.grad)}", "number_text"),
    ]


def node_lines(graph, i, hidden=False):
    """A single op's rows; `hidden`: its new grad waits for the quiz's answer ('∇ ?')."""
    op = graph.op_name(i)
    return [
        ("label", graph.name(i), "label_text"),
        ("number", f"{format_number(float(graph.data[i]))}", "number_text"),
        ("number", "∇ ?" if hidden else f"∇ {format_number(float(graph.grad[i]))}", "number_text"),
        ("op", op, "caption_text"),
    ]


class FrameItem(QGraphicsItem):
    """The frame around what an opened block shows; double-click closes the block."""

    def __init__(self, theme, scope, title, rect):
        super().__init__()
        self.theme, self.scope, self.title = theme, scope, title
        pad = 12 * theme.scale
        self._rect = rect.adjusted(-pad, -pad - theme.font_metrics("caption").height(), pad, pad)
        self.setZValue(-1)

    def boundingRect(self):
        return self._rect.adjusted(-2, -2, 2, 2)

    def paint(self, painter, option, widget=None):
        theme, s = self.theme, self.theme.scale
        color = QColor(theme.color("selection"))
        color.setAlpha(120)
        painter.setPen(QPen(color, 1.2 * s, Qt.DashLine))
        fill = QColor(theme.color("selection"))
        fill.setAlpha(10)
        painter.setBrush(fill)
        painter.drawRoundedRect(self._rect, 10 * s, 10 * s)
        painter.setFont(theme.font("caption"))
        painter.setPen(theme.color("caption_text"))
        painter.drawText(self._rect.adjusted(10 * s, 2 * s, -10 * s, 0), Qt.AlignLeft | Qt.AlignTop,
                         f"{self.title}   (double-click here: close)")  # fmt: skip
