"""VS Code's and Colab's output containers, emulated in headless Chromium (issue 39 items 1 and 2).

Neither host can run here (VS Code is an Electron app, Colab a Google service), so these tests rebuild
each one's container for a `text/html` output as far as it is documented, put our outputs in it and
look: the picture's digits are >= 11 px and the stepper steps. An emulation, not the real host: what
the sources below do not say is marked "assumed" where the page is built.

VS Code (the notebook editor and its built-in renderers), from microsoft/vscode:

- every output of a notebook lives in ONE webview: an <iframe> whose sandbox holds allow-scripts and
  allow-same-origin (Chromium's warning "An iframe which has both allow-scripts and allow-same-origin
  for its sandbox attribute can escape its sandboxing", raised at webviewElement.ts's mountTo, quoted
  in vscodenpa/testissues#30634, a mirror of a microsoft/vscode issue; the other flags are assumed);
- its document (src/vs/workbench/contrib/notebook/browser/view/renderers/backLayerWebView.ts,
  generateContent): `body {overflow: hidden}`, `#container` absolutely placed, each output at
  `#container > div > div > div.output` with `width: var(--notebook-output-width)` (the cell's width
  less its margins), padding, and `#container > div > div:not(.preview) > div {overflow-x: auto}`;
  with the setting notebook.experimental.enableCsp a Content-Security-Policy: default-src 'none';
  script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; img-src https: http: data:;
  font-src https:; connect-src https:; child-src https: data: (the webview's own source besides) --
  emulated here with that policy on, the stricter case;
- a text/html output (extensions/notebook-renderers/src/index.ts, renderHTML): the HTML set as a new
  div's innerHTML, the div appended to the output element, then `domEval`: each <script> copied into
  a new script element (its text, and its type, src, nonce, noModule, async), appended to that div
  and removed again -- so a script runs as a copy whose parent is the wrapper, not where it was.
- Restricted Mode (an untrusted workspace) is not emulated because nothing is drawn there: the same
  renderer's renderOutputItem returns at once for text/html and image/svg+xml when
  `!ctx.workspace.isTrusted` (only image/png, gif, jpeg and text are drawn), so our pictures and
  steppers, like any HTML or SVG output, show once the workspace is trusted. Not emulated either:
  VS Code's theme variables, and its resizing of the webview to each output's height (the webview
  is simply tall here).

Colab, from its documentation and maintainers:

- "In Colaboratory the output of each cell is hosted in a separate iframe sandbox with limited access
  to the global notebook environment" (colab.research.google.com/notebooks/snippets/advanced_outputs.ipynb,
  as quoted in 3dmol/3Dmol.js#550 and github.com/ajitonelsonn/advanced_outputs), "each cell's output is
  in its own iframe" (a Colab maintainer, googlecolab/colabtools#6); scripts in an output run, with
  Colab's `google.colab` API beside them (google.colab.kernel.invokeFunction, the same thread, for an
  output "executed within the current session"); that "outputframe" is a third party
  to the notebook's page (Colab's message "Could not load the JavaScript files needed to display
  output ... third-party cookies are not allowed", googlecolab/colabtools#823).
- Assumed, not documented: how the frame writes the output into its document (here: a contextual
  fragment, whose scripts run), its sandbox flags (here: allow-scripts allow-popups allow-forms
  allow-modals allow-downloads, no allow-same-origin: an opaque origin, as far from the notebook's
  as another origin is), an `img {max-width: 100%}` rule (the worst case a stylesheet can do), and its
  height following the content (through a stand-in named google.colab.output.setIframeHeight, which
  the page posts to the notebook: Colab's own resizing is not documented). Whether the
  outputframe has a Content-Security-Policy, and what it says about frames, is not documented; our
  stepper builds its page in an <iframe srcdoc> there (no fetch, no other origin).
"""

import json

import pytest
from test_stepper_page import COUNT, LINE, SMALLEST_TEXT, karpathy_mlp, lit_block, mlp_loss, tutorial

from core.notebook import draw, stepper
from core.notebook.inline import MIN_DIGIT_PX
from core.palette import METRICS

WIDTH = 1000  # px of the editor / the notebook's cell

VSCODE_WEBVIEW = """<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self' 'unsafe-inline'
 'unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' https: http: data:; font-src 'self' https:;
 connect-src https:; child-src https: data:;">
<style>
#container .cell_container, #container .output_container {width: 100%}
#container > div > div > div.output {width: calc(100% - 52px); margin-left: 32px;
  padding: 10px 10px 10px 8px; box-sizing: border-box; border-top: none}
#container > div > div:not(.preview) > div {overflow-x: auto}
body {padding: 0; height: 100%; width: 100%; font-family: sans-serif}
</style></head>
<body style="overflow: hidden;">
<div id="container" class="widgetarea" style="position: absolute; width: 100%; top: 0px">@CELLS@</div>
<script type="application/json" id="outputs">@OUTPUTS@</script>
<script>
// the built-in text/html renderer (extensions/notebook-renderers/src/index.ts), restated
var kept = ["type", "src", "nonce", "noModule", "async"];
function domEval(container) {
  Array.from(container.getElementsByTagName("script")).forEach(function (node) {
    var copy = document.createElement("script");
    copy.text = node.innerText;
    kept.forEach(function (key) {
      var value = node[key] || (node.getAttribute && node.getAttribute(key));
      if (value) copy.setAttribute(key, value);
    });
    container.appendChild(copy).parentNode.removeChild(copy);
  });
}
function renderHTML(html, output) {
  while (output.firstChild) output.firstChild.remove();
  var element = document.createElement("div");
  element.innerHTML = html;
  output.appendChild(element);
  domEval(element);
}
JSON.parse(document.getElementById("outputs").textContent).forEach(function (html, i) {
  renderHTML(html, document.getElementById("output-" + i));
});
</script></body></html>"""

VSCODE_WORKBENCH = """<!DOCTYPE html><html><body style="margin:0;width:@WIDTH@px">
<iframe class="webview" sandbox="allow-scripts allow-same-origin allow-forms allow-pointer-lock allow-downloads"
 src="webview.html" style="width:100%;height:2600px;border:0"></iframe></body></html>"""

COLAB_FRAME = """<!DOCTYPE html><html><head><meta charset="utf-8">
<style>body {margin: 0; font-family: sans-serif} img {max-width: 100%}</style>
<script>
window.google = {colab: {output: {setIframeHeight: function (h) { parent.postMessage({height: h}, "*"); }}}};
</script></head><body><div id="output-area"></div>
<script>
var area = document.getElementById("output-area");
area.appendChild(document.createRange().createContextualFragment(@HTML@));
new ResizeObserver(function () {
  google.colab.output.setIframeHeight(document.documentElement.scrollHeight);
}).observe(document.body);
</script></body></html>"""

COLAB_NOTEBOOK = """<!DOCTYPE html><html><body style="margin:0">@CELLS@
<script>
window.addEventListener("message", function (e) {
  document.querySelectorAll("iframe.outputframe").forEach(function (f) {
    if (f.contentWindow === e.source && e.data && e.data.height) f.style.height = e.data.height + "px";
  });
});
</script></body></html>"""


def as_json(value):
    return json.dumps(value).replace("<", "\\u003c")


def vscode(folder, outputs):
    cells = "".join(
        f'<div class="cell_container"><div class="output_container"><div class="output" id="output-{i}"></div>'
        "</div></div>"
        for i in range(len(outputs))
    )
    (folder / "webview.html").write_text(
        VSCODE_WEBVIEW.replace("@CELLS@", cells).replace("@OUTPUTS@", as_json(outputs)), "utf-8"
    )
    (folder / "vscode.html").write_text(VSCODE_WORKBENCH.replace("@WIDTH@", str(WIDTH)), "utf-8")
    return (folder / "vscode.html").as_uri(), ["iframe.webview" for _ in outputs]


def colab(folder, outputs):
    from html import escape

    cells = "".join(
        f'<div class="cell" style="width:{WIDTH}px;margin:0 0 16px"><iframe class="outputframe" id="out-{i}" '
        'sandbox="allow-scripts allow-popups allow-forms allow-modals allow-downloads" '
        f'style="width:100%;height:60px;border:0" srcdoc="{escape(COLAB_FRAME.replace("@HTML@", as_json(html)))}">'
        "</iframe></div>"
        for i, html in enumerate(outputs)
    )
    (folder / "colab.html").write_text(COLAB_NOTEBOOK.replace("@CELLS@", cells), "utf-8")
    return (folder / "colab.html").as_uri(), [f"iframe#out-{i}" for i in range(len(outputs))]


HOSTS = {"vscode": vscode, "colab": colab}


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_the_inline_picture_keeps_11_px_digits(browser, tmp_path, host):
    """Karpathy's MLP (394 nodes here) drawn wider than the cell: shrunk at most to 11 px digits."""
    url, frames = HOSTS[host](tmp_path, [draw(karpathy_mlp())._repr_html_()])
    tab = browser.open(url, WIDTH + 40, 900)
    img = "document.querySelector('.backprop-studio-graph img')"
    tab.wait(f"{img} && {img}.complete && {img}.naturalWidth > 0", frame=frames[0])
    shown, natural, box = tab.js(
        f"(function(){{const i = {img}; return [i.getBoundingClientRect().width, i.naturalWidth,"
        "i.parentNode.scrollWidth > i.parentNode.clientWidth];})()",
        frames[0],
    )
    digits = METRICS.number_px * shown / natural
    assert digits >= MIN_DIGIT_PX - 0.05, f"{host}: digits drawn {digits:.1f} px tall"
    assert box  # the rest is a scroll away in its box, not shrunk
    tab.screenshot(str(tmp_path / f"{host}-picture.png"))


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_the_stepper_steps(browser, tmp_path, host):
    """The op-by-op stepper of the tutorial's f, and a 3,250-node MLP stepped a block a click."""
    big = stepper(mlp_loss((16, 16, 1), 4))
    url, frames = HOSTS[host](tmp_path, [stepper(tutorial())._repr_html_(), big._repr_html_()])
    tab = browser.open(url, WIDTH + 40, 900)
    small, large = (f"{f} >> #{_id(tab, f, i)} iframe" for i, f in enumerate(frames))
    tab.wait(f"document.getElementById('count') && {COUNT} === 'step 0 of 3'", frame=small)
    tab.click("#step", frame=small)
    tab.wait(f"{COUNT} === 'step 1 of 3'", frame=small)
    assert "f._backward()" in tab.js(LINE, frame=small)
    tab.screenshot(str(tmp_path / f"{host}-stepper.png"))
    tab.wait(f"document.getElementById('count') && {COUNT} === 'step 0 of {big.total}'", frame=large)
    tab.click("#step", frame=large)
    tab.wait(f"{COUNT} === 'step 1 of {big.total}'", frame=large)
    assert lit_block(tab, large) == [big.data["steps"][1]["c"], True]
    assert tab.js(SMALLEST_TEXT, frame=large) >= MIN_DIGIT_PX - 0.05
    tab.screenshot(str(tmp_path / f"{host}-blocks.png"))


def _id(tab, frame, i):
    """The id of the i-th stepper output in the host's frame (each output's own, made by the loader's page)."""
    tab.wait("document.querySelectorAll('.backprop-studio-stepper iframe').length > 0", frame=frame)
    ids = tab.js("Array.from(document.querySelectorAll('.backprop-studio-stepper')).map(d => d.id)", frame)
    return ids[i] if len(ids) > 1 else ids[0]
