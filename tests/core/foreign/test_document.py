"""A traced learner graph becomes a read-only document the canvas can draw."""

from core.foreign.document import to_document
from core.foreign.local import check_case
from tests.core.foreign.test_trace import SetValue


class Lecture(SetValue):
    def __mul__(self, other):
        out = Lecture(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += self.data * out.grad  # the swapped-operands bug
            other.grad += other.data * out.grad

        out._backward = _backward
        return out

    def __add__(self, other):
        out = Lecture(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out


def test_the_failing_graph_becomes_a_document():
    result = check_case(Lecture, "x = 2.0; y = -3.0; z = 1.0; x*y + z")
    assert result["status"] == "fail" and result["fault"]["node"] == "x·y"
    doc, problem = to_document(result["graph"])
    assert problem is None and doc.read_only
    assert sorted(n.label for n in doc.nodes.values() if n.kind == "input") == ["x", "y", "z"]
    assert doc.nodes[result["fault"]["node_id"]].op == "mul"
    assert doc.effective_output() == result["graph"][-1]["id"]


def test_an_unknown_op_cannot_be_drawn():
    nodes = [
        {"id": "n1", "name": "x", "raw_op": "", "op": None, "param": None, "children": [], "data": 0.5},
        {"id": "n2", "name": "sin(x)", "raw_op": "sin", "op": None, "param": None, "children": ["n1"], "data": 0.48},
    ]
    doc, problem = to_document(nodes)
    assert doc is None and "'sin'" in problem
