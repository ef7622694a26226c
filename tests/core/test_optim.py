"""SGD and Adam against steps computed by hand."""

import math

import pytest

from core.engine import Value
from core.optim import SGD, Adam


def param(data, grad):
    p = Value(data)
    p.grad = grad
    return p


# -----------------------------------------------------------------------------
# SGD


def test_sgd_is_micrograds_update():
    p, q = param(1.0, 0.5), param(-2.0, -1.0)
    SGD([p, q], lr=0.1).step()
    assert p.data == pytest.approx(1.0 - 0.1 * 0.5)
    assert q.data == pytest.approx(-2.0 + 0.1 * 1.0)


def test_sgd_momentum_by_hand():
    p = param(1.0, 1.0)
    opt = SGD([p], lr=0.1, momentum=0.9)
    opt.step()  # v = 1;              p = 1 - 0.1 * 1 = 0.9
    assert p.data == pytest.approx(0.9)
    opt.step()  # v = 0.9 * 1 + 1 = 1.9; p = 0.9 - 0.1 * 1.9 = 0.71
    assert p.data == pytest.approx(0.71)
    assert opt.velocity == pytest.approx([1.9])


def test_sgd_uses_the_lr_set_between_steps():
    p = param(1.0, 1.0)
    opt = SGD([p], lr=1.0)
    opt.lr = 0.25  # e.g. a trainer's linear decay
    opt.step()
    assert p.data == 0.75


def test_sgd_zero_grad():
    p = param(1.0, 3.0)
    SGD([p], lr=0.1).zero_grad()
    assert p.grad == 0.0


# -----------------------------------------------------------------------------
# Adam


def test_adam_by_hand():
    p = param(1.0, 2.0)
    opt = Adam([p], lr=0.1)
    # step 1, g = 2: m = 0.1 * 2 = 0.2, v = 0.001 * 4 = 0.004
    #   m^ = 0.2 / 0.1 = 2, v^ = 0.004 / 0.001 = 4 -> p = 1 - 0.1 * 2 / (2 + 1e-8)
    opt.step()
    assert p.data == pytest.approx(0.9000000005, rel=1e-12)
    # step 2, g = -1: m = 0.9 * 0.2 - 0.1 = 0.08, v = 0.999 * 0.004 + 0.001 = 0.004996
    #   m^ = 0.08 / 0.19, v^ = 0.004996 / 0.001999
    p.grad = -1.0
    opt.step()
    assert opt.m == pytest.approx([0.08]) and opt.v == pytest.approx([0.004996])
    expected = 0.9000000005 - 0.1 * (0.08 / 0.19) / (math.sqrt(0.004996 / 0.001999) + 1e-8)
    assert p.data == pytest.approx(expected, rel=1e-12)
    assert p.data == pytest.approx(0.8733662967, rel=1e-9)
    assert opt.t == 2


def test_adam_first_step_is_about_lr_whatever_the_gradient_scale():
    small, big = param(0.0, 1e-3), param(0.0, -1e3)
    Adam([small, big], lr=0.01).step()
    assert small.data == pytest.approx(-0.01, rel=1e-4)
    assert big.data == pytest.approx(0.01, rel=1e-6)


# -----------------------------------------------------------------------------
# both


@pytest.mark.parametrize("make", [lambda ps: SGD(ps, lr=0.1, momentum=0.5), lambda ps: Adam(ps, lr=0.1)])
def test_optimizers_minimise_a_quadratic(make):
    x, y = Value(3.0), Value(-2.0)
    opt = make([x, y])
    for _ in range(300):
        loss = (x - 1.0) ** 2 + 10 * (y + 0.5) ** 2
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert x.data == pytest.approx(1.0, abs=1e-3)
    assert y.data == pytest.approx(-0.5, abs=1e-3)


def test_state_lives_in_the_optimizer_and_round_trips():
    ps = [param(1.0, 1.0), param(2.0, -1.0)]
    opt = Adam(ps, lr=0.1)
    opt.step()
    saved = opt.state()
    again = Adam([param(0.0, 0.0), param(0.0, 0.0)], lr=0.1)
    again.load_state(saved)
    assert again.state() == saved
    assert len(opt.m) == len(opt.v) == len(ps)  # aligned with params
    with pytest.raises(ValueError, match="'m' has 2 entries for 1 parameters"):
        Adam([param(0.0, 0.0)]).load_state(saved)


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="learning rate"):
        SGD([], lr=-1.0)
    with pytest.raises(ValueError, match="momentum"):
        SGD([], lr=0.1, momentum=1.0)
    with pytest.raises(ValueError, match="betas"):
        Adam([], betas=(0.9, 1.0))
