"""How a NodeItem paints itself: record, op circle, badges and debugger marks.

* the grad cell is tinted by the sign and size of the gradient (theme.py);
* inf/nan in data or grad: red border and a '!' badge;
* an op input with no wire: a hollow red port on the circle, dashed outline;
* the output node: a dark border and an `output` tag;
* semantic zoom: from LOD_FULL down, the captions go and the numbers grow to
  fill their rows, so they stay legible on screen; below LOD_NUMBERS the name
  keeps a thin strip on top (elided) and data and grad share the rest; below
  LOD_TEXT a block tinted by the grad (LOD_* in app/graph/node_geometry.py).

Every colour, font and length comes from the item's `Theme`.
"""

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QStyleOptionGraphicsItem

from app.graph.node_geometry import LOD_BLOCK, LOD_FULL, LOD_NUMBERS, LOD_TEXT, name_text
from app.graph.ports import paint_ports

_ALIGN_LEFT = Qt.AlignLeft | Qt.AlignVCenter
_ALIGN_RIGHT = Qt.AlignRight | Qt.AlignVCenter
_ALIGN_CENTER = Qt.AlignCenter
MIN_SCREEN_PX = 12.0  # what semantic zoom keeps numbers at, in screen pixels, where they fit


def paint_node(item, painter):
    theme, g = item.theme, item._geometry
    # how large the text really is on screen: the zoom times the theme's scale
    lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform()) * theme.scale
    selected = item.isSelected()
    if lod < LOD_TEXT:
        paint_block(item, painter, theme, g, selected, lod)
        return
    s = theme.scale

    if item.dimmed:
        painter.setOpacity(0.42)
    # halos first, so borders stay crisp on top of them
    if item.debug_mark == "current":
        halo(item, painter, g, theme.color("highlight"), 12 * s, 210)
    if item.highlighted:
        halo(item, painter, g, theme.color("highlight"), 9 * s, 150)
    if selected:
        halo(item, painter, g, theme.color("selection"), 7 * s, 70)

    if g.circle is not None:
        paint_op(item, painter, theme, g, s)

    # the record
    border = theme.color("node_border")
    width = 1.0 * s
    if item.is_output:
        border, width = theme.color("output"), 2.0 * s
    if item.nonfinite:
        border, width = theme.color("nonfinite"), 2.2 * s
    if selected:
        border, width = theme.color("selection"), 2.2 * s
    record, grad_cell, stripe, lower_half = g.record_path()
    if lod < LOD_NUMBERS:  # compact: the grad takes the bottom row
        grad_cell = lower_half
    painter.setPen(Qt.NoPen)
    painter.setBrush(theme.color("node_fill"))
    painter.drawPath(record)

    grad = item.grad if item.grad is not None and item.grad_mask is None else 0.0
    grad_fill = theme.grad_cell_color(grad, item.grad_max)  # a hidden grad must not show by its tint
    painter.setBrush(grad_fill)
    painter.drawPath(grad_cell)
    edge = theme.grad_color(grad, item.grad_max)
    if edge != theme.color("grad_zero"):  # the full colour along the cell's right edge
        painter.setBrush(edge)
        r = grad_cell.boundingRect()
        painter.drawRect(QRectF(r.right() - 5 * s, r.top(), 5 * s, r.height() - 1 * s))

    if item.status is not None:
        painter.setBrush(theme.status_color(item.status))
        painter.drawPath(stripe)

    painter.setPen(QPen(theme.color("divider"), 1.0 * s))
    rows = (g.label_rect, g.data_rect, g.grad_rect) if lod >= LOD_NUMBERS else g.compact_rows()
    rules = (rows[1].top(), rows[2].top())
    for y in rules:
        painter.drawLine(QPointF(g.record.left() + 1, y), QPointF(g.record.right() - 1, y))

    painter.setBrush(Qt.NoBrush)
    painter.setPen(QPen(border, width))
    painter.drawPath(record)

    # texts: at full size with captions, or (semantic zoom) larger and without them
    _label, data_text, grad_text = item.texts()
    on_grad = theme.text_on(grad_fill)
    if lod >= LOD_NUMBERS:
        full = lod >= LOD_FULL
        paint_name(item, painter, theme, g.label_rect, full, lod)
        paint_number(
            painter,
            theme,
            g.data_rect,
            "data" if full else "",
            data_text,
            theme.color("number_text"),
            theme.color("caption_text"),
            lod,
        )
        caption = QColor(on_grad)
        caption.setAlpha(170)
        paint_number(
            painter, theme, _before_edge(g.grad_rect, s), "grad" if full else "", grad_text, on_grad, caption, lod
        )
    else:  # compact: the name in its strip, the numbers below it
        name_row, top, bottom = rows
        paint_name(item, painter, theme, name_row, False, lod)
        paint_number(painter, theme, top, "", data_text, theme.color("number_text"), None, lod)
        paint_number(painter, theme, _before_edge(bottom, s), "", grad_text, on_grad, None, lod)
    if item.debug_mark == "target":  # the cell this step's += writes into
        painter.setPen(QPen(theme.color("highlight"), 3.0 * s))
        painter.setBrush(Qt.NoBrush)
        painter.drawRect(g.grad_rect.adjusted(1.5 * s, 1.5 * s, -1.5 * s, -1.5 * s))

    if item.nonfinite:
        paint_badge(item, painter, theme, g, s)
    if g.tag_rect is not None:
        painter.setPen(Qt.NoPen)
        painter.setBrush(theme.color("output"))
        r = g.tag_rect.height() / 2
        painter.drawRoundedRect(g.tag_rect, r, r)
        painter.setPen(theme.color("output_text"))
        painter.setFont(theme.font("caption"))
        painter.drawText(g.tag_rect, _ALIGN_CENTER, "output")
    if item.debug_tag:
        paint_debug_tag(item, painter, theme, g, s)
    if item.breakpoint:
        paint_breakpoint(item, painter, theme, g, s)
    paint_ports(painter, item, theme, s)


def paint_debug_tag(item, painter, theme, g, s):
    """A yellow chip above the record: what the debugger step does here."""
    painter.setOpacity(1.0)
    font = theme.font("number")
    painter.setFont(font)
    w = theme.text_width("number", item.debug_tag) + 14 * s
    h = 19 * s
    anchor = g.grad_rect if item.debug_mark == "target" else g.record
    x = min(max(anchor.center().x() - w / 2, g.bounds.left()), g.bounds.right() - w)
    chip = QRectF(x, g.record.top() - h - 3 * s, w, h)
    painter.setPen(QPen(theme.color("node_border"), 1.0 * s))
    painter.setBrush(theme.color("highlight"))
    painter.drawRoundedRect(chip, h / 2, h / 2)
    painter.setPen(theme.text_on(theme.color("highlight")))
    painter.drawText(chip, _ALIGN_CENTER, item.debug_tag)


def paint_breakpoint(item, painter, theme, g, s):
    painter.setOpacity(1.0)
    left = g.circle.left() if g.circle is not None else g.record.left()
    r = 6.5 * s
    painter.setPen(QPen(theme.color("node_fill"), 1.5 * s))
    painter.setBrush(theme.color("nonfinite"))
    painter.drawEllipse(QPointF(left + 1.5 * s, g.record.top() + 1.5 * s), r, r)


def paint_name(item, painter, theme, row, full, lod):
    """The name row: the label (bold) or, for a constant without one, 'const'."""
    pad = theme.length("pad")
    rect = row.adjusted(pad, 0, -pad, 0)
    text = name_text(theme, item.kind, item.name)[0]
    if text:
        font = theme.font("label") if full else _grown(theme, "label", text, rect, lod)
        painter.setFont(font)
        painter.setPen(theme.color("label_text"))
        painter.drawText(rect, _ALIGN_LEFT, text)
    elif item.kind == "const":
        painter.setFont(theme.font("caption"))
        painter.setPen(theme.color("caption_text"))
        painter.drawText(rect, _ALIGN_LEFT, "const")


def paint_number(painter, theme, rect, caption, text, color, caption_color, lod):
    """One number row: a small caption on the left (at full size), the number on the right."""
    pad = theme.length("pad")
    inner = rect.adjusted(pad, 0, -pad, 0)
    if caption:
        painter.setFont(theme.font("caption"))
        painter.setPen(caption_color)
        painter.drawText(inner, _ALIGN_LEFT, caption)
        painter.setFont(theme.font("number"))
    else:
        painter.setFont(_grown(theme, "number", text, inner, lod))
    painter.setPen(color)
    painter.drawText(inner, _ALIGN_RIGHT, text)


def number_screen_px(item, zoom):
    """How tall (pixels on screen) the node's grad digits are painted at view zoom
    `zoom` -- what the legibility audit checks; 0 where the node is a block."""
    theme, g = item.theme, item.geometry
    lod = zoom * theme.scale
    if lod < LOD_TEXT:
        return 0.0
    if lod >= LOD_FULL:
        return theme.font("number").pixelSize() * zoom
    row = g.grad_rect if lod >= LOD_NUMBERS else g.compact_rows()[2]
    rect = _before_edge(row, theme.scale).adjusted(theme.length("pad"), 0, -theme.length("pad"), 0)
    return _grown(theme, "number", item.texts()[2], rect, lod).pixelSize() * zoom


def _before_edge(rect, s):
    """The grad row without its coloured edge: digits keep clear of it."""
    return rect.adjusted(0, 0, -6 * s, 0)


def _grown(theme, role, text, rect, lod):
    """The font of `role` grown so that `text` is MIN_SCREEN_PX tall on screen,
    as far as `rect` (its row) leaves room: height and width both bound it."""
    base = theme.font(role)
    px = base.pixelSize()
    want = MIN_SCREEN_PX * theme.scale / lod
    width = theme.text_width(role, text) or 1.0
    room = min(rect.height() * 0.86, px * rect.width() / width)
    return theme.font_at(role, max(px, min(want, room)))


def paint_op(item, painter, theme, g, s):
    c = g.circle
    r = c.height() / 2
    # connector from the circle to its record, with a small arrow head
    painter.setPen(QPen(theme.color("edge"), 1.4 * s))
    y = 0.0
    x1 = g.record.left() - 1.5 * s
    painter.drawLine(QPointF(c.right(), y), QPointF(x1, y))
    a = 4.5 * s
    painter.drawLine(QPointF(x1 - a, y - a * 0.8), QPointF(x1, y))
    painter.drawLine(QPointF(x1 - a, y + a * 0.8), QPointF(x1, y))
    missing = bool(item.missing_ports)
    pen = QPen(theme.color("missing") if missing else theme.color("op_border"), (1.8 if missing else 1.2) * s)
    if missing:
        pen.setStyle(Qt.DashLine)
    if item.isSelected():
        pen = QPen(theme.color("selection"), 2.2 * s)
    painter.setPen(pen)
    painter.setBrush(theme.color("op_fill"))
    painter.drawRoundedRect(c, r, r)
    painter.setFont(theme.font("op"))
    painter.setPen(theme.color("op_text"))
    painter.drawText(c, _ALIGN_CENTER, g.op_text)
    if missing:
        painter.setPen(QPen(theme.color("missing"), 1.8 * s))
        painter.setBrush(theme.color("node_fill"))
        for port in item.missing_ports:
            x, yy = item._port_local(port)
            painter.drawEllipse(QPointF(x, yy), 4.0 * s, 4.0 * s)


def paint_badge(item, painter, theme, g, s):
    r = 8.0 * s
    centre = QPointF(g.record.right() - 2 * s, g.record.top() + 1 * s)
    painter.setPen(QPen(theme.color("node_fill"), 1.5 * s))
    painter.setBrush(theme.color("nonfinite"))
    painter.drawEllipse(centre, r, r)
    painter.setPen(QColor("#ffffff"))
    painter.setFont(theme.font("label"))
    painter.drawText(QRectF(centre.x() - r, centre.y() - r, 2 * r, 2 * r), _ALIGN_CENTER, "!")


def halo(item, painter, g, color, width, alpha):
    c = QColor(color)
    c.setAlpha(alpha)
    painter.setPen(QPen(c, width, Qt.SolidLine, Qt.RoundCap, Qt.RoundJoin))
    painter.setBrush(Qt.NoBrush)
    corner = item.theme.length("corner")
    painter.drawRoundedRect(g.record, corner, corner)
    if g.circle is not None:
        r = g.circle.height() / 2
        painter.drawRoundedRect(g.circle, r, r)


def paint_block(item, painter, theme, g, selected, lod):
    """Far zoom: no text, the record filled with its grad colour (a heat map)."""
    fill = theme.grad_color(item.grad if item.grad is not None and item.grad_mask is None else 0.0, item.grad_max)
    if fill == theme.color("grad_zero"):
        fill = theme.color("node_fill")
    if item.nonfinite:
        fill = theme.color("nonfinite")
    if item.highlighted or item.debug_mark is not None:
        fill = theme.color("highlight")
    if item.dimmed:
        painter.setOpacity(0.42)
    if lod < LOD_BLOCK and not selected:
        painter.fillRect(g.record, fill)
        if g.circle is not None:
            painter.fillRect(g.circle, theme.color("op_border"))
        return
    border = (
        theme.color("selection")
        if selected
        else (theme.color("output") if item.is_output else theme.color("node_border"))
    )
    painter.setPen(QPen(border, (6.0 if selected else 1.5) / max(lod, 0.05) * 0.5))
    painter.setBrush(fill)
    painter.drawRect(g.record)
    if g.circle is not None:
        painter.setBrush(theme.color("op_border") if not item.missing_ports else theme.color("missing"))
        painter.drawEllipse(g.circle)
