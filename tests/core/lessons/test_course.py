"""The rest of the course (lessons 13-18): what each new lesson says in words,
checked against the engine. Their numbers are placeholders and claims, checked
with every lesson by test_lessons.py and test_truth.py; this file checks the
comparisons the text draws between them."""

import pathlib

import pytest

from core.document.compile import compile_document
from core.document.expr import parse
from core.lessons.format import load_lesson
from core.lessons.runner import LessonRunner
from core.training.config import TrainConfig
from core.training.trainer import Trainer

LESSONS = pathlib.Path(__file__).resolve().parents[3] / "resources" / "lessons"


def at(name, index):
    runner = LessonRunner(load_lesson(LESSONS / name))
    runner.goto(index)
    return runner


def grad_of_score(code, s):
    compiled = compile_document(parse(f"s = Value({s}, label='s')\n" + code))
    compiled.output.backward()
    return next(v for v in compiled.values.values() if v.label == "s").grad


def test_losses_confidently_wrong_hinge_sends_minus_1_and_mse_minus_10():
    runner = at("13_losses.json", 5)
    assert -1.0 < runner.values["s"].grad < -0.98  # BCE: almost -1
    assert grad_of_score("y = Value(1.0, label='y')\nm = y*s\nh = (1 - m).relu()", -4.0) == -1.0
    assert grad_of_score("y = Value(1.0, label='y')\ne = s - y\nmse = e**2", -4.0) == -10.0


def test_losses_a_confident_right_point_sends_no_hinge_gradient():
    assert grad_of_score("y = Value(1.0, label='y')\nm = y*s\nh = (1 - m).relu()", 2.0) == 0.0


def test_mini_batches_reach_about_as_far_with_a_tenth_of_the_work():
    runner = at("14_mini_batches.json", 1)
    assert runner.trainer.cfg.batch_size == 10 and len(runner.trainer.train_inputs) == 100
    mini_loss = runner.metrics()[0]
    full = Trainer(TrainConfig(hidden_sizes=(8,), lr=0.3, lr_decay=0.0, l2_alpha=0.0))
    for _ in range(2):  # 2 full steps = 200 point passes, as many as 20 steps of 10
        full.step()
    full_loss = full.evaluate(full.train_inputs, full.train_labels)[0]
    assert mini_loss < full_loss


@pytest.mark.slow
def test_overfitting_shows_on_the_test_set_and_l2_narrows_the_gap():
    memorised = at("15_overfitting_and_l2.json", 1)
    train_acc, test_acc = memorised.metrics()[1], memorised.metrics(test=True)[1]
    assert train_acc - test_acc >= 0.15
    regular = at("15_overfitting_and_l2.json", 2)
    l2_train, l2_test = regular.metrics()[1], regular.metrics(test=True)[1]
    assert l2_train < train_acc  # fits its training points less tightly
    assert l2_train - l2_test < train_acc - test_acc  # the gap is smaller
    assert l2_test <= test_acc  # "the test accuracy does not rise"


def test_adam_ends_lowest_of_the_three_optimizers():
    losses = [at("16_momentum_and_adam.json", i).metrics()[0] for i in range(3)]
    sgd, momentum, adam = losses
    assert adam < momentum < sgd


def test_vanishing_gradients_shrink_four_to_five_times_per_layer():
    values = at("17_vanishing_gradients.json", 1).values
    grads = [values[k].grad for k in ("a3", "a2", "a1", "x")]
    for upper, lower in zip(grads, grads[1:]):
        assert 4.0 <= upper / lower <= 5.2


def test_a_small_initial_weight_gets_hundreds_of_times_the_gradient():
    big = at("17_vanishing_gradients.json", 2).values["w"].grad
    small = at("17_vanishing_gradients.json", 3).values["w"].grad
    assert 100 <= small / big < 1000


def test_the_assessments_learning_step_goes_against_the_gradient_and_lowers_the_loss():
    before = at("18_final_assessment.json", 4).values
    w, grad, loss = before["w"].data, before["w"].grad, before["L"].data
    after = at("18_final_assessment.json", 5).values
    assert after["w"].data == pytest.approx(w - 0.1 * grad, abs=0.001)
    assert f"{loss:.2f}" == "2.14" and after["L"].data < loss
