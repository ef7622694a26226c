def test_l1_of_no_parameters_is_a_value_with_backward():
    """It returned the float 0.0 (no backward()), unlike l2_regularization."""
    from core.engine import Value
    from core.training.regularization import l1_regularization

    empty = l1_regularization([], 0.1)
    assert isinstance(empty, Value) and empty.data == 0.0
    empty.backward()
    w = Value(-2.0)
    term = l1_regularization([w], 0.5)
    term.backward()
    assert term.data == 1.0 and w.grad == -0.5
