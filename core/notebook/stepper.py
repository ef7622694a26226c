"""Step the backward pass in a notebook: Reset / Back / Step / Run to end and a slider.

    from backprop_studio import stepper
    stepper(f)               # a cell's result: the page that steps it, inline
    stepper(f).save("f.html")  # the same page as a file, for any browser

The steps are the app's: a `DebugSession` (core/debugger/session.py) of the
graph that produced the value -- the studio's engine, compiled from the same
trace as `draw()` -- runs one `_backward` call per Step, undoes it with Back,
and seeks with the slider. Each step is drawn as the canvas draws it in the
debugger: the node whose `_backward` runs has a yellow halo, the grad cells it
writes a yellow frame, the wires carrying its gradient are lit, every record
has its status stripe (untouched / partial / final), and the chain-rule line
of the step is written with it, as in the app's explanation:

    x.grad += y.data · (x·y).grad = -2.0000 · 1.0000 = -2.0000 (was 0.0000, now -2.0000)

What a notebook shows is the one-file page (core/notebook/page.py): every step
computed here once, stepped in the browser by a few KB of JavaScript, inline in an
`<iframe srcdoc>` its output builds from the picture and the steps, each stored once
in the notebook. It needs no kernel and no widget manager, so it steps in a live
notebook, in a saved one reopened, in nbconvert's HTML and on a static site, and a
click costs a millisecond where a round trip through the kernel resent the whole
picture (2.3-3.4 s a click on a 400-node MLP). `.widget()` still gives ipywidgets
controls (the `[notebook]` extra) driving this session from the kernel, and
`stepper.at(k)` draws step k as a picture.

A graph over the inline limit (2,000 nodes), or one given its recorded scopes, is
stepped on its collapsed picture instead, a block a click, as the app's window steps
it (core/notebook/block_page.py): a 138,000-node microgpt step is 19 clicks in a 72 KB page.
"""

from __future__ import annotations

from typing import Any

from core.debugger.session import DebugSession
from core.debugger.step_names import headline
from core.document.compile import compile_document
from core.document.graph import GraphDocument
from core.notebook.block_page import BlockStepper
from core.notebook.draw import MAX_INLINE_NODES, Graph, TooBig, document_of, draw_blocks, is_value, palette_of, too_big
from core.notebook.page import inline_html, stepper_page
from core.notebook.sketch import Sketch
from core.notebook.svg import Marks, graph_svg
from core.palette import Palette

NOT_STEPPED = "Not stepped: the studio's engine cannot run this graph ({})."
MAX_PAGE_NODES = 20_000  # File → Export as Interactive Page: past this, a page is tens of MB

UNTRUSTED = (
    "(A picture of this step: the page that steps it was removed here -- a notebook run by someone else is "
    "not trusted. Trust it, or run the cell, to step.)"
)


class Stepper:
    """A backward pass to step, with its picture (see the module docstring)."""

    def __init__(self, value: Any, palette: str | Palette = "light", max_nodes: int = MAX_INLINE_NODES) -> None:
        if too_big(value, max_nodes):
            raise ValueError(TooBig(max_nodes + 1).text)
        doc, _numbers, _marks, notes = document_of(value)
        if isinstance(doc, Sketch):  # drawn, but the studio cannot run an op it does not know
            raise ValueError(f"cannot step this graph: the studio's engine does not know the op {doc.unknown[0]!r}"
                             if doc.unknown else f"cannot step this graph: {notes[0]}")  # fmt: skip
        self._start(doc, palette, [n for n in notes if not n.startswith("Every grad is 0")])  # it computes them
        self.title = getattr(value, "label", "") or ""

    @classmethod
    def from_document(cls, doc: GraphDocument, palette: str | Palette = "light", title: str = "") -> Stepper:
        """A Stepper of a document as the app holds it (File → Export as Interactive Page): its names,
        its inputs' numbers. ValueError when it has no single output to step back from."""
        if len(doc.nodes) > MAX_PAGE_NODES:
            raise ValueError(
                f"the graph has {len(doc.nodes):,} nodes: one page steps at most {MAX_PAGE_NODES:,} "
                "(a 3,354-node page is already 10 MB)"
            )
        st = cls.__new__(cls)
        st._start(doc, palette, [])
        st.title = title
        return st

    def _start(self, doc: GraphDocument, palette: str | Palette, notes: list[str]) -> None:
        self.palette = palette_of(palette)
        self.doc = doc
        self.notes = notes
        compiled = compile_document(doc)
        if compiled.output is None:
            raise ValueError("the graph has no single output to step the backward pass from (wire it, or pick one)")
        self.session = DebugSession(doc, compiled)
        self.session.start()
        self._widget: Any = None

    # -- moves: each is the app's debugger move of the same name ------------------------

    @property
    def position(self) -> int:
        return self.session.position

    @property
    def total(self) -> int:
        return self.session.total

    def step(self) -> Stepper:
        self.session.step()
        return self

    def back(self) -> Stepper:
        self.session.step_back()
        return self

    def run(self) -> Stepper:
        self.session.run_to_end()
        return self

    def reset(self) -> Stepper:
        self.session.start()
        return self

    def seek(self, position: int) -> Stepper:
        self.session.seek(position)
        return self

    # -- what is shown ------------------------------------------------------------------

    def line(self) -> str:
        """The step's headline and chain-rule arithmetic (what the app's explanation says)."""
        record = self.session.last_record
        st = self.session.stepper
        if record is None or st is None:
            return f"Step 0 of {self.total}: every grad is 0 and the output's is 1. Step runs the first _backward call."
        name, said = st.name(record.node), headline(st, record.node)
        head = f"Step {self.position} of {self.total}: {name}._backward()" + (
            f", where {said}" if " = " in said else ""
        )
        return "\n".join([head, *record.lines])

    def marks(self) -> Marks:
        session, st = self.session, self.session.stepper
        marks = Marks()
        if st is None or session.compiled is None:
            return marks
        values = session.compiled.values
        in_graph = set(st.topo)
        marks.status = {nid: st.status(v) for nid, v in values.items() if v in in_graph}
        record = session.last_record
        node = session.nid(record.node) if record is not None else None
        if record is not None and node is not None:
            marks.current = node
            marks.targets = set(session.ids_of(record.children))
            marks.wires = {(child, node) for child in marks.targets}
        marks.lines = [*self.line().split("\n"), *self.notes]
        return marks

    def numbers(self) -> dict[str, tuple[float, float]]:
        compiled = self.session.compiled
        return {nid: (v.data, v.grad) for nid, v in compiled.values.items()} if compiled is not None else {}

    def picture(self, note: str = "") -> Graph:
        marks = self.marks()
        if note:
            marks.lines.append(note)
        svg = graph_svg(self.doc, self.numbers(), marks=marks, grad_max=self.session.grad_max, palette=self.palette)
        return Graph(svg, len(self.doc.nodes), marks.lines)

    def at(self, position: int) -> Graph:
        """The picture of step `position` (0 .. total)."""
        return self.seek(position).picture()

    # -- the one-file page: what a notebook shows, and what .save() writes ---------------

    def page(self, title: str = "") -> str:
        """The self-contained HTML page that steps this backward pass in any browser (core/notebook/page.py):
        the graph, every step precomputed, a few KB of plain JavaScript; no CDN, no kernel."""
        return stepper_page(self, title or self.title)

    def save(self, path: str, title: str = "") -> None:
        """Write the page to `path` (an .html file: open it in a browser, link `path#step=5`)."""
        from core.files.atomic import write_atomically

        write_atomically(path, self.page(title).encode("utf-8"))

    def _repr_html_(self) -> str:
        return inline_html(self, "\n".join([self.line(), *self.notes]), UNTRUSTED)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """A notebook shows the page, inline in an <iframe srcdoc>: it steps without a kernel, in a live
        notebook and in nbconvert's HTML alike; `.widget()` gives the ipywidgets controls instead."""
        return {"text/html": self._repr_html_(), "text/plain": repr(self)}

    # -- the widget (ipywidgets: steps through the kernel) ----------------------------------

    def widget(self) -> Any:
        """The controls and the picture, as an ipywidgets box (ImportError without ipywidgets)."""
        if self._widget is None:
            self._widget = _controls(self)
        return self._widget

    def __repr__(self) -> str:
        return f"<Stepper at step {self.position} of {self.total}>"


def stepper(
    value: Any, palette: str | Palette = "light", max_nodes: int = MAX_INLINE_NODES, scopes: Any = None
) -> Stepper | BlockStepper | Graph:
    """A Stepper of the graph that produced `value`: a cell's result shows it. A graph over
    `max_nodes`, or one given its recorded `scopes` (the Recorder of `with recording() as rec:`),
    is stepped a block at a time on its collapsed picture, as the app's window steps it
    (core/notebook/block_page.py); a larger max_nodes steps it op by op instead (a 3,354-node
    MLP's page is 10 MB, made in ~2.5 s). A graph the studio's engine cannot run (an op it does
    not know) is drawn collapsed, saying why it is not stepped."""
    if scopes is None and not too_big(value, max_nodes):
        return Stepper(value, palette, max_nodes)
    try:
        return BlockStepper(value, scopes, palette)
    except (ValueError, KeyError, TypeError) as e:  # a learner's op the engine has not: drawn, not stepped
        if not is_value(value):
            raise
        return draw_blocks(value, scopes, palette_of(palette), NOT_STEPPED.format(e))


def _controls(st: Stepper) -> Any:
    import ipywidgets as w

    layout = w.Layout(width="auto")
    back = w.Button(description="◀ Back", tooltip="Undo the last _backward call", layout=layout)
    step = w.Button(description="Step ▶", tooltip="Run one _backward call", button_style="primary", layout=layout)
    run = w.Button(description="Run to end ▶▶", tooltip="Run every remaining _backward call", layout=layout)
    reset = w.Button(description="Reset", tooltip="Every grad 0, the output's 1: step 0", layout=layout)
    slider = w.IntSlider(value=st.position, min=0, max=st.total, description="step", continuous_update=False)
    picture = w.HTML()
    busy = [False]  # the slider's own update after a button must not seek again

    def refresh() -> None:
        busy[0] = True
        slider.value = st.position
        busy[0] = False
        back.disabled = st.position == 0
        step.disabled = run.disabled = st.position >= st.total
        picture.value = st.picture()._repr_html_()

    def moved(move):
        def handler(_button: Any = None) -> None:
            move()
            refresh()

        return handler

    back.on_click(moved(st.back))
    step.on_click(moved(st.step))
    run.on_click(moved(st.run))
    reset.on_click(moved(st.reset))

    def seek(change: dict) -> None:
        if not busy[0]:
            st.seek(change["new"])
            refresh()

    slider.observe(seek, names="value")
    refresh()
    box = w.VBox([w.HBox([back, step, run, reset, slider]), picture])
    box.add_class("backprop-studio-stepper")
    box.buttons = {"back": back, "step": step, "run": run, "reset": reset}  # for tests and scripts
    box.slider, box.picture = slider, picture
    return box
