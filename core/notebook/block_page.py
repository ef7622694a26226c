"""A big graph stepped block by block: the collapsed picture as a one-file page.

    from backprop_studio import stepper
    stepper(loss)              # over 2,000 nodes: the blocks the app shows, a Step per block
    stepper(loss).save("loss.html")

Op by op, a 3,250-node MLP is 2,700 steps and a microgpt step tens of
thousands: nobody clicks through those. The app's big-graph debugger (core/scopes/debug.py,
`BlockDebugger`) steps a *unit* of the collapsed picture at a time instead --
a whole block's backward (the ops of `softmax`, of `squared error #3`, come
together in the backward order), or one op where a node is shown on its own.
This page is that debugger's walk, made once here and stepped in the browser:

* each Step lights the block that just ran (a yellow halo), the wires from the
  values it reads (where its gradient went), and marks every block whose
  backward has run (a green stripe, as the app's stepped blocks turn green);
* every block's grad cell shows its output's grad at that step (the app's
  block shows the same number), so the numbers fill in as the pass goes;
* the text above the picture says what ran -- the app's words ("the backward
  of squared error #3: 674 steps") -- and the block's chain rule in numbers:
  its counts, its output's grad (final when it runs: everything that used it
  ran first), and the grads it added to each block it reads, was → now. A
  single op's step is its own chain-rule line, as the small debugger says it.

The page holds the picture (core/notebook/blocks.py, `live`), and per step
only what a unit shows: about a hundred units at most, so a page is tens of KB
whatever the graph's size (a 138,000-node microgpt step: 72 KB), and a click
repaints every unit in a few milliseconds (bench/bench_stepper_page.py --blocks).
Its still picture -- what an untrusted notebook shows -- is the finished pass. The controls, the address
(`#step=5`) and the inline frame are the op-by-op page's (core/notebook/page.py).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from core.format import format_number
from core.notebook.blocks import SMALL_PX, blocks_svg
from core.notebook.draw import RECORD_HINT, palette_of
from core.notebook.page import CONTROLS_SCRIPT, filled, framed, page_script, page_shell
from core.notebook.svg import _text_on, grad_scale
from core.palette import Palette, grad_hex

SHOWN_INPUTS = 5  # blocks whose grads a step's text lists by name; the rest are counted

UNTRUSTED = (
    "(The finished backward pass: the page that steps it block by block was removed here -- a notebook run "
    "by someone else is not trusted. Trust it, or run the cell, to step.)"
)


@dataclass
class Ran:
    """One step of the walk: the debugger's UnitStep, every unit's shown grad before and after it,
    {unit: how many of its grads the step changed}, and the first grad it made inf or nan ('' if none)."""

    step: Any
    was: list[float]
    now: list[float]
    changed: dict[int, int]
    bad: str


class BlockStepper:
    """The backward pass of a big graph, a block at a time (see the module docstring).

    value: the output (the studio's Value or a learner's); scopes: the Recorder of the
    `with recording() as rec:` that built it, or None (blocks by the graph's own structure)."""

    def __init__(self, value: Any, scopes: Any = None, palette: str | Palette = "light", note: str = "") -> None:
        from core.scopes.infer import collapsed

        self._start(collapsed(value, scopes), palette, getattr(value, "label", "") or "", note)

    @classmethod
    def of_graph(cls, graph: Any, palette: str | Palette = "light", title: str = "", note: str = "") -> BlockStepper:
        """The page of a ScopedGraph already collapsed (the app's big-graph page, File → Export as
        Interactive Page): walked on Values of its own (`graph.twin()`), so the graph's own
        stepping is left where it is."""
        made = cls.__new__(cls)
        made._start(graph.twin(), palette, title, note)
        return made

    def _start(self, graph: Any, palette: str | Palette, title: str, note: str) -> None:
        from core.scopes.view import ScopeView

        self.palette = palette_of(palette)
        self.graph = graph
        unknown = [n for n in self.graph.notes if "does not know" in n]  # core/scopes/foreign.py: cut to inputs
        if unknown:  # stepped, what lies below them would never get a grad: drawn only (stepper() does)
            raise ValueError(unknown[0])
        self.view = ScopeView.first(self.graph)
        self.nodes = self.graph.n
        self.title = title
        self.notes = ([note] if note else []) + ([RECORD_HINT] if getattr(self.graph, "inferred", False) else [])
        self.data = self._walk()
        self.total = int(self.data["total"])

    # -- the walk: the app's block debugger, from the start to the end ----------------------

    def _walk(self) -> dict:
        from core.scopes.debug import BlockDebugger, marks

        g, view, p = self.graph, self.view, self.palette
        units = view.units()
        m = len(units)
        blocks = {u: view.summary(int(units.scope[u])) for u in range(m) if units.is_block(u)}
        shown = [blocks[u].out_node if u in blocks else int(units.node[u]) for u in range(m)]  # whose grad a unit shows
        names = [blocks[u].title if u in blocks else g.name(int(units.node[u])) for u in range(m)]
        debugger = BlockDebugger(g, view)
        debugger.session.set_break_on_nonfinite(False)  # a block runs whole; its text says where inf/nan appear
        values = g.values()

        def grads() -> list[float]:
            return [values[i].grad if i >= 0 else math.nan for i in shown]

        moves: list[Ran] = []
        done_at = [-1] * m
        before = start = grads()
        while True:
            stepped, _current = marks(g, units, debugger.next_op(), debugger.last_op())
            for u in range(m):
                if stepped[u] and done_at[u] < 0:
                    done_at[u] = len(moves)
            step = debugger.step()
            if step is None:
                break
            after = grads()
            changed: dict[int, int] = {}
            bad = ""
            for i in debugger.changed_nodes(step.move).tolist():
                u = int(units.node_unit[i])
                changed[u] = changed.get(u, 0) + 1
                if not bad and not math.isfinite(values[i].grad):
                    bad = f"{g.name(i)}.grad = {format_number(values[i].grad)}"
            moves.append(Ran(step, before, after, changed, bad))
            before = after
        final = before
        gmax = grad_scale(x for x in final if not math.isnan(x))
        history: list[list[list]] = [[] for _ in range(m)]

        def look(k: int, numbers: list[float]) -> None:
            for u, x in enumerate(numbers):
                shade = x if math.isfinite(x) else 0.0 if math.isnan(x) else math.copysign(gmax or 1.0, x)
                cell = grad_hex(p, shade, gmax, cell=True)
                state = ["∇ " + format_number(x), cell, _text_on(cell)]
                if not history[u] or history[u][-1][1:] != state:
                    history[u].append([k, *state])

        g.read_numbers()  # the still picture (blocks_svg reads the arrays): the pass just walked, finished
        total = len(moves)
        look(0, start)
        steps = [{"c": -1, "w": [], "L": self._first_line(total)}]
        for k, ran in enumerate(moves, start=1):
            look(k, ran.now)
            u = self._unit_of(ran.step, units)
            lit = [w for w in range(len(units.dst)) if int(units.dst[w]) == u]
            text = self._line(k, total, ran, u, names, blocks)
            if ran.bad:
                text += f"\nNot finite: this step wrote {ran.bad} (the first grad it wrote that is inf or nan)."
            steps.append({"c": u, "w": lit, "L": text})
        return {
            "total": total,
            "start": 0,
            "h": history,
            "done": [d if d >= 0 else total for d in done_at],
            "steps": steps,
            "theme": "dark" if p.name == "dark" else "light",
            "stepped": p.status_final,
            "wire": p.edge,
            "lit": p.highlight,
            "out": int(units.node_unit[g.root]),  # where the pass begins: in view at step 0
        }

    @staticmethod
    def _unit_of(step: Any, units: Any) -> int:
        if step.unit_scope >= 0:
            return int(next(u for u in range(len(units)) if units.is_block(u) and units.scope[u] == step.unit_scope))
        return int(units.node_unit[step.node])

    @staticmethod
    def _first_line(total: int) -> str:
        return (
            f"Step 0 of {total}: every grad is 0 and the output's is 1. Step runs the backward of the first "
            "block: all of its _backward calls at once (the app's Step over a block). A green stripe marks a "
            "block whose backward has run; ∇ in a block is the grad of its output."
        )

    @staticmethod
    def _line(k: int, total: int, ran: Ran, u: int, names: list[str], blocks: dict[int, Any]) -> str:
        """Step k's text: the app's words for the unit that ran (u), then its chain rule in numbers."""
        step, was, now, changed = ran.step, ran.was, ran.now, ran.changed
        head = f"Step {k} of {total}: {step.text}"
        if k == total:
            head += ". The backward pass is done: every gradient is in."
        if u not in blocks:  # one op: its chain-rule line, as the small graph's debugger says it
            return "\n".join([head, step.explain]) if step.explain else head
        s = blocks[u]
        out = format_number(was[u])
        lines = [
            head,
            f"{s.title} ({s.nodes:,} nodes · {s.ins:,} in → {s.outs:,} out): its output's grad ∇ {out} is final "
            f"(everything that used it ran first); its {step.ops:,} _backward calls pass it back, by the chain "
            f"rule, into the grads of the {s.ins:,} values it reads:",
        ]
        fed = sorted((v for v in changed if v != u), key=lambda v: (-changed[v], v))
        for v in fed[:SHOWN_INPUTS]:
            count, a, b = changed[v], format_number(was[v]), format_number(now[v])
            shows = f"its ∇ {a} → {b}" if a != b else f"the ∇ it shows: {b}, unchanged"
            lines.append(f"  into {names[v]}: {count:,} grad{'s' * (count != 1)} ({shows})")
        if len(fed) > SHOWN_INPUTS:
            rest = sum(changed[v] for v in fed[SHOWN_INPUTS:])
            lines.append(f"  … and into {len(fed) - SHOWN_INPUTS} more blocks and nodes ({rest:,} grads)")
        return "\n".join(lines)

    # -- the page ---------------------------------------------------------------------------

    def parts(self, title: str = "") -> tuple[str, str, str]:
        """(the page's shell, its picture, its data): what page() fills in and the inline output stores."""
        svg, _units = blocks_svg(self.graph, self.palette, " ".join(self.notes), view=self.view, live=True)
        payload = json.dumps(self.data, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")
        shell = page_shell(self.palette, title or self.title, self.total, svg, SMALL_PX, page_script(BLOCK_SCRIPT))
        return shell, svg, payload

    def page(self, title: str = "") -> str:
        """The self-contained HTML page that steps this graph block by block in any browser."""
        return filled(*self.parts(title))

    def save(self, path: str, title: str = "") -> None:
        """Write the page to `path` (an .html file: open it in a browser, link `path#step=5`)."""
        from core.files.atomic import write_atomically

        write_atomically(path, self.page(title).encode("utf-8"))

    def _repr_html_(self) -> str:
        first = self.data["steps"][0]["L"]
        return framed(*self.parts(), "\n".join([first, *self.notes]), UNTRUSTED)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return {"text/html": self._repr_html_(), "text/plain": repr(self)}

    def __repr__(self) -> str:
        return f"<BlockStepper of {self.nodes:,} nodes: {self.total} steps, a block at a time>"


BLOCK_SCRIPT = r"""var svg = box.querySelector("svg"), wires = svg.querySelectorAll("path.w"), units = [];
Array.prototype.forEach.call(svg.querySelectorAll("g.unit"), function (g) {
  units.push({g: g, halo: g.querySelector(".halo"), st: g.querySelector(".st"), cell: g.querySelector(".cell"),
    gt: g.querySelector(".gt")});
});
var widths = Array.prototype.map.call(wires, function (w) { return w.getAttribute("stroke-width"); });
var shown = Array.prototype.map.call(wires, function (w) { return w.getAttribute("visibility") || "visible"; });
function show(k, from) {  // a hundred units at most: every one painted at step k
  units.forEach(function (p, u) {
    var s = stateAt(D.h[u], k);
    p.gt.textContent = s[1]; p.cell.setAttribute("fill", s[2]); p.gt.setAttribute("fill", s[3]);
    p.st.setAttribute("fill", D.done[u] <= k ? D.stepped : "none");
    p.halo.setAttribute("visibility", D.steps[k].c === u ? "visible" : "hidden");
  });
  if (from >= 0) D.steps[from].w.forEach(function (w) {  // as drawn: a wire into a bus of many is hidden
    wires[w].setAttribute("stroke", D.wire); wires[w].setAttribute("stroke-width", widths[w]);
    wires[w].setAttribute("visibility", shown[w]);
  });
  D.steps[k].w.forEach(function (w) {
    wires[w].setAttribute("stroke", D.lit); wires[w].setAttribute("stroke-width", Math.max(3, +widths[w] + 1.5));
    wires[w].setAttribute("visibility", "visible");
  });
  return units[D.steps[k].c >= 0 ? D.steps[k].c : D.out].g;
}
"""

__all__ = ["CONTROLS_SCRIPT", "BlockStepper"]
