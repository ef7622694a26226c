"""The tutorial notebook (resources/notebooks/backprop_tutorial.ipynb) runs on a real
Jupyter kernel, and its inline pictures hold every node's data and grad (issue 30 item 4).

nbclient starts an ipykernel (the notebook extra's packages are in the test extra),
executes every cell as a user's Jupyter would, and the outputs are read back: the
SVG each picture sent, the stepper's one-file page, the printed numbers, the
checker's report. `backprop_studio` is the checkout's resources/ folder, as an
install maps it (pyproject.toml): a link to it on the kernel's path.
"""

import json
import os
import re
import xml.etree.ElementTree as ET

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

from core.notebook.inline import decode_pictures  # noqa: E402
from core.notebook.page import page_from_inline  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTEBOOK = os.path.join(ROOT, "resources", "notebooks", "backprop_tutorial.ipynb")
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    shim = tmp_path_factory.mktemp("site")
    os.symlink(os.path.join(ROOT, "resources"), shim / "backprop_studio")
    work = tmp_path_factory.mktemp("work")
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(shim), ROOT] + ([old] if old else []))
    try:
        nb = nbformat.read(NOTEBOOK, as_version=4)
        client = nbclient.NotebookClient(
            nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(work)}}, store_widget_state=True
        )
        client.execute()
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old
    cells = {cell.metadata.get("tags", [""])[0]: cell for cell in nb.cells if cell.cell_type == "code"}
    return nb, cells


def pictures(cell):
    """The SVG pictures a cell displayed (its display_data and execute_result outputs): each an <img> of
    the SVG in the output's HTML (core/notebook/inline.py), stored once (no image/svg+xml beside it)."""
    found = []
    for out in cell.outputs:
        data = out.get("data", {})
        assert "image/svg+xml" not in data  # stored once per output
        found.extend(decode_pictures(data.get("text/html", "")))
    return found


def page_of(cell):
    """The one-file stepper page a cell shows, as its output's loader builds it (core/notebook/page.py)."""
    (html,) = [out["data"]["text/html"] for out in cell.outputs if "text/html" in out.get("data", {})]
    return page_from_inline(html)


def nodes(svg):
    """{name: [texts of its record]} of a picture."""
    tree = ET.fromstring(svg)
    shown = {}
    for g in tree.iter(SVG + "g"):
        if g.get("class") == "node":
            texts = [t.text for t in g.iter(SVG + "text")]
            title = g.find(SVG + "title").text
            shown[title.split(": data")[0]] = texts
    return shown


def stdout(cell):
    return "".join(out.get("text", "") for out in cell.outputs if out.get("output_type") == "stream")


def test_every_cell_ran(executed):
    nb, _cells = executed
    errors = [
        out for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs if out.output_type == "error"
    ]
    assert not errors, errors


def test_the_tutorial_expression(executed):
    _nb, cells = executed
    cell = cells["tutorial"]
    assert stdout(cell).split() == ["-2.0", "-2.0", "-1.0"]
    (svg,) = pictures(cell)  # show(f) displayed it once
    shown = nodes(svg)
    expected = {"x": ("3.0000", "-2.0000"), "y": ("-2.0000", "-1.0000"), "x·y": ("-6.0000", "1.0000"),
                "y^2": ("4.0000", "1.0000"), "f": ("-2.0000", "1.0000")}  # fmt: skip
    assert set(shown) == set(expected)
    for name, (data, grad) in expected.items():
        texts = shown[name]
        assert texts[texts.index("data") + 1] == data and texts[texts.index("grad") + 1] == grad, (name, texts)


def test_karpathys_neuron(executed):
    _nb, cells = executed
    (svg,) = pictures(cells["neuron"])
    shown = nodes(svg)
    grads = {name: texts[texts.index("grad") + 1] for name, texts in shown.items()}
    datas = {name: texts[texts.index("data") + 1] for name, texts in shown.items()}
    assert datas["o"] == "0.7071" and datas["n"] == "0.8814" and datas["x1w1"] == "-6.0000"
    half = dict.fromkeys(("x2", "b", "x1w1", "x2w2", "x1w1x2w2", "n"), "0.5000")
    assert grads == {"x1": "-1.5000", "w1": "1.0000", "w2": "0.0000", "o": "1.0000", **half}
    (inline,) = pictures(cells["inline"])  # inline_values(): a Value as a cell's result is its graph
    assert nodes(inline)["n"][nodes(inline)["n"].index("grad") + 1] == "0.5000"


def test_the_stepper(executed):
    _nb, cells = executed
    page = page_of(cells["stepper"])  # the one-file page: every step in it, stepped without a kernel
    data = json.loads(re.search(r'id="bps-steps">(.*?)</script>', page, re.S).group(1))
    assert data["total"] == 3 and data["start"] == 0
    assert "y.grad += 2·y.data · (y^2).grad = -4.0000 · 1.0000 = -4.0000" in data["steps"][2]["L"]
    assert "step 0 of 3" in page and "<script>" in page
    (svg,) = pictures(cells["step-2"])
    shown = nodes(svg)
    assert shown["y"][shown["y"].index("grad") + 1] == "-4.0000"  # after (y^2)._backward() only
    assert shown["x"][shown["x"].index("grad") + 1] == "0.0000"
    text = " ".join(t.text or "" for t in ET.fromstring(svg).iter(SVG + "text"))
    assert "Step 2 of 3: (y^2)._backward()" in text or "Step 2 of 3: y^2._backward()" in text
    assert "y.grad += 2·y.data · (y^2).grad = -4.0000 · 1.0000 = -4.0000" in text


def test_a_learners_value(executed):
    _nb, cells = executed
    cell = cells["learner"]
    a_grad, b_grad = stdout(cell).split()
    assert a_grad == "-2.0" and b_grad in ("3.0", "-2.0")  # b keeps only its last contribution (set order)
    (svg,) = pictures(cell)
    text = [t.text for t in ET.fromstring(svg).iter(SVG + "text")]
    chips = [t for t in text if t and t.startswith("✗")]
    assert "✗ should be -1.0000" in chips  # b.grad = a + 2b
    assert "differ from the chain rule" in " ".join(t for t in text if t)


def test_the_checker(executed):
    _nb, cells = executed
    result = "".join(out.get("data", {}).get("text/plain", "") for out in cells["check"].outputs)
    assert "Value class: Value" in result
    assert re.search(r"wrong|Wrong|WRONG", result), result
    assert "mul" in result or "*" in result


def test_a_big_graph_steps_a_block_at_a_time(executed):
    """Section 4: an MLP's 3,250-node loss -- over the inline limit, stepped on its collapsed picture."""
    _nb, cells = executed
    page = page_of(cells["big"])
    data = json.loads(re.search(r'id="bps-steps">(.*?)</script>', page, re.S).group(1))
    assert 10 < data["total"] < 100  # a block a click, not 2,700 op steps
    assert data["steps"][1]["L"].startswith(f"Step 1 of {data['total']}: the backward of ")
    assert "is final" in "".join(s["L"] for s in data["steps"])  # a block's chain rule in numbers
    assert len(page.encode()) < 150_000 and 'class="unit block"' in page
