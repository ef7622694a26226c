"""The canvas marks the node backward runs from: the session's output, also when the
document alone would not say which one it is (issue 16: the screen never disagrees
with the debugger)."""

from PySide6.QtCore import QPointF

from core.document.commands import SetOutput


def marked(window):
    return [nid for nid, item in window.scene.node_items().items() if item.is_output]


def test_a_kept_output_is_marked_on_the_canvas(window, qtbot):
    session = window.session
    f = session.output_id
    assert session.push(SetOutput(None))[0]  # the output is the single sink, not chosen
    session.flush()
    assert f is not None and marked(window) == [f]
    # a complete Neuron block: a second sink that computes, so the document alone names no
    # output; the session keeps f, and so must the canvas
    assert window.builder.add_entry({"key": "neuron"}, QPointF(900, 900))
    qtbot.waitUntil(lambda: not window.layout_pending and session.compiled is not None, timeout=30000)
    session.flush()
    assert session.doc.effective_output() is None and session.output_id == f
    qtbot.waitUntil(lambda: marked(window) == [f], timeout=10000)
