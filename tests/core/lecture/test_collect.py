"""Which graphs a cell made and what the learner calls each node, read in-process from
Values built here (no child process)."""

import pytest

from core.engine import Value
from core.lecture.collect import CollectError, candidates, graph_data, roots_of, walk_names
from tests.core.foreign.learner_values import SetValue


class Holder:
    def __init__(self, weights):
        self.w = weights
        self._hidden = Value(9.0)


def test_names_are_the_shortest_paths_from_a_variable():
    w = [Value(0.5), Value(-0.5)]
    model = Holder(w)
    names = walk_names({"model": model, "first": w[0], "__builtins__": {}, "skipped": Value(1.0)}, {"skipped"})
    assert names[id(w[0])] == "first"
    assert names[id(w[1])] == "model.w[1]"
    assert id(model._hidden) not in names  # a private attribute names nothing


def test_roots_are_the_candidates_no_other_uses():
    a, b = Value(1.0), Value(2.0)
    c = a * b
    d = c + a
    stray = Value(3.0)
    found = candidates({"a": a, "b": b, "c": c, "d": d, "pair": [d, stray], "n": 3}, set())
    assert roots_of(found) == [d, stray]


def test_the_graph_data_names_leaves_and_keeps_constants():
    x = Value(2.0, label="x")
    y = x * 3  # the 3 becomes an unnamed leaf: a constant
    z = y.tanh()
    data = graph_data([z], z, {id(y): "y"}, {})
    kinds = [(n["kind"], n["label"], n.get("op")) for n in data["nodes"]]
    assert kinds == [("input", "x", None), ("const", "", None), ("op", "y", "mul"), ("op", "", "tanh")]
    assert data["output"] == "n4"
    assert data["nodes"][2]["children"] == ["n1", "n2"]


def test_a_shared_node_appears_once_in_several_graphs():
    a = Value(1.0, label="a")
    s = a * a
    first, second = s + 1, s - 1
    data = graph_data([first, second], second, {}, {})
    assert [n["label"] for n in data["nodes"]].count("a") == 1
    assert data["nodes"][1]["children"] == ["n1", "n1"]  # a * a: two wires from a


def test_a_learners_set_of_children_is_ordered_from_the_data():
    a, b = SetValue(5.0, label="a"), SetValue(3.0, label="b")
    d = SetValue(2.0, (a, b), "-")  # a - b; the set forgets which came first
    data = graph_data([d], d, {}, {})
    by_id = {n["id"]: n for n in data["nodes"]}
    assert [by_id[c]["label"] for c in by_id[data["output"]]["children"]] == ["a", "b"]
    assert by_id[data["output"]]["op"] == "sub"


def test_an_op_the_studio_does_not_know_is_refused_by_name():
    a = SetValue(0.5, label="a")
    s = SetValue(0.479, (a,), "sin")
    with pytest.raises(CollectError, match="'sin'"):
        graph_data([s], s, {}, {})


def test_a_leaf_that_is_not_finite_is_refused():
    x = Value(float("inf"), label="x")
    y = x * 2
    with pytest.raises(CollectError, match="x is inf"):
        graph_data([y], y, {}, {})
