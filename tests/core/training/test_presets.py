"""The presets: micrograd's demo first, and recognised once shown."""

from core.training import presets
from core.training.config import MICROGRAD_DEMO, TrainConfig


def test_presets_are_recognised_once_shown():
    name = presets.DEFAULT_PRESET
    assert presets.PRESETS[name] is MICROGRAD_DEMO
    assert presets.preset_name(presets.for_display(MICROGRAD_DEMO)) == name
    assert presets.preset_name(presets.for_display(MICROGRAD_DEMO).replace(lr=0.5)) == "custom"


def test_every_preset_is_a_valid_config_that_trains_a_step():
    from core.training.trainer import Trainer

    for name, cfg in presets.PRESETS.items():
        assert isinstance(cfg, TrainConfig), name
        Trainer(cfg.replace(n_samples=20)).step()
