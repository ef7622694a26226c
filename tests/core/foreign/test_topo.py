"""A learner's own topological sort checked as a function: the child lists it as node
ids (core/foreign/child/habits.py), the parent checks the list (whole_pass.check_listing)."""

from core.foreign.child.graph import read
from core.foreign.child.habits import find_topo
from core.foreign.trace import interpret
from core.foreign.whole_pass import check_listing


def check_topo(name, fn, root, names, case):
    nodes, objects = read(root, names)
    ids = {id(o): n["id"] for n, o in zip(nodes, objects)}
    return check_listing(name, [ids.get(id(v), "?") for v in fn(root)], interpret(nodes))


class V:
    def __init__(self, data, children=(), label=""):
        self.data, self.grad, self._prev, self.label = data, 0.0, tuple(children), label

    def __mul__(self, other):
        return V(self.data * other.data, (self, other))

    def __add__(self, other):
        return V(self.data + other.data, (self, other))


def graph():
    x, y, z = V(2.0, label="x"), V(-3.0, label="y"), V(0.5, label="z")
    h = x * y
    h.label = "h"
    out = h + h * z
    out.label = "out"
    return out, h


def lecture_topo(root):  # inputs first, each once: right
    order, seen = [], set()

    def visit(v):
        if id(v) not in seen:
            seen.add(id(v))
            for c in v._prev:
                visit(c)
            order.append(v)

    visit(root)
    return order


def test_a_right_sort_in_either_direction_passes():
    root, _ = graph()
    assert check_topo("build_topo", lecture_topo, root, {}, "t") is None
    assert check_topo("topological_sort", lambda r: lecture_topo(r)[::-1], root, {}, "t") is None


def test_a_node_listed_twice_is_named():
    root, h = graph()
    fault = check_topo("build_topo", lambda r: [h] + lecture_topo(r), root, {}, "t")
    assert fault["diagnosis"] == "topo-sort" and "h appears twice in your build_topo list" in fault["cause"]


def test_a_node_before_its_input_is_named():
    root, h = graph()

    def preorder(v, out=None):  # the output first, but h before h·z, which uses it
        out = [] if out is None else out
        if v not in out:
            out.append(v)
            for c in v._prev:
                preorder(c, out)
        return out

    fault = check_topo("topological_sort", preorder, root, {}, "t")
    assert fault is not None and "comes after its input h" in fault["cause"]


def test_found_at_module_level_or_as_a_method():
    assert find_topo({"topological_sort": lecture_topo}, V)[0] == "topological_sort"
    assert find_topo({}, V) is None
    V.build_topo = lambda self: lecture_topo(self)
    try:
        name, fn = find_topo({}, V)
        root, _ = graph()
        assert name == "V.build_topo" and fn(root)[-1] is root
    finally:
        del V.build_topo


def test_a_helper_that_needs_its_lists_is_not_taken_for_a_sort():
    def build_topo(v, topo, visited):  # a helper of their backward(), called with three arguments
        return topo

    def topological_sort(root):
        return [root]

    assert find_topo({"build_topo": build_topo}, V) is None
    assert find_topo({"build_topo": build_topo, "topological_sort": topological_sort}, V)[0] == "topological_sort"


def test_objects_not_in_the_graph_are_no_duplicates():
    out, h = graph()

    def with_strangers(root):  # their list holds two objects the graph does not (their own wrappers)
        return [object(), *lecture_topo(root), object()]

    assert check_topo("topo", with_strangers, out, {}, None) is None
