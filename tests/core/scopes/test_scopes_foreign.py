"""core/scopes/foreign.py's makers: which op a learner's method makes, read from the op table."""

from core import ops
from core.scopes.foreign import MAKERS
from core.scopes.names import _METHODS


def test_every_special_method_and_method_of_the_table_makes_its_op():
    for op in ops.TABLE:
        for dunder in op.dunders:
            assert MAKERS[dunder] == op.name
        if op.method:
            assert MAKERS[op.method] == op.name and op.method in _METHODS
    assert MAKERS["__rmul__"] == "mul" and "__rsub__" not in MAKERS  # b - a: the operands come reversed


def test_no_maker_names_an_op_the_table_lacks():
    assert set(MAKERS.values()) <= set(ops.BY_NAME)
