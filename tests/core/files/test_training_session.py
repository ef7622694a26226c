"""Training session files: round trips, refusals, NaN handling, atomic writes."""

import json
import math
import os

import pytest

from core.files import training_session as ts
from core.training.config import TrainConfig
from core.training.trainer import Trainer

SMALL = TrainConfig(
    dataset="moons",
    n_samples=30,
    hidden_sizes=(4,),
    steps=50,
    lr=0.3,
    test_ratio=0.2,
    batch_size=8,
    optimizer="adam",
    data_seed=7,
    init_seed=11,
)


def trained(cfg=SMALL, steps=5):
    trainer = Trainer(cfg)
    history = ts.empty_history()
    for _ in range(steps):
        p = trainer.step()
        for key, value in zip(ts.HISTORY_KEYS, (p.step, p.loss, p.accuracy, p.test_loss, p.test_accuracy, p.lr)):
            history[key].append(value)
    return trainer, history


def session_of(trainer, history, meta=None):
    return ts.Session(trainer.cfg, trainer.state(), history, meta or {"title": "t"})


# -----------------------------------------------------------------------------
# round trips


def test_round_trip_restores_config_state_and_history(tmp_path):
    trainer, history = trained()
    path = tmp_path / "run.json"
    ts.save(session_of(trainer, history), path)
    loaded = ts.load(path)
    assert loaded.config == SMALL
    assert loaded.state == json.loads(json.dumps(trainer.state()))
    assert loaded.history == history
    assert loaded.meta == {"title": "t"}


def test_reopened_run_continues_exactly_like_the_original(tmp_path):
    trainer, history = trained()
    ts.save(session_of(trainer, history), tmp_path / "run.json")
    resumed = ts.load(tmp_path / "run.json").trainer()
    for _ in range(5):
        a, b = trainer.step(), resumed.step()
        assert a == b
    assert trainer.model.state() == resumed.model.state()


def test_file_has_the_format_tag_schema_version_and_sorted_keys(tmp_path):
    trainer, history = trained()
    text = ts.dumps(session_of(trainer, history))
    data = json.loads(text)
    assert data["format"] == "backprop-studio.training"
    assert data["schema_version"] == 1
    assert list(data) == sorted(data)
    assert data["config"]["data_seed"] == 7 and data["config"]["init_seed"] == 11


def test_drawn_points_round_trip():
    cfg = SMALL.replace(points=((0.0, 0.0), (1.0, 1.0), (0.5, -0.5)), labels=(1, -1, 1), test_ratio=0.0)
    trainer, history = trained(cfg, 2)
    loaded = ts.loads(ts.dumps(session_of(trainer, history)))
    assert loaded.config == cfg


def test_a_nan_loss_in_the_history_is_written_as_null_and_read_back_as_nan():
    trainer, history = trained(steps=2)
    history["loss"][1] = math.nan
    history["test_loss"][0] = None
    text = ts.dumps(session_of(trainer, history))
    assert "NaN" not in text
    data = json.loads(text)
    assert data["history"]["loss"][1] is None and data["history"]["test_loss"][0] is None
    loaded = ts.loads(text)
    assert math.isnan(loaded.history["loss"][1]) and math.isnan(loaded.history["test_loss"][0])


def test_a_run_without_test_set_keeps_its_history():
    trainer, history = trained(SMALL.replace(test_ratio=0.0), 3)
    loaded = ts.loads(ts.dumps(session_of(trainer, history)))
    assert all(math.isnan(x) for x in loaded.history["test_loss"])
    assert loaded.history["loss"] == history["loss"]


# -----------------------------------------------------------------------------
# refusing to write


def test_a_nan_weight_is_refused_with_a_message_naming_it(tmp_path):
    trainer, history = trained()
    state = trainer.state()
    state["model"][0][2][1] = math.nan
    with pytest.raises(ts.SessionError, match=r"L0\.n2\.w1 is nan.*diverged"):
        ts.save(ts.Session(SMALL, state, history), tmp_path / "bad.json")
    assert not os.listdir(tmp_path)  # nothing written, no temporary file left


def test_a_nan_bias_or_optimizer_memory_is_refused():
    trainer, history = trained()
    state = trainer.state()
    state["model"][0][0][-1] = math.inf
    with pytest.raises(ts.SessionError, match=r"L0\.n0\.b is inf"):
        ts.dumps(ts.Session(SMALL, state, history))
    state = trainer.state()
    state["optimizer"]["v"][3] = math.nan
    with pytest.raises(ts.SessionError, match=r"optimizer's v\[3\]"):
        ts.dumps(ts.Session(SMALL, state, history))


@pytest.mark.filterwarnings("ignore:overflow:RuntimeWarning")
def test_diverged_run_saves_if_its_weights_are_finite_else_refuses():
    trainer = Trainer(SMALL.replace(lr=1e6, optimizer="sgd", batch_size=None, loss="mse"))
    for _ in range(20):
        trainer.step()
        if trainer.diverged:
            break
    assert trainer.diverged
    finite = all(math.isfinite(x) for layer in trainer.model.state() for n in layer for x in n)
    session = ts.Session(trainer.cfg, trainer.state(), ts.empty_history())
    if finite:
        assert ts.loads(ts.dumps(session)).state["step"] == trainer.steps_done
    else:
        with pytest.raises(ts.SessionError, match="diverged"):
            ts.dumps(session)


# -----------------------------------------------------------------------------
# atomic writes


def test_save_replaces_an_old_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "run.json"
    path.write_text("old")
    trainer, history = trained()
    ts.save(session_of(trainer, history), path)
    assert os.listdir(tmp_path) == ["run.json"]
    assert json.loads(path.read_text())["format"] == ts.FORMAT


def test_a_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "run.json"
    path.write_text("old")
    trainer, history = trained()

    def broken(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(ts.os, "replace", broken)
    with pytest.raises(OSError):
        ts.save(session_of(trainer, history), path)
    assert path.read_text() == "old"
    assert os.listdir(tmp_path) == ["run.json"]


# -----------------------------------------------------------------------------
# refusing to read


def good_data():
    trainer, history = trained()
    return json.loads(ts.dumps(session_of(trainer, history)))


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.update(format="backprop-studio.graph"), "'graph' file, not a training session"),
        (lambda d: d.update(format="something"), "not a training session"),
        (lambda d: d.update(schema_version=2), "newer Backprop Studio"),
        (lambda d: d.update(schema_version="1"), "schema_version must be an integer"),
        (lambda d: d.update(extra=1), "unknown top-level field"),
        (lambda d: d.pop("state"), "no 'state' field"),
        (lambda d: d["config"].update(lr=-1), "config: lr must be a number > 0"),
        (lambda d: d["config"].update(colour="red"), "config: unknown training settings: colour"),
        (lambda d: d["state"]["model"].append([]), "state: does not fit the config"),
        (lambda d: d["state"]["model"][0][0].pop(), "state: does not fit the config"),
        (lambda d: d["state"]["model"][0][0].__setitem__(0, "x"), r"state: model\[0\]\[0\]\[0\]: expected a finite"),
        (lambda d: d["state"].pop("rng"), "state: missing rng"),
        (lambda d: d["state"].update(step=-3), "step must be an integer >= 0"),
        (lambda d: d["history"]["loss"].pop(), "columns differ in length"),
        (lambda d: d["history"]["loss"].__setitem__(0, "high"), r"history: loss\[0\] must be a number"),
    ],
)
def test_bad_sessions_are_refused_with_a_message(change, message):
    data = good_data()
    change(data)
    with pytest.raises(ts.SessionError, match=message):
        ts.loads(json.dumps(data))


def test_nan_tokens_and_broken_json_are_refused(tmp_path):
    text = ts.dumps(ts.loads(json.dumps(good_data())))
    with pytest.raises(ts.SessionError, match="NaN"):
        ts.loads(text.replace('"lr": 0.3', '"lr": NaN', 1))
    with pytest.raises(ts.SessionError, match=r"not valid JSON.*line 1"):
        ts.loads("{")
    with pytest.raises(ts.SessionError, match="empty"):
        ts.loads("  ")
    path = tmp_path / "broken.json"
    path.write_text("[1, 2]")
    with pytest.raises(ts.SessionError, match="broken.json: a training session is one JSON object"):
        ts.load(path)
    with pytest.raises(ts.SessionError, match="cannot read"):
        ts.load(tmp_path / "missing.json")


@pytest.mark.parametrize(
    "change, message",
    [
        # issue 20: 2**70 and -1 raised OverflowError from random.setstate (the app catches SessionError)
        (lambda rng: rng[1].__setitem__(5, 2**70), r"rng\[1\]\[5\] must be an integer from 0 to 2\*\*32 - 1"),
        (lambda rng: rng[1].__setitem__(0, -1), r"rng\[1\]\[0\] must be an integer from 0 to 2\*\*32 - 1, got -1"),
        (lambda rng: rng[1].__setitem__(7, 2**40), r"rng\[1\]\[7\]"),  # setstate would cut it silently
        (lambda rng: rng[1].__setitem__(624, 625), r"rng\[1\]\[624\] \(the position\)"),
        (lambda rng: rng[1].pop(), r"rng\[1\] must hold 625 integers, got 624"),
        (lambda rng: rng.__setitem__(0, 2), r"rng\[0\] \(the version\) must be 3"),
        (lambda rng: rng.__setitem__(2, "x"), r"rng\[2\] must be null or a finite number"),
    ],
)
def test_a_bad_rng_state_word_is_a_session_error_naming_it(change, message):
    data = good_data()
    change(data["state"]["rng"])
    with pytest.raises(ts.SessionError, match=message):
        ts.loads(json.dumps(data))


def test_numbers_too_large_for_a_float_are_session_errors_not_overflow_errors():
    data = good_data()
    data["state"]["model"][0][0][0] = 10**400
    with pytest.raises(ts.SessionError, match=r"state: model\[0\]\[0\]\[0\]: expected a finite number"):
        ts.loads(json.dumps(data))
    data = good_data()
    data["history"]["loss"][0] = 10**400
    with pytest.raises(ts.SessionError, match=r"history: loss\[0\]"):
        ts.loads(json.dumps(data))


def test_optimizer_memory_must_be_flat_numbers_so_what_loads_saves():
    # the hostile corpus found [[1, 2]] accepted by load and refused by save
    data = good_data()
    key = next(k for k, v in data["state"]["optimizer"].items() if isinstance(v, list))
    data["state"]["optimizer"][key][0] = [1.0, 2.0]
    with pytest.raises(ts.SessionError, match=rf"optimizer {key}\[0\]: expected a finite number"):
        ts.loads(json.dumps(data))


def test_duplicate_keys_are_refused_now_as_in_every_file_kind():
    # issue 15: the session reader alone accepted them
    text = json.dumps(good_data())
    with pytest.raises(ts.SessionError, match="'format' appears twice"):
        ts.loads('{"format": "x", ' + text[1:])


# -----------------------------------------------------------------------------
# the settings of issue 17: L1, regression, no hidden layer


@pytest.mark.parametrize(
    "changes",
    [
        {"l1_alpha": 1e-3, "l2_alpha": 0.0},
        {"dataset": "plane", "loss": "mse"},
        {"dataset": "multi-gaussian", "loss": "mse", "hidden_sizes": (), "activation": ("linear",)},
        {"hidden_sizes": ()},
        {"lr": 1e-6},
    ],
)
def test_new_settings_round_trip_and_continue_exactly(tmp_path, changes):
    trainer, history = trained(SMALL.replace(**changes))
    ts.save(session_of(trainer, history), tmp_path / "run.json")
    loaded = ts.load(tmp_path / "run.json")
    assert loaded.config == trainer.cfg
    resumed = loaded.trainer()
    for _ in range(3):
        assert resumed.step() == trainer.step()


def test_a_file_from_before_l1_opens_and_one_without_l1_has_no_l1_field(tmp_path):
    trainer, history = trained()
    data = ts.to_dict(session_of(trainer, history))
    assert "l1_alpha" not in data["config"]  # an older Backprop Studio still opens it
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    assert ts.load(path).config.l1_alpha == 0.0
