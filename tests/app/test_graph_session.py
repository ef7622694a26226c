"""GraphSession in a window: what the canvas shows while the user builds (issue 17.5)."""

from PySide6.QtCore import QPointF


def grad_text(window, label):
    (nid,) = [nid for nid, n in window.session.doc.nodes.items() if n.label == label]
    return window.scene.node_item(nid).texts()[2]


def test_an_unwired_node_leaves_the_grads_of_the_connected_part_shown(window, qtbot):
    assert grad_text(window, "x") == "3.0000" and grad_text(window, "y") == "8.0000"
    f = window.session.output_id
    for key in ("mul", "input", "neuron"):  # a new op, a lone leaf, a complete Neuron block
        ids = window.builder.add_entry({"key": key}, QPointF(900, 900))
        assert ids, key
        assert window.session.output_id == f
        qtbot.waitUntil(lambda: grad_text(window, "x") == "3.0000" and grad_text(window, "y") == "8.0000", timeout=5000)
    assert window.output_label.text() == "output f = 15.0000"
    mul = next(
        nid for nid, n in window.session.doc.nodes.items() if n.op == "mul" and nid in window.session.compiled.missing
    )
    assert window.scene.node_item(mul).missing_ports == (0, 1)  # the waiting op is marked


def test_the_status_bar_names_an_unlabelled_output_as_the_canvas_does(window):
    # repro: 'output n5 = 2.0000' named the output by its internal id
    assert window.run_expression("x = Value(2.0, label='x')\ny = Value(-0.5, label='y')\n(x*y)*x\n")
    out = window.session.doc.effective_output()
    assert not window.session.doc.nodes[out].label
    assert window.output_label.text() == "output x·y·x = -2.0000"
