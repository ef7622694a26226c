"""TrainConfig: frozen, round-trips through JSON, and refuses bad or unbounded settings naming the field."""

import dataclasses
import json

import pytest

from core.files import training_session
from core.lessons.format import LessonError, load_lesson
from core.training.config import MICROGRAD_DEMO, ConfigError, TrainConfig, parameter_count, setting_problem
from core.training.features import FEATURES
from core.training.loop import train
from core.training.trainer import Trainer

SMALL = TrainConfig(
    dataset="moons",
    n_samples=40,
    hidden_sizes=(8,),
    steps=30,
    lr=0.5,
    test_ratio=0.25,
    boundary_every=10,
    boundary_resolution=12,
)


def run(cfg, **kwargs):
    return list(train(cfg, **kwargs))


def test_demo_preset_is_micrograds_setup():
    cfg = MICROGRAD_DEMO
    assert (cfg.dataset, cfg.n_samples, cfg.noise) == ("moons", 100, 0.1)
    assert (cfg.hidden_sizes, cfg.activation, cfg.loss, cfg.l2_alpha) == ((16, 16), "relu", "hinge", 1e-4)
    assert (cfg.optimizer, cfg.lr, cfg.lr_decay, cfg.batch_size, cfg.steps) == ("sgd", 1.0, 0.9, None, 100)
    assert repr(Trainer(cfg).model).startswith("MLP of [Layer of [ReLUNeuron(2), ")


def test_config_round_trips_through_json_and_is_frozen():
    cfg = SMALL.replace(activation=("tanh", "linear"), batch_size=4)
    again = TrainConfig.from_dict(json.loads(json.dumps(cfg.to_dict())))
    assert again == cfg and hash(again) == hash(cfg)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.lr = 2.0
    with pytest.raises(ValueError, match="unknown training settings: colour"):
        TrainConfig.from_dict({"colour": "red"})


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"dataset": "swirl"}, "dataset: unknown 'swirl'"),
        ({"features": ("x1", "x3")}, "features: unknown 'x3'"),
        ({"features": ()}, "at least one input feature"),
        ({"activation": ("relu",)}, "activation: 1 names for 3 layers"),
        ({"loss": "l1"}, "loss: unknown 'l1'"),
        ({"optimizer": "rmsprop"}, "optimizer: unknown 'rmsprop'"),
        ({"lr": 0.0}, "lr must be"),
        ({"batch_size": 0}, "batch_size"),
        ({"points": ((0.0, 0.0),)}, "points and labels must be given together"),
    ],
)
def test_bad_configs_say_what_is_wrong(changes, message):
    with pytest.raises(ValueError, match=message):
        MICROGRAD_DEMO.replace(**changes)


def test_explicit_points_replace_the_dataset():
    points = [[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]
    cfg = SMALL.replace(points=points, labels=[0, 0, 1, 1], test_ratio=0.0)
    assert cfg.labels == (-1.0, -1.0, 1.0, 1.0)
    trainer = Trainer(cfg)
    assert sorted(trainer.train_points) == sorted(map(tuple, points))
    result = run(cfg)[-1]
    assert result.status == "finished"


# -----------------------------------------------------------------------------
# limits on the work a file can ask for (issue 20, item 5)


@pytest.mark.parametrize(
    "changes, message",
    [
        (
            {"hidden_sizes": (10_000_000,)},
            "hidden_sizes: a layer of 10,000,000 neurons is more than the limit of 1,000",
        ),
        (
            {"hidden_sizes": (2,) * 101, "activation": "tanh"},
            "hidden_sizes: 101 hidden layers are more than the limit of 100",
        ),
        (
            {"hidden_sizes": (1000, 1000)},
            "hidden_sizes: the network would have 1,005,001 parameters, more than the limit of 100,000",
        ),
        ({"n_samples": 10_000_000}, "n_samples: 10,000,000 is more than the limit of 100,000"),
        (
            {"n_samples": 100_000},
            r"n_samples: 100,000 points x 337 parameters is 33,700,000, more than the limit of "
            r"10,000,000 for one training step",
        ),
        ({"steps": 10**9}, "steps: 1,000,000,000 is more than the limit of 10,000,000"),
        ({"batch_size": 10**9}, "batch_size: 1,000,000,000 is more than the limit of 100,000"),
        ({"lr": float("inf")}, "lr must be a number > 0 and finite"),
        ({"lr": float("nan")}, "lr must be a number > 0 and finite"),
        ({"boundary_resolution": 100_000}, "boundary_resolution must be an int from 2 to 500"),
        ({"neuron_resolution": 100_000}, "neuron_resolution must be an int from 0 to 100"),
    ],
)
def test_work_beyond_the_limits_is_refused_naming_the_field_and_the_limit(changes, message):
    with pytest.raises(ConfigError, match=message):
        MICROGRAD_DEMO.replace(**changes)


def test_too_many_points_are_refused_before_they_are_read():
    class Endless:
        """Ten million points that would take seconds to convert, if anything converted them."""

        def __len__(self):
            return 10_000_000

        def __iter__(self):
            raise AssertionError("the points were read")

    with pytest.raises(ConfigError, match="points: 10,000,000 points are more than the limit of 100,000"):
        SMALL.replace(points=Endless(), labels=Endless())


def test_the_largest_run_the_panel_offers_is_within_the_limits():
    # the panel's spin boxes: 6 layers of 16 neurons, every feature, 2,000 samples, 1,000,000 steps,
    # batches of 1,000, a learning rate up to 1e6
    cfg = MICROGRAD_DEMO.replace(
        hidden_sizes=(16,) * 6,
        features=FEATURES,
        n_samples=2000,
        steps=1_000_000,
        batch_size=1000,
        lr=1e6,
        neuron_resolution=16,
    )
    assert parameter_count(len(cfg.features), cfg.hidden_sizes) == 1505
    cfg.replace(batch_size=None)


def test_parameter_count_matches_the_model():
    for features, hidden in ((("x1", "x2"), (16, 16)), (FEATURES, (3, 5, 2)), (("x1",), ())):
        cfg = SMALL.replace(features=features, hidden_sizes=hidden, activation="tanh")
        assert parameter_count(len(features), hidden) == len(Trainer(cfg).params)


def test_a_lesson_asking_for_ten_million_neurons_is_refused_by_the_loader(tmp_path):
    # was: 63 s of building neurons, then MemoryError
    lesson = {
        "format": "backprop-studio.lesson",
        "schema_version": 1,
        "id": "huge",
        "title": "Huge",
        "summary": "a network no one can train",
        "order": 1,
        "steps": [{"text": "A big one.", "setup": {"network": {"hidden_sizes": [10000000]}}}],
    }
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(lesson), encoding="utf-8")
    with pytest.raises(
        LessonError, match="hidden_sizes: a layer of 10,000,000 neurons is more than the limit of 1,000"
    ) as caught:
        load_lesson(path)
    assert "steps[0].setup.network" in str(caught.value)


def test_a_session_asking_for_ten_million_samples_is_refused_by_the_loader(tmp_path):
    # was: 192 s and 2.7 GB of generating points
    trainer = Trainer(SMALL)
    path = tmp_path / "run.json"
    training_session.save(training_session.Session(SMALL, trainer.state(), training_session.empty_history(), {}), path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["config"]["n_samples"] = 10_000_000
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(
        training_session.SessionError, match="config: n_samples: 10,000,000 is more than the limit of 100,000"
    ):
        training_session.load(path)


# -----------------------------------------------------------------------------
# issue 17: L1, regression, no hidden layer, and one setting at a time


def test_l1_alpha_is_a_rate_like_l2_alpha():
    assert TrainConfig(l1_alpha=1e-3).l1_alpha == 1e-3
    for bad in (-1e-3, float("nan"), float("inf"), "0.1"):
        with pytest.raises(ConfigError, match="l1_alpha must be a number >= 0 and finite"):
            TrainConfig(l1_alpha=bad)


def test_a_regression_dataset_needs_mse():
    assert TrainConfig(dataset="plane", loss="mse").regression
    assert not TrainConfig().regression
    with pytest.raises(ConfigError, match="loss: plane is a regression problem .* needs the mse loss, not hinge"):
        TrainConfig(dataset="plane")


def test_no_hidden_layer_is_a_linear_model():
    cfg = TrainConfig(hidden_sizes=(), activation=("linear",))
    assert cfg.hidden_sizes == ()


def test_l1_alpha_is_written_only_when_used():
    assert "l1_alpha" not in TrainConfig().to_dict()
    assert TrainConfig(l1_alpha=0.5).to_dict()["l1_alpha"] == 0.5
    assert TrainConfig.from_dict(TrainConfig(l1_alpha=0.5).to_dict()) == TrainConfig(l1_alpha=0.5)


@pytest.mark.parametrize(
    "name, value, said",
    [
        ("lr", 1e-6, None),
        ("lr", 0.0, "Learning rate: lr must be a number > 0 and finite, got 0"),
        ("lr", -1.0, "Learning rate: lr must be a number > 0 and finite, got -1"),
        ("momentum", 1.0, "Momentum: momentum must be in [0, 1), got 1"),
        ("noise", -0.5, "Noise: noise must be a number >= 0 and finite, got -0.5"),
        ("l1_alpha", 1e-9, None),
    ],
)
def test_setting_problem_names_the_box_as_the_screen_does(name, value, said):
    assert setting_problem(name, value) == said
