"""Issue 32 item 8: what GraphML export writes, networkx reads back exactly; a label
XML cannot hold at all is refused where it comes in, with a clear message."""

from pathlib import Path

import networkx as nx
import pytest

from core.document.graph import GraphDocument, GraphError, Node
from core.files.graph_file import load
from core.files.interchange import graphml, save_graphml

ROOT = Path(__file__).resolve().parents[3]
KEPT = ["a\rb", "a\r\nb", "line\nbreak", "tab\there", "\x7f\x85\u2028", "\U0001f600 e\u0301", "  spaced  ", "<&>'\""]
REFUSED = ["nul\x00", "bell\x07", "esc\x1b[31m", "\x0b\x0c", "\ufffe", "end\uffff"]


@pytest.mark.parametrize("label", KEPT)
def test_every_label_xml_can_hold_reads_back_exactly(label, tmp_path):
    doc = GraphDocument()
    doc.add_node(Node("n1", "input", value=1.0, label=label))
    doc.add_node(Node("n\r2", "input", value=2.0, label="y"))
    path = tmp_path / "g.graphml"
    save_graphml(doc, path)
    back = nx.read_graphml(path, force_multigraph=True)
    assert back.nodes["n1"]["label"] == label  # repro: a CR came back as LF
    assert "n\r2" in back.nodes
    assert nx.parse_graphml(graphml(doc)).nodes["n1"]["label"] == label


@pytest.mark.parametrize("label", REFUSED)
def test_a_label_no_xml_can_hold_is_refused_at_input_with_a_clear_message(label):
    doc = GraphDocument()
    with pytest.raises(GraphError, match=r"the label holds U\+[0-9A-F]{4} \(character \d+\), a control character"):
        doc.add_node(Node("n1", "input", value=1.0, label=label))
    doc.add_node(Node("n1", "input", value=1.0, label="x"))
    with pytest.raises(GraphError, match="control character"):
        doc.set_field("n1", "label", label)
    assert doc.nodes["n1"].label == "x"
    nx.parse_graphml(graphml(doc))  # the export stays readable


def test_a_file_with_such_a_label_or_id_says_which_node_and_character(tmp_path):
    path = tmp_path / "bad.graph.json"
    source = (ROOT / "resources" / "examples" / "tutorial.json").read_text(encoding="utf-8")
    for bad in (source.replace('"label": "x"', '"label": "x\\u0000"'), source.replace('"n1"', '"n\\u0001"')):
        assert bad != source
        path.write_text(bad, encoding="utf-8")
        with pytest.raises(Exception, match=r"U\+000[01]") as raised:
            load(str(path))
        assert "control character" in str(raised.value)
