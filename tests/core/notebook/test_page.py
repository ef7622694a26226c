"""core/notebook/page.py: the one-file stepper page -- graph, every step, plain JS (issue 39 item 2).

What the page does in a browser (click Step, the picture and the text change; #step=5) is tested
in headless Chromium by tests/browser/; here: what the page holds."""

import json
import re
import xml.etree.ElementTree as ET

import pytest

from core.document.names import node_names
from core.engine import Value
from core.notebook.page import SCRIPT, steps_data
from core.notebook.stepper import stepper

SVG = "{http://www.w3.org/2000/svg}"


def tutorial():
    x, y = Value(3.0, label="x"), Value(-2.0, label="y")
    f = x * y + y**2
    f.label = "f"
    return f


def page_data(page):
    return json.loads(re.search(r'<script type="application/json" id="bps-steps">(.*?)</script>', page, re.S).group(1))


def state_at(history, k):
    """The JS's stateAt, in Python: a node's last change at or before step k."""
    return [h for h in history if h[0] <= k][-1]


def test_every_step_is_in_the_page():
    st = stepper(tutorial())
    page = st.page()
    data = page_data(page)
    names = node_names(st.doc)
    ids = list(st.doc.nodes)
    y = data["h"][ids.index(next(n for n in ids if names[n] == "y"))]
    x = data["h"][ids.index(next(n for n in ids if names[n] == "x"))]
    assert data["total"] == 3 and len(data["steps"]) == 4
    assert [state_at(y, k)[1] for k in range(4)] == ["0.0000", "0.0000", "-4.0000", "-1.0000"]  # y used twice
    assert [state_at(x, k)[1] for k in range(4)] == ["0.0000", "0.0000", "0.0000", "-2.0000"]
    assert "y.grad += 2·y.data · (y^2).grad = -4.0000 · 1.0000 = -4.0000" in data["steps"][2]["L"]
    assert data["steps"][2]["c"] == ids.index(next(n for n in ids if names[n] == "y^2"))  # the halo's node
    assert data["steps"][2]["t"] == [ids.index(next(n for n in ids if names[n] == "y"))]  # the framed cell
    assert len(data["steps"][1]["w"]) == 2  # f's + sends its grad down two wires
    assert st.position == 0  # making the page leaves the stepper where it was


def test_the_picture_has_every_part_a_step_changes():
    page = stepper(tutorial()).page()
    svg = ET.fromstring(page[page.index("<svg") : page.index("</svg>") + 6])
    groups = [g for g in svg.iter(SVG + "g") if g.get("class") == "node"]
    assert len(groups) == 5
    for g in groups:
        classes = {e.get("class") for e in g.iter()}
        assert {"cell", "edge", "st", "gc", "gt", "halo", "frame"} <= classes
    assert len([p for p in svg.iter(SVG + "path") if p.get("class") == "w"]) == 5


def test_nothing_is_fetched_and_the_script_is_small():
    page = stepper(tutorial()).page()
    assert "<link" not in page and "src=" not in page and "@import" not in page
    assert re.findall(r"https?://[^\s\"']+", page) == ["http://www.w3.org/2000/svg"]  # the SVG namespace only
    assert len(SCRIPT.encode()) < 6_000  # a few KB of plain JavaScript


def test_the_page_opens_at_the_steppers_step_and_a_label_cannot_end_the_script():
    x = Value(1.0, label="</script><script>alert(1)</script>")
    f = x * x
    f.label = "f"
    st = stepper(f).step()
    page = st.page()
    assert page.count("<script") == 2 and page.count("</script>") == 2  # the label stays data
    assert page_data(page)["start"] == 1


def test_a_box_holds_the_longest_grad_it_will_show():
    """A grad shown at one step may be longer than the final one: the box is sized for the longest."""
    a = Value(2.0, label="a")
    f = a * Value(1.0, label="b") + a * Value(1e-9, label="c")
    st = stepper(f)
    _data, longest = steps_data(st)
    a_id = next(nid for nid, node in st.doc.nodes.items() if node.label == "a")
    assert longest[a_id] == "1.000e-09"  # its grad after the first +=; the final one is 1.0000


def test_save_writes_the_page(tmp_path):
    st = stepper(tutorial())
    st.save(str(tmp_path / "f.html"))
    text = (tmp_path / "f.html").read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "step 0 of 3" in text and page_data(text) == page_data(st.page())


def test_save_into_a_missing_folder_says_why(tmp_path):
    with pytest.raises(OSError, match="does not exist"):
        stepper(tutorial()).save(str(tmp_path / "nowhere" / "f.html"))


def test_a_document_too_big_for_one_page_says_so(monkeypatch):
    import importlib

    from core.document.compile import trace

    module = importlib.import_module("core.notebook.stepper")  # the module (the package exports the function)

    doc, _values = trace(tutorial())
    monkeypatch.setattr(module, "MAX_PAGE_NODES", 4)
    with pytest.raises(ValueError, match="the graph has 5 nodes: one page steps at most 4"):
        module.Stepper.from_document(doc)
