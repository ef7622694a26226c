"""core/notebook/stepper.py: the backward pass stepped in a notebook (issue 30 item 3)."""

import re
import xml.etree.ElementTree as ET

import pytest

from core.document.names import node_names
from core.engine import Value
from core.notebook.inline import decode_pictures
from core.notebook.page import page_from_inline
from core.notebook.stepper import Stepper, stepper
from core.palette import LIGHT

SVG = "{http://www.w3.org/2000/svg}"


def tutorial():
    x, y = Value(3.0, label="x"), Value(-2.0, label="y")
    f = x * y + y**2
    f.label = "f"
    return f


def node_texts(svg):
    tree = ET.fromstring(svg)
    return {
        g.get("data-id"): [t.text for t in g.iter(SVG + "text")]
        for g in tree.iter(SVG + "g")
        if g.get("class") == "node"
    }


def grads_by_name(st):
    names = node_names(st.doc)
    return {names[nid]: v.grad for nid, v in st.session.compiled.values.items()}


def test_steps_are_the_apps_and_end_at_backwards_grads():
    st = stepper(tutorial())
    assert (st.position, st.total) == (0, 3)
    assert grads_by_name(st) == {"x": 0.0, "y": 0.0, "x·y": 0.0, "y^2": 0.0, "f": 1.0}
    st.step()
    assert st.line().startswith("Step 1 of 3: f._backward(), where f = (x·y) + (y^2)\n(x·y).grad += 1 · f.grad")
    st.step()
    assert "y.grad += 2·y.data · (y^2).grad = -4.0000 · 1.0000 = -4.0000" in st.line()
    assert grads_by_name(st)["y"] == -4.0
    st.run()
    assert st.position == 3 and grads_by_name(st) == {"x": -2.0, "y": -1.0, "x·y": 1.0, "y^2": 1.0, "f": 1.0}
    f = tutorial()
    f.backward()  # the same as the studio's engine's backward()
    st.back()
    assert st.position == 2 and grads_by_name(st)["y"] == -4.0  # Back undoes exactly one _backward
    st.seek(0)
    assert st.position == 0 and "every grad is 0" in st.line()
    st.reset()
    assert st.position == 0


def test_the_picture_marks_the_step():
    st = stepper(tutorial()).step().step()  # (y^2)._backward(): writes y.grad
    svg = st.picture().svg
    texts = node_texts(svg)
    by_name = {name: nid for nid, name in node_names(st.doc).items()}
    marks = st.marks()
    assert marks.current == by_name["y^2"] and marks.targets == {by_name["y"]}
    assert marks.status[by_name["x"]] == "untouched" and marks.status[by_name["y"]] == "partial"
    assert marks.status[by_name["f"]] == "final"
    assert "-4.0000" in texts[by_name["y"]]
    tree = ET.fromstring(svg)
    lit = [p for p in tree.iter(SVG + "path") if p.get("stroke") == LIGHT.highlight]
    assert len(lit) == 1  # y -> y^2, the wire carrying this step's gradient
    all_text = " ".join(t.text for t in tree.iter(SVG + "text"))
    assert "Step 2 of 3" in all_text and "-4.0000 · 1.0000 = -4.0000" in all_text


def test_a_learners_graph_is_stepped_by_the_studios_engine():
    pytest.importorskip("micrograd")
    from micrograd.engine import Value as MV

    a, b = MV(2.0), MV(-3.0)
    out = (a * b).relu() + a
    st = Stepper(out).run()
    grads = sorted(v.grad for v in st.session.compiled.values.values())
    assert grads == [0.0, 0.0, 1.0, 1.0, 1.0]  # relu(-6) passes nothing back: a.grad = 1 (from +), b.grad = 0


def test_a_notebook_shows_the_one_file_page_stored_once():
    """The default display is the one-file page (core/notebook/page.py): it steps without a kernel, so it
    needs neither ipywidgets nor a widget manager. Its output holds the picture once (issue 39 item 1: the
    page escaped in a srcdoc beside a second copy of the picture was 14.5 MB for a 1,986-node MLP)."""
    st = stepper(tutorial()).step()
    bundle = st._repr_mimebundle_()
    assert set(bundle) == {"text/html", "text/plain"}
    html = bundle["text/html"]
    (picture,) = decode_pictures(html)  # one copy of the picture ...
    assert html.count("<svg") == 0 and html.count('"steps":[') == 1  # none inline; the steps once
    page = page_from_inline(html)  # what the loader builds in an <iframe srcdoc sandbox="allow-scripts">
    same = re.compile(r"bps[0-9a-f]+-\d+-")  # each picture's own prefix of its ids
    assert (
        same.sub("", page) == same.sub("", st.page()) and page.startswith("<!DOCTYPE html>") and '"start":1' in page
    )  # opens at step 1
    assert 'setAttribute("sandbox", "allow-scripts")' in html and "srcdoc" in html
    # what a sanitizer that strips scripts leaves (JupyterLab, an untrusted notebook): the step as a picture
    words = " ".join(t.text or "" for t in ET.fromstring(picture).iter(SVG + "text"))
    assert "1.0000" in words
    assert "Step 1 of 3" in html and "not trusted" in html  # its chain-rule line and why it does not step
    assert len(html) < len(st.page()) * 1.5  # the page's parts once (the picture base64), not twice


def test_the_widget_drives_the_session():
    pytest.importorskip("ipywidgets")  # the notebook extra, in the test extra
    st = stepper(tutorial())
    box = st.widget()
    buttons, slider = box.buttons, box.slider

    def shown():
        (svg,) = decode_pictures(box.picture.value)
        return " ".join(t.text or "" for t in ET.fromstring(svg).iter(SVG + "text"))

    assert buttons["back"].disabled and slider.max == 3 and "Step 0 of 3" in shown()
    buttons["step"].click()
    assert st.position == 1 and slider.value == 1 and "Step 1 of 3" in shown()
    buttons["run"].click()
    assert st.position == 3 and buttons["step"].disabled and "Step 3 of 3" in shown()
    slider.value = 2
    assert st.position == 2 and "Step 2 of 3" in shown() and "-4.0000" in shown()
    buttons["back"].click()
    assert st.position == 1 and slider.value == 1
    buttons["reset"].click()
    assert st.position == 0 and slider.value == 0 and "Step 0 of 3" in shown()
