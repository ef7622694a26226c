"""The DATA column of the Training panel: which points the network learns from.

Seven dataset thumbnails (each drawn from the generator it stands for; the
last two, plane and multi-gaussian, are regression problems), the test
share, noise, number of points, the data seed, Regenerate and Import CSV, and
a line that says how many points train and how many are held out.

`DataBox` only shows a config (`show_config`) and reports edits:
`datasetChosen(name)` and `edited(dict)` with the changes to the config
(`{"noise": 0.1}`); Regenerate and Import are plain buttons the panel wires.
`read_points_csv(path)` reads a CSV of x1,x2,label lines, or says in one
sentence why it cannot.
"""

import os

import numpy as np
from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QButtonGroup,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.training.number_field import NumberField
from app.training.plots import NEGATIVE, POSITIVE, diverging_lut
from app.training.widgets import caption, heading, set_silently
from core.training.config import SETTING_NAMES, setting_problem
from core.training.datasets import DATASETS, REGRESSION_DATASETS, make_dataset, parse_csv

COLUMN_WIDTH = 238


def dataset_icon(name, size=52):
    """A thumbnail of a dataset: its points on white, in the class colours (a regression
    problem's points coloured by their target)."""
    points, labels = make_dataset(name, 160, 0.08, 3)
    pixmap = QPixmap(size, size)
    pixmap.fill(QColor("#ffffff"))
    xs = np.array([p[0] for p in points])
    ys = np.array([p[1] for p in points])
    lo_x, hi_x, lo_y, hi_y = xs.min(), xs.max(), ys.min(), ys.max()
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.Antialiasing)
    painter.setPen(Qt.NoPen)
    lut = diverging_lut()
    for x, y, label in zip(xs, ys, labels):
        if name in REGRESSION_DATASETS:  # the target, -1..+1, on the output's colour map
            painter.setBrush(QColor(*lut[round((label + 1.0) / 2.0 * (len(lut) - 1))]))
        else:
            painter.setBrush(QColor(POSITIVE if label > 0 else NEGATIVE))
        px = 4 + (x - lo_x) / (hi_x - lo_x) * (size - 8)
        py = size - 4 - (y - lo_y) / (hi_y - lo_y) * (size - 8)
        painter.drawEllipse(int(px) - 2, int(py) - 2, 4, 4)
    painter.end()
    return QIcon(pixmap)


def read_points_csv(path):
    """(points, labels) from a file of x1,x2,label lines; ValueError with a message for the user
    (the file, what is wrong, and that nothing was imported) if it cannot be used."""
    name = os.path.basename(path)
    try:
        with open(path, encoding="utf-8-sig") as f:
            text = f.read()
        points, labels = parse_csv(text)
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"{name}: cannot read it ({e})") from e
    except ValueError as e:
        raise ValueError(f"{name}: {e}. Nothing was imported") from e
    if len(points) < 2:
        raise ValueError(f"{name}: at least 2 points are needed")
    return points, labels


class DataBox(QWidget):
    """Dataset, test share, noise, points, data seed; Regenerate, Import CSV; what the run trains on."""

    datasetChosen = Signal(str)
    edited = Signal(dict)  # changes to the config, e.g. {"noise": 0.1}

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setFixedWidth(COLUMN_WIDTH)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(heading("DATA"))
        layout.addWidget(caption("Which dataset do you want to use?"))
        layout.addLayout(self._build_datasets())
        layout.addLayout(self._build_form())
        buttons = QHBoxLayout()
        self.regenerate_button = QPushButton("Regenerate")
        self.regenerate_button.setToolTip("New points from the next data seed (starts a new run)")
        self.import_button = QPushButton("Import CSV…")
        self.import_button.setToolTip(
            "Load points from a CSV file of x1,x2,label lines (labels 0/1 or -1/1); "
            "a bad line is named and nothing is imported"
        )
        buttons.addWidget(self.regenerate_button)
        buttons.addWidget(self.import_button)
        layout.addLayout(buttons)
        self.data_summary = QLabel("")
        self.data_summary.setStyleSheet("color: #111827;")
        self.data_summary.setToolTip("How many points the network trains on, and how many are held out")
        layout.addWidget(self.data_summary)
        self.data_message = QLabel("")
        self.data_message.setWordWrap(True)
        self.data_message.setToolTip("Messages about the data (e.g. why a CSV was refused)")
        layout.addWidget(self.data_message)
        hint = QLabel(
            f"<b>Click the plot</b> to draw data:<br>left click: <span style='color:{POSITIVE}'>●</span> "
            f"blue (+1)<br>right or Shift+click: <span style='color:{NEGATIVE}'>●</span> orange (−1)<br>"
            "Ctrl+click: remove the nearest"
        )
        hint.setStyleSheet("color: #4b5563;")
        hint.setWordWrap(True)
        hint.setToolTip("Drawn points are added to the run without resetting the weights")
        layout.addWidget(hint)
        self.hint = hint  # the panel hides it when the window is short (presenter 2x)
        layout.addStretch(1)
        self.setStyleSheet(
            "QToolButton#dataset { border: 2px solid transparent; border-radius: 4px; }"
            "QToolButton#dataset:checked { border: 2px solid #374151; }"
        )
        self._connect()

    def _build_datasets(self):
        grid = QGridLayout()
        grid.setSpacing(4)
        self.dataset_buttons = {}
        self.dataset_group = QButtonGroup(self)
        self.dataset_group.setExclusive(True)
        for k, name in enumerate(DATASETS):
            button = QToolButton()
            button.setObjectName("dataset")
            button.setCheckable(True)
            button.setIcon(dataset_icon(name))
            button.setIconSize(QSize(52, 52))
            button.setText(name)
            button.setToolButtonStyle(Qt.ToolButtonTextUnderIcon)
            if name in REGRESSION_DATASETS:
                button.setToolTip(
                    f"Generate the '{name}' regression problem: each point has a number from -1 to +1 to "
                    "predict (its colour), and the loss is mse (starts a new run)"
                )
            else:
                button.setToolTip(f"Generate the '{name}' dataset (starts a new run)")
            self.dataset_group.addButton(button)
            self.dataset_buttons[name] = button
            grid.addWidget(button, k // 3, k % 3)
        return grid

    def _build_form(self):
        form = QGridLayout()
        form.setHorizontalSpacing(6)
        form.setVerticalSpacing(4)
        self.ratio_slider = QSlider(Qt.Horizontal)
        self.ratio_slider.setRange(0, 90)
        self.ratio_slider.setSingleStep(5)
        self.ratio_slider.setPageStep(10)
        self.ratio_label = QLabel("0%")
        self.ratio_slider.setToolTip(
            "The share of the points held out as test data (hollow on the plot); they are never trained on"
        )
        self.ratio_label.setToolTip(self.ratio_slider.toolTip())
        form.addWidget(caption("Test data"), 0, 0)
        form.addWidget(self.ratio_slider, 0, 1)
        form.addWidget(self.ratio_label, 0, 2)
        self.noise_spin = NumberField(
            SETTING_NAMES["noise"],
            "Noise: the standard deviation of the jitter added to each coordinate (a number >= 0)",
            lambda value: setting_problem("noise", value),
            zero_step=0.05,
        )
        self.noise_spin.problem.connect(lambda text: self.show_message(text, ok=False))
        form.addWidget(caption("Noise"), 1, 0)
        form.addWidget(self.noise_spin, 1, 1, 1, 2)
        self.samples_spin = QSpinBox()
        self.samples_spin.setRange(2, 2000)
        self.samples_spin.setSingleStep(10)
        self.samples_spin.setKeyboardTracking(False)
        self.samples_spin.setToolTip("How many points to generate (more points: slower full-batch steps)")
        form.addWidget(caption("Points"), 2, 0)
        form.addWidget(self.samples_spin, 2, 1, 1, 2)
        self.data_seed_spin = QSpinBox()
        self.data_seed_spin.setRange(0, 2_000_000_000)
        self.data_seed_spin.setKeyboardTracking(False)
        self.data_seed_spin.setToolTip("The seed of the data generator and of the train/test split")
        form.addWidget(caption("Data seed"), 3, 0)
        form.addWidget(self.data_seed_spin, 3, 1, 1, 2)
        return form

    def _connect(self):
        def edit(**changes):
            self.edited.emit(changes)

        for name, button in self.dataset_buttons.items():
            button.clicked.connect(lambda _=False, n=name: self.datasetChosen.emit(n))
        slider = self.ratio_slider
        slider.valueChanged.connect(lambda v: self.ratio_label.setText(f"{v}%"))
        # a drag is one edit, on release; the keyboard and clicks on the groove edit at once
        slider.sliderReleased.connect(lambda: edit(test_ratio=slider.value() / 100))
        slider.valueChanged.connect(lambda v: None if slider.isSliderDown() else edit(test_ratio=v / 100))
        self.noise_spin.edited.connect(lambda v: edit(noise=v))
        self.samples_spin.valueChanged.connect(lambda v: edit(n_samples=v))
        self.data_seed_spin.valueChanged.connect(lambda v: edit(data_seed=v))

    # -- showing ----------------------------------------------------------------

    def show_config(self, cfg):
        custom = cfg.points is not None  # drawn or imported points: no generator settings apply

        def apply():
            self.ratio_slider.setValue(round(cfg.test_ratio * 100))
            self.ratio_label.setText(f"{round(cfg.test_ratio * 100)}%")
            self.noise_spin.show_value(cfg.noise)
            self.samples_spin.setValue(cfg.n_samples)
            self.data_seed_spin.setValue(cfg.data_seed)
            self.dataset_group.setExclusive(False)
            for name, button in self.dataset_buttons.items():
                button.setChecked(not custom and name == cfg.dataset)
            self.dataset_group.setExclusive(True)
            for w in (self.noise_spin, self.samples_spin, self.data_seed_spin):
                w.setEnabled(not custom)

        set_silently(
            [
                self.ratio_slider,
                self.noise_spin,
                self.samples_spin,
                self.data_seed_spin,
                *self.dataset_buttons.values(),
            ],
            apply,
        )

    def show_data(self, data, source):
        self.data_summary.setText(
            f"{len(data['train_points'])} training · {len(data['test_points'])} test points ({source})"
        )

    def show_message(self, text, ok=True):
        self.data_message.setStyleSheet("color: #047857;" if ok else "color: #b91c1c;")
        self.data_message.setText(text)
