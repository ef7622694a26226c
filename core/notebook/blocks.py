"""A big graph inline, collapsed by the code that made it: a block per call, as the app shows it.

A graph of thousands of nodes drawn op by op is a wall of boxes nobody reads in
a notebook's cell. Recorded with its scopes (core/scopes/record.py), it reads
like its code instead:

    from backprop_studio import draw, recording
    with recording() as rec:
        loss = sum((model(x) - y) ** 2 for x, y in data)
    loss.backward()
    draw(loss, scopes=rec)     # a block per call and loop turn: `model`, `for x, y in data` ...

The picture is the app's first collapsed picture of the same graph
(core/scopes: `ScopedGraph.from_values`, `ScopeView.first`, `layout.picture`):
each block says what it is (its title and the line that made it), its size
(nodes, inner blocks), its wires in and out and the numbers of its output
(data and grad, the grad cell tinted as the canvas tints it); a node shown on
its own has its name, data and grad; a dashed frame holds what an opened block
shows. Only core/scopes' public functions are used here.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

from core.format import format_number
from core.notebook.svg import FONT, _text, _text_on, elide_middle, grad_scale, text_width
from core.palette import Palette, grad_hex
from core.scopes.graph import ScopedGraph
from core.scopes.layout import drawn_wires, picture, route, size_of
from core.scopes.view import ScopeView

SMALL_PX = 11  # the smallest text of a block (its line, its counts): a notebook never shrinks it below this
NUMBER_PX = 14  # a block's data and grad
KIND_WORD = {"inputs": "values made before the step", "root": "your code"}


def scoped_graph(value: Any, scopes: Any = None) -> ScopedGraph:
    """The ScopedGraph of the studio's Value `value`, its scopes from the Recorder `scopes` (or none)."""
    return ScopedGraph.from_values(value, scopes)


def blocks_svg(
    graph: ScopedGraph, palette: Palette, note: str = "", view: ScopeView | None = None, live: bool = False
) -> tuple[str, int]:
    """(the SVG of the graph's first collapsed picture -- or of `view` -- how many units it shows).
    live: a page steps it (core/notebook/block_page.py): each unit a `<g class="unit" data-u=..>` with a
    hidden halo, a status stripe and its grad cell and text classed, each wire a `path.w`, in the
    order of the units' wires."""
    view = view or ScopeView.first(graph)
    units, pos, summaries, frames = picture(view, aspect=2.2)
    p = palette
    grads = [s.grad for s in summaries.values()] + [
        float(graph.grad[int(units.node[u])]) for u in range(len(units)) if not units.is_block(u)
    ]
    gmax = grad_scale(g for g in grads if not math.isnan(g))
    parts: list[str] = []
    extents = []
    for e, (x0, y0, x1, y1) in frames.items():  # what an opened block shows, framed, its title above
        pad = 12.0
        title = elide_middle(graph.title(e), 12, max(x1 - x0, 120))
        parts.append(
            f'<rect x="{x0 - pad:.1f}" y="{y0 - pad - 16:.1f}" width="{x1 - x0 + 2 * pad:.1f}" '
            f'height="{y1 - y0 + 2 * pad + 16:.1f}" rx="10" fill="{p.selection}" fill-opacity="0.04" '
            f'stroke="{p.selection}" stroke-opacity="0.5" stroke-dasharray="6 4"/>'
            + _text(x0 - pad + 8, y0 - pad - 5, title, 12, p.caption_text, bold=True)
        )
        extents.append((x0 - pad, y0 - pad - 16, x1 + pad, y1 + pad))
    wire_class, cell_class = (' class="w"', ' class="cell"') if live else ("", "")
    kinds = {k: graph.scopes[k].kind for k in range(len(graph.scopes))}
    drawn = set(drawn_wires(units, kinds).tolist())  # the app's: no fan of wires out of the parameters
    for wire, count in enumerate(units.count.tolist()):
        if wire not in drawn and not live:
            continue
        width = 1.2 + min(3.0, math.log10(count)) if count > 1 else 1.2
        hidden = "" if wire in drawn else ' visibility="hidden"'  # a page shows it only while it is lit
        parts.append(
            f'<path d="{_wire_path(route(units, pos, wire))}" fill="none" stroke="{p.edge}" stroke-width="{width:.1f}"'
            f"{hidden}{wire_class}><title>{count:,} wires</title></path>"
        )
    for u in range(len(units)):
        x, y = pos[u]
        w, h = size_of(units, u)
        left, top = x - w / 2, y - h / 2
        extents.append((left, top, left + w, top + h))
        if units.is_block(u):
            s = summaries[int(units.scope[u])]
            inner = f" · {s.blocks} blocks" if s.blocks else ""
            size = f"{s.nodes:,} nodes{inner} · {s.ins:,} in → {s.outs:,} out"
            if text_width(size, SMALL_PX, True) > w - 16:  # the counts whole, the inner blocks' count dropped
                size = f"{s.nodes:,} nodes · {s.ins:,} in → {s.outs:,} out"
            rows = [
                (elide_middle(s.title, 13, w - 16), 13, p.label_text, True),
                (elide_middle(s.site if s.kind != "inputs" else KIND_WORD["inputs"], SMALL_PX, w - 16), SMALL_PX,
                 p.caption_text, False),
                (elide_middle(size, SMALL_PX, w - 16), SMALL_PX, p.caption_text, False),
            ]  # fmt: skip
            data, grad, tip = s.data, s.grad, f"{s.path}: {s.nodes:,} nodes"
        else:
            i = int(units.node[u])
            rows = [(elide_middle(graph.name(i), 13, w - 16), 13, p.label_text, True)]
            data, grad, tip = float(graph.data[i]), float(graph.grad[i]), graph.name(i)
        cell = grad_hex(p, 0.0 if math.isnan(grad) else grad, gmax, cell=True)
        kind = "block" if units.is_block(u) else "node"
        head = f'<g class="{kind}">'
        if live:  # what a step changes: the halo of the unit that ran, its stripe once stepped
            head = (
                f'<g class="unit {kind}" data-u="{u}"><rect class="halo" x="{left - 5:.1f}" y="{top - 5:.1f}" '
                f'width="{w + 10:.1f}" height="{h + 10:.1f}" rx="12" fill="none" stroke="{p.highlight}" '
                'stroke-opacity="0.85" stroke-width="8" visibility="hidden"/>'
            )
        parts.append(
            f"{head}<title>{escape(tip)}</title>"
            f'<rect x="{left:.1f}" y="{top:.1f}" width="{w:.1f}" height="{h:.1f}" rx="8" fill="{p.node_fill}" '
            f'stroke="{p.node_border}" stroke-width="{1.6 if units.is_block(u) else 1.0}"/>'
        )
        if live:
            parts.append(
                f'<rect class="st" x="{left + 1:.1f}" y="{top + 1:.1f}" width="6" height="{h - 2:.1f}" fill="none"/>'
            )
        ty = top + 13
        for text, px, colour, bold in rows:
            parts.append(_text(left + 8, ty, text, px, colour, bold=bold))
            ty += px + 6
        row_h = 22.0
        gy = top + h - row_h
        parts.append(
            f'<rect{cell_class} x="{left + 1:.1f}" y="{gy:.1f}" width="{w - 2:.1f}" height="{row_h - 1:.1f}" '
            f'fill="{cell}"/>'
            + _text(left + 8, gy + row_h / 2, format_number(data), NUMBER_PX, p.number_text, bold=True)
            + _text(
                left + w - 8,
                gy + row_h / 2,
                "∇ " + format_number(grad),
                NUMBER_PX,
                _text_on(cell),
                "end",
                bold=True,
                cls="gt" if live else None,
            )  # fmt: skip
        )
        parts.append("</g>")
    margin = 16.0
    left = min((e[0] for e in extents), default=0.0) - margin
    top = min((e[1] for e in extents), default=0.0) - margin
    right = max((e[2] for e in extents), default=0.0) + margin
    bottom = max((e[3] for e in extents), default=0.0) + margin
    lines = [
        f"{graph.n:,} nodes, collapsed "
        + (
            "by the structure the graph shows (no scopes were recorded)"
            if getattr(graph, "inferred", False)
            else "by the code that made them"
        )
        + f": {len(units)} blocks and nodes shown. "
        "Each block: its title, the line that made it, its size, wires in → out, its output's data and ∇ grad.",
    ] + ([note] if note else [])
    width = max(right - left, 480.0)
    for line in lines:
        for piece in _wrap_words(line, 14, width - 2 * margin):
            bottom += 21
            parts.append(_text(left + margin, bottom - 7, piece, 14, p.label_text))
    bottom += margin
    height = bottom - top
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="{left:.1f} {top:.1f} {width:.1f} {height:.1f}" font-family="{escape(FONT)}" role="img" '
        f'aria-label="computation graph of {graph.n} nodes, collapsed into {len(units)} blocks">'
        f'<rect x="{left:.1f}" y="{top:.1f}" width="{width:.1f}" height="{height:.1f}" fill="{p.background}"/>'
        + "".join(parts)
        + "</svg>"
    )
    return svg, len(units)


def _wire_path(points: list[tuple[float, float]]) -> str:
    """An SVG path along core/scopes/layout.py's route, as the app's page draws it: a curve from the
    source's right to the reader's left, or -- into a later band -- out to the right, down the gap to
    the row above the reader, along it, and in from the left."""
    (sx, sy), (ex, ey) = points[0], points[-1]
    if len(points) == 2:
        bend = max(40.0, (ex - sx) / 2)
        return f"M{sx:.1f},{sy:.1f} C{sx + bend:.1f},{sy:.1f} {ex - bend:.1f},{ey:.1f} {ex:.1f},{ey:.1f}"
    (ox, _oy), (_dx, top), (ax, _ay) = points[1], points[2], points[3]
    return (
        f"M{sx:.1f},{sy:.1f} C{ox:.1f},{sy:.1f} {ox:.1f},{top:.1f} {ox - 30:.1f},{top:.1f} "
        f"L{ax + 30:.1f},{top:.1f} C{ax:.1f},{top:.1f} {ax:.1f},{ey:.1f} {ex:.1f},{ey:.1f}"
    )


def _wrap_words(text: str, px: float, width: float) -> list[str]:
    from core.notebook.svg import _wrap

    return _wrap(text, px, width)
