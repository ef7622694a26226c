"""A regression problem on the Training panel: no accuracy curve, a learning rate it can
take, said on screen; the default preset holds test points out (issue 29 item 4)."""

import pytest

from app.training.panel import TrainingPanel
from core.training.presets import DEFAULT_PRESET, PRESETS

WAIT = 15000


@pytest.fixture
def panel(qtbot):
    p = TrainingPanel(PRESETS[DEFAULT_PRESET])
    qtbot.addWidget(p)
    p.resize(1280, 720)
    p.show()
    qtbot.waitUntil(lambda: p.controller.idle and p.controller.weights is not None, timeout=WAIT)
    yield p
    p.shutdown()


def test_the_default_preset_has_test_points(panel):
    assert panel.config.test_ratio == 0.2
    assert len(panel.controller.data["test_points"]) == 25


def test_plane_shows_no_accuracy_curve_and_says_why_the_rate_fell(panel, qtbot):
    assert panel.metrics_plot.shows_accuracy
    panel.set_dataset("plane")
    qtbot.waitUntil(lambda: panel.controller.idle and panel.config.dataset == "plane", timeout=WAIT)
    assert panel.config.loss == "mse" and panel.config.lr == 0.1
    assert "learning rate 1 -> 0.1" in panel.status_label.text()
    qtbot.waitUntil(lambda: not panel.metrics_plot.shows_accuracy, timeout=WAIT)
    panel.set_dataset("moons")
    qtbot.waitUntil(lambda: panel.metrics_plot.shows_accuracy, timeout=WAIT)
