"""The Training workspace inside the main window: switching, neuron graphs on the canvas, closing mid-run."""

from PySide6.QtCore import Qt, QThread
from PySide6.QtGui import QKeySequence

from app.main_window import MainWindow
from app.startup import main
from app.training.panel import TrainingPanel
from app.training.workspace import GRAPH, TRAINING
from core.training.config import TrainConfig
from core.training.features import feature_row
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


def training(window, qtbot, cfg=FAST):
    """The Training workspace, with a small run ready."""
    window.actions["training workspace"].trigger()
    panel = window.training.panel
    panel.apply_config(cfg)
    qtbot.waitUntil(
        lambda: (
            panel.controller.idle
            and panel.controller.weights is not None
            and panel.config.hidden_sizes == cfg.hidden_sizes
        ),
        timeout=WAIT,
    )
    return panel


def running_threads(window):
    return [t for t in window.findChildren(QThread) if t.isRunning()]


# -----------------------------------------------------------------------------
# the two workspaces


def test_the_graph_workspace_is_the_default_and_the_panel_is_built_on_demand(window):
    assert window.training.current == GRAPH
    assert window.training.stack.currentWidget() is window.training.graph_page
    assert window.view.isVisible()
    assert not window.training.built and not running_threads(window)


def test_ctrl_2_shows_the_training_workspace_and_ctrl_1_brings_the_graph_back(window, qtbot):
    visible = {key for key, dock in window.docks.items() if dock.isVisible()}
    assert window.actions["training workspace"].shortcut() == QKeySequence("Ctrl+2")
    assert window.actions["graph workspace"].shortcut() == QKeySequence("Ctrl+1")
    qtbot.keyClick(window, Qt.Key_2, Qt.ControlModifier)
    panel = window.training.panel
    assert isinstance(panel, TrainingPanel) and panel.isVisible()
    assert window.training.current == TRAINING and window.actions["training workspace"].isChecked()
    assert not window.view.isVisible()
    assert not any(dock.isVisible() for dock in window.docks.values())  # the panel gets the whole window
    assert not window.actions["backward"].isEnabled() and not window.counts_label.isVisible()
    qtbot.keyClick(window, Qt.Key_1, Qt.ControlModifier)
    assert window.training.current == GRAPH and window.view.isVisible()
    assert {key for key, dock in window.docks.items() if dock.isVisible()} == visible
    assert window.actions["backward"].isEnabled() and window.counts_label.isVisible()


def test_menus_reach_the_training_workspace_and_its_sessions(window):
    view = [a.text() for a in window.menu("View").actions()]
    assert view[:2] == ["&Graph Workspace", "&Training Workspace"]
    file_menu = [a.text() for a in window.menu("File").actions()]
    quit_at = file_menu.index("&Quit")
    assert file_menu.index("Open &Training Session…") < quit_at
    assert file_menu.index("Save T&raining Session…") < quit_at
    assert window.toolbar.actions()[:2] == [window.actions["graph workspace"], window.actions["training workspace"]]


# -----------------------------------------------------------------------------
# training -> the graph canvas


def test_a_clicked_neuron_opens_its_graph_on_the_canvas_ready_for_the_debugger(window, qtbot):
    panel = training(window, qtbot)
    qtbot.mouseClick(panel.run_bar.play_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: panel.steps >= 3, timeout=WAIT)
    panel.pause()
    qtbot.waitUntil(lambda: panel.controller.idle, timeout=WAIT)

    panel.open_neuron_graph(1, 2)
    assert window.training.current == GRAPH and window.view.isVisible()
    session = window.session
    out = session.output_value
    assert out is not None and session.doc.nodes[session.doc.effective_output()].label == "L1.n2"
    # the canvas computes exactly the float forward of the panel's weights for the first training point
    cfg, c = panel.config, panel.controller
    model = model_from_weights(cfg, c.weights.weights)
    x = feature_row(*c.data["train_points"][0], cfg.features)
    assert out.data == model.layers[1].forward_floats(model.layers[0].forward_floats(x))[2]
    assert out.grad == 1.0
    # and the debugger steps through it
    window.debugger.controller.reset()
    window.debugger.controller.step()
    assert window.debugger.controller.position == 1 and window.debugger.controller.total > 1
    assert str(panel.steps) in window.statusBar().currentMessage()


def test_follow_live_refreshes_the_shown_graph_in_place(window, qtbot):
    panel = training(window, qtbot)
    panel.network_box.follow_check.setChecked(True)
    panel.open_neuron_graph(2, 0)
    doc = window.session.doc
    positions = {nid: node.pos for nid, node in doc.nodes.items()}
    first = window.session.output_value.data
    undo_entries = window.undo_stack.count()
    updates = []
    panel.liveGraphUpdated.connect(lambda root, title: updates.append(root.data))
    panel.play()
    qtbot.waitUntil(lambda: len(updates) >= 2 and window.session.output_value.data != first, timeout=WAIT)
    panel.pause()
    qtbot.waitUntil(lambda: panel.controller.idle, timeout=WAIT)
    assert window.session.doc is doc and {nid: n.pos for nid, n in doc.nodes.items()} == positions
    assert window.undo_stack.count() == undo_entries  # training is not an edit
    assert window.session.output_value.data == updates[-1]  # the canvas shows the newest weights
    # a graph the user opened since is left alone
    window.run_expression("a = 2.0\nb = a * 3.0")
    shown = window.session.doc.to_dict()
    panel.step()
    qtbot.waitUntil(lambda: panel.controller.idle and len(updates) >= 3, timeout=WAIT)
    assert window.session.doc.to_dict() == shown


def test_a_session_opened_from_the_file_menu_lands_in_the_panel(window, qtbot, tmp_path):
    panel = training(window, qtbot)
    panel.step()
    qtbot.waitUntil(lambda: panel.controller.idle and panel.steps == 1, timeout=WAIT)
    path = str(tmp_path / "run.json")
    with qtbot.waitSignal(panel.sessionSaved, timeout=WAIT):
        panel.save_session(path)
    panel.reset()
    qtbot.waitUntil(lambda: panel.controller.idle and panel.steps == 0, timeout=WAIT)
    assert panel.open_session(path)
    qtbot.waitUntil(lambda: panel.controller.idle and panel.steps == 1, timeout=WAIT)
    assert "run.json" in window.statusBar().currentMessage()


# -----------------------------------------------------------------------------
# closing


def test_closing_the_window_mid_run_stops_the_run_and_leaves_no_thread(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    panel = training(w, qtbot, FAST.replace(n_samples=400, hidden_sizes=(16, 16)))  # slower steps
    panel.play()
    qtbot.waitUntil(lambda: panel.steps > 2, timeout=WAIT)
    threads = running_threads(w)
    assert threads
    w.close()  # returns with the run stopped at its next step and joined: no thread outlives the window
    assert not any(t.isRunning() for t in threads)
    assert not running_threads(w)
    assert panel.steps < FAST.steps  # stopped mid-run, not run out


def test_closing_in_the_training_workspace_saves_the_graph_workspace_layout(window, qtbot):
    training(window, qtbot)
    saved = []
    window.window_state.save_ui_state = lambda: saved.append({k: d.isHidden() for k, d in window.docks.items()})
    window.close()
    assert saved and not all(saved[0].values())  # the docks were back when the layout was saved


def test_command_line_training_screenshot(qtbot, tmp_path):
    out = tmp_path / "training.png"
    code = main(
        [
            "--screenshot",
            str(out),
            "--workspace",
            "training",
            "--train-preset",
            "xor",
            "--train-steps",
            "3",
            "--size",
            "1440x900",
        ]
    )
    assert code == 0 and out.stat().st_size > 10_000
