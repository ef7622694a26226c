"""A Value graph as an SVG picture, drawn the way the canvas draws it -- no Qt, no Graphviz.

A notebook (Jupyter, Colab, VS Code) shows this picture inline: the same
records (name on top, then data, then grad in a cell tinted by the gradient),
op circles in front of them, the output tag, the same layout (core's
`sugiyama`, with the canvas's gaps) and the legend of the grad colours.
Colours and sizes come from core/palette.py, which the window's theme reads too.

    svg = graph_svg(doc, {"n1": (3.0, -2.0), ...})       # a GraphDocument and its numbers

The canvas measures text with Qt's font metrics; here the widths of DejaVu
Sans (the canvas's font) are estimated from its advance widths, so a box is as
wide as the canvas's within a few pixels, and every box is sized to hold its
text whatever font the browser picks (a little spare room, never an overlap).

Debugger marks (`Marks`): a status stripe per node (untouched / partial /
final), the node whose `_backward` runs (a yellow halo), the grad cells it
writes (a yellow frame), a chip above a node ("✗ should be 3.0000"), wires
lit, and lines of text under the legend (the chain-rule line of a step).
"""

from __future__ import annotations

import itertools
import math
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from html import escape

from core.document.graph import GraphDocument, op_symbol
from core.document.layout import sugiyama
from core.document.names import node_names
from core.format import format_number, full_number
from core.notebook.sketch import Sketch, names_of
from core.palette import LIGHT, METRICS, Palette, grad_hex, mix

FONT = "'DejaVu Sans', Verdana, 'Bitstream Vera Sans', sans-serif"
CHIP_ROOM = 24.0  # more room between the boxes of a column when chips ("✗ should be ...") sit above them
PORT_ANGLE = math.radians(38.0)  # where ports 0 and 1 meet a binary op's circle (as on the canvas)
# Each picture's ids (its clip paths, its colour bar) differ from every other's on the page: a notebook
# holds many pictures in one document, and outputs of an earlier kernel stay on it after a restart, when
# the count starts again -- so the ids also carry a token of this process.
_ids = itertools.count(1)
_RUN = secrets.token_hex(4)

# DejaVu Sans advance widths (em) of the characters a graph writes; others count as 0.62 em.
_ADVANCE = {
    **dict.fromkeys("0123456789", 0.636),
    **dict.fromkeys(".,:;|!il'", 0.318),
    "-": 0.361, "−": 0.838, "+": 0.838, "=": 0.838, "×": 0.838, "·": 0.318, "_": 0.5, " ": 0.318,
    "(": 0.39, ")": 0.39, "[": 0.39, "]": 0.39, "*": 0.5, "/": 0.337, "^": 0.838, "…": 1.0, "✗": 0.8,
    "a": 0.613, "b": 0.635, "c": 0.55, "d": 0.635, "e": 0.615, "f": 0.352, "g": 0.635, "h": 0.634,
    "j": 0.278, "k": 0.579, "m": 0.974, "n": 0.634, "o": 0.612, "p": 0.635, "q": 0.635, "r": 0.411,
    "s": 0.521, "t": 0.392, "u": 0.634, "v": 0.592, "w": 0.818, "x": 0.592, "y": 0.592, "z": 0.525,
}  # fmt: skip
BOLD = 1.1  # DejaVu Sans Bold is about a tenth wider


def text_width(text: str, px: float, bold: bool = False) -> float:
    """The estimated width in pixels of `text` in DejaVu Sans at `px` pixels."""
    em = sum(_ADVANCE.get(c, 0.72 if c.isupper() else 0.62) for c in text)
    return em * px * (BOLD if bold else 1.0)


def elide_middle(text: str, px: float, width: float) -> str:
    """The text with its middle replaced by … until it fits `width` (a long path keeps its ends)."""
    if text_width(text, px, True) <= width:
        return text
    keep = len(text)
    while keep > 2:
        keep -= 1
        head, tail = text[: (keep + 1) // 2], text[len(text) - keep // 2 :]
        if text_width(head + "…" + tail, px, True) <= width:
            return head + "…" + tail
    return text[:1] + "…"


@dataclass
class Marks:
    """What a debugger step adds to the picture (all optional)."""

    status: dict[str, str] = field(default_factory=dict)  # node id -> untouched / partial / final
    current: str | None = None  # the node whose _backward runs
    targets: set[str] = field(default_factory=set)  # the nodes whose grad this step writes
    tags: dict[str, str] = field(default_factory=dict)  # node id -> a chip above it
    wires: set[tuple[str, str]] = field(default_factory=set)  # lit wires (src, dst)
    lines: list[str] = field(default_factory=list)  # text under the legend


class Box:
    """Where a node's parts go, relative to its centre (as app/graph/node_geometry.py)."""

    def __init__(
        self, kind: str, op_text: str | None, name: str, data: str, grad: str, output: bool, room: str = ""
    ) -> None:
        m = METRICS
        self.name = elide_middle(name, m.label_px, m.label_max - 2 * m.pad) if name else ""
        name_w = max(text_width(self.name, m.label_px, True), m.label_min) if name else 0.0
        if not name and kind == "const":
            name_w = text_width("const", m.caption_px)
        caption = text_width("data", m.caption_px)
        number_w = caption + 6 + text_width(m.number_template, m.number_px, True)
        longer = [t for t in (data, grad, room) if len(t) > len(m.number_template)]  # as the canvas: only a
        if longer:  # number longer than the template widens its box (2.850e-07 does, -13.8834 does not)
            number_w = max(number_w, caption + 10 + max(text_width(t, m.number_px, True) for t in longer))
        record_w = 2 * m.pad + max(name_w, number_w)
        self.circle_w = max(m.op_diameter, text_width(op_text, m.op_px, True) + 16) if op_text else 0.0
        left = self.circle_w + m.op_gap if op_text else 0.0
        self.tag_w = text_width("output", m.caption_px) + 14 if output else 0.0
        tag_gap = 7.0 if output else 0.0
        self.height = m.name_row + 2 * m.number_row
        self.width = left + record_w + self.tag_w + tag_gap
        self.x0 = -self.width / 2
        self.record_x = self.x0 + left
        self.record_w = record_w
        self.op_text = op_text


def grad_scale(grads) -> float:
    """The largest finite |grad|: the colour bar's ends, as the canvas's grad_max."""
    return max((abs(g) for g in grads if g is not None and math.isfinite(g)), default=0.0)


def graph_svg(
    doc: GraphDocument | Sketch,
    numbers: Mapping[str, tuple[float | None, float | None]],
    *,
    names: Mapping[str, str] | None = None,
    marks: Marks | None = None,
    palette: Palette = LIGHT,
    legend: bool = True,
    grad_max: float | None = None,
    live: bool = False,
    room: Mapping[str, str] | None = None,
) -> str:
    """The SVG text of `doc` with {node id: (data, grad)}, laid out as the canvas lays it out.
    grad_max: the colour scale's end (the debugger passes the finished pass's, so
    that no step re-tints every node); the largest |grad| shown by default.
    live: every part a step changes is there, hidden or not, with a class a page's script
    finds it by (core/notebook/page.py); room: {node id: the longest grad text it will show}."""
    if names is None:
        names = names_of(doc) if isinstance(doc, Sketch) else node_names(doc)
    marks = marks or Marks()
    output = doc.effective_output()
    boxes = {}
    for nid, node in doc.nodes.items():
        data, grad = numbers.get(nid, (None, None))
        op_text = _op_text(node)
        boxes[nid] = Box(
            node.kind, op_text, names.get(nid, ""), format_number(data), format_number(grad), nid == output,
            (room or {}).get(nid, ""),
        )  # fmt: skip
    edges = [(e.src, e.dst) for e in doc.edges]
    layout = sugiyama(
        list(doc.nodes), edges, sizes={n: (b.width, b.height) for n, b in boxes.items()},
        layer_gap=METRICS.layer_gap, node_gap=METRICS.node_gap + (CHIP_ROOM if marks.tags else 0.0),
    )  # fmt: skip
    pos = layout.positions
    gmax = grad_max or grad_scale(numbers.get(n, (None, None))[1] for n in doc.nodes)
    pic = _Picture(palette, f"bps{_RUN}-{next(_ids)}-", live)
    # the frame: every box with its halo and chip, then room for the legend below
    margin = 16.0
    for e in doc.edges:
        pic.wire(pos[e.src], boxes[e.src], pos[e.dst], boxes[e.dst], doc.nodes[e.dst], e.port,
                 layout.routes.get((e.src, e.dst)), (e.src, e.dst) in marks.wires)  # fmt: skip
    for nid, node in doc.nodes.items():
        data, grad = numbers.get(nid, (None, None))
        pic.node(nid, node, pos[nid], boxes[nid], data, grad, gmax, nid == output, marks)
    # the frame: every box with its halo and its chip (which may be wider than the box), then the legend
    left = min((x for x, _y, _r, _b in pic.extents), default=0.0) - margin
    top = min((y for _x, y, _r, _b in pic.extents), default=0.0) - margin
    right = max((r for _x, _y, r, _b in pic.extents), default=0.0) + margin
    bottom = max((b for _x, _y, _r, b in pic.extents), default=0.0) + margin
    width = max(right - left, 340.0)
    if legend:
        bottom = pic.legend(left + margin, bottom, gmax, bool(marks.status))
    for line in marks.lines:
        bottom = pic.text_line(left + margin, bottom, line, width - 2 * margin)
    height = bottom + margin - top
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="{left:.1f} {top:.1f} {width:.1f} {height:.1f}" font-family="{escape(FONT)}" '
        f'role="img" aria-label="computation graph of {len(doc.nodes)} nodes">'
        f'<rect x="{left:.1f}" y="{top:.1f}" width="{width:.1f}" height="{height:.1f}" fill="{palette.background}"/>'
        + "".join(pic.defs_and_parts())
        + "</svg>"
    )


class _Picture:
    """The SVG elements, in paint order (wires under the nodes)."""

    def __init__(self, palette: Palette, prefix: str, live: bool = False) -> None:
        self.p = palette
        self.live = live  # a page steps this picture: every changing part is there, with a class
        self.prefix = prefix
        self.defs: list[str] = []
        self.parts: list[str] = []
        self.clips = 0
        self.extents: list[tuple[float, float, float, float]] = []  # what each node covers: box, halo, chip

    def _class(self, name: str) -> str:
        return f' class="{name}"' if self.live else ""

    def defs_and_parts(self):
        yield "<defs>" + "".join(self.defs) + "</defs>"
        yield from self.parts

    def wire(self, src_pos, src_box, dst_pos, dst_box, dst_node, port, route, lit):
        x0, y0 = src_pos[0] + src_box.record_x + src_box.record_w, src_pos[1]
        px, py = _port(dst_box, dst_node, port)
        x1, y1 = dst_pos[0] + px, dst_pos[1] + py
        points = [(x0, y0), *(route or ()), (x1, y1)]
        d = [f"M{x0:.1f},{y0:.1f}"]
        for (ax, ay), (bx, by) in zip(points, points[1:]):
            dx = max(abs(bx - ax) * 0.5, 24.0)
            d.append(f"C{ax + dx:.1f},{ay:.1f} {bx - dx:.1f},{by:.1f} {bx:.1f},{by:.1f}")
        a = 5.0
        d.append(f"M{x1 - a:.1f},{y1 - a * 0.75:.1f} L{x1:.1f},{y1:.1f} L{x1 - a:.1f},{y1 + a * 0.75:.1f}")
        colour, width = (self.p.highlight, 3.0) if lit else (self.p.edge, 1.4)
        self.parts.append(
            f'<path{self._class("w")} d="{" ".join(d)}" fill="none" stroke="{colour}" stroke-width="{width}" '
            'stroke-linecap="round" stroke-linejoin="round"/>'
        )

    def node(self, nid, node, centre, box, data, grad, gmax, is_output, marks):
        p, m, out = self.p, METRICS, self.parts
        cx, cy = centre
        rx, top, rw, h = cx + box.record_x, cy - box.height / 2, box.record_w, box.height
        nonfinite = any(v is not None and not math.isfinite(v) for v in (data, grad))
        tip = f"{box.name or nid}: data {full_number(data)}, grad {full_number(grad)}"
        halo = 6.0  # half the current node's halo
        self.extents.append((cx + box.x0 - halo, top - halo, cx + box.x0 + box.width + halo, top + h + halo))
        out.append(f'<g class="node" data-id="{escape(nid)}"><title>{escape(tip)}</title>')
        if self.live:  # hidden until its step
            shown = "visible" if marks.current == nid else "hidden"
            halo_parts = self._halo(rx, top, rw, h, cx + box.x0, cy, box, 12.0, 210 / 255)
            out.append(f'<g class="halo" visibility="{shown}">{halo_parts}</g>')
        elif marks.current == nid:  # the halo of the node whose _backward runs
            out.append(self._halo(rx, top, rw, h, cx + box.x0, cy, box, 12.0, 210 / 255))
        if box.op_text:
            c0 = cx + box.x0
            r = m.op_diameter / 2
            x1 = rx - 1.5
            out.append(
                f'<path d="M{c0 + box.circle_w:.1f},{cy:.1f} L{x1:.1f},{cy:.1f} M{x1 - 4.5:.1f},{cy - 3.6:.1f} '
                f'L{x1:.1f},{cy:.1f} L{x1 - 4.5:.1f},{cy + 3.6:.1f}" fill="none" stroke="{p.edge}" stroke-width="1.4"/>'
                f'<rect x="{c0:.1f}" y="{cy - r:.1f}" width="{box.circle_w:.1f}" height="{2 * r:.1f}" rx="{r:.1f}" '
                f'fill="{p.op_fill}" stroke="{p.op_border}" stroke-width="1.2"/>'
                + _text(c0 + box.circle_w / 2, cy, box.op_text, m.op_px, p.op_text, "middle", bold=True)
            )
        clip = f"{self.prefix}c{self.clips}"
        self.clips += 1
        self.defs.append(
            f'<clipPath id="{clip}"><rect x="{rx:.1f}" y="{top:.1f}" width="{rw:.1f}" height="{h:.1f}" '
            f'rx="{m.corner}"/></clipPath>'
        )
        grad_top = top + m.name_row + m.number_row
        cell = grad_hex(p, grad if grad is not None else 0.0, gmax, cell=True)
        edge = grad_hex(p, grad if grad is not None else 0.0, gmax)
        out.append(
            f'<rect x="{rx:.1f}" y="{top:.1f}" width="{rw:.1f}" height="{h:.1f}" rx="{m.corner}" fill="{p.node_fill}"/>'
        )
        out.append(f'<g clip-path="url(#{clip})">')
        live = ' class="cell"' if self.live else ""
        out.append(
            f'<rect{live} x="{rx:.1f}" y="{grad_top:.1f}" width="{rw:.1f}" height="{m.number_row:.1f}" fill="{cell}"/>'
        )
        if edge != p.grad_zero or self.live:  # the full colour along the cell's right edge
            fill = edge if edge != p.grad_zero else "none"
            out.append(
                _rect(rx + rw - 5, grad_top, 5, m.number_row - 1, fill=fill, **({"class": "edge"} if self.live else {}))
            )
        status = marks.status.get(nid)
        if status or self.live:
            colour = getattr(p, f"status_{status}") if status else "none"
            live = ' class="st"' if self.live else ""
            out.append(f'<rect{live} x="{rx:.1f}" y="{top:.1f}" width="5" height="{h:.1f}" fill="{colour}"/>')
        out.append("</g>")
        for y in (top + m.name_row, grad_top):
            out.append(
                f'<line x1="{rx + 1:.1f}" y1="{y:.1f}" x2="{rx + rw - 1:.1f}" y2="{y:.1f}" stroke="{p.divider}"/>'
            )
        border, width = p.node_border, 1.0
        if is_output:
            border, width = p.output, 2.0
        if nonfinite:
            border, width = p.nonfinite, 2.2
        out.append(
            f'<rect x="{rx:.1f}" y="{top:.1f}" width="{rw:.1f}" height="{h:.1f}" rx="{m.corner}" fill="none" '
            f'stroke="{border}" stroke-width="{width}"/>'
        )
        pad = m.pad
        if box.name:
            out.append(_text(rx + pad, top + m.name_row / 2, box.name, m.label_px, p.label_text, bold=True))
        elif node.kind == "const":
            out.append(_text(rx + pad, top + m.name_row / 2, "const", m.caption_px, p.caption_text))
        data_y = top + m.name_row + m.number_row / 2
        out.append(_text(rx + pad, data_y, "data", m.caption_px, p.caption_text))
        out.append(_text(rx + rw - pad, data_y, format_number(data), m.number_px, p.number_text, "end", bold=True))
        on_grad = _text_on(cell)
        grad_y = grad_top + m.number_row / 2
        caption_class, grad_class = ("gc", "gt") if self.live else (None, None)
        out.append(_text(rx + pad, grad_y, "grad", m.caption_px, on_grad, opacity=170 / 255, cls=caption_class))
        out.append(
            _text(
                rx + rw - pad - 6, grad_y, format_number(grad), m.number_px, on_grad, "end", bold=True, cls=grad_class
            )
        )
        if nid in marks.targets or self.live:  # the cell this step's += writes into
            shown = (
                {"class": "frame", "visibility": "visible" if nid in marks.targets else "hidden"} if self.live else {}
            )
            out.append(
                _rect(
                    rx + 1.5, grad_top + 1.5, rw - 3, m.number_row - 3, fill="none", stroke=p.highlight, stroke_width=3,
                    **shown,
                )
            )  # fmt: skip
        if nonfinite:
            bx, by = rx + rw - 2, top + 1
            out.append(
                f'<circle cx="{bx:.1f}" cy="{by:.1f}" r="8" fill="{p.nonfinite}" stroke="{p.node_fill}" '
                'stroke-width="1.5"/>' + _text(bx, by, "!", m.label_px, "#ffffff", "middle", bold=True)
            )
        if is_output:
            tx, th = rx + rw + 7, 18.0
            out.append(
                f'<rect x="{tx:.1f}" y="{cy - th / 2:.1f}" width="{box.tag_w:.1f}" height="{th}" rx="{th / 2}" '
                f'fill="{p.output}"/>' + _text(tx + box.tag_w / 2, cy, "output", m.caption_px, p.output_text, "middle")
            )
        tag = marks.tags.get(nid)
        if tag:
            w, th = text_width(tag, m.number_px, True) + 14, 19.0
            anchor_x = rx + rw / 2
            x = min(max(anchor_x - w / 2, cx + box.x0 - 9), cx + box.x0 + box.width + 9 - w)
            self.extents.append((x, top - th - 3, x + w, top))
            out.append(
                f'<rect x="{x:.1f}" y="{top - th - 3:.1f}" width="{w:.1f}" height="{th}" rx="{th / 2}" '
                f'fill="{p.highlight}" stroke="{p.node_border}"/>'
                + _text(x + w / 2, top - th / 2 - 3, tag, m.number_px, _text_on(p.highlight), "middle", bold=True)
            )
        out.append("</g>")

    def _halo(self, rx, top, rw, h, c0, cy, box, width, alpha):
        p, m = self.p, METRICS
        parts = [
            f'<rect x="{rx:.1f}" y="{top:.1f}" width="{rw:.1f}" height="{h:.1f}" rx="{m.corner}" fill="none" '
            f'stroke="{p.highlight}" stroke-opacity="{alpha:.2f}" stroke-width="{width}"/>'
        ]
        if box.op_text:
            r = m.op_diameter / 2
            parts.append(
                f'<rect x="{c0:.1f}" y="{cy - r:.1f}" width="{box.circle_w:.1f}" height="{2 * r:.1f}" rx="{r:.1f}" '
                f'fill="none" stroke="{p.highlight}" stroke-opacity="{alpha:.2f}" stroke-width="{width}"/>'
            )
        return "".join(parts)

    def legend(self, x, y, gmax, stripes):
        """The canvas's legend: the grad colour bar from -max to +max, inf/nan, missing input;
        with debugger marks also what the stripes mean. Returns the y below it."""
        p = self.p
        scale = gmax or 1.0
        bar_id = f"{self.prefix}bar"
        stops = "".join(
            f'<stop offset="{t:.3f}" stop-color="{grad_hex(p, (t - 0.5) * 2 * scale, scale)}"/>'
            for t in (0.0, 0.1, 0.25, 0.4, 0.499, 0.5, 0.501, 0.6, 0.75, 0.9, 1.0)
        )
        self.defs.append(f'<linearGradient id="{bar_id}" x1="0" x2="1" y1="0" y2="0">{stops}</linearGradient>')
        w, h = 318.0, 50.0
        y += 4
        bar_x, bar_y = x + 44, y + 13
        top = format_number(scale)
        self.parts.append(
            f'<g class="legend"><rect x="{x:.1f}" y="{y:.1f}" width="{w}" height="{h}" rx="8" '
            f'fill="{p.overlay_fill[:7]}" stroke="{p.overlay_border}"/>'
            + _text(x + 10, bar_y + 5, "grad", 11, p.overlay_text)
            + f'<rect x="{bar_x:.1f}" y="{bar_y:.1f}" width="140" height="10" rx="3" fill="url(#{bar_id})" '
            f'stroke="{p.node_border}"/>'
            + _text(bar_x, bar_y + 19, "−" + top, 10, p.overlay_text)
            + _text(bar_x + 70, bar_y + 19, "0", 10, p.overlay_text, "middle")
            + _text(bar_x + 140, bar_y + 19, "+" + top, 10, p.overlay_text, "end")
            + f'<circle cx="{bar_x + 168:.1f}" cy="{bar_y + 5:.1f}" r="6.5" fill="{p.nonfinite}"/>'
            + _text(bar_x + 168, bar_y + 5, "!", 10, "#ffffff", "middle", bold=True)
            + _text(bar_x + 180, bar_y + 5, "inf / nan", 10, p.overlay_text)
            + f'<circle cx="{bar_x + 168:.1f}" cy="{bar_y + 21:.1f}" r="4.5" fill="{p.node_fill}" '
            f'stroke="{p.missing}" stroke-width="1.8"/>'
            + _text(bar_x + 180, bar_y + 21, "missing input", 10, p.overlay_text)
            + "</g>"
        )
        y += h
        if stripes:
            x2 = x
            y += 8
            items = (("untouched", "untouched"), ("partial", "partial"), ("final", "final"), ("highlight", "this step"))
            for role, words in items:
                colour = p.highlight if role == "highlight" else getattr(p, f"status_{role}")
                self.parts.append(
                    f'<rect x="{x2:.1f}" y="{y:.1f}" width="10" height="12" fill="{colour}"/>'
                    + _text(x2 + 14, y + 6, words, 11, p.overlay_text)
                )
                x2 += 24 + text_width(words, 11)
            y += 14
        return y

    def text_line(self, x, y, text, width):
        """A line of text (wrapped to `width`) under the legend; returns the y below it."""
        px = 14.0
        for line in _wrap(text, px, width):
            y += px * 1.45
            self.parts.append(_text(x, y - px * 0.5, line, px, self.p.label_text, mono=False))
        return y


def _op_text(node) -> str | None:
    """The text in a node's circle; a Sketch's node (core/notebook/sketch.py) carries its learner's own."""
    if node.op is None:
        return None
    symbol = getattr(node, "symbol", None)  # a SketchNode: an op the studio may not know, named as written
    return symbol if symbol is not None else op_symbol(node.op, node.param)


def _rect(x, y, w, h, **attrs):
    extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    return f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}"{extra}/>'


def _port(box: Box, node, port: int) -> tuple[float, float]:
    """Where a wire into `port` ends, relative to the node's centre."""
    if not box.op_text:
        return box.record_x, 0.0
    r = METRICS.op_diameter / 2
    c0 = box.x0
    if node.arity() == 2:
        a = -PORT_ANGLE if port == 0 else PORT_ANGLE
        return c0 + r - r * math.cos(a), r * math.sin(a)
    return c0, 0.0


def _text(x, y, text, px, colour, anchor="start", bold=False, opacity=None, mono=False, cls=None):
    """A text whose middle sits at y (dominant-baseline is not honoured everywhere: the baseline is set)."""
    weight = (f' class="{cls}"' if cls else "") + (' font-weight="bold"' if bold else "")
    fade = f' fill-opacity="{opacity:.2f}"' if opacity is not None else ""
    return (
        f'<text x="{x:.1f}" y="{y + px * 0.36:.1f}" font-size="{px:g}" fill="{colour}" text-anchor="{anchor}"'
        f"{weight}{fade}>{escape(text)}</text>"
    )


def _text_on(fill: str) -> str:
    """Black or white text, whichever reads better on `fill` (as the canvas's text_on)."""
    r, g, b = (int(fill[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return "#ffffff" if 0.299 * r + 0.587 * g + 0.114 * b < 0.55 else "#111827"


def _wrap(text: str, px: float, width: float) -> list[str]:
    lines, line = [], ""
    for word in text.split(" "):
        trial = f"{line} {word}" if line else word
        if line and text_width(trial, px) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    return [*lines, line] if line else lines


__all__ = ["Marks", "graph_svg", "grad_scale", "mix", "text_width"]
