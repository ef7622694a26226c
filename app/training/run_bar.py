"""The two bars above the Training panel's columns: running the training, and its settings.

`RunBar` is the Playground's top bar -- Reset, Play, Step, Re-initialise, the
step counter -- plus the speed limit, the live-plots switch, the presets and
the session files -- and, under them, the run's health warning (dead ReLUs, a
loss that exploded or stalled; core/training/health.py), which stays in view
while it holds. `SettingsBar` holds the settings that a running worker takes
on the fly: loss, optimizer, learning rate (and its decay), momentum, steps,
regularization (none, L1 or L2, and its rate) and the batch. Its number boxes
(number_field.py) take any float the core accepts, `1e-6` included, and say
what is wrong with one it refuses (`message`).

`RunBar` follows the controller by itself: the step counter, what Play says,
the speed limit and live plots. Its buttons are wired by the panel, whose
public API they call. `SettingsBar` only shows a config (`show_config`);
`edited(dict)` carries the changes to it (`{"lr": 0.05}`), ready for
`TrainConfig.replace`.
"""

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QLabel,
    QPushButton,
    QSlider,
    QSpinBox,
    QWidget,
)

from app.training.number_field import NumberField
from app.training.widgets import FlowLayout, caption, set_silently
from core.losses import LOSSES
from core.training.config import SETTING_NAMES, setting_problem
from core.training.presets import PRESETS, preset_name
from core.training.regularization import REGULARIZATIONS, choice_of, rates_for

MAX_SPEED = 60  # the slider's last notch means "max"

LOSS_TIPS = {
    "hinge": "hinge: mean(relu(1 - y·score)) -- micrograd's demo; zero once a point is right by a margin of 1",
    "mse": "mse: mean((score - y)²) with y = ±1, or the target of a regression problem (plane, multi-gaussian)",
    "bce": "bce: binary cross-entropy on the score as a logit, mean(log(1 + e^(-y·score)))",
}


class RunBar(QFrame):
    """Reset · Play · Step · Re-initialise, the step counter, speed, live plots, presets, Open/Save."""

    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.setObjectName("runbar")
        self.setStyleSheet("QFrame#runbar { background: #f3f4f6; border-radius: 6px; }")
        row = FlowLayout(self)  # wraps onto a second row when narrow (presenter 2x)
        row.setContentsMargins(10, 6, 10, 6)
        row.setSpacing(8)

        self.reset_button = QPushButton("⟲ Reset")
        self.reset_button.setToolTip("Start again from the same initial weights (same seed) and the same data")
        self.play_button = QPushButton("▶ Play")
        self.play_button.setToolTip("Train continuously (Space while the panel has focus); press again to pause")
        self.play_button.setMinimumWidth(96)
        self.play_button.setStyleSheet("QPushButton { font-weight: bold; }")
        self.step_button = QPushButton("Step ▸|")
        self.step_button.setToolTip("Pause and take exactly one training step: forward, zero_grad, backward, update")
        self.reinit_button = QPushButton("⚄ Re-initialise")
        self.reinit_button.setToolTip("Start again from NEW random initial weights (the init seed goes up by one)")
        for b in (self.reset_button, self.play_button, self.step_button, self.reinit_button):
            row.addWidget(b)

        self.step_label = QLabel("step 0")
        self.step_label.setToolTip("Training steps taken: updates of every weight since the start of the run")
        self.step_label.setStyleSheet(
            "font-family: 'DejaVu Sans Mono'; font-size: 18px; font-weight: bold; color: #111827; padding: 0 10px;"
        )
        self.step_label.setMinimumWidth(150)
        row.addWidget(self.step_label)

        row.addWidget(caption("Speed"))
        self.speed_slider = QSlider(Qt.Horizontal)
        self.speed_slider.setRange(1, MAX_SPEED)
        self.speed_slider.setValue(MAX_SPEED)
        self.speed_slider.setFixedWidth(110)
        self.speed_slider.setToolTip("Speed limit in steps per second; far right: as fast as possible")
        self.speed_label = QLabel("max")
        self.speed_label.setMinimumWidth(56)
        self.speed_label.setToolTip(self.speed_slider.toolTip())
        row.addWidget(self.speed_slider)
        row.addWidget(self.speed_label)

        self.live_check = QCheckBox("Live plots")
        self.live_check.setChecked(True)
        self.live_check.setToolTip(
            "Redraw the boundary and the network while training (off: only the curves "
            "and the step counter; training runs a little faster)"
        )
        row.addWidget(self.live_check)
        row.addStretch(1)

        row.addWidget(caption("Preset"))
        self.preset_combo = QComboBox()
        self.preset_combo.addItems(list(PRESETS))
        self.preset_combo.addItem("custom")
        self.preset_combo.setToolTip("Ready-made experiments; choosing one starts a new run")
        # the bar may narrow the box (names elided); the list always shows them whole
        self.preset_combo.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.preset_combo.setMinimumContentsLength(18)
        self.preset_combo.view().setMinimumWidth(self.preset_combo.view().sizeHintForColumn(0) + 24)
        self.preset_combo.setMaximumWidth(self.preset_combo.view().sizeHintForColumn(0) + 40)
        row.addWidget(self.preset_combo, 1)
        self.open_button = QPushButton("Open…")
        self.open_button.setToolTip("Open a saved training session (.json): its data, network, weights and curves")
        self.save_button = QPushButton("Save…")
        self.save_button.setToolTip("Save this training session (config, seeds, weights, curves) as JSON")
        row.addWidget(self.open_button)
        row.addWidget(self.save_button)

        self.speed_slider.valueChanged.connect(self._on_speed)
        self.live_check.toggled.connect(controller.set_live)
        controller.runStarted.connect(lambda: self.show_steps(controller.steps))
        controller.progressed.connect(self.show_steps)
        controller.idleReached.connect(lambda info: self.show_steps(info["steps"]))
        controller.statusChanged.connect(lambda status, _message: self.show_status(status))

    def _on_speed(self, value):
        speed = None if value >= MAX_SPEED else value
        self.speed_label.setText("max" if speed is None else f"{value}/s")
        self.controller.set_speed(speed)

    def set_speed(self, steps_per_second):
        """None (or 0) for as fast as possible."""
        self.speed_slider.setValue(
            MAX_SPEED if not steps_per_second else max(1, min(MAX_SPEED - 1, int(steps_per_second)))
        )

    def show_steps(self, steps):
        self.step_label.setText(f"step {steps:,}")

    def show_status(self, status):
        """'playing' 'paused' 'finished' 'diverged' 'error': Play says what a click does; a broken
        run can only be reset."""
        self.play_button.setText("❚❚ Pause" if status == "playing" else "▶ Play")
        runnable = status not in ("diverged", "error")
        self.step_button.setEnabled(runnable)
        self.play_button.setEnabled(runnable)

    def show_config(self, cfg):
        set_silently([self.preset_combo], lambda: self.preset_combo.setCurrentText(preset_name(cfg)))


class HealthBanner(QLabel):
    """The run's health warning in an amber box that stays in view while it holds (hidden when
    all is well): a dead ReLU layer, a loss that exploded or stalled, in the core's words."""

    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.setObjectName("healthBanner")
        self.setWordWrap(True)
        self.setStyleSheet(
            "QLabel#healthBanner { background: #fef3c7; color: #78350f; border: 1px solid #f59e0b;"
            " border-radius: 4px; padding: 4px 8px; }"
        )
        self.setToolTip("What looks wrong with this run, and what to try (checked at every step)")
        self.show_warning(controller.warning)
        controller.warningChanged.connect(self.show_warning)

    def show_warning(self, text):
        self.setText("\n".join(f"⚠ {line}" for line in text.splitlines()))
        self.setVisible(bool(text))


class SettingsBar(QWidget):
    """Loss, optimizer, learning rate, momentum, decay, steps, regularization, batch: edits that keep
    the weights."""

    edited = Signal(dict)  # changes to the config, e.g. {"lr": 0.05}
    message = Signal(str, bool)  # a refused entry, in words naming the box: (text, error)

    def __init__(self, parent=None):
        super().__init__(parent)
        row = FlowLayout(self)  # wraps onto a second row when narrow (presenter 2x)
        row.setContentsMargins(4, 0, 4, 0)
        row.setSpacing(6)

        def add(label, widget, tip):
            name = caption(label)
            name.setToolTip(tip)
            widget.setToolTip(tip)
            row.addWidget(name)
            row.addWidget(widget)
            row.addSpacing(8)

        self.loss_combo = QComboBox()
        self.loss_combo.addItems(list(LOSSES))
        add("Loss", self.loss_combo, "\n".join(LOSS_TIPS.values()))
        self.optimizer_combo = QComboBox()
        self.optimizer_combo.addItem("SGD", "sgd")
        self.optimizer_combo.addItem("Adam", "adam")
        add(
            "Optimizer",
            self.optimizer_combo,
            "SGD: p -= lr·v with v = momentum·v + grad\nAdam: per-weight step sizes from running averages of the "
            "gradient and its square",
        )
        self.lr_spin = self._field(
            "lr",
            "How far each step moves the weights against their gradient: any number > 0, e.g. 0.01 or 1e-6",
            zero_step=0.01,
        )
        add("Learning rate", self.lr_spin, self.lr_spin.tip)
        self.momentum_spin = self._field(
            "momentum", "SGD momentum in [0, 1): how much of the last step's velocity carries over"
        )
        add("Momentum", self.momentum_spin, self.momentum_spin.tip)
        self.decay_check = QCheckBox("decay")
        self.decay_check.setToolTip("Lower the learning rate linearly over the run: lr·(1 - d·k/steps)")
        row.addWidget(self.decay_check)
        self.decay_spin = self._field(
            "lr_decay", "d in [0, 1]: the fraction of the learning rate gone by the last step (micrograd: 0.9)"
        )
        row.addWidget(self.decay_spin)
        row.addSpacing(8)
        self.steps_spin = QSpinBox()
        self.steps_spin.setRange(1, 1_000_000)
        self.steps_spin.setKeyboardTracking(False)
        add(
            "Steps",
            self.steps_spin,
            "Play pauses after this many steps (the decay runs over them); Play again to continue",
        )
        self.reg_combo = QComboBox()
        self.reg_combo.addItems(list(REGULARIZATIONS))
        add(
            "Regularization",
            self.reg_combo,
            "A price on big weights, added to the loss:\nL1: α·Σ|w| (pulls small weights to exactly 0)\n"
            "L2: α·Σw² (shrinks big weights most; micrograd's demo)",
        )
        # the rate of the chosen penalty: it checks as the L2 rate does (both are numbers >= 0)
        self.rate_spin = self._field(
            "l2_alpha", "α, the regularization rate: a number >= 0, e.g. 1e-4", 1e-4, "Regularization rate"
        )
        add("α", self.rate_spin, self.rate_spin.tip)
        self.full_batch_check = QCheckBox("full batch")
        self.full_batch_check.setToolTip("Each step uses every training point (else a random mini-batch)")
        row.addWidget(self.full_batch_check)
        self.batch_spin = QSpinBox()
        self.batch_spin.setRange(1, 1000)
        self.batch_spin.setKeyboardTracking(False)
        self.batch_spin.setToolTip("Mini-batch size: the points drawn at random for each step")
        row.addWidget(self.batch_spin)
        row.addStretch(1)
        self._connect()

    def _field(self, name, tip, zero_step=0.1, label=None):
        """A NumberField for the config setting `name`, checked by the core's limits."""
        label = label or SETTING_NAMES[name]
        field = NumberField(label, tip, lambda value: setting_problem(name, value, label), zero_step)
        field.problem.connect(lambda text: self.message.emit(text, True))
        return field

    def _connect(self):
        def edit(**changes):
            self.edited.emit(changes)

        self.loss_combo.activated.connect(lambda i: edit(loss=self.loss_combo.itemText(i)))
        self.optimizer_combo.activated.connect(lambda i: edit(optimizer=self.optimizer_combo.itemData(i)))
        self.lr_spin.edited.connect(lambda v: edit(lr=v))
        self.momentum_spin.edited.connect(lambda v: edit(momentum=v))
        self.decay_check.toggled.connect(lambda on: edit(lr_decay=(self.decay_spin.value() or 0.9) if on else 0.0))
        self.decay_spin.edited.connect(lambda v: edit(lr_decay=v))
        self.steps_spin.valueChanged.connect(lambda v: edit(steps=v))
        self.reg_combo.activated.connect(lambda _i: edit(**self._rates()))
        self.rate_spin.edited.connect(lambda _v: edit(**self._rates()))
        self.full_batch_check.toggled.connect(lambda on: edit(batch_size=None if on else self.batch_spin.value()))
        self.batch_spin.valueChanged.connect(lambda v: edit(batch_size=v))

    def _rates(self):
        """{l1_alpha, l2_alpha} for the chosen penalty and its rate box."""
        return rates_for(self.reg_combo.currentText(), self.rate_spin.value())

    def show_config(self, cfg):
        def apply():
            self.loss_combo.setCurrentText(cfg.loss)
            self.optimizer_combo.setCurrentIndex(self.optimizer_combo.findData(cfg.optimizer))
            self.lr_spin.show_value(cfg.lr)
            self.momentum_spin.show_value(cfg.momentum)
            self.momentum_spin.setEnabled(cfg.optimizer == "sgd")
            self.decay_check.setChecked(cfg.lr_decay > 0)
            self.decay_spin.show_value(cfg.lr_decay)
            self.decay_spin.setEnabled(cfg.lr_decay > 0)
            self.steps_spin.setValue(cfg.steps)
            choice = choice_of(cfg.l1_alpha, cfg.l2_alpha)
            self.reg_combo.setCurrentText(choice)
            if choice != "none":  # "none" keeps the last rate shown, ready for L1 or L2 again
                self.rate_spin.show_value(cfg.l2_alpha if choice == "L2" else cfg.l1_alpha)
            self.rate_spin.setEnabled(choice != "none")
            # a regression problem (plane, multi-gaussian) needs mse: the other losses are for classes
            for i in range(self.loss_combo.count()):
                item = self.loss_combo.model().item(i)
                item.setEnabled(not cfg.regression or self.loss_combo.itemText(i) == "mse")
            self.full_batch_check.setChecked(cfg.batch_size is None)
            self.batch_spin.setValue(cfg.batch_size or 10)
            self.batch_spin.setEnabled(cfg.batch_size is not None)

        set_silently(
            [
                self.loss_combo,
                self.optimizer_combo,
                self.lr_spin,
                self.momentum_spin,
                self.decay_check,
                self.decay_spin,
                self.steps_spin,
                self.reg_combo,
                self.rate_spin,
                self.full_batch_check,
                self.batch_spin,
            ],
            apply,
        )
