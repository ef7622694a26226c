"""`show(value)`: open the studio on a Value graph from a script or a notebook.

Like matplotlib's `show()`, it runs in the calling process, so a breakpoint in
your code and the studio's debugger are one program:

    from app.show import show
    from core.engine import Value

    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    out = (a * b).tanh()
    show(out)          # a script: blocks until the window is closed

In a notebook (Jupyter, Colab, VS Code) the graph is drawn inline, no window
(core/notebook/). To get the window there, run `%gui qt` first: the notebook's
event loop then drives it, `show(out)` returns it at once, and the notebook stays usable. Keep the
returned window in a variable, or Python may collect it.

Any Value graph works: ours (core.engine.Value), micrograd's, or a class you
wrote -- anything with `data`, `grad` and `_prev` (or `_children`). A foreign
graph is read through core/foreign/trace.py, read-only: show() never calls your
code, and the studio computes and steps the graph with its own engine.
"""

import sys

from PySide6.QtCore import QEventLoop, Qt, QThread
from PySide6.QtWidgets import QApplication

from app.display import require_display
from core.engine import Value
from core.foreign.document import differences_text, grad_differences, their_grads, to_document
from core.foreign.shapes import is_value_like
from core.foreign.trace import TraceError, trace
from core.notebook import in_notebook, show_inline


def show(value, block=None, scopes=None):
    """Open a studio window on the graph that produced `value`.

    block=None blocks in the Qt event loop until the window closes when no loop
    is running (a plain script), and returns at once when one is (Jupyter with
    `%gui qt`, or a call from inside a Qt app). Returns the window when it does
    not block, None when it did.

    scopes: the `Recorder` of a `with recording() as rec:` block that built `value`
    (core/scopes/record.py): the graph then opens collapsed by scope, a block per call
    and loop turn of your code, as a big graph should. With the studio's engine,
    `recording()`; with your own Value class, `recording(YourValue)`."""
    if not is_value(value):
        raise TypeError(
            f"show() needs a Value (an object with a number in .data and a class that can add or multiply), "
            f"got {type(value).__name__}: {_short(value)}"
        )
    if block is None and in_notebook() and not loop_running():  # Jupyter, Colab, VS Code without %gui qt
        return show_inline(value)  # drawn inline by core (core/notebook/): no window to block the kernel
    scoped = scoped_graph(value, scopes) if scopes is not None else None  # before any window: errors raise
    big = _big_graph(value) if scoped is None else None  # too big to read op by op: opens collapsed
    doc = None if isinstance(value, Value) or scoped is not None or big is not None else foreign_document(value)
    if QApplication.instance() is None:
        require_display(in_kernel=in_notebook())  # a Python error to catch, not Qt's abort without a display
    app = QApplication.instance() or QApplication(sys.argv[:1] or ["backprop-studio"])  # noqa: F841 (kept alive)
    if block is None:
        block = not loop_running()

    from app.main_window import MainWindow  # heavy: only once a window is wanted
    from app.training.tuning import SWITCH_INTERVAL

    # the window's workers (grouping a big graph, its layout, the debugger's long moves) run Python
    # beside the GUI thread: switching the interpreter every 0.5 ms, not 5, gives the GUI thread a
    # paint's worth of turns in time (as the studio's own start does: app/training/tuning.py). The
    # longest GUI turn opening a 138k step: 94 -> 30 ms wall (bench/README.md)
    if sys.getswitchinterval() > SWITCH_INTERVAL:
        sys.setswitchinterval(SWITCH_INTERVAL)
    window = MainWindow(load_example=False)
    if block:
        # A loop of our own, ended when this window is closed (and so deleted):
        # app.exec() would wait for *every* window and cannot run inside a
        # running loop. Connected first: the window may be closed while it opens.
        window.setAttribute(Qt.WA_DeleteOnClose)
        loop = QEventLoop()
        window.destroyed.connect(loop.quit)
    if big is not None:
        opened = window.scopes.open_collapsed(value, big)
    elif scoped is not None:
        label = getattr(value, "label", "")
        title = label if isinstance(label, str) and label else "your graph"
        opened = window.scopes.open_scoped(scoped, f"{title}, by scope")
    else:
        opened = window.open_value(value) if doc is None else open_foreign(window, doc)
    if not opened:
        reason = window.statusBar().currentMessage()
        window.deleteLater()
        raise ValueError(f"show() could not open the graph: {reason}")
    window.undo_stack.clear()  # the graph is the starting point, not an edit: closing asks nothing
    window.show()
    window.raise_()
    if not block:
        return window
    loop.exec()
    return None


def _big_graph(value):
    """The graph's node count when it is too big to read op by op (core/scopes/infer.py), else
    None. Counting walks the graph once (read-only; a learner's class as core/foreign reads it)."""
    from core.scopes.infer import is_big

    if isinstance(value, Value):
        from core.engine import topological_order

        count = len(topological_order(value))
    else:
        count = _count_foreign(value)
    return count if is_big(count) else None


def _count_foreign(value, limit=10_000_000):
    """How many distinct objects `value`'s graph holds (its `_prev` or `_children`), read-only."""
    seen, todo = {id(value)}, [value]
    while todo and len(seen) < limit:
        node = todo.pop()
        children = getattr(node, "_prev", None)
        if children is None:
            children = getattr(node, "_children", None)
        try:
            kids = list(children or ())
        except TypeError:
            continue
        for child in kids:
            if id(child) not in seen:
                seen.add(id(child))
                todo.append(child)
    return len(seen)


def scoped_graph(value, scopes):
    """The ScopedGraph of value with the scopes `scopes` recorded: the studio's Values, or
    a learner's (read as core/scopes/foreign.py reads them, never node by node into a
    document first). TypeError when `scopes` is not a recorder."""
    from core.scopes.record import Recorder

    if not isinstance(scopes, Recorder):
        raise TypeError(
            f"show(value, scopes=rec) needs the rec of `with recording() as rec:`, got {type(scopes).__name__}"
        )
    if isinstance(value, Value):
        from core.scopes.graph import ScopedGraph

        return ScopedGraph.from_values(value, scopes)
    from core.scopes.foreign import from_foreign

    try:
        return from_foreign(value, scopes)
    except TraceError as e:
        raise ValueError(f"show() could not read the graph: {e}") from None


def is_value(value):
    """Ours, or any learner's Value the checker reads (core/foreign/shapes.is_value_like)."""
    return isinstance(value, Value) or is_value_like(value)


def foreign_document(value):
    """A read-only GraphDocument of a micrograd-like graph; ValueError saying why not."""
    try:
        traced = trace(value)
    except TraceError as e:
        raise ValueError(f"show() could not read the graph: {e}") from None
    doc, problem = to_document([node.as_dict() for node in traced.nodes])
    if doc is None:
        raise ValueError(f"show() cannot draw this graph: {problem}")
    return doc, traced


def open_foreign(window, doc_and_trace):
    """Show a learner's graph with THEIR grads; the nodes where the chain rule (the
    studio's backward on the same graph) disagrees are marked ✗ and named."""
    doc, traced = doc_and_trace
    if not window.show_document(doc, text="Show traced graph"):
        return False
    window.files.detach()  # a trace, not a file's graph: Save must ask where
    window.editor.set_source_note(f"a traced graph of {len(doc.nodes):,} nodes, with your engine's grads")
    notes = list(traced.notes)  # what the trace recovered or guessed (a set's operand order ...)
    theirs = {nid: g for nid, g in their_grads(traced.objects).items() if g is not None}
    session = window.session
    session.flush()
    if not any(theirs.values()):
        notes.append("your graph has no grads yet (call backward() before show()): the studio's are shown")
    else:  # a node their class keeps no grad on (MiniTorch's intermediates) keeps the studio's, unmarked
        values = session.values
        reference = {nid: v.grad for nid, v in values.items()}
        diffs = grad_differences(theirs, reference)
        for nid, grad in theirs.items():
            if nid in values:
                values[nid].grad = grad
        session.notify_grads()
        window.scene.marks.set_debug_marks({nid: ("target", f"✗ should be {r:.4g}") for nid, (_, r) in diffs.items()})
        names = {node.id: node.name for node in traced.nodes}
        notes.insert(0, differences_text(diffs, names))
    window.show_message("; ".join(notes), timeout=0)
    return True


def loop_running():
    """Is a Qt event loop already delivering events to this thread? True inside
    `app.exec()` and in IPython/Jupyter after `%gui qt`."""
    if QThread.currentThread().loopLevel() > 0:
        return True
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    loop = getattr(shell, "active_eventloop", None)
    return isinstance(loop, str) and loop.startswith("qt")


def _short(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
