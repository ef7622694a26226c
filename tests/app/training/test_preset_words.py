"""--train-preset and --train-steps as a teacher types them (issue 28 item 5): a preset
named by any word of its name ('moons'), and a number of steps that keeps the preset's
name in the box instead of turning it to 'custom'."""

from app.main_window import MainWindow
from app.training.workspace import matching_presets
from core.training.presets import PRESETS, for_display, preset_name

WAIT = 30000


def test_a_preset_is_found_by_any_word_of_its_name():
    assert matching_presets("moons", PRESETS) == ["micrograd demo (moons, 16-16 ReLU)"]
    assert matching_presets("micrograd", PRESETS) == ["micrograd demo (moons, 16-16 ReLU)"]
    assert matching_presets("spiral", PRESETS) == ["spiral, 2 tanh layers"]
    assert matching_presets("linear neuron", PRESETS) == ["blobs, one linear neuron"]
    assert matching_presets("zebra", PRESETS) == []


def test_how_many_steps_to_run_keeps_the_presets_name():
    for name, cfg in PRESETS.items():
        assert preset_name(for_display(cfg).replace(steps=7)) == name
    assert preset_name(for_display(next(iter(PRESETS.values()))).replace(lr=0.123)) == "custom"


def test_train_preset_moons_with_steps_from_the_command_line(qtbot):
    # repro: '--train-preset moons' was refused, and '--train-steps' turned the box to 'custom'
    window = MainWindow()
    window.files.prompt_on_close = False
    qtbot.addWidget(window)
    window.training.show("training")
    panel = window.training.panel
    qtbot.waitUntil(lambda: panel.controller.idle and panel.controller.weights is not None, timeout=WAIT)
    assert window.training.start("moons", None, 2, wait=True, timeout_s=WAIT / 1000) == ""
    assert panel.run_bar.preset_combo.currentText() == "micrograd demo (moons, 16-16 ReLU)"
    window.close()
