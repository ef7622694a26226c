"""Losses against hand computation, their gradients, and their float twins."""

import math

import pytest

from core.engine import Value
from core.losses import accuracy, bce_loss, hinge_loss, l2_floats, l2_regularization, loss_floats, mse_loss


def values(*numbers):
    return [Value(x) for x in numbers]


def numeric_grad(f, xs, i, h=1e-6):
    up = list(xs)
    down = list(xs)
    up[i] += h
    down[i] -= h
    return (f(up) - f(down)) / (2 * h)


# -----------------------------------------------------------------------------
# hinge


def test_hinge_by_hand():
    s = values(0.5, -2.0, 3.0)
    loss = hinge_loss(s, [1, 1, -1])
    # relu(1 - 0.5) = 0.5, relu(1 + 2) = 3, relu(1 + 3) = 4 -> mean 7.5 / 3
    assert loss.data == pytest.approx(2.5)
    loss.backward()
    # d/ds relu(1 - y s) / n = -y / n where the margin is positive
    assert [x.grad for x in s] == pytest.approx([-1 / 3, -1 / 3, 1 / 3])


def test_hinge_is_zero_beyond_the_margin():
    s = values(1.5, -3.0)
    loss = hinge_loss(s, [1, -1])
    loss.backward()
    assert loss.data == 0.0
    assert [x.grad for x in s] == [0.0, 0.0]


def test_hinge_takes_zero_as_the_negative_label():
    assert hinge_loss(values(0.3, -0.2), [0, 1]).data == hinge_loss(values(0.3, -0.2), [-1, 1]).data


# -----------------------------------------------------------------------------
# mse


def test_mse_by_hand():
    s = values(0.5, -2.0)
    loss = mse_loss(s, [1, -1])
    assert loss.data == pytest.approx((0.25 + 1.0) / 2)
    loss.backward()
    # d/ds (s - y)^2 / n = 2 (s - y) / n
    assert [x.grad for x in s] == pytest.approx([-0.5, -1.0])


# -----------------------------------------------------------------------------
# binary cross-entropy


def sigmoid(x):
    return 1 / (1 + math.exp(-x))


def test_bce_by_hand():
    s = values(0.0, 2.0, -1.0)
    loss = bce_loss(s, [1, -1, 1])
    # -[t log p + (1 - t) log(1 - p)] with p = sigmoid(s), t = 1, 0, 1
    expected = -(math.log(0.5) + math.log(1 - sigmoid(2.0)) + math.log(sigmoid(-1.0))) / 3
    assert loss.data == pytest.approx(expected, rel=1e-12)
    loss.backward()
    # d/ds = (sigmoid(s) - t) / n, exact even at s = 0
    assert [x.grad for x in s] == pytest.approx([(0.5 - 1) / 3, sigmoid(2.0) / 3, (sigmoid(-1.0) - 1) / 3])


def test_bce_accepts_zero_one_labels():
    assert bce_loss(values(0.7, -0.4), [0, 1]).data == bce_loss(values(0.7, -0.4), [-1, 1]).data


def test_bce_is_stable_for_huge_logits():
    s = values(1000.0, -1000.0, 1000.0, -1000.0)
    loss = bce_loss(s, [-1, 1, 1, -1])
    loss.backward()
    # badly wrong by 1000 twice, right by 1000 twice
    assert loss.data == pytest.approx(2000 / 4)
    assert [x.grad for x in s] == pytest.approx([0.25, -0.25, 0.0, 0.0])


def test_bce_gradient_matches_finite_differences():
    labels = [1, -1, 1, -1, 1]
    xs = [-3.0, -0.5, 0.0, 0.0, 4.0]
    s = values(*xs)
    bce_loss(s, labels).backward()

    def f(numbers):
        return bce_loss(values(*numbers), labels).data

    for i in range(len(xs)):
        assert s[i].grad == pytest.approx(numeric_grad(f, xs, i), abs=1e-7)


# -----------------------------------------------------------------------------
# L2 and accuracy


def test_l2_by_hand():
    p = values(1.0, 2.0, -3.0)
    reg = l2_regularization(p, 0.1)
    assert reg.data == pytest.approx(0.1 * 14)
    reg.backward()
    assert [x.grad for x in p] == pytest.approx([0.2, 0.4, -0.6])


def test_l2_of_no_parameters_is_a_value():
    # was the float 0.0 (sum of nothing is the int 0), which has no backward()
    reg = l2_regularization([], 0.1)
    assert isinstance(reg, Value) and reg.data == 0.0
    reg.backward()


def test_losses_return_values():
    s = values(0.1, -0.2)
    for loss in (hinge_loss(s, [1, -1]), mse_loss(s, [1, -1]), bce_loss(s, [1, -1]), l2_regularization(s, 1e-4)):
        assert isinstance(loss, Value)


def test_accuracy():
    assert accuracy(values(0.5, -0.1, 2.0, -3.0), [1, 1, -1, -1]) == 0.5
    assert accuracy([0.5, -0.1], [1, 0]) == 1.0  # floats, and 0/1 labels
    assert accuracy([0.0], [1]) == 0.0  # a zero score is not "class +1"
    assert isinstance(accuracy(values(1.0), [1]), float)


# -----------------------------------------------------------------------------
# float versions agree exactly; errors


@pytest.mark.parametrize("name, fn", [("hinge", hinge_loss), ("mse", mse_loss), ("bce", bce_loss)])
def test_float_losses_equal_value_losses(name, fn):
    scores = [0.3, -1.7, 2.2, 0.0, -40.0, 35.0]
    labels = [1, -1, -1, 1, 1, -1]
    assert loss_floats(name, scores, labels) == fn(values(*scores), labels).data
    params = [0.1, -2.0, 0.7]
    assert l2_floats(params, 1e-4) == l2_regularization(values(*params), 1e-4).data


def test_float_losses_keep_nan_and_survive_overflow():
    assert math.isnan(loss_floats("mse", [math.nan], [1]))
    assert loss_floats("mse", [1e200], [1]) == math.inf


def test_loss_errors():
    with pytest.raises(ValueError, match="2 scores but 1 labels"):
        hinge_loss(values(1.0, 2.0), [1])
    with pytest.raises(ValueError, match="at least one example"):
        mse_loss([], [])
    with pytest.raises(ValueError, match="unknown loss 'l1'"):
        loss_floats("l1", [1.0], [1])
