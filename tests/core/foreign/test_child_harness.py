"""The child's harness (core/foreign/child) is all that runs beside a learner's engine: it
imports Python's standard library and itself, never the studio's engine, op table or
checker, and what it reports is plain numbers the parent judges."""

import ast
import json
import os
import sys

import pytest

from core.foreign.child import probe
from core.foreign.runner import install_child

CHILD = os.path.join(os.path.dirname(__file__), "..", "..", "..", "core", "foreign", "child")
OPTIONAL = {"numpy"}  # read only to know a learner's float32 (shapes.eps_of), inside a try


def imports_of(path):
    tree = ast.parse(open(path, encoding="utf-8").read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level:
            yield node.module.split(".")[0]


@pytest.mark.parametrize("name", sorted(f for f in os.listdir(CHILD) if f.endswith(".py")))
def test_the_harness_imports_only_the_standard_library(name):
    outside = {m for m in imports_of(os.path.join(CHILD, name)) if m not in sys.stdlib_module_names}
    assert outside <= OPTIONAL, f"{name} imports {outside}"


def test_the_installed_copy_runs_with_nothing_of_the_studio(tmp_path):
    launcher = install_child(str(tmp_path))
    assert sorted(os.listdir(tmp_path / "bps_child")) == sorted(f for f in os.listdir(CHILD) if f.endswith(".py"))
    assert open(launcher, encoding="utf-8").read().startswith("import os, sys")


def test_a_report_is_plain_numbers(tmp_path):
    from core.foreign import battery
    from tests.core.foreign.rule_values import Base

    case = battery.case("t", "x = 2.0; y = -3.0; h = x*y; h*h + y")
    got = probe.Probe(Base, ()).run({"name": "t", "program": case.program})
    text = json.dumps(got)  # nothing but JSON: no object of theirs crosses
    assert set(got) >= {"forward", "graph", "steps", "runs", "fd", "local_fd"} and "object at" not in text


def test_one_reading_of_what_a_value_is():
    # show(), the lecture runner, the pytest plugin and the checker share the shapes table's test
    import sys

    import app.show
    import core.lecture.collect
    import core.notebook.draw  # noqa: F401 -- the module, read from sys.modules (the package's `draw` is a function)

    notebook = sys.modules["core.notebook.draw"]
    from core.foreign.shapes import is_value_like
    from tests.core.foreign.rule_values import Base

    class Scalar:  # MiniTorch's shape: no _prev, a history, a derivative
        def __init__(self, v):
            self.data, self.derivative, self.history = v, None, None

        def __mul__(self, other):
            return Scalar(self.data * other.data)

    for value in (Base(1.0), Scalar(2.0)):
        assert is_value_like(value) and app.show.is_value(value) and core.lecture.collect.is_value(value)
        assert notebook.is_value(value)
    for value in (3.0, "x", [Base(1.0)], __import__("numpy").float64(2.0)):
        assert not is_value_like(value) and not app.show.is_value(value) and not notebook.is_value(value)
