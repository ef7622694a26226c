from core.debugger.forward_stepper import ForwardStepper
from core.engine import Value


def test_forward_steps_in_topological_order_with_numbers():
    x = Value(2.0, label="x")
    y = Value(3.0, label="y")
    m = x * y
    m.label = "m"
    f = m + y**2
    f.label = "f"
    stepper = ForwardStepper(f)
    assert stepper.computed(x) and not stepper.computed(m)
    first = stepper.step()
    assert first.node is m and first.text == "m = x · y = 2.0000 · 3.0000 = 6.0000"
    assert stepper.computed(m) and not stepper.computed(f)
    records = stepper.run_to_end()
    assert stepper.done and records[-1].node is f and records[-1].text.endswith("= 15.0000")
    stepper.step_back()
    assert not stepper.computed(f)


def test_forward_step_recomputes_after_a_leaf_changed():
    x = Value(1.0, label="x")
    t = x.tanh()
    x.data = 0.0
    stepper = ForwardStepper(t)
    stepper.run_to_end()
    assert t.data == 0.0
    t.backward()
    assert x.grad == 1.0
