"""GraphML and DOT exports: read back by networkx (GraphML) and by a DOT parser."""

import os
import re
import shutil
import subprocess

import networkx as nx
import pytest

from core.document.graph import GraphDocument, Node
from core.files.graph_file import load
from core.files.interchange import dot, graphml, save_dot, save_graphml

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


# -- a small DOT reader: enough of the grammar to check what dot() writes --------

QUOTED = r'"((?:[^"\\]|\\.)*)"'
ATTR = re.compile(r"(\w+)=" + QUOTED)
NODE = re.compile(r"^\s*" + QUOTED + r"\s*\[(.*)\];$")
EDGE = re.compile(r"^\s*" + QUOTED + r"\s*->\s*" + QUOTED + r"\s*\[(.*)\];$")


def unquote(text):
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "r": "\r"}.get(m.group(1), m.group(1)), text)


def read_dot(text):
    lines = text.strip().splitlines()
    assert lines[0] == "digraph computation {" and lines[-1] == "}"
    nodes, edges = {}, []
    for line in lines[1:-1]:
        if line.strip() == "rankdir=LR;":
            continue
        if m := EDGE.match(line):
            attrs = {k: unquote(v) for k, v in ATTR.findall(m.group(3))}
            edges.append((unquote(m.group(1)), unquote(m.group(2)), int(attrs["input"])))
        elif m := NODE.match(line):
            nodes[unquote(m.group(1))] = {k: unquote(v) for k, v in ATTR.findall(m.group(2))}
        else:
            raise AssertionError(f"not DOT as dot() writes it: {line!r}")
    return nodes, edges


@pytest.mark.parametrize("name", EXAMPLES)
def test_dot_parses_back(name, tmp_path):
    doc = example(name)
    path = tmp_path / "g.dot"
    save_dot(doc, path)
    nodes, edges = read_dot(path.read_text(encoding="utf-8"))
    assert list(nodes) == list(doc.nodes) and sorted(edges) == wires(doc)
    assert nodes[doc.effective_output()]["peripheries"] == "2"


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
    (graph,) = pydot.graph_from_dot_data(dot(example("tutorial.json")))
    assert len(graph.get_edges()) == len(example("tutorial.json").edges)


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
