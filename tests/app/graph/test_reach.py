"""Graph menu: what feeds the selected node, what it affects, the inputs the output ignores;
the shape of the graph in the status bar."""


def lit(window):
    return {nid for nid, item in window.scene.node_items().items() if item.highlighted}


def by_label(window, label):
    (nid,) = [nid for nid, node in window.session.doc.nodes.items() if node.label == label]
    return nid


def test_highlight_what_feeds_and_what_is_affected(window):
    # the tutorial: f = x*y + y**2
    doc = window.session.doc
    f, x, y = (by_label(window, name) for name in "fxy")
    window.scene.selection.select_node(f)
    window.actions["highlight ancestors"].trigger()
    assert lit(window) == set(doc.nodes)  # everything feeds f
    assert "4 nodes feed f (2 inputs)" in window.statusBar().currentMessage()
    window.scene.selection.select_node(y)
    window.actions["highlight descendants"].trigger()
    assert lit(window) == set(doc.nodes) - {x}  # y, y*y... and f, not x
    assert "y affects 3 nodes" in window.statusBar().currentMessage()
    window.actions["clear highlight"].trigger()
    assert lit(window) == set()


def test_nothing_selected_says_so(window):
    window.scene.clearSelection()
    window.session.select(None)
    assert window.reach.show_ancestors() is None
    assert "Select a node first" in window.statusBar().currentMessage()


def test_inputs_the_output_ignores(window, qtbot):
    window.editor.set_text("x = Value(2.0, label='x')\nz = Value(1.0, label='z')\nf = x * x\nf.label = 'f'\n")
    window.run_expression()
    qtbot.waitUntil(lambda: len(window.session.doc.nodes) == 3, timeout=10_000)
    assert window.session.doc.effective_output() == by_label(window, "f")
    window.actions["unused inputs"].trigger()
    assert lit(window) == {by_label(window, "z")}
    assert "does not depend on 1 input: z" in window.statusBar().currentMessage()


def test_status_bar_shows_the_shape_and_the_glow_goes_with_an_edit(window):
    assert "5 nodes · 5 edges · depth 2 · widest layer 2 · fan-out 2 (y)" in window.counts_label.text()
    window.scene.selection.select_node(by_label(window, "f"))
    window.actions["highlight ancestors"].trigger()
    assert lit(window)
    doc = window.session.doc
    edge = doc.edges[0]
    doc.disconnect(edge.dst, edge.port)  # the answer is stale now
    assert lit(window) == set()


def test_a_relabelled_node_is_named_by_its_new_label(window):
    from core.document.commands import SetLabel

    f = by_label(window, "f")
    window.scene.selection.select_node(f)
    window.actions["highlight ancestors"].trigger()
    assert "4 nodes feed f (2 inputs)" in window.statusBar().currentMessage()
    window.session.push(SetLabel(f, "loss"))
    window.scene.selection.select_node(f)
    window.actions["highlight ancestors"].trigger()
    assert "4 nodes feed loss (2 inputs)" in window.statusBar().currentMessage()  # was: still "feed f"
