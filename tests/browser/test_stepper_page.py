"""The one-file stepper page and the inline pictures, in headless Chromium (issue 39 items 1, 2, 7)."""

import json

from core.engine import Value
from core.nn import MLP
from core.notebook import draw, stepper
from core.notebook.blocks import SMALL_PX
from core.notebook.inline import MIN_DIGIT_PX
from core.palette import METRICS

COUNT = "document.getElementById('count').textContent"
LINE = "document.getElementById('line').textContent"
GRADS = "Array.from(document.querySelectorAll('g.node .gt')).map(t => t.textContent)"

# a notebook's stylesheet, as JupyterLab, Notebook 7 and nbconvert's HTML have it: every image fits the cell
NOTEBOOK_CSS = "<style>body{margin:0;width:%dpx} img, svg {max-width:100%%; height:auto}</style>"


def tutorial():
    x, y = Value(3.0, label="x"), Value(-2.0, label="y")
    f = x * y + y**2
    f.label = "f"
    f.backward()
    return f


def mlp_loss(sizes, examples):
    """An MLP(3, sizes)'s squared-error loss, built without recording()."""
    model = MLP(3, list(sizes))
    xs = [[0.1 * i, -0.2 + 0.05 * i, 0.3] for i in range(examples)]
    loss = sum(((model(x) - (1.0 if i % 2 else -1.0)) ** 2 for i, x in enumerate(xs)), Value(0.0))
    loss.label = "loss"
    loss.backward()
    return loss


def karpathy_mlp():
    """The lecture's MLP(3, [4, 4, 1]) on its four examples: the loss's graph (394 nodes here)."""
    model = MLP(3, [4, 4, 1])
    xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    ys = [1.0, -1.0, -1.0, 1.0]
    loss = sum(((model(x) - y) ** 2 for x, y in zip(xs, ys)), Value(0.0))
    loss.label = "loss"
    loss.backward()
    return loss


def test_the_page_opened_from_disk_steps(browser, tmp_path):
    stepper(tutorial()).save(str(tmp_path / "f.html"))
    tab = browser.open((tmp_path / "f.html").as_uri(), 1000, 700)
    tab.wait(f"{COUNT} === 'step 0 of 3'")
    before_grads, before_png = tab.js(GRADS), tab.screenshot(str(tmp_path / "step0.png"))
    assert "every grad is 0" in tab.js(LINE)
    tab.click("#step")  # the mouse, pressed and released on the button
    tab.wait(f"{COUNT} === 'step 1 of 3'")
    assert "(x·y).grad += 1 · f.grad = 1.0000 · 1.0000 = 1.0000" in tab.js(LINE)  # the step's text changed
    after = tab.js(GRADS)
    assert after != before_grads and after.count("1.0000") == 3  # x·y and y^2 got f's grad: the picture changed
    assert tab.js("document.querySelector('g.halo[visibility=visible]') !== null")  # the running node lit
    assert tab.screenshot(str(tmp_path / "step1.png")) != before_png
    assert tab.js("location.hash") == "#step=1"  # the address follows
    tab.click("#step")
    tab.wait(f"{COUNT} === 'step 2 of 3'")
    assert "y.grad += 2·y.data · (y^2).grad = -4.0000" in tab.js(LINE)
    tab.click("#back")
    tab.wait(f"{COUNT} === 'step 1 of 3'")
    assert tab.js(GRADS) == after  # Back undoes exactly
    tab.click("#end")
    tab.wait(f"{COUNT} === 'step 3 of 3'")
    assert tab.js("document.getElementById('step').disabled")
    assert sorted(tab.js(GRADS)) == sorted(["-2.0000", "-1.0000", "1.0000", "1.0000", "1.0000"])


def test_the_address_opens_a_step(browser, tmp_path):
    """A teacher links "step 2 of this graph": f.html#step=2."""
    stepper(tutorial()).save(str(tmp_path / "f.html"))
    tab = browser.open((tmp_path / "f.html").as_uri() + "#step=2", 1000, 700)
    tab.wait(f"{COUNT} === 'step 2 of 3'")
    assert "-4.0000" in tab.js(GRADS) and "(y^2)._backward()" in tab.js(LINE)
    tab.js("location.hash = '#step=3'")
    tab.wait(f"{COUNT} === 'step 3 of 3'")


def test_the_theme_travels_in_the_address(browser, tmp_path):
    stepper(tutorial()).save(str(tmp_path / "f.html"))
    tab = browser.open((tmp_path / "f.html").as_uri() + "#step=1&theme=dark", 1000, 700)
    tab.wait(f"{COUNT} === 'step 1 of 3'")
    assert "invert" in tab.js("document.documentElement.style.filter")  # the light page, shown dark
    assert tab.js("document.getElementById('theme').textContent") == "Light"
    tab.click("#step")
    tab.wait(f"{COUNT} === 'step 2 of 3'")
    assert tab.js("location.hash") == "#step=2&theme=dark"  # a link to this step keeps the theme
    tab.click("#theme")
    tab.wait("document.documentElement.style.filter === ''")
    assert tab.js("location.hash") == "#step=2"


def test_the_page_inline_in_a_notebooks_output_steps(browser, tmp_path):
    html = stepper(tutorial())._repr_html_()
    (tmp_path / "nb.html").write_text(f"<html><head>{NOTEBOOK_CSS % 900}</head><body>{html}</body></html>")
    tab = browser.open((tmp_path / "nb.html").as_uri(), 1000, 800)
    frame = ".backprop-studio-stepper iframe"
    tab.wait(f"document.getElementById('count') && {COUNT} === 'step 0 of 3'", frame=frame)
    tab.click("#step", frame=frame)
    tab.wait(f"{COUNT} === 'step 1 of 3'", frame=frame)
    assert "f._backward()" in tab.js(LINE, frame=frame)


def test_a_wide_graph_inline_keeps_digits_of_11_px_and_scrolls(browser, tmp_path):
    """The repro: a notebook's max-width:100% shrank the MLP's picture to 19 % (3 px digits)."""
    picture = draw(karpathy_mlp())
    assert picture.nodes > 300
    page = f"<html><head>{NOTEBOOK_CSS % 700}</head><body>{picture._repr_html_()}</body></html>"
    (tmp_path / "mlp.html").write_text(page)
    tab = browser.open((tmp_path / "mlp.html").as_uri(), 900, 700)
    tab.wait("document.querySelector('img').complete && document.querySelector('img').naturalWidth > 0")
    shown, natural = tab.js("(function(){const i = document.querySelector('img');"
                            "return [i.getBoundingClientRect().width, i.naturalWidth];})()")  # fmt: skip
    digits = METRICS.number_px * shown / natural
    assert digits >= MIN_DIGIT_PX - 0.05, f"digits drawn {digits:.1f} px tall"
    box = "document.querySelector('.backprop-studio-graph')"
    assert tab.js(f"{box}.scrollWidth > {box}.clientWidth")  # the rest is a scroll away, not shrunk
    tab.screenshot(str(tmp_path / "mlp.png"))


def test_a_graph_over_the_inline_limit_is_drawn_collapsed_with_legible_digits(browser, tmp_path):
    """Issue 39 item 3 / 40 item 1: a 3,000-node MLP loss, no recording(): the app's collapsed blocks, inline."""
    loss = mlp_loss((16, 16, 1), 4)
    picture = draw(loss)
    assert picture.nodes > 2_500
    page = f"<html><head>{NOTEBOOK_CSS % 700}</head><body>{picture._repr_html_()}</body></html>"
    (tmp_path / "big.html").write_text(page, encoding="utf-8")
    tab = browser.open((tmp_path / "big.html").as_uri(), 900, 900)
    tab.wait("document.querySelector('img').complete && document.querySelector('img').naturalWidth > 0")
    shown, natural = tab.js("(function(){const i = document.querySelector('img');"
                            "return [i.getBoundingClientRect().width, i.naturalWidth];})()")  # fmt: skip
    digits = SMALL_PX * shown / natural
    assert digits >= MIN_DIGIT_PX - 0.05, f"a block's numbers drawn {digits:.1f} px tall"
    tab.screenshot(str(tmp_path / "big-inline.png"))


def test_a_big_page_steps(browser, tmp_path):
    """The 394-node MLP's page: a click repaints only what the step changed; the step text follows."""
    st = stepper(karpathy_mlp())
    st.save(str(tmp_path / "mlp.html"))
    tab = browser.open((tmp_path / "mlp.html").as_uri(), 1200, 800)
    tab.wait(f"{COUNT} === 'step 0 of {st.total}'")
    for k in range(1, 4):
        tab.click("#step")
        tab.wait(f"{COUNT} === 'step {k} of {st.total}'")
    assert f"Step 3 of {st.total}" in tab.js(LINE)
    current = tab.js(
        "(function(){const h = document.querySelector('g.halo[visibility=visible]').parentNode"
        ".getBoundingClientRect(), b = document.getElementById('box').getBoundingClientRect();"
        "return [h.left >= b.left - 1, h.right <= b.right + 1, h.top >= b.top - 1, h.bottom <= b.bottom + 1];})()"
    )
    assert current == [True, True, True, True]  # the box followed the node whose _backward runs
    line = tab.js("(function(){const r = document.getElementById('line').getBoundingClientRect();"
                  "return [r.top >= 0, r.bottom <= innerHeight, r.height > 20];})()")  # fmt: skip
    assert line == [True, True, True]  # and its chain-rule line is on screen above it
    tab.screenshot(str(tmp_path / "mlp-page-step3.png"))
    tab.js("(function(){const s = document.getElementById('slider'); s.value = s.max;"
           "s.dispatchEvent(new Event('input'));})()")  # fmt: skip
    tab.wait(f"{COUNT} === 'step {st.total} of {st.total}'")
    data = json.loads(tab.js("document.getElementById('bps-steps').textContent"))
    assert data["total"] == st.total


def lit_block(tab, frame=None):
    """[the data-u of the unit whose halo shows (None: none), is it whole in the scroll box and the window?]"""
    return tab.js(
        "(function(){const h = document.querySelector('g.unit .halo[visibility=visible]');"
        "if (!h) return [null, null]; const g = h.parentNode, r = g.getBoundingClientRect(),"
        "b = document.getElementById('box').getBoundingClientRect();"
        "return [+g.getAttribute('data-u'), r.left >= b.left - 1 && r.right <= b.right + 1 &&"
        "r.top >= b.top - 1 && r.bottom <= b.bottom + 1 && r.right <= innerWidth && r.bottom <= innerHeight];})()",
        frame,
    )


SMALLEST_TEXT = (
    "(function(){const s = document.querySelector('#box svg'), w = s.viewBox.baseVal.width;"
    "const scale = s.getBoundingClientRect().width / w;"
    "return Math.min.apply(null, Array.from(s.querySelectorAll('g.unit text'))"
    ".map(t => +t.getAttribute('font-size'))) * scale;})()"
)


def test_a_big_graph_steps_block_by_block_inline(browser, tmp_path):
    """Issue 39 item 3: a 3,000-node MLP over the inline limit -- its collapsed picture steps a block per
    click, in a notebook's output (the notebook's stylesheet around it): the lit block, the step's text
    and the numbers change, the box follows the block, and no text of a block is under 11 px."""
    st = stepper(mlp_loss((16, 16, 1), 4))
    assert st.nodes > 2_500 and 10 < st.total < 100  # a block a click, not 2,900 op steps
    html = st._repr_html_()
    (tmp_path / "nb.html").write_text(f"<html><head>{NOTEBOOK_CSS % 900}</head><body>{html}</body></html>", "utf-8")
    tab = browser.open((tmp_path / "nb.html").as_uri(), 1000, 900)
    frame = ".backprop-studio-stepper iframe"
    tab.wait(f"document.getElementById('count') && {COUNT} === 'step 0 of {st.total}'", frame=frame)
    assert lit_block(tab, frame)[0] is None and "every grad is 0" in tab.js(LINE, frame=frame)
    texts = "Array.from(document.querySelectorAll('g.unit .gt')).map(t => t.textContent)"
    before = tab.js(texts, frame=frame)
    tab.screenshot(str(tmp_path / "big-step0.png"))
    seen = []
    for k in (1, 2):
        tab.click("#step", frame=frame)
        tab.wait(f"{COUNT} === 'step {k} of {st.total}'", frame=frame)
        unit, in_view = lit_block(tab, frame)
        assert unit == st.data["steps"][k]["c"] and in_view  # the block that ran is lit, and in view
        line = tab.js(LINE, frame=frame)
        assert line.startswith(f"Step {k} of {st.total}: the backward of ") and line == st.data["steps"][k]["L"]
        seen.append((unit, line))
    assert seen[0] != seen[1]  # the lit block and the step text changed
    assert tab.js(texts, frame=frame) != before  # the numbers filled in
    assert "is final" in seen[1][1] and " in → " in seen[1][1]  # the block's chain rule in numbers
    stripes = f"document.querySelectorAll('g.unit .st[fill=\"{st.data['stepped']}\"]').length"
    assert tab.js(stripes, frame=frame) >= 2  # the stepped blocks marked
    smallest = tab.js(SMALLEST_TEXT, frame=frame)
    assert smallest >= MIN_DIGIT_PX - 0.05, f"a block's smallest text drawn {smallest:.1f} px tall"
    lit = tab.js(
        f"Array.from(document.querySelectorAll('path.w')).filter(w => w.getAttribute('stroke') === "
        f"{st.data['lit']!r}).map(w => w.getAttribute('visibility'))",
        frame,
    )
    assert lit and set(lit) == {"visible"}  # its wires lit, a wire out of the parameters' bus too
    tab.screenshot(str(tmp_path / "big-step2.png"))
    tab.click("#back", frame=frame)
    tab.wait(f"{COUNT} === 'step 1 of {st.total}'", frame=frame)
    assert lit_block(tab, frame)[0] == seen[0][0]  # Back undoes the block
    tab.click("#end", frame=frame)
    tab.wait(f"{COUNT} === 'step {st.total} of {st.total}'", frame=frame)
    assert "The backward pass is done" in tab.js(LINE, frame=frame)
