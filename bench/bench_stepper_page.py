"""The one-file stepper page: what a click costs in the browser, beside what the kernel's widget did.

    python bench/bench_stepper_page.py            # Karpathy's MLP (394 nodes) and a 3,354-node MLP

For each graph: the page is made (`stepper(loss).save`), opened in headless Chromium
(tests/browser/cdp.py; Debian's `chromium`), and 60 clicks on Step are timed in the page: the
click's handler (repaint of what the step changed, and the scroll that follows the node,
which lays the page out) and the click to the second animation frame after it (what the
eye waits for; two frames of a 60 Hz display are ~33 ms of it). Beside it, side by side in
this process, the reference: what one click of the ipywidgets stepper (Stepper.widget(), the
kernel driving it) computed before a byte went to the browser -- one session step and the
picture redrawn (`picture()._repr_html_()`); the widget then sent that picture (0.6-1.1 MB)
over the kernel's websocket. Ratio = the page's click / the widget's work per click.
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


if __name__ == "__main__":
    main()
