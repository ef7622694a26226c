"""core/foreign/shapes.py: the studio's readers use the child harness's one table of the
shapes learners give their class (micrograd's data/grad/_prev, MiniTorch's derivative and
parents), read here in the user's own process."""

import pytest

from core.engine import Value
from core.foreign import shapes
from core.foreign.child import shapes as child_shapes
from tests.core.foreign import rule_values as rv


def test_it_is_the_childs_table_not_a_copy():
    for name in ("DATA", "GRAD", "CHILDREN", "BACKWARD", "Shape", "children", "number", "eps_of", "is_value_like"):
        assert getattr(shapes, name) is getattr(child_shapes, name)


@pytest.mark.parametrize("make", [lambda: Value(2.0) * Value(3.0), lambda: rv.Base(2.0) * rv.Base(3.0)])
def test_a_product_reads_as_a_value_with_two_children(make):
    out = make()
    assert shapes.is_value_like(out) and shapes.is_value_class(type(out))
    found, ordered, where = shapes.children(out)
    assert len(found) == 2 and ordered and where == "_prev"


def test_plain_numbers_are_not_values():
    assert not shapes.is_value_like(2.0) and not shapes.is_value_like("x")


def test_float32_data_gets_float32_epsilon_and_the_judge_its_tolerance():
    # the one tolerance rule is core/foreign/agree.py's, fed the epsilon read here
    from core.foreign.agree import tolerance

    assert shapes.eps_of(rv.Float32(1.0).data) == 2.0**-23 and shapes.eps_of(rv.Base(1.0).data) == 2.0**-52
    assert tolerance(shapes.eps_of(rv.Float32(1.0).data)).rtol > 100 * tolerance(shapes.eps_of(1.0)).atol
    assert not hasattr(shapes, "tolerance")  # a second rule with other numbers lived here, unused
