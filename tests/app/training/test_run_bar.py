"""The run and settings bars in the real panel: typed settings, the regularization choice, the
health banner (issue 17 item 4), and the Playground's regression problems and zero hidden layers."""

import pytest
from PySide6.QtCore import Qt

from app.training.panel import TrainingPanel
from core.training.config import MICROGRAD_DEMO, TrainConfig

FAST = TrainConfig(
    dataset="moons",
    n_samples=40,
    hidden_sizes=(4, 3),
    steps=100_000,
    lr=0.1,
    lr_decay=0.0,
    activation=("tanh", "relu", "linear"),
)
WAIT = 15000


def make_panel(qtbot, cfg):
    p = TrainingPanel(cfg)
    qtbot.addWidget(p)
    p.resize(1400, 860)
    p.show()
    qtbot.waitUntil(lambda: p.controller.idle and p.controller.weights is not None, timeout=WAIT)
    return p


@pytest.fixture
def panel(qtbot):
    return make_panel(qtbot, FAST)


def type_into(qtbot, field, text):
    field.lineEdit().selectAll()
    qtbot.keyClicks(field.lineEdit(), text)
    qtbot.keyClick(field.lineEdit(), Qt.Key_Return)


# -----------------------------------------------------------------------------
# typed settings


def test_typing_1e_minus_6_sets_the_learning_rate(panel, qtbot):
    bar = panel.settings_bar
    type_into(qtbot, bar.lr_spin, "1e-6")
    assert panel.config.lr == 1e-6
    assert bar.lr_spin.lineEdit().text() == "1e-06"
    type_into(qtbot, bar.lr_spin, "0.000001")
    assert panel.config.lr == 1e-6
    type_into(qtbot, bar.lr_spin, "0.05")
    assert panel.config.lr == 0.05 and bar.lr_spin.lineEdit().text() == "0.05"


@pytest.mark.parametrize(
    "box, typed, said",
    [
        ("lr_spin", "abc", "Learning rate: 'abc' is not a number"),
        ("lr_spin", "0", "Learning rate: lr must be a number > 0 and finite, got 0"),
        ("momentum_spin", "1.5", "Momentum: momentum must be in [0, 1), got 1.5"),
        ("rate_spin", "-1e-3", "Regularization rate: l2_alpha must be a number >= 0 and finite, got -0.001"),
    ],
)
def test_a_refused_entry_is_said_in_the_status_line_and_changes_nothing(panel, qtbot, box, typed, said):
    before = panel.config
    field = getattr(panel.settings_bar, box)
    type_into(qtbot, field, typed)
    assert panel.config == before
    assert panel.status_label.text().startswith(said)
    assert said in field.toolTip()


def test_noise_takes_scientific_notation_and_refuses_a_negative(panel, qtbot):
    box = panel.data_box
    type_into(qtbot, box.noise_spin, "5e-3")
    assert panel.config.noise == 0.005
    type_into(qtbot, box.noise_spin, "-1")
    assert panel.config.noise == 0.005
    assert box.data_message.text().startswith("Noise: noise must be a number >= 0")


def test_regularization_none_l1_l2_with_one_rate(panel, qtbot):
    bar = panel.settings_bar
    assert bar.reg_combo.currentText() == "L2" and bar.rate_spin.value() == 1e-4
    bar.reg_combo.setCurrentText("L1")
    bar.reg_combo.activated.emit(bar.reg_combo.currentIndex())
    assert (panel.config.l1_alpha, panel.config.l2_alpha) == (1e-4, 0.0)
    type_into(qtbot, bar.rate_spin, "3e-3")
    assert (panel.config.l1_alpha, panel.config.l2_alpha) == (3e-3, 0.0)
    bar.reg_combo.setCurrentText("none")
    bar.reg_combo.activated.emit(bar.reg_combo.currentIndex())
    assert (panel.config.l1_alpha, panel.config.l2_alpha) == (0.0, 0.0)
    assert not bar.rate_spin.isEnabled()


# -----------------------------------------------------------------------------
# the health banner


def test_lr_10_on_moons_with_relu_says_the_relus_died(qtbot):
    """issue 17: lr 10 killed every ReLU silently (loss 4.4 M, 50 %)."""
    panel = make_panel(qtbot, MICROGRAD_DEMO.replace(lr=10.0, steps=20))
    banner = panel.health_banner
    assert banner.isHidden()
    panel.play()
    qtbot.waitUntil(lambda: panel.controller.status == "finished", timeout=WAIT)
    qtbot.waitUntil(lambda: "is dead" in banner.text(), timeout=WAIT)
    assert banner.isVisible()
    assert "⚠ Every ReLU in hidden layer 2 (16 neurons) is dead" in banner.text()
    assert "Try a smaller learning rate (it is 10)" in banner.text()
    assert "is dead" not in panel.status_label.text()  # said once, in the banner (room at 1280 x 720)
    panel.reset()  # a new run starts without the old warning
    qtbot.waitUntil(lambda: banner.isHidden(), timeout=WAIT)


# -----------------------------------------------------------------------------
# Playground parity: regression, zero hidden layers


def test_choosing_plane_makes_a_regression_run_with_mse(panel, qtbot):
    panel.data_box.dataset_buttons["plane"].click()
    qtbot.waitUntil(lambda: panel.config.dataset == "plane" and panel.controller.idle, timeout=WAIT)
    assert panel.config.loss == "mse" and panel.config.regression
    assert panel.settings_bar.loss_combo.currentText() == "mse"
    panel.step()
    qtbot.waitUntil(lambda: panel.steps == 1 and panel.controller.idle, timeout=WAIT)
    assert panel.controller.data["regression"]
    # the output view: the prediction and the points' targets on one -1..+1 colour map
    plot = panel.data_plot
    qtbot.waitUntil(lambda: plot.score_levels == (-1.0, 1.0), timeout=WAIT)
    assert len(plot.train_pos.data) == len(panel.controller.data["train_points"])
    assert len(plot.train_neg.data) == 0
    brushes = {spot.brush().color().name() for spot in plot.train_pos.points()}
    assert len(brushes) > 10  # one colour per target, not two classes
    # drawing a class point on a regression problem is refused in words, not with an exception
    before = panel.config
    panel.add_point(0.1, 0.2, 1)
    panel.remove_point(0.1, 0.2)
    assert panel.config == before
    assert "plane is a regression problem" in panel.status_label.text()
    panel.data_box.dataset_buttons["moons"].click()
    qtbot.waitUntil(lambda: panel.config.dataset == "moons", timeout=WAIT)
    assert panel.config.loss == "hinge"
    qtbot.waitUntil(lambda: plot.score_levels == (-2.0, 2.0), timeout=WAIT)


def test_minus_goes_down_to_zero_hidden_layers_and_it_still_trains(panel, qtbot):
    box = panel.network_box
    for _ in range(2):
        box.remove_layer_button.click()
    qtbot.waitUntil(lambda: panel.config.hidden_sizes == () and panel.controller.idle, timeout=WAIT)
    assert not box.remove_layer_button.isEnabled()
    assert box.layers_label.text() == "0 HIDDEN LAYERS"
    panel.step()
    qtbot.waitUntil(lambda: panel.steps == 1 and panel.controller.idle, timeout=WAIT)
    assert panel.controller.status == "paused"
    box.add_layer_button.click()
    qtbot.waitUntil(lambda: panel.config.hidden_sizes == (4,), timeout=WAIT)
