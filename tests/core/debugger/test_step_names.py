"""How the debugger introduces a step: a label that only spells out its formula is said once."""

from core.debugger.step_names import formula, headline, says_the_same
from core.debugger.stepper import BackwardStepper
from core.engine import Value


def lecture_neuron():
    """Karpathy's neuron as the lecture labels it: the sums carry their own formulas as labels."""
    x1, w1, x2, w2 = Value(2.0), Value(-3.0), Value(0.0), Value(1.0)
    x1w1, x2w2 = x1 * w1, x2 * w2
    s = x1w1 + x2w2
    b = Value(6.8813735870195432)
    n = s + b
    names = {b: "b", x1: "x1", w1: "w1", x2: "x2", w2: "w2", x1w1: "x1*w1", x2w2: "x2*w2", s: "x1*w1 + x2*w2", n: "n"}
    return BackwardStepper(n, names=names), s, n, x1w1


def test_a_label_that_is_its_own_formula_is_said_once():
    # repro: the step list read 'x1*w1 + x2*w2 = x1*w1 + x2*w2' (and the node column 'x...2')
    stepper, s, n, x1w1 = lecture_neuron()
    assert formula(stepper, s) == "x1*w1 + x2*w2"
    assert headline(stepper, s) == "x1*w1 + x2*w2"
    assert formula(stepper, x1w1) == "x1 · w1"
    assert formula(stepper, n) == "n = x1*w1 + x2*w2 + b"


def test_a_real_name_keeps_its_formula():
    x, y = Value(2.0), Value(3.0)
    m = x * y
    stepper = BackwardStepper(m, names={x: "x", y: "y", m: "m"})
    assert formula(stepper, m) == "m = x · y" and headline(stepper, m) == "m = x · y"


def test_says_the_same_ignores_only_spacing_brackets_and_the_signs_for_times_and_power():
    assert says_the_same("x1*w1", "x1 · w1") and says_the_same("y**2", "y^2")
    assert says_the_same("(a+b)*c", "a + b × c")
    assert not says_the_same("x1*w1", "x1 + w1") and not says_the_same("n", "x1*w1 + b")


def test_a_label_that_reads_as_a_formula_is_bracketed_before_its_grad():
    # repro: the lecture's step 3 read 'x1*w1.grad += 1 · x1*w1 + x2*w2.grad' (x2*w2's grad?)
    from core.debugger.stepper import field_of

    stepper, s, _n, _x1w1 = lecture_neuron()
    stepper.reset()
    while stepper.current is not s:
        stepper.step()
    record = stepper.step()
    assert record.lines[0].startswith("(x1*w1).grad += 1 · (x1*w1 + x2*w2).grad = 1.0000 · ")
    assert field_of("w1") == "w1.grad" and field_of("(x·y)") == "(x·y).grad"
    assert field_of("n.layers[0].w[1]") == "n.layers[0].w[1].grad" and field_of("-2") == "-2.grad"
    assert field_of("x - 1", "data") == "(x - 1).data"
