"""The one-file stepper: a backward pass as one HTML page that steps in any browser.

    from backprop_studio import stepper
    st = stepper(f)
    st                      # a notebook shows the page inline (an <iframe srcdoc>)
    st.save("f.html")       # the same page as a file: open it, put it on a course site, mail it

The page holds everything: the graph drawn as the canvas draws it (core/notebook/svg.py,
its `live` parts), every step of the backward pass computed beforehand by the app's
debugger session, and a few KB of plain JavaScript for Reset / Back / Step / Run to end,
a slider and the arrow keys. No CDN, no kernel, no widget manager: it steps in a live
notebook, in nbconvert's HTML, on a static site and opened from disk alike.

What a step changes is small -- the grad cells the `+=` writes, the node whose
`_backward` runs, the lit wires -- so the page stores each node's history once
([step, grad text, cell colour, text colour, edge colour, status colour] each time
it changes) and each step's list of the nodes it touches. Going from step j to k
repaints only the nodes touched between them: a click costs the same on a toy and
on a 400-node MLP. The chain-rule line of the step is written above the picture, and
the scroll box follows the node whose `_backward` runs.

The state travels in the page's address: `f.html#step=5` opens at step 5, so a
teacher can link "step 5 of this graph", and `&theme=dark` shows it dark (the page's
colours turned round with their hues kept -- blue stays negative, orange positive --
an approximation of the app's dark palette; `stepper(f, palette="dark")` makes the
real one); the address follows each move.
"""

from __future__ import annotations

import json
import re
import secrets
from html import escape
from typing import Any, Protocol

from core.debugger.session import DebugSession
from core.document.graph import GraphDocument
from core.format import format_number
from core.notebook.inline import MIN_DIGIT_PX, decode_pictures, picture_html, svg_size
from core.notebook.svg import Marks, _text_on, graph_svg
from core.palette import METRICS, Palette, grad_hex


class OpStepper(Protocol):
    """What a page reads of core/notebook/stepper.py's Stepper (named here, not imported: the stepper
    imports this module, and the block-by-block page too)."""

    palette: Palette
    session: DebugSession
    doc: GraphDocument
    notes: list[str]

    @property
    def position(self) -> int: ...
    @property
    def total(self) -> int: ...
    def reset(self) -> Any: ...
    def step(self) -> Any: ...
    def seek(self, position: int) -> Any: ...
    def line(self) -> str: ...
    def marks(self) -> Marks: ...
    def numbers(self) -> dict[str, tuple[float, float]]: ...


FRAME_MAX_HEIGHT = 720  # px: an inline page taller than this scrolls inside its frame


def steps_data(st: OpStepper) -> tuple[dict, dict[str, str]]:
    """(the page's data, {node id: its longest grad text}) for every step of `st`'s backward pass.
    Walks the session from step 0 to the end and back to where it was. A step changes only the
    nodes it writes into (their grad and status) and the node whose `_backward` runs, so only
    those are looked at: a 3,000-node graph's 2,900 steps cost 2,900 small looks, not 9 million."""
    p, session = st.palette, st.session
    ids = list(st.doc.nodes)
    index = {nid: i for i, nid in enumerate(ids)}
    wires: dict[tuple[str, str], list[int]] = {}
    for w, e in enumerate(st.doc.edges):
        wires.setdefault((e.src, e.dst), []).append(w)
    was = st.position
    st.reset()
    gmax = session.grad_max or 0.0
    stepper = session.stepper
    values = session.compiled.values if session.compiled is not None else {}
    in_graph = set(stepper.topo) if stepper is not None else set()
    history: list[list[list]] = [[] for _ in ids]
    longest = {nid: "" for nid in ids}
    last: list[tuple | None] = [None] * len(ids)

    def look(i: int, nid: str, k: int) -> bool:
        v = values.get(nid)
        grad = v.grad if v is not None else None
        g = grad if grad is not None else 0.0
        cell, edge = grad_hex(p, g, gmax, cell=True), grad_hex(p, g, gmax)
        status = stepper.status(v) if stepper is not None and v in in_graph else None
        state = (
            format_number(grad),
            cell,
            _text_on(cell),
            edge if edge != p.grad_zero else "none",
            getattr(p, f"status_{status}") if status else "none",
        )
        if state == last[i]:
            return False
        last[i] = state
        history[i].append([k, *state])
        if len(state[0]) > len(longest[nid]):
            longest[nid] = state[0]
        return True

    for i, nid in enumerate(ids):
        look(i, nid, 0)
    steps = [{"c": -1, "t": [], "w": [], "ch": [], "L": "\n".join([st.line(), *st.notes])}]
    for k in range(1, st.total + 1):
        st.step()
        record = session.last_record
        current = session.nid(record.node) if record is not None else None
        targets = session.ids_of(record.children) if record is not None else []
        looked = {nid for nid in (current, *targets) if nid in index}
        steps.append(
            {
                "c": index[current] if current in index else -1,
                "t": sorted({index[t] for t in targets if t in index}),
                "w": sorted(w for t in set(targets) for w in wires.get((t, current), ())),  # type: ignore[arg-type]
                "ch": sorted(index[nid] for nid in looked if look(index[nid], nid, k)),
                "L": "\n".join([st.line(), *st.notes]),
            }
        )
    st.seek(was)
    data = {
        "total": st.total,
        "start": was,
        "h": history,
        "steps": steps,
        "theme": "dark" if p.name == "dark" else "light",
        "wire": [p.edge, 1.4],
        "lit": [p.highlight, 3.0],
    }
    return data, longest


SVG_MARK, DATA_MARK = "<!--bps-svg-->", "<!--bps-data-->"  # where the inline output's loader puts them back


def page_parts(st: OpStepper, title: str = "") -> tuple[str, str, str]:
    """(the page with SVG_MARK and DATA_MARK in place of its picture and its data, the picture, the data).
    The picture is drawn at the stepper's step with its marks, so that it is also that step's still picture
    (the inline output's fallback); the page's script undoes those marks before it paints a step."""
    data, longest = steps_data(st)
    marks = st.marks()
    marks.lines = []  # the step's text is the page's, above the picture
    svg = graph_svg(
        st.doc, st.numbers(), marks=marks, grad_max=st.session.grad_max, palette=st.palette, live=True, room=longest
    )
    # every "<" as \u003c: nothing in a label (</script>, <!--) can end or bend the data's script element
    payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")
    return page_shell(st.palette, title, st.total, svg, METRICS.number_px, SCRIPT), svg, payload


def page_shell(p: Palette, title: str, total: int, svg: str, digit_px: float, script: str) -> str:
    """The page around a picture and its steps, SVG_MARK and DATA_MARK where they go: the toolbar, the
    step's text, the scroll box (the picture shrinks to the window down to MIN_DIGIT_PX digits, then
    scrolls) and `script`."""
    width, _height = svg_size(svg)
    smallest = width * min(1.0, MIN_DIGIT_PX / digit_px)
    name = title or "the backward pass"
    return PAGE.format(
        title=escape(f"{name}: step through the backward pass (Backprop Studio)"),
        heading=escape(name),
        total=total,
        background=p.background,
        text=p.label_text,
        muted=p.caption_text,
        panel=p.overlay_fill[:7],
        border=p.overlay_border,
        highlight=p.highlight,
        width=f"{width:.0f}",
        smallest=f"{smallest:.0f}",
        svg=SVG_MARK,
        data=DATA_MARK,
        script=script,
    )


def stepper_page(st: OpStepper, title: str = "") -> str:
    """The self-contained HTML page of `st`'s backward pass (see the module docstring)."""
    shell, svg, payload = page_parts(st, title)
    return filled(shell, svg, payload)


def filled(shell: str, svg: str, payload: str) -> str:
    return shell.replace(DATA_MARK, payload, 1).replace(SVG_MARK, svg, 1)  # the data holds no "<": no mark


def inline_html(st: OpStepper, line: str, note: str) -> str:
    """The page inline in a notebook's output, every part of it stored once: the picture as an <img> of
    the SVG (core/notebook/inline.py), the steps as JSON, the page around them and a loader script.

    Where the output's scripts run (a live or trusted notebook, nbconvert's HTML, VS Code, Colab) the
    loader builds the page from these parts in an <iframe srcdoc> (its scripts run in the frame,
    sandboxed, reaching nothing of the notebook) and hides the rest. Where a sanitizer strips scripts
    and frames (JupyterLab's or Notebook 7's, for a notebook someone else ran) what is left is the step
    as a picture with its chain-rule `line` and `note`. Before, the page sat escaped in a srcdoc beside
    a second copy of the picture: a 1,986-node MLP's stepper was 14.5 MB in the notebook."""
    return framed(*page_parts(st, getattr(st, "title", "")), line, note)


def framed(shell: str, svg: str, payload: str, line: str, note: str) -> str:
    """A page's parts inline in a notebook's output (see inline_html): the fallback's text `line` and
    `note` above the picture, which a loader swaps for the page in a sandboxed <iframe srcdoc>."""
    _w, height = svg_size(svg)
    frame_height = min(FRAME_MAX_HEIGHT, int(height) + 190)
    uid = "bps-" + secrets.token_hex(6)
    loader = (
        LOADER.replace("@ID@", uid)
        .replace("@SHELL@", json.dumps(shell, ensure_ascii=False).replace("<", "\\u003c"))
        .replace("@HEIGHT@", str(frame_height))
    )
    return (
        f'<div class="backprop-studio-stepper" id="{uid}" style="position:relative;'
        f'border:1px solid #d0d7de;border-radius:6px;overflow:hidden">'
        f'<div class="bps-fallback"><pre style="margin:0;padding:6px 10px;white-space:pre-wrap">{escape(line)}</pre>'
        f"<p style=\"margin:0;padding:0 10px 6px\"><em>{escape(note)}</em></p>"
        f"{picture_html(svg, 'the graph at this step of the backward pass')}</div>"
        f'<script type="application/json" class="bps-steps">{payload}</script>'
        f"<script>{loader}</script></div>"
    )


def page_from_inline(html: str) -> str:
    """The one-file page an inline stepper output builds in the browser (what its loader does; for tests
    and tools): ValueError if `html` holds none."""
    shell = re.search(r"var shell = (.*?);\n", html)
    data = re.search(r'<script type="application/json" class="bps-steps">(.*?)</script>', html, re.S)
    pictures = decode_pictures(html)
    if not (shell and data and pictures):
        raise ValueError("no inline stepper in this HTML")
    return filled(json.loads(shell.group(1)), pictures[0], data.group(1))


LOADER = r"""(function () {
var here = document.currentScript, root = document.getElementById("@ID@") || (here && here.parentNode);
// (by its id first: VS Code runs an output's scripts as copies appended to a wrapper, not in place)
if (!root || root.querySelector("iframe")) return;
var shell = @SHELL@;
var img = root.querySelector(".bps-fallback img"), data = root.querySelector("script.bps-steps").textContent;
var b = atob(img.getAttribute("src").split(",")[1]), bytes = new Uint8Array(b.length);
for (var i = 0; i < b.length; i++) bytes[i] = b.charCodeAt(i);
var svg = new TextDecoder("utf-8").decode(bytes);
var frame = document.createElement("iframe");
frame.setAttribute("sandbox", "allow-scripts");
frame.title = "backward pass stepper";
frame.style.cssText = "display:block;width:100%;height:@HEIGHT@px;border:0";
frame.srcdoc = shell.replace("<!--bps-data-->", function () { return data; })
                    .replace("<!--bps-svg-->", function () { return svg; });
root.querySelector(".bps-fallback").style.display = "none";
root.appendChild(frame);
})();
"""


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="Backprop Studio">
<title>{title}</title>
<style>
html,body{{margin:0;padding:0;height:100%;background:{background};color:{text};
  font:14px/1.45 'DejaVu Sans',Verdana,sans-serif}}
body{{display:flex;flex-direction:column}}
#bar{{flex:none;display:flex;flex-wrap:wrap;gap:6px;align-items:center;padding:8px 10px;
  background:{panel};border-bottom:1px solid {border};z-index:1}}
#bar button{{font:inherit;padding:3px 10px;border:1px solid {border};border-radius:5px;background:{background};
  color:{text};cursor:pointer}}
#bar button:disabled{{opacity:.45;cursor:default}}
#bar button#step{{border-color:{highlight};font-weight:bold}}
#bar input{{flex:1 1 160px;min-width:120px}}
#count{{min-width:7em;color:{muted}}}
#line{{flex:none;margin:0;padding:6px 10px;min-height:4.4em;max-height:40vh;overflow:auto;white-space:pre-wrap;
  font:14px/1.45 'DejaVu Sans Mono',Menlo,Consolas,monospace;border-bottom:1px solid {border}}}
#box{{flex:1 1 auto;min-height:0;overflow:auto}}  /* the rest of the window: what the step runs is followed in it */
#box svg{{display:block;width:100%;max-width:{width}px;min-width:{smallest}px;height:auto}}
</style></head>
<body>
<div id="bar" role="toolbar" aria-label="{heading}">
<button id="reset" title="Every grad 0, the output's 1 (Home)">Reset</button>
<button id="back" title="Undo the last _backward call (Left arrow)">&#9664; Back</button>
<button id="step" title="Run one _backward call (Right arrow)">Step &#9654;</button>
<button id="end" title="Run every remaining _backward call (End)">Run to end &#9654;&#9654;</button>
<input id="slider" type="range" min="0" max="{total}" value="0" aria-label="step">
<span id="count" aria-live="polite">step 0 of {total}</span>
<button id="theme" title="Light or dark page (kept in the address: #theme=dark)">Dark</button>
</div>
<pre id="line" aria-live="polite"></pre>
<div id="box">{svg}</div>
<script type="application/json" id="bps-steps">{data}</script>
<script>{script}</script>
</body></html>
"""

PICTURE_SCRIPT = r"""var svg = box.querySelector("svg");
var wires = svg.querySelectorAll("path.w"), parts = [];
Array.prototype.forEach.call(svg.querySelectorAll("g.node"), function (g) {
  parts.push({g: g, cell: g.querySelector(".cell"), edge: g.querySelector(".edge"), st: g.querySelector(".st"),
    gc: g.querySelector(".gc"), gt: g.querySelector(".gt"), halo: g.querySelector(".halo"),
    frame: g.querySelector(".frame")});
});
function paint(i, k) {
  var s = stateAt(D.h[i], k), p = parts[i];
  p.gt.textContent = s[1]; p.cell.setAttribute("fill", s[2]); p.gt.setAttribute("fill", s[3]);
  p.gc.setAttribute("fill", s[3]); p.edge.setAttribute("fill", s[4]); p.st.setAttribute("fill", s[5]);
}
function marks(k, on) {
  var s = D.steps[k], look = on ? D.lit : D.wire, seen = on ? "visible" : "hidden";
  if (s.c >= 0) parts[s.c].halo.setAttribute("visibility", seen);
  s.t.forEach(function (t) { parts[t].frame.setAttribute("visibility", seen); });
  s.w.forEach(function (w) {
    wires[w].setAttribute("stroke", look[0]); wires[w].setAttribute("stroke-width", look[1]);
  });
}
function show(k, from) {  // paint step k over step `from`; the element to keep in view
  if (from >= 0) {
    marks(from, false);
    var a = Math.min(from, k) + 1, b = Math.max(from, k), touched = {};
    for (var j = a; j <= b; j++) D.steps[j].ch.forEach(function (i) { touched[i] = 1; });
    Object.keys(touched).forEach(function (i) { paint(+i, k); });
  } else {  // the picture came drawn at D.start with its marks: take them off, then paint every node
    marks(D.start, false);
    for (var i = 0; i < parts.length; i++) paint(i, k);
  }
  marks(k, true);
  var s = D.steps[k], n = s.c >= 0 ? s.c : (s.t.length ? s.t[0] : -1);  // the node whose _backward runs
  return n >= 0 ? parts[n].g : null;
}
"""

CONTROLS_SCRIPT = r"""function stateAt(h, k) {  // the last change at or before step k (a history is in step order)
  var lo = 0, hi = h.length - 1;
  while (lo < hi) { var mid = (lo + hi + 1) >> 1; if (h[mid][0] <= k) lo = mid; else hi = mid - 1; }
  return h[lo];
}
var line = document.getElementById("line"), count = document.getElementById("count");
var slider = document.getElementById("slider");
var buttons = {reset: 0, back: 0, step: 0, end: 0};
var pos = -1;
function follow(el) {  // keep what the step runs in view
  if (!el) return;
  var r = el.getBoundingClientRect(), b = box.getBoundingClientRect();
  if (r.left < b.left || r.right > b.right) box.scrollLeft += (r.left + r.right - b.left - b.right) / 2;
  if (r.top < b.top || r.bottom > b.bottom) box.scrollTop += (r.top + r.bottom - b.top - b.bottom) / 2;
}
function go(k, keepAddress) {
  k = Math.max(0, Math.min(D.total, k | 0));
  if (k === pos) return;
  var shown = show(k, pos);
  pos = k;
  line.textContent = D.steps[k].L;
  count.textContent = "step " + k + " of " + D.total;
  slider.value = k;
  buttons.reset.disabled = buttons.back.disabled = k === 0;
  buttons.step.disabled = buttons.end.disabled = k === D.total;
  follow(shown);
  if (!keepAddress) remember();
}
function remember() {  // the state in the address: #step=5, and &theme=dark when not the page's own
  var address = "#step=" + pos + (theme !== D.theme ? "&theme=" + theme : "");
  try { history.replaceState(null, "", address); } catch (e) { /* a sandboxed frame */ }
}
var theme = D.theme;
function setTheme(t) {  // the other theme: the page's colours turned round, hues kept (blue stays negative)
  theme = t === "dark" ? "dark" : "light";
  document.documentElement.style.filter = theme === D.theme ? "" : "invert(0.92) hue-rotate(180deg)";
  document.getElementById("theme").textContent = theme === "dark" ? "Light" : "Dark";
}
function fromAddress() {
  var m = /(?:^#|&)step=(\d+)/.exec(location.hash || ""), t = /(?:^#|&)theme=(\w+)/.exec(location.hash || "");
  if (t) setTheme(t[1]);
  return m ? +m[1] : null;
}
Object.keys(buttons).forEach(function (id) { buttons[id] = document.getElementById(id); });
buttons.reset.onclick = function () { go(0); };
buttons.back.onclick = function () { go(pos - 1); };
buttons.step.onclick = function () { go(pos + 1); };
buttons.end.onclick = function () { go(D.total); };
slider.oninput = function () { go(+slider.value); };
document.getElementById("theme").onclick = function () { setTheme(theme === "dark" ? "light" : "dark"); remember(); };
setTheme(D.theme);
document.addEventListener("keydown", function (e) {
  if (e.target === slider) return;
  var to = {ArrowRight: pos + 1, ArrowLeft: pos - 1, Home: 0, End: D.total}[e.key];
  if (to !== undefined) { go(to); e.preventDefault(); }
});
window.addEventListener("hashchange", function () { var k = fromAddress(); if (k !== null) go(k, true); });
var first = fromAddress();
go(first !== null ? first : D.start, first !== null);
"""


def page_script(picture_part: str) -> str:
    """A page's whole script: its data read, `picture_part` (which defines show(k, from): paint step k
    over step `from`, -1 at first, and return the element to keep in view), then the controls."""
    return (
        '(function () {\n"use strict";\nvar D = JSON.parse(document.getElementById("bps-steps").textContent);\n'
        'var box = document.getElementById("box");\n' + picture_part + CONTROLS_SCRIPT + "})();\n"
    )


SCRIPT = page_script(PICTURE_SCRIPT)
