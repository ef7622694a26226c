"""show(value): the studio on a Value graph from a script or a notebook (app/show.py)."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from app.show import show
from core.engine import Value

ROOT = Path(__file__).resolve().parents[2]


class TutorialValue:
    """A learner's Value as the lecture writes it: a set of children, closures."""

    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op
        self.label = label

    def __add__(self, other):
        out = TutorialValue(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        out = TutorialValue(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out


def labels(window):
    return sorted(item.label for item in window.scene.node_items().values())


def opened(qtbot, window):
    qtbot.addWidget(window)
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: not window.layout_pending, timeout=60000)
    return window


def test_show_our_value_without_blocking(qtbot):
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    out = a * b + a
    out.label = "out"
    out.backward()
    window = opened(qtbot, show(out, block=False))
    assert window.isVisible()
    assert window.scene.counts()[0] == 4  # a, b, a·b, out
    assert window.session.output_value.grad == 1.0
    item = next(it for it in window.scene.node_items().values() if it.label == "out")
    assert "1.0000" in item.grad_text
    assert not window.files.modified  # closing asks nothing: the graph is the starting point
    window.close()


def test_show_a_learners_micrograd_like_value(qtbot):
    x, y = TutorialValue(3.0, label="x"), TutorialValue(-2.0, label="y")
    f = x * y + y
    f.label = "f"
    window = opened(qtbot, show(f, block=False))
    assert labels(window) == sorted(["x", "y", "x·y", "f"])
    assert window.session.output_value.data == pytest.approx(-8.0)
    window.close()


def test_show_micrograds_value(qtbot):
    engine = pytest.importorskip("micrograd.engine")
    a, b = engine.Value(2.0), engine.Value(-3.0)
    out = (a * b + b).relu()
    window = opened(qtbot, show(out, block=False))
    assert window.scene.counts()[0] == 5  # micrograd has no labels: names are numbers and formulas
    assert window.session.output_value.data == out.data
    window.close()


@pytest.mark.parametrize("thing", [3.5, "x*y", None, [Value(1.0)]])
def test_show_refuses_what_is_not_a_value(qapp, thing):
    with pytest.raises(TypeError, match=type(thing).__name__):
        show(thing, block=False)


SCRIPT = """
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from app.main_window import MainWindow
from app.show import show
from core.engine import Value

app = QApplication([])


def close_once_shown():  # the user closing the window, once they see it
    for widget in app.topLevelWidgets():
        if isinstance(widget, MainWindow) and widget.isVisible():
            print("shown", widget.session.output_value.data, flush=True)
            widget.close()


timer = QTimer(interval=50, timeout=close_once_shown)
timer.start()
x = Value(3.0, label="x")
print("returned", show(x * x), flush=True)
"""


def test_show_blocks_in_a_script_until_the_window_closes(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", BACKPROP_STUDIO_DATA_DIR=str(tmp_path))
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(SCRIPT)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["shown", "9.0", "returned", "None"]


def test_show_inside_a_running_loop_returns_the_window(qtbot):
    """Jupyter's `%gui qt` runs cells from within the Qt loop: show() must not block there."""
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from app.main_window import MainWindow

    def give_up():  # were show() to block, closing its window ends the wait (and the test fails)
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, MainWindow):
                widget.close()

    guard = QTimer(singleShot=True, interval=60000, timeout=give_up)
    guard.start()
    loop, shown = QEventLoop(), []
    QTimer.singleShot(0, lambda: (shown.append(show(Value(1.0, label="x"))), loop.quit()))
    loop.exec()
    guard.stop()
    assert shown[0] is not None, "show() blocked inside a running event loop"
    window = opened(qtbot, shown[0])
    assert labels(window) == ["x"]
    window.close()


class HalfAdd(TutorialValue):
    """A learner's Value whose + sends half of out.grad to each operand (wrong)."""

    def __add__(self, other):
        out = HalfAdd(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += 0.5 * out.grad
            other.grad += 0.5 * out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        out = HalfAdd(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def backward(self):
        order = []

        def visit(v):
            if v not in order:
                for c in v._prev:
                    visit(c)
                order.append(v)

        visit(self)
        self.grad = 1.0
        for v in reversed(order):
            v._backward()


def test_show_draws_the_learners_own_grads_and_marks_the_wrong_ones(qtbot):
    x, y = HalfAdd(3.0, label="x"), HalfAdd(-2.0, label="y")
    f = x * y + y
    f.label = "f"
    f.backward()  # theirs: y.grad = 0.5*x + 0.5 = 2.0; the chain rule: x + 1 = 4.0
    window = opened(qtbot, show(f, block=False))
    items = {item.label: item for item in window.scene.node_items().values()}
    assert "2.0000" in items["y"].grad_text  # THEIR number, not the studio's 4
    assert items["y"].debug_mark == "target" and "4" in items["y"].debug_tag
    assert items["f"].debug_mark is None  # f.grad = 1 in both
    message = window.statusBar().currentMessage()
    assert "y.grad is 2, should be 4" in message
    window.close()


def test_show_before_backward_says_so(qtbot):
    x, y = TutorialValue(3.0, label="x"), TutorialValue(-2.0, label="y")
    f = x * y
    window = opened(qtbot, show(f, block=False))
    assert "no grads yet" in window.statusBar().currentMessage()
    window.close()


def test_show_marks_no_node_whose_grad_their_class_does_not_keep(qtbot):
    # repro: an intermediate's None was read as 0 and marked '✗ should be 1'
    x, y = HalfAdd(3.0, label="x"), HalfAdd(-2.0, label="y")  # its * and backward are right
    m = x * y
    m.label = "m"
    f = m * y
    f.label = "f"
    f.backward()
    m.grad = None  # as MiniTorch keeps it: a derivative on the leaves only
    window = opened(qtbot, show(f, block=False))
    items = {item.label: item for item in window.scene.node_items().values()}
    assert items["m"].debug_mark is None  # no grad kept: nothing to call wrong
    assert "m.grad" not in window.statusBar().currentMessage()
    assert items["x"].debug_mark is None and "4.0000" in items["x"].grad_text
    window.close()


def settled(qtbot, window):
    """The scope page made the engine's Values it steps (a worker, after the first paint)."""
    page = window.scope_page.current
    qtbot.waitUntil(lambda: getattr(page, "_values_job", None) is not None, timeout=60_000)
    qtbot.waitUntil(page._values_job.isFinished, timeout=60_000)


def two_layers(xs, w):
    """A small model whose calls and loop turns become the scopes."""

    def neuron(x):
        return (x * w).tanh()

    out = Value(0.0)
    for layer in range(2):  # noqa: B007 -- its turns are the scopes 'layer = 0', 'layer = 1'
        out = out + sum(neuron(x) for x in xs)
    return out


def test_show_with_scopes_opens_the_graph_collapsed_by_scope(qtbot):
    # issue 31 item 1: scopes recorded when asked, for a show() too
    from core.scopes.record import recording

    xs, w = [Value(0.5 * k, label=f"x{k}") for k in range(3)], Value(0.3, label="w")
    with recording() as rec:
        loss = two_layers(xs, w)
    loss.label = "loss"
    loss.backward()
    window = show(loss, block=False, scopes=rec)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: bool(window.scope_page.current and window.scope_page.current.items), timeout=60_000)
    page = window.scope_page.current
    assert "loss, by scope" in page.title.text()
    titles = [item.lines[0][1] for item in page.items.values()]
    assert titles.count("neuron") >= 3 and "inputs" in titles, titles  # a block per call of neuron()
    settled(qtbot, window)
    window.close()


def their_two_layers(xs, w):
    """two_layers with the learner's own class (no tanh in TutorialValue: products and sums)."""

    def neuron(x):
        return x * w

    out = TutorialValue(0.0)
    for layer in range(2):  # noqa: B007 -- its turns are scopes
        for x in xs:
            out = out + neuron(x)
    return out


def test_show_with_scopes_works_for_a_learners_own_class(qtbot):
    # issue 42 item 5: recording(TheirValue) and show(loss, scopes=rec) on their class
    from core.scopes.record import recording

    xs, w = [TutorialValue(0.5 * k, label=f"x{k}") for k in range(3)], TutorialValue(0.3, label="w")
    with recording(TutorialValue) as rec:
        loss = their_two_layers(xs, w)
    loss.label = "loss"
    window = show(loss, block=False, scopes=rec)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: bool(window.scope_page.current and window.scope_page.current.items), timeout=60_000)
    page = window.scope_page.current
    assert "loss, by scope" in page.title.text()
    titles = [item.lines[0][1] for item in page.items.values()]
    assert "neuron" in titles or any(t.startswith("layer = ") for t in titles), titles
    settled(qtbot, window)
    window.close()


def test_the_installed_show_accepts_scopes(qtbot, monkeypatch):
    # issue 42 item 5: `from backprop_studio import show, recording` (resources/ in a checkout)
    import app.show
    import resources

    monkeypatch.setattr(app.show, "loop_running", lambda: True)  # as under %gui qt: the window comes back
    xs, w = [Value(0.5 * k, label=f"x{k}") for k in range(3)], Value(0.3, label="w")
    with resources.recording() as rec:
        loss = two_layers(xs, w)
    loss.label = "loss"
    window = resources.show(loss, scopes=rec)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: bool(window.scope_page.current and window.scope_page.current.items), timeout=60_000)
    assert "loss, by scope" in window.scope_page.current.title.text()
    with pytest.raises(TypeError, match="scopes=rec"):
        app.show.show(loss, block=False, scopes="not a recorder")
    settled(qtbot, window)
    window.close()


def mlp_loss(samples):
    import random

    from core.nn import MLP

    rng = random.Random(0)
    model = MLP(3, [8, 8, 1], activation="tanh", rng=rng)
    xs = [[rng.uniform(-1, 1) for _ in range(3)] for _ in range(samples)]
    loss = sum(((model(x) - 1.0) ** 2 for x in xs), Value(0.0))
    loss.label = "loss"
    loss.backward()
    return loss


def open_big(qtbot, value):
    window = show(value, block=False)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: bool(window.scope_page.current and window.scope_page.current.items), timeout=60_000)
    page = window.scope_page.current
    qtbot.waitUntil(lambda: page._values_job.isFinished(), timeout=60_000)
    return window, page


def test_show_of_a_graph_too_big_to_read_op_by_op_opens_collapsed_without_recording(qtbot):
    # issue 40: a learner's show(loss), nothing recorded: blocks read from the graph's structure
    from core.scopes.infer import BIG

    loss = mlp_loss(20)
    grads_before = loss.grad
    window, page = open_big(qtbot, loss)
    assert page.graph.n > BIG and "loss, collapsed" in page.title.text()
    titles = [item.lines[0][1] for item in page.items.values()]
    assert len(titles) <= 60 and "the sum: 20 adds" in titles
    assert all(item.lines[3][1].startswith("out ") for item in page.items.values() if item.block)
    # the one debugger: step, back, a breakpoint, run
    first = page.step()
    assert first is not None and page.moves == 1
    (current,) = [item for item in page.items.values() if item.current]
    assert current.stepped and "the sum: 20 adds" in current.lines[0][1]  # the sum chain ran first, whole
    nxt = page.stepper.next_unit()
    assert not page.items[nxt].stepped  # never the next one before it runs
    page.step_back()
    assert page.stepper.position == 0 and not any(item.stepped for item in page.items.values())
    target = next(u for u, item in page.items.items() if item.block and item.lines[0][1].startswith("squared error #3"))
    page.toggle_breakpoint(target)
    assert page.items[target].breakpoint
    page.run_to_end()
    assert page.wait_moved()  # a long run goes to a worker
    assert page.stepper.next_unit() == target and "breakpoint" in page.said.text()
    page.run_to_end()
    assert page.wait_moved()
    assert page.stepper.done
    assert loss.grad == grads_before  # the learner's Values were not stepped: copies were
    window.close()


def test_show_of_a_big_learners_class_opens_collapsed(qtbot):
    class Theirs:
        def __init__(self, data, children=()):
            self.data, self.grad, self._prev = data, 0.0, tuple(children)
            self._op = ""

        def __add__(self, other):
            out = Theirs(self.data + other.data, (self, other))
            out._op = "+"
            return out

        def __mul__(self, other):
            out = Theirs(self.data * other.data, (self, other))
            out._op = "*"
            return out

    import random

    rng = random.Random(1)
    total = Theirs(0.0)
    for _ in range(40):
        acc = Theirs(0.0)
        for _ in range(20):
            acc = acc + Theirs(rng.uniform(-1, 1)) * Theirs(rng.uniform(-1, 1))
        total = total + acc
    window, page = open_big(qtbot, total)
    assert page.graph.engine == "Theirs" and page.graph.n > 3000
    titles = [item.lines[0][1] for item in page.items.values()]
    assert len(titles) <= 60 and any(t.startswith("dot product, 20 terms") for t in titles), titles
    window.close()


def test_the_quiz_asks_about_a_single_op_of_a_big_graph(qtbot):
    window, page = open_big(qtbot, mlp_loss(20))
    page.quiz.setChecked(True)
    page.step_into()  # the first unit is the sum of the losses: it opens, and the step runs one op in it
    qtbot.waitUntil(lambda: page.moves == 1, timeout=60_000)
    (current,) = [item for item in page.items.values() if item.current]
    assert not current.block and current.node == page.graph.root
    assert page.answer.isVisibleTo(page) and "?" in page.said.text()
    assert any(item.lines[2][1] == "∇ ?" for item in page.items.values() if not item.block)  # hidden till answered
    move = page.answer_quiz("1")
    assert move.answer is not None
    window.close()
