"""core/notebook/svg.py: the canvas's picture of a graph as SVG (issue 30 item 2)."""

import importlib
import math
import xml.etree.ElementTree as ET

from core.document.compile import trace
from core.document.graph import op_symbol
from core.document.layout import sugiyama
from core.document.names import node_names
from core.engine import Value
from core.format import format_number
from core.notebook import svg as svg_module
from core.notebook.svg import Box, Marks, graph_svg, text_width
from core.palette import LIGHT, METRICS

NS = {"s": "http://www.w3.org/2000/svg"}
SVG_NS = "{http://www.w3.org/2000/svg}"


def tutorial():
    x, y = Value(3.0, label="x"), Value(-2.0, label="y")
    f = x * y + y**2
    f.label = "f"
    f.backward()
    return f


def picture(root, **options):
    doc, values = trace(root)
    numbers = {nid: (v.data, v.grad) for nid, v in values.items()}
    svg = graph_svg(doc, numbers, **options)
    return doc, numbers, svg, ET.fromstring(svg)


def node_groups(tree):
    return {g.get("data-id"): g for g in tree.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "node"}


def texts(element):
    return [t.text for t in element.iter("{http://www.w3.org/2000/svg}text")]


def test_every_node_shows_its_name_data_and_grad():
    doc, numbers, _svg, tree = picture(tutorial())
    groups = node_groups(tree)
    names = node_names(doc)
    assert set(groups) == set(doc.nodes)
    for nid, (data, grad) in numbers.items():
        shown = texts(groups[nid])
        assert names[nid] in shown and format_number(data) in shown and format_number(grad) in shown, shown
    assert {"x", "y", "f", "x·y"} <= {names[n] for n in doc.nodes}  # labels, else the formula
    f = next(n for n in doc.nodes if names[n] == "f")
    assert "output" in texts(groups[f]) and "-2.0000" in texts(groups[f])
    x = next(n for n in doc.nodes if names[n] == "x")
    assert groups[x].find("s:title", NS).text == "x: data 3.0, grad -2.0"  # every digit on hover


def test_the_nodes_sit_where_cores_layout_puts_them():
    doc, numbers, _svg, tree = picture(tutorial())
    names = node_names(doc)
    out = doc.effective_output()
    boxes = {}
    for nid, node in doc.nodes.items():
        op = op_symbol(node.op, node.param) if node.kind == "op" else None
        data, grad = (format_number(v) for v in numbers[nid])
        boxes[nid] = Box(node.kind, op, names[nid], data, grad, nid == out)
    laid = sugiyama(
        list(doc.nodes),
        [(e.src, e.dst) for e in doc.edges],
        sizes={n: (b.width, b.height) for n, b in boxes.items()},
        layer_gap=METRICS.layer_gap,
        node_gap=METRICS.node_gap,
    )
    for nid, g in node_groups(tree).items():
        record = [r for r in g.findall("s:rect", NS) if r.get("fill") == LIGHT.node_fill][0]
        x, y = laid.positions[nid]
        assert float(record.get("x")) == round(x + boxes[nid].record_x, 1)
        assert float(record.get("y")) == round(y - boxes[nid].height / 2, 1)
        assert float(record.get("height")) == METRICS.name_row + 2 * METRICS.number_row
    columns = [[n for n in layer if n in doc.nodes] for layer in laid.layers]
    assert [sorted(names[n] for n in col) for col in columns] == [["x", "y"], ["x·y", "y^2"], ["f"]]


def test_grad_cells_are_tinted_by_sign_and_size():
    _doc, numbers, _svg, tree = picture(tutorial())
    for nid, g in node_groups(tree).items():
        grad = numbers[nid][1]
        clipped = g.find("s:g", NS)
        cell = clipped.findall("s:rect", NS)[0].get("fill")
        r, b = int(cell[1:3], 16), int(cell[5:7], 16)
        if grad < 0:
            assert b > r, (nid, cell)  # blue
        elif grad > 0:
            assert r > b, (nid, cell)  # orange
        else:
            assert cell == LIGHT.grad_zero


def test_the_legend_names_the_scale():
    _doc, _numbers, _svg, tree = picture(tutorial())
    legend = [g for g in tree.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "legend"][0]
    assert {"grad", "−2.0000", "0", "+2.0000", "inf / nan", "missing input"} <= set(texts(legend))
    _doc, _numbers, _svg, bare = picture(tutorial(), legend=False)
    assert not [g for g in bare.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "legend"]


def test_inf_and_nan_are_marked_and_labels_escaped():
    a = Value(1e308, label="<a & b>")
    out = a * a  # inf
    out.backward()
    _doc, _numbers, svg, tree = picture(out)  # parses: the label is escaped
    assert "&lt;a &amp; b&gt;" in svg and "inf" in texts(tree)
    assert "!" in texts(tree)
    assert any(r.get("stroke") == LIGHT.nonfinite for r in tree.iter("{http://www.w3.org/2000/svg}rect"))


def test_each_picture_has_its_own_ids():
    _d, _n, first, _t = picture(tutorial())
    _d, _n, second, _t = picture(tutorial())
    ids = lambda svg: {e.get("id") for e in ET.fromstring(svg).iter() if e.get("id")}  # noqa: E731
    assert ids(first) and not ids(first) & ids(second)  # many pictures live in one notebook page
    importlib.reload(svg_module)  # a kernel restarted: its count starts again, old outputs stay on the page
    again = svg_module.graph_svg(*trace_numbers(tutorial()))
    assert not ids(first) & ids(again)


def trace_numbers(root):
    doc, values = trace(root)
    return doc, {nid: (v.data, v.grad) for nid, v in values.items()}


def test_debugger_marks():
    f = tutorial()
    doc, values = trace(f)
    numbers = {nid: (v.data, v.grad) for nid, v in values.items()}
    names = node_names(doc)
    by_name = {names[n]: n for n in doc.nodes}
    marks = Marks(
        status={n: "final" for n in doc.nodes},
        current=by_name["x·y"],
        targets={by_name["x"]},
        tags={by_name["y"]: "✗ should be -1.0000"},
        wires={(by_name["x"], by_name["x·y"])},
        lines=["x.grad += y.data · (x·y).grad = -2.0000 · 1.0000 = -2.0000"],
    )
    tree = ET.fromstring(graph_svg(doc, numbers, marks=marks))
    all_texts = texts(tree)
    assert "✗ should be -1.0000" in all_texts and "x.grad += y.data · (x·y).grad = -2.0000 · 1.0000 =" in " ".join(
        all_texts
    )
    strokes = [e.get("stroke") for e in tree.iter() if e.get("stroke")]
    assert strokes.count(LIGHT.highlight) >= 3  # the halo (record and circle), the framed cell, the lit wire
    fills = [e.get("fill") for e in tree.iter() if e.get("fill")]
    assert fills.count(LIGHT.status_final) >= len(doc.nodes)


def test_text_widths_follow_dejavu_sans():
    assert math.isclose(text_width("-00.0000", 16, bold=True), 16 * 1.1 * (0.361 + 6 * 0.636 + 0.318), rel_tol=1e-9)
    assert text_width("mmmm", 13) > text_width("iiii", 13) * 3


def test_chips_wider_than_their_box_stay_in_the_picture():
    """A '✗ should be …' chip is wider than a leaf's box: it was cut off at the picture's
    left edge, and sat on the box above it (repro)."""
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    out = a * b + a
    out.backward()
    doc, values = trace(out)
    numbers = {nid: (v.data, v.grad) for nid, v in values.items()}
    leaves = [n for n, node in doc.nodes.items() if node.kind != "op"]
    marks = Marks(tags={n: "✗ should be -2.0000" for n in leaves})
    tree = ET.fromstring(graph_svg(doc, numbers, marks=marks))
    left, top, width, height = (float(v) for v in tree.get("viewBox").split())
    rects = [[float(r.get(k)) for k in ("x", "y", "width", "height")] for r in tree.iter(SVG_NS + "rect")]
    for x, y, w, h in rects:
        assert left <= x and x + w <= left + width and top <= y and y + h <= top + height
    chips = [r for r, e in zip(rects, tree.iter(SVG_NS + "rect")) if e.get("fill") == LIGHT.highlight]
    records = [r for r, e in zip(rects, tree.iter(SVG_NS + "rect")) if e.get("fill") == LIGHT.node_fill]
    assert len(chips) == 2
    for cx, cy, cw, ch in chips:  # no chip covers any record
        for x, y, w, h in records:
            assert cx + cw <= x or x + w <= cx or cy + ch <= y or y + h <= cy
