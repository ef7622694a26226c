"""A Value graph inline in a notebook (Jupyter, Colab, VS Code): no Qt, no Graphviz.

    from backprop_studio import Value, show      # in a checkout: from core.notebook import draw
    x, y = Value(3.0, label="x"), Value(-2.0, label="y")
    f = x * y + y**2
    f.backward()
    show(f)          # in a notebook: the graph drawn inline, as the canvas draws it

`draw(value)` returns a `Graph`, which a notebook shows by itself (its
`_repr_html_`: an <img> of the SVG in a scroll box, core/notebook/inline.py)
and which holds the picture's text (`.svg`).
Any Value graph works: the studio's own, micrograd's, or a learner's class --
anything with `data`, `grad` and `_prev` (or `_children`), read through the
same trace as `show()` in the window (core/foreign/trace.py), never run. A
learner's graph is drawn with THEIR grads; where the chain rule (the studio's
backward on the same graph) disagrees, the node carries a chip "✗ should be
…" and a line under the picture names it.

`inline_values()` makes every Value of the studio's engine show its graph when
it is a cell's result (opt-in: printing a Value in a script stays as cheap as
before). `Stepper` (core/notebook/stepper.py) steps the backward pass.
"""

from __future__ import annotations

import sys
from html import escape
from typing import Any

from core.document.compile import compile_document, trace
from core.document.graph import GraphDocument
from core.engine import Value
from core.foreign.shapes import is_value_like
from core.format import format_number
from core.notebook.inline import picture_html
from core.notebook.sketch import Sketch, sketch_of
from core.notebook.svg import Marks, graph_svg
from core.palette import METRICS, PALETTES, Palette

MAX_INLINE_NODES = 2_000  # a larger graph is not legible inline: the window's collapsed views are for it


class Graph:
    """A drawn graph: a notebook shows it (SVG, or HTML around it); `.svg` is its text."""

    def __init__(self, svg: str, nodes: int, notes: list[str] | None = None, digit_px: float = 0.0) -> None:
        self.svg = svg
        self.nodes = nodes
        self.notes = list(notes or [])
        self.digit_px = digit_px or METRICS.number_px  # its smallest digits: shrunk to the cell no further

    def _repr_html_(self) -> str:
        # an <img> of the SVG, at its own size in a scroll box, shrunk to the cell at most until its digits are
        # 11 px; it survives the sanitizer of an untrusted notebook, and is stored once (core/notebook/inline.py)
        return picture_html(self.svg, f"computation graph of {self.nodes} nodes", self.digit_px)

    def save(self, path: str) -> None:
        """Write the picture to an .svg file."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.svg)

    def __repr__(self) -> str:
        return f"<Graph of {self.nodes} nodes: shown inline in a notebook; .svg holds the picture>"


class TooBig(Graph):
    """What a notebook shows for a graph too large to read op by op, with no scopes to collapse it by:
    how to get a picture that reads (recorded scopes), and the window where there is a display."""

    def __init__(self, nodes: int) -> None:
        super().__init__("", nodes)
        self.text = (
            f"This graph has more than {nodes - 1:,} nodes: too many to read op by op. Record the code "
            "that builds it and it is drawn collapsed, a block per call and loop turn of your code: "
            "with recording() as rec: (build it there), then draw(value, scopes=rec) -- "
            "recording is in backprop_studio (a checkout: core.scopes.record)."
        )

    def _repr_html_(self) -> str:
        return f"<p>{escape(self.text)}</p>"

    def __repr__(self) -> str:
        return self.text


def is_value(value: Any) -> bool:
    """Could it be a node of a Value graph? Ours, or a learner's object the checker reads
    as one (core/foreign/shapes.is_value_like: the one test show(), the lecture runner, the
    pytest plugin and the notebook share); the trace (core/foreign/trace.py) then reads the
    many shapes learners write and says what it cannot read."""
    return isinstance(value, Value) or is_value_like(value)


def document_of(value: Any) -> tuple[GraphDocument | Sketch, dict[str, tuple[float, float]], Marks, list[str]]:
    """(doc, {node id: (data, grad)}, marks, notes) of the graph that produced `value`.

    The studio's Value: its own numbers. A learner's: the trace's document with
    the numbers their objects hold, and ✗ chips where their grads differ from the
    chain rule's; a graph with an op the studio does not know is a Sketch
    (core/notebook/sketch.py), drawn with their numbers and not checked.
    ValueError saying why when the graph cannot be read."""
    if not is_value(value):
        raise TypeError(
            f"draw() needs a Value (an object with data, grad and its operands), "
            f"got {type(value).__name__}: {value!r:.60}"
        )
    if isinstance(value, Value):
        doc, values = trace(value)
        numbers = {nid: (v.data, v.grad) for nid, v in values.items()}
        notes = [] if any(v.grad for v in values.values()) else [NO_GRADS]
        return doc, numbers, Marks(), notes
    return _foreign(value)


NO_GRADS = "Every grad is 0: call backward() on the output first."


def _foreign(value):
    from core.foreign.document import differences_text, grad_differences, their_grads, to_document
    from core.foreign.trace import TraceError
    from core.foreign.trace import trace as trace_foreign

    try:
        traced = trace_foreign(value)
    except TraceError as e:
        raise ValueError(f"could not read the graph: {e}") from None
    plain = [node.as_dict() for node in traced.nodes]
    doc, problem = to_document(plain)
    theirs = their_grads(traced.objects)
    numbers = {n.id: (n.data, theirs.get(n.id)) for n in traced.nodes}
    notes = list(traced.notes)
    marks = Marks()
    if doc is None:  # an op the studio does not know (sin, softplus ...): drawn as written, not checked
        sketch = sketch_of(plain)
        ops = ", ".join(map(repr, sketch.unknown))
        why = f"it does not know the op{'s' if len(sketch.unknown) > 1 else ''} {ops}" if sketch.unknown else problem
        notes.insert(0, f"Drawn with your numbers; the studio cannot check these grads: {why}.")
        if not any(theirs.values()):
            notes.insert(0, NO_GRADS)
        return sketch, numbers, marks, notes
    if not any(theirs.values()):
        notes.insert(0, NO_GRADS)
        return doc, numbers, marks, notes
    compiled = compile_document(doc)
    if compiled.output is not None:
        compiled.output.backward()
        kept = {nid: g for nid, g in theirs.items() if g is not None}  # MiniTorch keeps leaves' only
        reference = {nid: v.grad for nid, v in compiled.values.items()}
        diffs = grad_differences(kept, reference)
        marks.tags = {nid: f"✗ should be {format_number(r)}" for nid, (_g, r) in diffs.items()}
        notes.insert(0, differences_text(diffs, {node.id: node.name for node in traced.nodes}))
    return doc, numbers, marks, notes


def draw(value: Any, legend: bool = True, palette: str | Palette = "light", scopes: Any = None) -> Graph:
    """The graph that produced `value`, drawn as the canvas draws it (see the module docstring).
    palette: "light", "dark" or "high-contrast" (the projector's), as in the window's View menu.
    A graph over MAX_INLINE_NODES is drawn collapsed, a block per piece of the code that made it
    (core/notebook/blocks.py), as the window opens it: by `scopes`, the Recorder of a
    `with recording() as rec:` block that built `value`, where there is one, else by the
    structure the graph itself shows (sums, neurons, repeated pieces, the learner's labels)."""
    if scopes is not None or too_big(value):
        return draw_blocks(value, scopes, palette_of(palette))
    doc, numbers, marks, notes = document_of(value)
    marks.lines = notes
    svg = graph_svg(doc, numbers, marks=marks, legend=legend, palette=palette_of(palette))
    return Graph(svg, len(doc.nodes), notes)


RECORD_HINT = (
    "Blocks named by your own code: build it inside `with recording() as rec:` and draw(value, scopes=rec) "
    "(recording is in backprop_studio; a checkout: core.scopes.record)."
)


def draw_blocks(value: Any, scopes: Any, palette: Palette, note: str = "") -> Graph:
    """The graph collapsed as the app opens it: core/scopes/infer.py's `collapsed` (by the recorded
    scopes, else by the graph's own structure), its first view drawn by core/notebook/blocks.py."""
    from core.notebook.blocks import SMALL_PX, blocks_svg
    from core.scopes.infer import collapsed

    if not is_value(value):
        raise TypeError(f"draw() needs a Value, got {type(value).__name__}: {value!r:.60}")
    graph = collapsed(value, scopes)
    notes = ([note] if note else []) + ([RECORD_HINT] if getattr(graph, "inferred", False) else [])
    svg, _units = blocks_svg(graph, palette, " ".join(notes))
    return Graph(svg, graph.n, notes, digit_px=SMALL_PX)


def too_big(value: Any, limit: int = MAX_INLINE_NODES) -> bool:
    """Has the graph behind `value` more than `limit` nodes? A walk that stops at limit + 1,
    so a microgpt step (130,000 nodes) is refused at once, not after tracing it all."""
    from core.foreign.shapes import children

    if not is_value(value):
        return False
    seen, stack = {id(value)}, [value]
    while stack:
        for child in children(stack.pop())[0]:
            if id(child) not in seen:
                seen.add(id(child))
                if len(seen) > limit:
                    return True
                stack.append(child)
    return False


def palette_of(palette: str | Palette) -> Palette:
    """A Palette, or one of PALETTES by name (ValueError naming them for any other)."""
    if isinstance(palette, Palette):
        return palette
    if palette not in PALETTES:
        raise ValueError(f"palette {palette!r}: choose one of {', '.join(map(repr, PALETTES))}")
    return PALETTES[palette]


def in_notebook() -> bool:
    """True inside a Jupyter kernel (JupyterLab, Notebook, Colab, VS Code), where
    a picture returned or displayed shows inline; False in a script or a terminal IPython."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return shell is not None and getattr(shell, "kernel", None) is not None


def qt_loop_in_kernel() -> bool:
    """True after `%gui qt` in IPython: the user asked for windows beside the notebook."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    loop = getattr(shell, "active_eventloop", None)
    return isinstance(loop, str) and loop.startswith("qt")


def show_inline(value: Any) -> None:
    """Display the graph in the notebook's output. Returns None, so that `show(f)`
    as a cell's last line shows the picture once (draw() returns it instead)."""
    from IPython.display import display

    display(draw(value))


# -----------------------------------------------------------------------------
# Opt-in: the studio's Value shows its graph as a cell's result


def _value_html(self: Value) -> str:
    return draw(self)._repr_html_()


def inline_values(on: bool = True) -> None:
    """From now on a Value that is a cell's result shows its graph inline
    (`inline_values(False)` goes back to the text repr)."""
    if on:
        Value._repr_html_ = _value_html  # type: ignore[attr-defined]
    elif "_repr_html_" in Value.__dict__:
        del Value._repr_html_  # type: ignore[attr-defined]
