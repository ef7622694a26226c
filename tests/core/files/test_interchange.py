"""GraphML and DOT exports: read back by networkx (GraphML) and by a DOT parser."""

import os
import re
import shutil
import subprocess

import networkx as nx
import pytest

from core.document.graph import GraphDocument, Node
from core.files.graph_file import load
from core.files.interchange import canvas_numbers, dot, graphml, save_dot, save_graphml
from core.format import format_number

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
EXAMPLES = sorted(n for n in os.listdir(os.path.join(ROOT, "resources", "examples")) if n.endswith(".json"))


def example(name):
    return load(os.path.join(ROOT, "resources", "examples", name))[0]


def wires(doc):
    return sorted((e.src, e.dst, e.port) for e in doc.edges)


@pytest.mark.parametrize("name", EXAMPLES)
def test_graphml_reads_back_with_networkx(name, tmp_path):
    doc = example(name)
    path = tmp_path / "g.graphml"
    save_graphml(doc, path)
    back = nx.read_graphml(path, force_multigraph=True)
    assert list(back.nodes) == list(doc.nodes)
    assert sorted((a, b, d["input"]) for a, b, d in back.edges(data=True)) == wires(doc)
    for nid, node in doc.nodes.items():
        attrs = back.nodes[nid]
        assert attrs["kind"] == node.kind and (attrs["x"], attrs["y"]) == node.pos
        assert attrs.get("op") == node.op and attrs.get("value") == node.value
        if node.label:
            assert attrs["label"] == node.label
    assert back.graph["output"] == doc.effective_output()
    numbers = canvas_numbers(doc)
    for nid, (data, grad) in numbers.items():
        assert (back.nodes[nid]["data"], back.nodes[nid]["grad"]) == (data, grad)  # exactly, as on the canvas


# -- a small DOT reader: enough of the grammar to check what dot() writes --------

QUOTED = r'"((?:[^"\\]|\\.)*)"'
ATTR = re.compile(r"(\w+)=" + QUOTED)
NODE = re.compile(r"^\s*" + QUOTED + r"\s*\[(.*)\];$")
EDGE = re.compile(r"^\s*" + QUOTED + r"\s*->\s*" + QUOTED + r"\s*\[(.*)\];$")


def unquote(text):
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "r": "\r"}.get(m.group(1), m.group(1)), text)


def read_dot(text):
    """({value id: attributes}, wires) of what dot() writes: records for values, an
    `id.op` node per op wired into its value, wires from a value to the op it feeds."""
    lines = text.strip().splitlines()
    assert lines[0] == "digraph computation {" and lines[-1] == "}"
    nodes, ops, edges = {}, {}, []
    for line in lines[1:-1]:
        if line.strip() == "rankdir=LR;":
            continue
        if m := EDGE.match(line):
            attrs = {k: unquote(v) for k, v in ATTR.findall(m.group(3))}
            src, dst = unquote(m.group(1)), unquote(m.group(2))
            assert dst.endswith(".op")
            edges.append((src, dst[: -len(".op")], int(attrs["input"])))
        elif m := EDGE.match(line.replace(";", " [];")):
            src, dst = unquote(m.group(1)), unquote(m.group(2))
            assert src == dst + ".op"  # an op's node feeds the value it makes
        elif m := NODE.match(line):
            nid = unquote(m.group(1))
            attrs = {k: unquote(v) for k, v in ATTR.findall(m.group(2))}
            (ops if nid.endswith(".op") else nodes)[nid] = attrs
        else:
            raise AssertionError(f"not DOT as dot() writes it: {line!r}")
    assert sorted(ops) == sorted(f"{nid}.op" for nid, a in nodes.items() if a["kind"] == "op")
    for attrs in nodes.values():
        assert attrs["shape"] == "record" and attrs["label"].startswith("{ ")
        attrs["label"] = attrs.pop("canvas_name")
    return nodes, edges


@pytest.mark.parametrize("name", EXAMPLES)
def test_dot_parses_back(name, tmp_path):
    doc = example(name)
    path = tmp_path / "g.dot"
    save_dot(doc, path)
    text = path.read_text(encoding="utf-8")
    nodes, edges = read_dot(text)
    assert list(nodes) == list(doc.nodes) and sorted(edges) == wires(doc)
    assert nodes[doc.effective_output()]["peripheries"] == "2"
    for nid, (data, grad) in canvas_numbers(doc).items():
        assert (float(nodes[nid]["data"]), float(nodes[nid]["grad"])) == (data, grad)
        record = f"data {format_number(data)} | grad {format_number(grad)} }}"
        assert record in text.split(f'\n  "{nid}" [label=')[1].split("\n")[0]  # drawn as draw_dot draws it


def test_labels_that_look_like_dot_stay_inside_their_quotes():
    doc = GraphDocument()
    doc.add_node(Node("n1", "input", value=1.0, label='a" -> "b'))
    doc.add_node(Node("n2", "input", value=1.0, label="c\\"))
    doc.add_node(Node("n3", "op", "add", label="}\n{"))
    doc.connect("n1", "n3", 0)
    doc.connect("n2", "n3", 1)
    nodes, edges = read_dot(dot(doc))
    assert [nodes[n]["label"] for n in ("n1", "n2", "n3")] == ['a" -> "b', "c\\", "}\n{"]
    assert sorted(edges) == [("n1", "n3", 0), ("n2", "n3", 1)]
    back = nx.parse_graphml(graphml(doc))
    assert back.nodes["n1"]["label"] == 'a" -> "b'


def test_pydot_reads_it_when_installed():
    pydot = pytest.importorskip("pydot")
    doc = example("tutorial.json")
    (graph,) = pydot.graph_from_dot_data(dot(doc))
    ops = sum(1 for node in doc.nodes.values() if node.kind == "op")
    assert len(graph.get_edges()) == len(doc.edges) + ops  # the wires, and each op into its value
    x = graph.get_node('"n1"')[0]
    assert x.get("shape") == '"record"' and x.get("label") == '"{ x | data 2.0000 | grad 3.0000 }"'


def test_the_numbers_given_are_the_numbers_written():
    doc = example("tutorial.json")
    numbers = {nid: (1.5, -0.25) for nid in doc.nodes}  # e.g. the canvas mid-way through a debugger step
    nodes, _ = read_dot(dot(doc, numbers))
    assert {(a["data"], a["grad"]) for a in nodes.values()} == {("1.5", "-0.25")}
    back = nx.parse_graphml(graphml(doc, numbers), force_multigraph=True)
    assert {(a["data"], a["grad"]) for _, a in back.nodes(data=True)} == {(1.5, -0.25)}


def test_graphviz_draws_it_when_installed(tmp_path):
    program = shutil.which("dot")
    if program is None:
        pytest.skip("Graphviz's dot program is not installed")
    path = tmp_path / "g.dot"
    save_dot(example("micrograd_more_ops.json"), path)
    done = subprocess.run([program, "-Tsvg", str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "<svg" in done.stdout, done.stderr


@pytest.mark.parametrize(
    "label",
    [
        "nul\x00here",
        "bell\x07",
        "esc\x1b[31m",
        "non\ufffechar",
        "non\uffffchar",
        "cr\rhere",
        "crlf\r\nhere",
        "tab\there",
    ],
)
def test_graphml_of_any_label_reads_back_as_written(label, tmp_path):
    """Repro (issue 32 item 8): NUL, C0 controls and U+FFFE/FFFF made XML no tool can read; a CR came back as LF."""
    from core.document.graph import GraphDocument, Node
    from core.files.interchange import xml_safe

    doc = GraphDocument()
    doc.add_node(Node("n1", "input", value=2.0, label=label))
    path = tmp_path / "g.graphml"
    save_graphml(doc, path)
    back = nx.read_graphml(path, force_multigraph=True)
    assert back.nodes["n1"]["label"] == xml_safe(label)
    if "\r" in label or "\t" in label:
        assert back.nodes["n1"]["label"] == label  # XML can hold these: kept exactly
