"""The one-file stepper page: what a click costs in the browser, beside what the kernel's widget did.

    python bench/bench_stepper_page.py            # Karpathy's MLP (394 nodes) and a 3,354-node MLP
    python bench/bench_stepper_page.py --blocks   # graphs over the limit, stepped a block a click

For each graph: the page is made (`stepper(loss).save`), opened in headless Chromium
(tests/browser/cdp.py; Debian's `chromium`), and 60 clicks on Step are timed in the page: the
click's handler (repaint of what the step changed, and the scroll that follows the node,
which lays the page out) and the click to the second animation frame after it (what the
eye waits for; two frames of a 60 Hz display are ~33 ms of it). Beside it, side by side in
this process, the reference: what one click of the ipywidgets stepper (Stepper.widget(), the
kernel driving it) computed before a byte went to the browser -- one session step and the
picture redrawn (`picture()._repr_html_()`); the widget then sent that picture (0.6-1.1 MB)
over the kernel's websocket. Ratio = the page's click / the widget's work per click.

--blocks: the block-by-block page (core/notebook/block_page.py) of graphs over the inline limit,
a 3,250-node MLP loss beside the op-by-op page of the same graph (max_nodes=, side by side: page
size, time to make it, a click), and a 138,451-node microgpt step (no op-by-op page: one steps at
most 20,000 nodes), timed the same way.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests", "browser")]

from cdp import Browser  # noqa: E402

from core.engine import Value  # noqa: E402
from core.nn import MLP  # noqa: E402
from core.notebook import stepper  # noqa: E402

CLICKS = 60
TIMED = """(async () => {
  const out = [], step = document.getElementById('step');
  for (let i = 0; i < %d; i++) {
    const t = performance.now();
    step.click();
    const handler = performance.now() - t;
    await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
    out.push([handler, performance.now() - t]);
  }
  return out;
})()"""


def mlp(sizes, examples):
    random.seed(1)
    model = MLP(3, sizes)
    xs = [[random.uniform(-1, 1) for _ in range(3)] for _ in range(examples)]
    loss = sum(((model(x) - (1.0 if i % 2 else -1.0)) ** 2 for i, x in enumerate(xs)), Value(0.0))
    loss.label = "loss"
    loss.backward()
    return loss


def widget_click(loss, clicks=20):
    """The kernel's work for one click of the ipywidgets stepper: a step and the picture redrawn."""
    st = stepper(loss, max_nodes=10**6)
    times = []
    for _ in range(clicks):
        t = time.perf_counter()
        st.step()
        html = st.picture()._repr_html_()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000, len(html)


def main():
    cases = [("Karpathy's MLP(3, [4, 4, 1]), 4 examples", mlp([4, 4, 1], 4)),
             ("MLP(3, [12, 12, 1]), 7 examples", mlp([12, 12, 1], 7))]  # fmt: skip
    with Browser(timeout=300) as browser, tempfile.TemporaryDirectory() as folder:
        for title, loss in cases:
            st = stepper(loss, max_nodes=10**6)
            t = time.perf_counter()
            path = os.path.join(folder, "page.html")
            st.save(path)
            made = time.perf_counter() - t
            size = os.path.getsize(path)
            t = time.perf_counter()
            tab = browser.open("file://" + path, 1200, 800)
            tab.wait("document.getElementById('count').textContent.startsWith('step 0')", timeout=300)
            opened = time.perf_counter() - t
            rows = tab.js(TIMED % CLICKS)
            handler = statistics.median(r[0] for r in rows)
            frame = statistics.median(r[1] for r in rows)
            worst = max(r[1] for r in rows)
            reference, picture = widget_click(loss)
            print(
                f"{title}: {len(st.doc.nodes):,} nodes, {st.total:,} steps; page {size / 1e6:.2f} MB made in "
                f"{made:.2f} s, opened in {opened:.2f} s"
            )
            print(
                f"  a click in the page: handler {handler:.1f} ms (median of {CLICKS}), to the 2nd frame "
                f"{frame:.1f} ms (max {worst:.1f})"
            )
            print(
                f"  the widget's kernel work per click: {reference:.0f} ms and a {picture / 1e6:.2f} MB picture "
                f"to send; ratio page handler / widget work = {handler / reference:.3f}"
            )


def click_figures(tab, clicks):
    rows = tab.js(TIMED % clicks)
    return (statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows), max(r[1] for r in rows))


def page_figures(browser, folder, st, name):
    t = time.perf_counter()
    path = os.path.join(folder, name)
    st.save(path)
    made = time.perf_counter() - t
    t = time.perf_counter()
    tab = browser.open("file://" + path, 1200, 800)
    tab.wait("document.getElementById('count').textContent.startsWith('step 0')", timeout=300)
    opened = time.perf_counter() - t
    handler, frame, worst = click_figures(tab, min(CLICKS, st.total))
    return os.path.getsize(path), made, opened, handler, frame, worst


def blocks():
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    from bench_show_big import microgpt

    big = mlp([16, 16, 1], 4)
    t = time.perf_counter()
    gpt = microgpt(15)()
    built = time.perf_counter() - t
    with Browser(timeout=300) as browser, tempfile.TemporaryDirectory() as folder:
        for title, loss, reference in (("MLP(3, [16, 16, 1]), 4 examples", big, True),
                                       (f"microgpt step (built in {built:.2f} s)", gpt, False)):  # fmt: skip
            t = time.perf_counter()
            st = stepper(loss)
            walked = time.perf_counter() - t
            size, made, opened, handler, frame, worst = page_figures(browser, folder, st, "blocks.html")
            print(
                f"{title}: {st.nodes:,} nodes, {st.total} block steps; stepper() {walked:.2f} s; page "
                f"{size / 1e3:.0f} KB (inline {len(st._repr_html_().encode()) / 1e3:.0f} KB), saved in {made:.2f} s, "
                f"opened in {opened:.2f} s; a click: handler {handler:.2f} ms, to the 2nd frame {frame:.1f} ms "
                f"(max {worst:.1f}; median of {min(CLICKS, st.total)})"
            )
            if reference:
                t = time.perf_counter()
                ops = stepper(loss, max_nodes=10**6)
                walked = time.perf_counter() - t
                size2, made2, opened2, handler2, frame2, worst2 = page_figures(browser, folder, ops, "ops.html")
                print(
                    f"  beside it, op by op: {ops.total:,} steps; stepper() {walked:.2f} s; page {size2 / 1e3:.0f} KB, "
                    f"saved in {made2:.2f} s, opened in {opened2:.2f} s; a click: handler {handler2:.2f} ms, 2nd frame "
                    f"{frame2:.1f} ms (max {worst2:.1f}); ratios blocks / ops: page {size / size2:.4f}, "
                    f"click handler {handler / handler2:.2f}"
                )


if __name__ == "__main__":
    blocks() if "--blocks" in sys.argv else main()
