"""Export as Python is a script that runs as it is: `python graph.py` prints the output and
every input, data and grad, and they are the canvas's numbers (issue 29 item 2). Each
example's script runs in a fresh interpreter, on the studio's engine and, where its ops
allow, on micrograd's."""

import os
import random
import subprocess
import sys

import pytest

from core.document.codegen import micrograd_lacks, to_python, to_script
from core.document.expr import parse
from core.document.graph import GraphError
from core.document.names import node_names
from core.files.interchange import canvas_numbers
from tests.core.document.test_codegen import EXAMPLE_NAMES, ROOT, example, hostile_doc, random_doc, without_positions


def run_fresh(script, tmp_path, name="graph.py"):
    """`python graph.py` in a folder of its own, the studio importable as when installed."""
    path = tmp_path / name
    path.write_text(script, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=installed_path(tmp_path))
    done = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def installed_path(tmp_path):
    """PYTHONPATH on which `backprop_studio` is this checkout's resources/ (as an install names it), then the
    checkout itself: the script imports the studio as a user's does, and never another checkout's."""
    shim = tmp_path / "site"
    shim.mkdir(exist_ok=True)
    if not (shim / "backprop_studio").exists():
        os.symlink(os.path.join(ROOT, "resources"), shim / "backprop_studio")
    return os.pathsep.join([str(shim), ROOT])


def printed(lines):
    """[(kind, name, data, grad)] of the printout: 'input  x   data 2.0   grad 3.0'."""
    rows = []
    for line in lines:
        head, data_word, data, grad_word, grad = line.rsplit(None, 4)
        kind, name = head.split(None, 1)
        assert (data_word, grad_word) == ("data", "grad")
        rows.append((kind, name.strip(), float(data), float(grad)))
    return rows


def canvas_rows(doc):
    """What the canvas shows for the output and each input, in the script's order."""
    numbers, names = canvas_numbers(doc), node_names(doc)
    out = doc.effective_output()
    order = [nid for nid in doc.topological_ids() if doc.nodes[nid].kind == "input"]
    return [("output", names[out], *numbers[out])] + [("input", names[nid], *numbers[nid]) for nid in order]


def same(a, b, rel):
    if a != a or b != b:
        return a != a and b != b
    return a == b or abs(a - b) <= rel * max(abs(a), abs(b))


def check(rows, doc, rel=0.0):
    want = canvas_rows(doc)
    assert [r[:2] for r in rows] == [w[:2] for w in want]
    for got, expected in zip(rows, want):
        assert same(got[2], expected[2], rel) and same(got[3], expected[3], rel), (got, expected)


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_every_example_runs_and_prints_the_canvas_numbers(name, tmp_path):
    doc = example(name)
    check(printed(run_fresh(to_script(doc), tmp_path)), doc)  # bit for bit: the same engine


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_the_micrograd_variant_runs_where_its_ops_allow(name, tmp_path):
    doc = example(name)
    lacking = micrograd_lacks(doc)
    if lacking:
        with pytest.raises(GraphError) as caught:
            to_script(doc, "micrograd")
        assert f"micrograd's Value has no {', '.join(lacking)}" in str(caught.value)
        return
    pytest.importorskip("micrograd")
    script = to_script(doc, "micrograd")
    assert "from micrograd.engine import Value" in script and "label=" not in script
    # micrograd divides as a * b**-1 and subtracts as a + (-b): the last bits may differ
    check(printed(run_fresh(script, tmp_path)), doc, rel=1e-12)


def test_the_tutorials_script_reads_like_the_lecture_and_prints(tmp_path):
    script = to_script(example("tutorial.json"))
    assert "from backprop_studio import Value" in script  # the installed name: works wherever it is installed
    assert "f = x * y + y ** 2" in script and "    f.backward()" in script
    assert run_fresh(script, tmp_path) == [
        "output f  data 15.0                     grad 1.0",
        "input  x  data 2.0                      grad 3.0",
        "input  y  data 3.0                      grad 8.0",
    ]


def test_the_script_reads_back_as_the_same_graph():
    for name in EXAMPLE_NAMES:
        doc = example(name)
        assert without_positions(parse(to_script(doc))) == without_positions(parse(to_python(doc)))
        if not micrograd_lacks(doc):
            micro = without_positions(parse(to_script(doc, "micrograd")))
            assert [n["label"] for n in micro["nodes"] if n["kind"] == "input"] == [
                n["label"] for n in without_positions(parse(to_python(doc)))["nodes"] if n["kind"] == "input"
            ]


def test_random_graphs_and_hostile_labels_run(tmp_path):
    rng = random.Random(29)
    docs = [random_doc(rng, rng.randint(1, 15)) for _ in range(25)] + [hostile_doc(["x", "ｘ", "print", "1x"])]
    scripts = [to_script(doc) for doc in docs]
    runner = (
        "import runpy, sys\n"
        "for path in sys.argv[1:]:\n"
        "    runpy.run_path(path, run_name='__main__')\n"
        "    print('--- end')\n"
    )
    paths = []
    for i, script in enumerate(scripts):
        paths.append(tmp_path / f"s{i}.py")
        paths[-1].write_text(script, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=installed_path(tmp_path))
    done = subprocess.run(
        [sys.executable, "-c", runner, *map(str, paths)], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    chunks = done.stdout.split("--- end\n")[:-1]
    assert len(chunks) == len(docs)
    for doc, chunk in zip(docs, chunks):
        check(printed(chunk.splitlines()), doc)


def test_a_graph_without_one_output_is_refused():
    doc = example("tutorial.json")
    doc.set_output(None)
    extra = doc.nodes["n1"].copy()
    extra.id = None
    doc.add_node(extra)  # a second sink
    with pytest.raises(GraphError, match="no single output"):
        to_script(doc)
