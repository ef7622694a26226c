"""The exports of the window, run as they are: the Python script prints the canvas's numbers,
GraphML and DOT carry each node's data and grad as the canvas shows them (issue 29 item 2)."""

import os
import subprocess
import sys

import networkx as nx
import pytest

from app import window_actions
from core.files.interchange import OP
from tests.core.document.test_scripts import installed_path

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
EXAMPLES = sorted(f for f in os.listdir(os.path.join(ROOT, "resources", "examples")) if f.endswith(".json"))


def canvas(window):
    """{name on the canvas: (data text, grad text)} as the node items draw them."""
    return {item.label: (item.data_text, item.grad_text) for item in window.scene.node_items().values()}


def test_export_as_python_runs_and_prints_what_the_canvas_shows(window, tmp_path):
    path = tmp_path / "graph.py"
    assert window.files.export_code("python", str(path))
    done = subprocess.run(
        [sys.executable, str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=installed_path(tmp_path)),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    shown = canvas(window)
    for line in done.stdout.splitlines():
        kind, name, _, data, _, grad = line.split()
        assert shown[name] == (f"{float(data):.4f}", f"{float(grad):.4f}"), line
    assert len(done.stdout.splitlines()) == 3  # f, x and y


def test_the_micrograd_export_is_refused_for_tanh_with_the_reason(window, isolated_files, tmp_path):
    window.editor.set_text("x = Value(0.5, label='x')\ny = x.tanh()\n")
    window.run_expression()
    assert not window.files.export_code("micrograd", str(tmp_path / "m.py"))
    assert "micrograd's Value has no tanh" in isolated_files[-1][1]
    assert not (tmp_path / "m.py").exists()


def test_graphml_and_dot_carry_the_numbers_the_canvas_shows(window, tmp_path):
    window_actions.zero_grads(window)  # the canvas now shows grad 0 everywhere: the files say so too
    assert window.files.export_graph("graphml", str(tmp_path / "g.graphml"))
    assert window.files.export_graph("dot", str(tmp_path / "g.dot"))
    back = nx.read_graphml(tmp_path / "g.graphml", force_multigraph=True)
    values = window.session.values
    for nid, attrs in back.nodes(data=True):
        assert (attrs["data"], attrs["grad"]) == (values[nid].data, 0.0)
    text = (tmp_path / "g.dot").read_text(encoding="utf-8")
    assert '"n5" [label="{ f | data 15.0000 | grad 0.0000 }"' in text
    assert f'"n5{OP}" -> "n5";' in text


def run_script(path, cwd):
    return subprocess.run(
        [sys.executable, str(path)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=dict(os.environ, PYTHONPATH=installed_path(cwd)),
        timeout=120,
    )


def printed_matches_canvas(window, stdout):
    shown = canvas(window)
    lines = stdout.splitlines()
    for line in lines:
        _kind, name, _, data, _, grad = line.split()
        assert shown[name] == (f"{float(data):.4f}", f"{float(grad):.4f}"), line
    return lines


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_examples_export_runs_in_a_fresh_interpreter_and_prints_the_canvas(window, tmp_path, example):
    assert window.files.open_example(os.path.join(ROOT, "resources", "examples", example))
    path = tmp_path / "graph.py"
    assert window.files.export_code("python", str(path))
    done = run_script(path, tmp_path)
    assert done.returncode == 0, done.stderr
    inputs = [n for n in window.session.doc.nodes.values() if n.kind == "input"]
    assert len(printed_matches_canvas(window, done.stdout)) == len(inputs) + 1  # each input and the output


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_examples_micrograd_export_runs_on_micrograd_or_says_which_op_it_lacks(
    window, isolated_files, tmp_path, example
):
    pytest.importorskip("micrograd.engine")  # in the test extra; absent only outside it
    assert window.files.open_example(os.path.join(ROOT, "resources", "examples", example))
    path = tmp_path / "m.py"
    if not window.files.export_code("micrograd", str(path)):
        assert "micrograd's Value has no" in isolated_files[-1][1]
        assert example not in ("tutorial.json", "node_used_twice.json")  # only + * ** : micrograd has them
        return
    assert "from micrograd.engine import Value" in path.read_text(encoding="utf-8")
    done = run_script(path, tmp_path)
    assert done.returncode == 0, done.stderr
    printed_matches_canvas(window, done.stdout)
