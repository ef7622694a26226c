"""core/notebook/block_page.py: a big graph stepped block by block, as one page (issue 39 item 3).

What the page does in a browser (click Step: the lit block and the text change) is tested in
headless Chromium by tests/browser/test_stepper_page.py; here: what the walk and the page hold."""

import json
import re
import xml.etree.ElementTree as ET

from core.engine import Value, topological_order
from core.format import format_number
from core.notebook import MAX_INLINE_NODES, Graph, draw, stepper
from core.notebook.block_page import BlockStepper
from core.notebook.page import page_from_inline
from core.scopes.debug import BlockDebugger
from core.scopes.infer import collapsed
from core.scopes.view import ScopeView

SVG = "{http://www.w3.org/2000/svg}"


def mlp_loss(examples=4):
    """An MLP(3, [16, 16, 1])'s squared-error loss: ~3,000 nodes, over the inline limit."""
    from core.nn import MLP

    model = MLP(3, [16, 16, 1])
    xs = [[0.1 * i, -0.2 + 0.05 * i, 0.3] for i in range(examples)]
    loss = sum(((model(x) - (1.0 if i % 2 else -1.0)) ** 2 for i, x in enumerate(xs)), Value(0.0))
    loss.label = "loss"
    loss.backward()
    return loss


def state_at(history, k):
    return [h for h in history if h[0] <= k][-1]


def page_data(page):
    return json.loads(re.search(r'<script type="application/json" id="bps-steps">(.*?)</script>', page, re.S).group(1))


def test_a_graph_over_the_limit_steps_a_block_at_a_time_as_the_app_does():
    loss = mlp_loss()
    assert len(topological_order(loss)) > MAX_INLINE_NODES
    st = stepper(loss)
    assert isinstance(st, BlockStepper) and st.nodes == len(topological_order(loss))
    graph = collapsed(loss)  # the app's debugger, walked beside it: the same units, the same words
    app = BlockDebugger(graph, ScopeView.first(graph))
    said = []
    while (step := app.step()) is not None:
        said.append(step.text)
    assert st.total == len(said) and 10 < st.total < 100  # a few dozen clicks, not 2,900
    for k, text in enumerate(said, start=1):
        assert st.data["steps"][k]["L"].startswith(f"Step {k} of {st.total}: {text}")
    assert "The backward pass is done" in st.data["steps"][-1]["L"]


def test_the_numbers_fill_in_and_end_at_backwards_grads():
    loss = mlp_loss()
    grads = {id(v): v.grad for v in topological_order(loss)}
    st = stepper(loss)
    assert {id(v): v.grad for v in topological_order(loss)} == grads  # stepped on copies: the learner's kept
    d = st.data
    out = d["out"]
    assert state_at(d["h"][out], 0)[1] == f"∇ {format_number(1.0)}"  # the output's grad is 1 at step 0 ...
    assert all(state_at(h, 0)[1] == "∇ 0.0000" for u, h in enumerate(d["h"]) if u != out)  # ... every other 0
    view = st.view
    units = view.units()
    for u in range(len(units)):  # at the end: each unit's number is backward()'s, as the app's block shows it
        node = view.summary(int(units.scope[u])).out_node if units.is_block(u) else int(units.node[u])
        assert state_at(d["h"][u], st.total)[1] == f"∇ {format_number(float(st.graph.grad[node]))}"
    assert d["done"] == sorted(d["done"], reverse=True)  # the pass runs the units from the last made down
    for k, step in enumerate(d["steps"][1:], start=1):
        u = step["c"]
        assert d["done"][u] <= k  # the block that ran is stepped from its step on
        assert all(int(units.dst[w]) == u for w in step["w"])  # its lit wires: into it, from what it reads


def test_a_blocks_text_is_its_chain_rule_in_numbers():
    st = stepper(mlp_loss())
    texts = [s["L"] for s in st.data["steps"]]
    block = next(t for t in texts if "squared error" in t.split("\n")[0] and "674 steps" in t)
    lines = block.split("\n")
    assert "(674 nodes · " in lines[1] and "in → 1 out): its output's grad ∇ 1.0000 is final" in lines[1]
    assert re.search(r"into inputs: \d+ grads \((its ∇ \S+ → \S+|the ∇ it shows: \S+, unchanged)\)", lines[2])
    single = next(t for t in texts if "(pow): 1 step" in t)  # a node on its own: the small debugger's line
    assert ".grad += (2·" in single and "(was 0.0000, now " in single


def test_the_page_is_small_whatever_the_graph_and_fetches_nothing():
    st = stepper(mlp_loss())
    page = st.page()
    assert len(page.encode()) < 150_000  # a few dozen units: tens of KB for 3,000 nodes
    assert "<link" not in page and "src=" not in page
    assert re.findall(r"https?://[^\s\"']+", page) == ["http://www.w3.org/2000/svg"]
    assert page_data(page) == json.loads(json.dumps(st.data))
    svg = ET.fromstring(page[page.index("<svg") : page.index("</svg>") + 6])
    groups = [g for g in svg.iter(SVG + "g") if "unit" in (g.get("class") or "").split()]
    assert [int(g.get("data-u")) for g in groups] == list(range(len(st.view.units())))
    for g in groups:
        assert {"halo", "st", "cell", "gt"} <= {e.get("class") for e in g.iter()}
    assert len([p for p in svg.iter(SVG + "path") if p.get("class") == "w"]) == len(st.view.units().src)


def test_a_notebook_shows_it_inline_stored_once():
    st = stepper(mlp_loss())
    html = st._repr_mimebundle_()["text/html"]
    same = re.compile(r"bps[0-9a-f]+-\d+-")
    assert same.sub("", page_from_inline(html)) == same.sub("", st.page())
    assert "Step 0 of" in html and "not trusted" in html  # what a sanitizer leaves: the picture and why
    assert len(html) < len(st.page()) * 1.5


def test_recorded_scopes_step_by_the_codes_blocks():
    from core.nn import MLP
    from core.scopes.record import recording

    model = MLP(3, [4, 1])

    def squared_error(x, y):
        return (model(x) - y) ** 2

    with recording() as rec:
        loss = sum((squared_error([0.1 * i, -0.2, 0.3], 1.0) for i in range(3)), Value(0.0))
    loss.backward()
    st = stepper(loss, scopes=rec)  # small, but asked for by its code's blocks
    assert isinstance(st, BlockStepper)
    heads = [s["L"].split("\n")[0] for s in st.data["steps"][1:]]
    assert sum("the backward of __call__" in h and "(in squared_error › __call__)" in h for h in heads) == 15
    # (3 calls of squared_error, each a model call of 4 + 1 neurons: named by the code that made them)


def test_an_op_the_engine_cannot_run_is_drawn_not_stepped():
    """A learner's op the studio does not know is cut to an input in the collapsed graph: stepped, what
    lies below it would never get a grad -- so it is drawn, saying why, never stepped wrong."""
    import math

    class Own:
        def __init__(self, data, children=(), op=""):
            self.data, self.grad, self._prev, self._op = data, 0.0, tuple(children), op

        def __mul__(self, other):
            return Own(self.data * other.data, (self, other), "*")

        def softplus(self):
            return Own(math.log1p(math.exp(self.data)), (self,), "softplus")

    terms = [(Own(0.01 * i) * Own(1.0 - 0.001 * i)).softplus() for i in range(800)]
    while len(terms) > 1:
        terms = [a * b for a, b in zip(terms[::2], terms[1::2])] + terms[len(terms) & ~1 :]
    shown = stepper(terms[0])
    assert isinstance(shown, Graph) and any("softplus" in n and "Not stepped" in n for n in shown.notes)


def test_wires_run_as_the_apps_and_a_bus_shows_when_its_step_lights_it():
    """The picture draws the app's wires (core/scopes/layout.py drawn_wires and route): none out of the
    parameters' block that feeds every term; in a page those are there, hidden, shown while lit."""
    from core.scopes.layout import drawn_wires

    st = stepper(mlp_loss())
    units = st.view.units()
    kinds = {k: st.graph.scopes[k].kind for k in range(len(st.graph.scopes))}
    drawn = set(drawn_wires(units, kinds).tolist())
    assert 0 < len(drawn) < len(units.src)  # a bus left out
    page = st.page()
    svg = ET.fromstring(page[page.index("<svg") : page.index("</svg>") + 6])
    wires = [p for p in svg.iter(SVG + "path") if p.get("class") == "w"]
    hidden = {w for w, p in enumerate(wires) if p.get("visibility") == "hidden"}
    assert hidden == set(range(len(units.src))) - drawn
    assert any(set(s["w"]) & hidden for s in st.data["steps"])  # a step lights a bus wire (the script shows it)
    still = list(ET.fromstring(draw(mlp_loss()).svg).iter(SVG + "path"))
    assert len(still) == len(drawn)  # draw()'s picture: only the drawn ones


def test_a_pass_that_overflows_still_steps_a_block_a_click_saying_where():
    """The app's session stops a run at the first inf/nan grad; walked that way, each later click ran one op
    (1,213 steps for a 2,799-node graph). The page runs each block whole and says where a grad overflowed."""
    x = Value(800.0, label="x")
    loss = sum(((x * (0.001 * i)).exp() for i in range(1, 700)), Value(0.0))
    loss = loss * loss
    loss.backward()
    st = stepper(loss)
    assert isinstance(st, BlockStepper) and st.total < 60
    said = [s["L"] for s in st.data["steps"] if "Not finite: this step wrote " in s["L"]]
    assert said and "= inf" in said[0]
    assert any("∇ inf" in h[-1][1] for h in st.data["h"])  # shown as it is


def test_without_backward_the_still_picture_is_the_finished_pass():
    """What an untrusted notebook shows (the page's picture, its scripts stripped) is the pass the page
    steps, finished -- also when the learner never called backward() (their grads all 0)."""
    from core.nn import MLP
    from core.notebook.inline import decode_pictures

    model = MLP(3, [16, 16, 1])
    loss = sum(((model([0.1 * i, -0.2, 0.3]) - 1.0) ** 2 for i in range(4)), Value(0.0))  # no backward()
    assert all(v.grad == 0.0 for v in topological_order(loss))
    st = stepper(loss)
    (svg,) = decode_pictures(st._repr_html_())
    grads = [t.text for t in ET.fromstring(svg).iter(SVG + "text") if t.get("class") == "gt"]
    assert "∇ 1.0000" in grads and any(g not in ("∇ 0.0000", "∇ 1.0000") for g in grads)
    assert all(v.grad == 0.0 for v in topological_order(loss))  # the learner's own Values untouched
