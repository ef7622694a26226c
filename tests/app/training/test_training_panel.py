"""The Training panel, driven as a user would: buttons, clicks on the plots and the diagram, files."""

import json
import math
import statistics
import time

import pytest
from PySide6.QtCore import QElapsedTimer, Qt, QThread, QTimer
from PySide6.QtWidgets import QAbstractButton, QAbstractSlider, QAbstractSpinBox, QComboBox

from app.training.panel import TrainingPanel
from core.engine import Value, topological_order
from core.training.config import MICROGRAD_DEMO, TrainConfig
from core.training.features import feature_row
from core.training.presets import PRESETS
from core.training.sample_graph import model_from_weights

FAST = TrainConfig(
    dataset="moons",
    n_samples=40,
    hidden_sizes=(4, 3),
    steps=100_000,
    lr=0.1,
    lr_decay=0.0,
    batch_size=None,
    test_ratio=0.25,
    activation=("tanh", "relu", "linear"),
)
WAIT = 15000


@pytest.fixture
def panel(qtbot):
    p = TrainingPanel(FAST)
    qtbot.addWidget(p)
    p.resize(1400, 860)
    p.show()
    qtbot.waitUntil(lambda: p.controller.idle and p.controller.weights is not None, timeout=WAIT)
    return p


def running_threads(panel):
    return [t for t in panel.findChildren(QThread) if t.isRunning()]


# -----------------------------------------------------------------------------
# play / pause / step


def test_play_then_pause_then_exactly_one_step(panel, qtbot):
    qtbot.mouseClick(panel.run_bar.play_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: len(panel.history) > 3, timeout=WAIT)
    assert panel.run_bar.play_button.text().endswith("Pause")
    qtbot.mouseClick(panel.run_bar.play_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: panel.controller.idle, timeout=WAIT)
    stopped = panel.steps
    qtbot.wait(150)
    assert panel.steps == stopped  # the counter stopped increasing
    assert panel.run_bar.step_label.text() == f"step {stopped:,}"
    qtbot.mouseClick(panel.run_bar.step_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: panel.controller.idle and panel.steps == stopped + 1, timeout=WAIT)
    qtbot.wait(100)
    assert panel.steps == stopped + 1
    assert len(panel.history) == stopped + 1
    assert panel.history.column("step")[-1] == stopped


def test_the_curves_follow_the_history(panel, qtbot):
    for _ in range(3):
        panel.step()
    qtbot.waitUntil(lambda: panel.controller.idle and panel.steps == 3, timeout=WAIT)
    plot = panel.metrics_plot
    xs, ys = plot.train_loss.getData()
    assert list(xs) == [0, 1, 2] and list(ys) == list(panel.history.column("loss"))
    assert plot.test_loss.getData()[1] is not None  # FAST has a test set
    panel.reset()  # a new run clears the curves but keeps both plots
    qtbot.waitUntil(lambda: panel.controller.idle, timeout=WAIT)
    assert plot.loss_item in plot.ci.items and plot.acc_item in plot.ci.items
    assert plot.train_loss.getData()[0] is None or len(plot.train_loss.getData()[0]) == 0
    panel.output_box.log_check.setChecked(True)
    assert plot.loss_item.ctrl.logYCheck.isChecked()


def test_step_while_playing_pauses_then_steps_once(panel, qtbot):
    panel.play()
    qtbot.waitUntil(lambda: panel.steps > 2, timeout=WAIT)
    panel.step()
    qtbot.waitUntil(lambda: panel.controller.idle, timeout=WAIT)
    n = panel.steps
    qtbot.wait(100)
    assert panel.steps == n and not panel.controller.playing


def test_closing_the_panel_mid_run_leaves_no_thread(qtbot):
    p = TrainingPanel(FAST)
    qtbot.addWidget(p)
    p.show()
    p.play()
    qtbot.waitUntil(lambda: p.steps > 2, timeout=WAIT)
    threads = p.findChildren(QThread)
    assert threads and any(t.isRunning() for t in threads)
    p.close()
    assert not any(t.isRunning() for t in threads)


def test_fifty_start_stop_cycles_do_not_hang(panel, qtbot):
    t0 = time.perf_counter()
    for k in range(50):
        panel.play()
        if k % 10 == 0:
            qtbot.waitUntil(lambda: panel.steps > 0, timeout=WAIT)
        panel.pause()
        panel.reset()
    qtbot.waitUntil(lambda: panel.controller.idle, timeout=WAIT)
    qtbot.waitUntil(lambda: len(running_threads(panel)) == 1, timeout=WAIT)
    print(f"\n50 start/stop cycles: {time.perf_counter() - t0:.2f} s")
    panel.close()
    assert not running_threads(panel)


def test_reset_gives_the_same_weights_and_reinitialise_new_ones(panel, qtbot):
    start = panel.controller.weights.weights
    panel.step()
    qtbot.waitUntil(lambda: panel.controller.idle and panel.steps == 1, timeout=WAIT)
    assert panel.controller.weights.weights != start
    panel.reset()
    qtbot.waitUntil(lambda: panel.controller.idle and panel.controller.weights is not None, timeout=WAIT)
    assert panel.controller.weights.weights == start and panel.steps == 0
    seed = panel.config.init_seed
    qtbot.mouseClick(panel.run_bar.reinit_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: panel.controller.idle and panel.controller.weights is not None, timeout=WAIT)
    assert panel.config.init_seed == seed + 1
    assert panel.network_box.init_seed_spin.value() == seed + 1
    assert panel.controller.weights.weights != start


def test_speed_limit_slider(panel, qtbot):
    panel.set_speed(10)
    assert panel.run_bar.speed_label.text() == "10/s"
    assert panel.controller._worker.min_interval == pytest.approx(0.1)
    panel.set_speed(None)
    assert panel.run_bar.speed_label.text() == "max" and panel.controller._worker.min_interval == 0.0


# -----------------------------------------------------------------------------
# responsiveness


def test_the_event_loop_answers_while_training(qtbot):
    p = TrainingPanel(MICROGRAD_DEMO.replace(steps=100_000))  # ~50 ms steps, ~66k Values each
    qtbot.addWidget(p)
    p.resize(1400, 860)
    p.show()
    qtbot.waitUntil(lambda: p.controller.idle, timeout=WAIT)
    p.play()
    gaps = []
    clock = QElapsedTimer()
    clock.start()
    last = [clock.elapsed()]

    def ping():
        now = clock.elapsed()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(ping)
    timer.start()
    qtbot.wait(2500)
    timer.stop()
    steps = p.steps
    p.pause()
    late = [g - 10 for g in gaps]
    print(
        f"\nevent-loop latency while training: max {max(late)} ms, median {statistics.median(late)} ms "
        f"over {len(gaps)} pings, {steps} steps in 2.5 s"
    )
    assert steps > 0
    assert max(late) < 250


# -----------------------------------------------------------------------------
# divergence


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_divergence_pauses_with_the_explanation(panel, qtbot):
    panel.settings_bar.lr_spin.setValue(1e6)
    assert panel.config.lr == 1e6
    panel.settings_bar.loss_combo.setCurrentText("mse")
    panel._edit(loss="mse")
    panel.play()
    qtbot.waitUntil(lambda: panel.controller.status == "diverged", timeout=WAIT)
    qtbot.waitUntil(lambda: panel.controller.idle, timeout=WAIT)
    assert "learning rate" in panel.status_label.text() and "too high" in panel.status_label.text()
    assert not panel.controller.playing
    assert not panel.run_bar.play_button.isEnabled()
    assert panel.controller.state is not None  # the state is kept
    assert running_threads(panel)  # the worker is paused, not dead
    assert panel.play() is False
    # lowering the learning rate and resetting recovers
    panel.settings_bar.lr_spin.setValue(0.1)
    panel.reset()
    qtbot.waitUntil(lambda: panel.controller.idle, timeout=WAIT)
    assert panel.controller.status == "paused" and panel.run_bar.play_button.isEnabled()


# -----------------------------------------------------------------------------
# data


def test_csv_import_good_file(panel, qtbot, tmp_path):
    path = tmp_path / "points.csv"
    path.write_text("x1,x2,label\n0,0,0\n1,1,1\n0.5,0.2,1\n-1,0.3,0\n")
    ok, message = panel.import_csv(str(path))
    assert ok and "imported 4 points" in message
    assert panel.config.points == ((0.0, 0.0), (1.0, 1.0), (0.5, 0.2), (-1.0, 0.3))
    assert panel.config.labels == (-1.0, 1.0, 1.0, -1.0)
    qtbot.waitUntil(
        lambda: panel.controller.data is not None and len(panel.controller.all_points()[0]) == 4, timeout=WAIT
    )
    assert not any(b.isChecked() for b in panel.data_box.dataset_buttons.values())


def test_csv_import_bad_file_names_the_line_and_imports_nothing(panel, tmp_path):
    before = panel.config
    path = tmp_path / "bad.csv"
    path.write_text("x1,x2,label\n0,0,0\n1,oops,1\n")
    ok, message = panel.import_csv(str(path))
    assert not ok and "line 3" in message and "Nothing was imported" in message
    assert "line 3" in panel.data_box.data_message.text()
    assert panel.config == before


def test_clicks_on_the_data_plot_add_and_remove_points(panel, qtbot):
    n = len(panel.controller.all_points()[0])
    plot = panel.data_plot
    pos = plot.scene_pos_of(0.1, 0.2)
    qtbot.mouseClick(plot.viewport(), Qt.LeftButton, pos=pos.toPoint() if hasattr(pos, "toPoint") else pos)
    qtbot.waitUntil(lambda: len(panel.controller.all_points()[0]) == n + 1, timeout=WAIT)
    points, labels = panel.controller.all_points()
    k = min(range(len(points)), key=lambda i: (points[i][0] - 0.1) ** 2 + (points[i][1] - 0.2) ** 2)
    assert abs(points[k][0] - 0.1) < 0.05 and abs(points[k][1] - 0.2) < 0.05 and labels[k] == 1.0
    plot.handle_click(2.0, -1.0, Qt.RightButton)
    plot.handle_click(2.1, -1.0, Qt.LeftButton, Qt.ShiftModifier)
    qtbot.waitUntil(lambda: len(panel.controller.all_points()[0]) == n + 3, timeout=WAIT)
    assert panel.controller.all_points()[1][-2:] == [-1.0, -1.0]
    plot.handle_click(2.05, -1.0, Qt.LeftButton, Qt.ControlModifier)
    qtbot.waitUntil(lambda: len(panel.controller.all_points()[0]) == n + 2, timeout=WAIT)


def test_drawing_points_keeps_the_weights_and_the_step(panel, qtbot):
    panel.step()
    qtbot.waitUntil(lambda: panel.controller.idle and panel.steps == 1, timeout=WAIT)
    weights = panel.controller.weights.weights
    panel.data_plot.handle_click(0.0, 0.0, Qt.LeftButton)
    qtbot.waitUntil(lambda: panel.controller.idle and len(panel.controller.all_points()[0]) == 41, timeout=WAIT)
    assert panel.steps == 1 and panel.controller.weights.weights == weights


def test_dataset_buttons_and_regenerate(panel, qtbot):
    qtbot.mouseClick(panel.data_box.dataset_buttons["spiral"], Qt.LeftButton)
    assert panel.config.dataset == "spiral"
    seed = panel.config.data_seed
    qtbot.mouseClick(panel.data_box.regenerate_button, Qt.LeftButton)
    assert panel.config.data_seed == seed + 1
    qtbot.waitUntil(lambda: panel.controller.idle, timeout=WAIT)


# -----------------------------------------------------------------------------
# the network diagram


def test_layer_and_neuron_buttons_change_the_network(panel, qtbot):
    panel.network_box.add_layer_button.click()
    assert panel.config.hidden_sizes == (4, 3, 4)
    assert len(panel.config.activation) == 4 and panel.config.activation[-1] == "linear"
    panel.network_view.neuronsChangeRequested.emit(0, +1)
    assert panel.config.hidden_sizes == (5, 3, 4)
    panel.network_box.remove_layer_button.click()
    assert panel.config.hidden_sizes == (5, 3)
    panel.network_box.set_activation(1, "sigmoid")
    assert panel.config.activation == ("tanh", "sigmoid", "linear")
    qtbot.waitUntil(lambda: panel.controller.idle and panel.controller.weights is not None, timeout=WAIT)
    assert len(panel.controller.weights.weights[0]) == 5
    assert ("neuron", 0, 4) in panel.network_view.neurons


def test_clicking_an_input_feature_toggles_it(panel, qtbot):
    view = panel.network_view
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=view.item_pos(("feature", "x1*x2")))
    assert panel.config.features == ("x1", "x2", "x1*x2")
    panel.network_box.toggle_feature("x1")
    panel.network_box.toggle_feature("x2")
    panel.network_box.toggle_feature("x1*x2")  # the last one stays
    assert panel.config.features == ("x1*x2",)
    assert "at least one input feature" in panel.status_label.text()


def test_clicking_a_neuron_emits_its_one_sample_graph(panel, qtbot):
    panel.step()
    qtbot.waitUntil(lambda: panel.controller.idle and panel.steps == 1, timeout=WAIT)
    view = panel.network_view
    with qtbot.waitSignal(panel.openGraph, timeout=WAIT) as signal:
        qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=view.item_pos(("neuron", 1, 2)))
    root, title = signal.args
    assert isinstance(root, Value)
    assert "L1.n2" in title and "training point #0" in title and "step 1" in title
    # the data equal the float forward of the same weights for the first training point
    cfg = panel.config
    x1, x2 = panel.controller.data["train_points"][0]
    model = model_from_weights(cfg, panel.controller.weights.weights)
    x = feature_row(x1, x2, cfg.features)
    assert root.data == model.layers[1].forward_floats(model.layers[0].forward_floats(x))[2]
    # the graph: one sample, both layers' parameters, inputs as labelled leaves, grads filled in
    nodes = topological_order(root)
    leaves = {v.label for v in nodes if not v._prev}
    assert {"x1", "x2", "L0.n0.w0", "L1.n2.b"} <= leaves and "L1.n1.b" not in leaves
    assert root.grad == 1.0
    w = next(v for v in nodes if v.label == "L1.n2.w1")
    assert w.grad == next(v for v in nodes if v.label == "L0.n1").data  # d(w·h + ...)/dw = h


def test_the_graph_through_the_loss_of_a_picked_sample(panel, qtbot):
    points = panel.controller.data["train_points"]
    panel.output_box.pick_mode.setChecked(True)
    panel.data_plot.handle_click(points[5][0] + 1e-3, points[5][1], Qt.LeftButton)
    assert panel.graph.sample[3] == 5
    panel.network_box.graph_target.setCurrentIndex(1)
    with qtbot.waitSignal(panel.openGraph, timeout=WAIT) as signal:
        panel.open_neuron_graph(2, 0)
    root, title = signal.args
    assert "loss of" in title and "#5" in title
    cfg = panel.config
    model = model_from_weights(cfg, panel.controller.weights.weights)
    score = model.forward_floats(feature_row(*points[5], cfg.features))
    y = panel.controller.data["train_labels"][5]
    assert root.data == pytest.approx(max(0.0, 1.0 - y * score))


def test_follow_live_emits_new_graphs_while_training(panel, qtbot):
    panel.network_box.follow_check.setChecked(True)
    panel.open_neuron_graph(1, 0)
    received = []
    panel.liveGraphUpdated.connect(lambda root, title: received.append((root, title)))
    panel.play()
    qtbot.waitUntil(lambda: len(received) >= 2, timeout=WAIT)
    panel.pause()
    assert all(isinstance(r, Value) for r, _ in received)
    assert received[0][0] is not received[-1][0]


def test_editing_a_weight_while_paused(panel, qtbot):
    view = panel.network_view
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=view.item_pos(("weight", 1, 0, 2)))
    assert panel.network_box.weight_name.text() == "L1.n0.w2"
    assert panel.network_box.weight_spin.isEnabled()
    boundary = panel.controller.boundary
    panel.network_box.weight_spin.setValue(2.5)
    qtbot.waitUntil(lambda: panel.controller.idle and panel.controller.weights.weights[1][0][2] == 2.5, timeout=WAIT)
    assert panel.controller.boundary is not boundary  # redrawn from the edited model
    assert "L1.n0.w2 set to 2.5" in panel.status_label.text()
    panel.play()
    assert not panel.network_box.weight_spin.isEnabled()
    assert panel.set_weight(1, 0, 2, 0.0) is False


def test_hover_tooltips_show_weight_and_grad(panel, qtbot):
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    view = panel.network_view
    text = view.tooltip_for(("weight", 0, 1, 0))
    assert text.startswith("L0.n1.w0") and "value" in text and "grad" in text
    assert "bias" in view.tooltip_for(("neuron", 0, 1))
    pos = view.item_pos(("weight", 1, 2, 0))
    assert view.key_at(pos) == ("weight", 1, 2, 0)
    event = QHelpEvent(QEvent.ToolTip, pos, view.viewport().mapToGlobal(pos))
    QApplication.sendEvent(view.viewport(), event)
    assert QToolTip.text().startswith("L1.n2.w0")
    QToolTip.hideText()


# -----------------------------------------------------------------------------
# sessions and presets


def test_session_save_then_open_round_trip(panel, qtbot, tmp_path):
    for _ in range(3):
        panel.step()
    qtbot.waitUntil(lambda: panel.controller.idle and panel.steps == 3, timeout=WAIT)
    path = str(tmp_path / "run.json")
    with qtbot.waitSignal(panel.sessionSaved, timeout=WAIT):
        panel.save_session(path)
    saved = json.loads(open(path).read())
    assert saved["format"] == "backprop-studio.training" and saved["schema_version"] == 1
    state = panel.controller.state
    history = panel.history.to_dict()

    other = TrainingPanel()
    qtbot.addWidget(other)
    qtbot.waitUntil(lambda: other.controller.idle, timeout=WAIT)
    assert other.open_session(path)
    qtbot.waitUntil(lambda: other.controller.idle and other.controller.state is not None, timeout=WAIT)
    assert other.config == panel.config
    assert other.controller.state == json.loads(json.dumps(state))
    assert other.history.to_dict() == history
    assert other.steps == 3 and other.run_bar.step_label.text() == "step 3"
    # and it trains on exactly as the original
    panel.step()
    other.step()
    qtbot.waitUntil(
        lambda: panel.steps == 4 and other.steps == 4 and panel.controller.idle and other.controller.idle, timeout=WAIT
    )
    assert other.controller.weights.weights == panel.controller.weights.weights
    other.close()


def test_opening_a_bad_session_keeps_the_run(panel, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "backprop-studio.training", "schema_version": 9}')
    token = panel.controller.token
    assert not panel.open_session(str(path))
    assert "newer Backprop Studio" in panel.status_label.text()
    assert panel.controller.token == token


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_saving_a_diverged_run_with_nan_weights_is_refused_clearly(panel, qtbot, tmp_path):
    qtbot.waitUntil(lambda: panel.controller.state is not None, timeout=WAIT)
    panel.controller.state = json.loads(json.dumps(panel.controller.state))
    panel.controller.state["model"][0][0][0] = math.nan
    path = tmp_path / "nan.json"
    panel.save_session(str(path))
    assert "not saved" in panel.status_label.text() and "diverged" in panel.status_label.text()
    assert not path.exists()


def test_presets_include_the_micrograd_demo(panel, qtbot):
    names = [panel.run_bar.preset_combo.itemText(i) for i in range(panel.run_bar.preset_combo.count())]
    assert names[0].startswith("micrograd demo") and "spiral, 2 tanh layers" in names
    panel.apply_preset(names[0])
    assert panel.config.replace(neuron_resolution=0) == PRESETS[names[0]]  # micrograd's demo, 25 points to test on
    assert PRESETS[names[0]] == MICROGRAD_DEMO.replace(n_samples=125, test_ratio=0.2)
    assert panel.run_bar.preset_combo.currentText() == names[0]
    panel.settings_bar.lr_spin.setValue(0.5)
    assert panel.run_bar.preset_combo.currentText() == "custom"
    qtbot.waitUntil(lambda: panel.controller.idle, timeout=WAIT)
    for name, cfg in PRESETS.items():
        assert isinstance(cfg, TrainConfig), name


def test_every_control_has_a_tooltip(panel):
    controls = [
        w
        for kind in (QAbstractButton, QAbstractSpinBox, QComboBox, QAbstractSlider)
        for w in panel.findChildren(kind)
        if w.isVisibleTo(panel) and not w.objectName().startswith("qt_")
    ]
    missing = [
        f"{type(w).__name__} {getattr(w, 'text', lambda: '')()!r}"
        for w in controls
        if not w.toolTip() and w.parent().objectName() != "qt_spinbox_lineedit"
    ]
    assert not missing, missing


def test_screenshot_renders(panel, qtbot, tmp_path):
    panel.play()
    qtbot.waitUntil(lambda: panel.steps > 5, timeout=WAIT)
    panel.pause()
    qtbot.waitUntil(lambda: panel.controller.idle, timeout=WAIT)
    image = panel.grab()
    assert image.width() > 1000 and not image.isNull()
