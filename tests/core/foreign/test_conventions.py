"""core/foreign/child/conventions.py and shapes.pass_function: their conventions found by what
their code does, and a pass kept as a module-level function."""

import os

from core.foreign.child import shapes
from tests.core.foreign import pass_function_values as pf

ROOTS = (os.path.abspath(pf.__file__),)


def test_their_module_function_named_as_a_pass_is_their_pass():
    assert shapes.pass_function({"backward": pf.backward}, ROOTS) is pf.backward


def test_a_librarys_function_is_not_their_pass():
    import json

    assert shapes.pass_function({"backward": json.dumps}, ROOTS) is None  # not in their files


def test_a_function_that_needs_two_arguments_is_not_a_pass():
    def backward(a, b):
        return None

    assert shapes.pass_function({"backward": backward}, (os.path.abspath(__file__),)) is None


def test_the_pass_applies_to_the_classes_beside_it_only():
    class Elsewhere:  # written in this test file, not beside the pass
        pass

    namespace = {"Variable": pf.Variable, "Elsewhere": Elsewhere, "backward": pf.backward}
    shapes.use_pass_function(pf.backward, namespace)
    try:
        assert shapes.backward_of(pf.Variable(1.0)).func is pf.backward
        assert shapes.backward_of(Elsewhere()) is None
    finally:
        shapes.use_pass_function(None, namespace)
    assert shapes.backward_of(pf.Variable(1.0)) is None
