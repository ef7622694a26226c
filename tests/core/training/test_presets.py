"""The presets: micrograd's demo first, recognised once shown, and every one reaches its goal
with its own settings, trained headless through the app's own loop (issue 29 item 4)."""

import pytest

from core.training import presets
from core.training.config import MICROGRAD_DEMO, TrainConfig
from core.training.events import Result
from core.training.loop import run
from core.training.network_edits import dataset_chosen, lr_changed
from core.training.trainer import Trainer


def test_presets_are_recognised_once_shown():
    name = presets.DEFAULT_PRESET
    default = presets.PRESETS[name]
    assert default == MICROGRAD_DEMO.replace(n_samples=125, test_ratio=0.2)
    assert presets.preset_name(presets.for_display(default)) == name
    assert presets.preset_name(presets.for_display(default).replace(lr=0.5)) == "custom"


def test_every_preset_is_a_valid_config_that_trains_a_step():
    for name, cfg in presets.PRESETS.items():
        assert isinstance(cfg, TrainConfig), name
        Trainer(cfg.replace(n_samples=20)).step()


def test_the_default_preset_tests_on_points_it_does_not_train_on():
    """Repro: the default preset set Test data to 0%, so nothing measured generalisation."""
    cfg = presets.PRESETS[presets.DEFAULT_PRESET]
    assert cfg.test_ratio > 0
    trainer = Trainer(cfg)
    assert len(trainer.train_inputs) == 100 and len(trainer.test_inputs) == 25  # micrograd's 100, and 25 more


def finish(cfg):
    """Train cfg for its own number of steps through loop.run; (trainer, the Result)."""
    trainer = Trainer(cfg)
    result = None
    for event in run(trainer, until=cfg.steps, boundary_due=lambda step: False):
        if isinstance(event, Result):
            result = event
    return trainer, result


def missed(cfg, trainer):
    _train_loss, train_acc, test_loss, test_acc = trainer.metrics()
    return presets.goal_missed(cfg, train_acc, test_loss, test_acc, trainer.test_labels)


@pytest.mark.parametrize("name", list(presets.PRESETS))
def test_every_preset_reaches_its_goal_as_it_is(name):
    cfg = presets.PRESETS[name]
    trainer, result = finish(cfg)
    assert result.status == "finished", result.message
    assert missed(cfg, trainer) is None, f"{name}: {missed(cfg, trainer)}"
    assert trainer.warning == "", trainer.warning  # no dead ReLUs, no stalled loss at the end


def test_the_plane_button_on_the_default_settings_trains():
    """Repro: plane on micrograd's settings (SGD lr 1, ReLU): loss 0.43 -> 4.65, every ReLU dead."""
    cfg = presets.PRESETS[presets.DEFAULT_PRESET]
    for dataset in ("plane", "multi-gaussian"):
        changes = dataset_chosen(cfg, dataset)
        assert changes["loss"] == "mse" and changes["lr"] == 0.1
        assert "learning rate 1 -> 0.1" in lr_changed(cfg, changes)
        regression = cfg.replace(**changes)
        trainer, result = finish(regression)
        assert result.status == "finished"
        assert "dead" not in trainer.warning
        first = Trainer(regression).evaluate(trainer.test_inputs, trainer.test_labels)[0]
        assert trainer.metrics()[2] < first / 5  # the test loss fell
    plane = cfg.replace(**dataset_chosen(cfg, "plane"))
    assert missed(plane, finish(plane)[0]) is None


def test_the_goals_say_what_is_missing():
    moons = presets.PRESETS[presets.DEFAULT_PRESET]
    assert presets.goal_missed(moons, 0.9, 0.3, 0.95) == "training accuracy 90.0% < 95%"
    assert presets.goal_missed(moons, 1.0, 0.3, 0.5) == "test accuracy 50.0% < 90%"
    plane = presets.PRESETS["plane (regression), a linear model"]
    assert "variance" in presets.goal_missed(plane, 0.5, 0.5, 0.5, [-1.0, 1.0])
    assert presets.goal_missed(plane, 0.5, 0.1, 0.5, [-1.0, 1.0]) is None
