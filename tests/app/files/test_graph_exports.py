"""File → Export as GraphML / Graphviz DOT: the files other graph tools open."""

import networkx as nx


def test_export_graphml_and_dot_from_the_file_menu(window, tmp_path):
    titles = [a.text() for a in window.menus["File"].actions()]
    assert "Export as &GraphML…" in titles and "Export as Graphviz &DOT…" in titles
    doc = window.session.doc
    assert window.files.export_graph("graphml", tmp_path / "g.graphml")
    back = nx.read_graphml(tmp_path / "g.graphml", force_multigraph=True)
    assert set(back.nodes) == set(doc.nodes) and back.number_of_edges() == len(doc.edges)
    assert {back.nodes[n]["label"] for n in back.nodes} >= {"x", "y", "f"}
    assert window.files.export_graph("dot", tmp_path / "g.dot")
    text = (tmp_path / "g.dot").read_text(encoding="utf-8")
    assert text.startswith("digraph computation {")
    # micrograd's draw_dot shape: every wire, plus one edge from each op's own node into its value
    ops = sum(1 for n in doc.nodes if doc.nodes[n].kind == "op")
    assert text.count(" -> ") == len(doc.edges) + ops
    assert "Exported" in window.statusBar().currentMessage()


def test_an_export_that_cannot_be_written_says_so(window, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr("app.files.dialogs.show_error", lambda parent, title, text: shown.append(text))
    assert not window.files.export_graph("dot", tmp_path / "no such folder" / "g.dot")
    assert shown and "not exported" in shown[0]
