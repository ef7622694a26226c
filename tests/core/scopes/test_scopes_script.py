"""Tracing a script with scopes in a child process: the studio's engine and a learner's own class."""

import os

import pytest

from core.scopes.foreign import from_foreign
from core.scopes.record import recording
from core.scopes.script import trace_script

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "data", "scripts")
ROOT = os.path.join(HERE, "..", "..", "..")


class Local:
    __slots__ = ("data", "grad", "_children", "_local_grads")

    def __init__(self, data, children=(), local_grads=()):
        self.data, self.grad, self._children, self._local_grads = data, 0.0, children, local_grads

    def __mul__(self, other):
        return Local(self.data * other.data, (self, other), (other.data, self.data))

    def __add__(self, other):
        return Local(self.data + other.data, (self, other), (1.0, 1.0))


def dot(xs, ws):
    out = xs[0] * ws[0]
    for k in range(1, len(xs)):
        out = out + xs[k] * ws[k]
    return out


def test_a_learners_class_is_watched_in_process_and_put_back():
    init = Local.__init__
    xs, ws = [Local(1.0), Local(2.0)], [Local(3.0), Local(4.0)]
    with recording(Local) as rec:
        out = dot(xs, ws)
    assert Local.__init__ is init
    g = from_foreign(out, rec)
    assert g.n == 7 and g.engine == "Local"
    muls = [i for i in range(g.n) if g.op_name(i) == "mul"]
    assert [[g.title(s) for s in g.path(int(g.scope[i]))][1:] for i in muls] == [["dot"], ["dot", "k = 1"]]
    assert g.data[g.root] == 11.0


def test_the_learners_script_is_traced_up_to_its_first_backward():
    result = trace_script(os.path.join(DATA, "local_grads_mlp.py"), timeout=60)
    g = result.graph
    assert g is not None, result.message
    assert "never runs" not in result.output
    relus = [i for i in range(g.n) if g.op_name(i) == "relu"]
    paths = [[g.title(s) for s in g.path(int(g.scope[i]))][1:] for i in relus]
    assert paths == [["k = 0", "neuron"], ["k = 1", "neuron"]]
    assert g.data[g.root] == pytest.approx(0.0 + 5.5)
    assert g.grad[g.root] == 1.0  # their backward() ran: the grads are theirs
    top_leaves = [i for i in range(g.n) if g.op[i] < 2 and g.scope[i] == 0]  # ws and x, made at the top
    assert sorted(g.grad[top_leaves]) == [0.0, 0.0, 1.0, 1.5, 2.0, 2.0]  # relu(0) passes nothing back


@pytest.mark.slow
def test_microgpt_as_a_plain_script_is_traced_with_its_functions():
    result = trace_script(os.path.join(ROOT, "resources", "scripts", "microgpt.py"), timeout=120)
    g = result.graph
    assert g is not None, result.message
    names = {tuple(g.title(p) for p in g.path(s)[1:]) for s in range(len(g.scopes))}
    assert ("step = 0", "pos_id = 1", "gpt", "li = 0", "1) Multi-head Attention block", "h = 2", "softmax") in names
    assert g.contiguous and g.grad[g.root] == 1.0


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("x = 1 +\n", "syntax error"),
        ("class Value:\n    pass\nprint('no graph')\n", "without calling backward()"),
        ("raise RuntimeError('boom')\n", "RuntimeError: boom"),
    ],
)
def test_a_script_that_makes_no_step_gets_a_message(tmp_path, text, says):
    path = tmp_path / "s.py"
    path.write_text(text)
    result = trace_script(str(path), timeout=30)
    assert result.graph is None and says in result.message


def test_a_traced_script_sees_its_folder_and_nothing_else(tmp_path):
    from core import sandbox

    if sandbox.box_problem():  # without a box it runs as the user: see the README's table
        return
    (tmp_path / "secret.txt").write_text("the teacher's answers")
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "data.txt").write_text("2.5")
    path = folder / "s.py"
    path.write_text(
        "import os\n"
        "x = float(open(os.path.join(os.path.dirname(__file__), 'data.txt')).read())\n"
        f"print('secret:', os.path.exists({str(tmp_path / 'secret.txt')!r}))\n"
        "try:\n"
        "    open(os.path.join(os.path.dirname(__file__), 'data.txt'), 'a').write('1')\n"
        "except OSError as e:\n"
        "    print('write:', type(e).__name__)\n"
        "raise SystemExit(0)\n"
    )
    result = trace_script(str(path), timeout=30)
    assert "secret: False" in result.output and "write: " in result.output
    assert (folder / "data.txt").read_text() == "2.5"
