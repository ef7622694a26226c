"""The hostile corpus (issue 20): thousands of broken files for every loader, and typed text
for the formula parser. Each must load, or be refused with the loader's own error -- never
hang, never crash with another exception -- and whatever loads must save back.

The files are made from a fixed seed (tests/core/files/hostile.py), so a failure names a case
that reproduces. Run with -s to see the counts.
"""

import json
import os
import random

import pytest

from core.document.expr import ExprError, parse
from core.files import graph_file, recovery, strict_json
from core.files import training_session as ts
from core.files.graph_file import FormatError
from core.lessons.format import LessonError, lesson_from_dict, load_lesson
from core.training.config import TrainConfig
from core.training.trainer import Trainer
from tests.core.files.hostile import fifo_guard, hostile_files, hostile_texts, special_paths

SEED = 20_20
FILES_PER_LOADER = 1000
TEXTS = 500

SNIPPET = "x = Value(2.0, label='x')\ny = Value(-3.0, label='y')\nf = x*y + y**2\n"


# -----------------------------------------------------------------------------
# One good file of every kind: the seeds the corpus grows from


def good_graph():
    doc = parse(SNIPPET)
    for k, node in enumerate(doc.nodes.values()):
        node.pos = (k * 120.0, (k % 3) * 80.0)
    return graph_file.dumps(doc, {"title": "hostile", "description": "the seed of the corpus"}).encode()


def good_recovery():
    return recovery.dumps(
        parse(SNIPPET), {"title": "g"}, [], "/home/ana/g.json", "2026-01-01T00:00:00Z", "g.json"
    ).encode()


def good_lesson():
    lesson = {
        "format": "backprop-studio.lesson",
        "schema_version": 1,
        "id": "hostile",
        "title": "Hostile",
        "summary": "The seed of the corpus.",
        "order": 1,
        "steps": [
            {"text": "Here is $f$: {f.data}.", "setup": {"snippet": SNIPPET}, "highlight": ["f", "x"]},
            {
                "text": ["One step:", "{backward}"],
                "actions": [{"do": "backward_step", "count": 2}, {"do": "nudge", "node": "x", "h": 0.001}],
                "claims": [{"node": "f", "quantity": "data", "value": 3.0}],
                "question": {"prompt": "What is x.grad?", "node": "x", "quantity": "grad"},
            },
            {
                "text": "A network: {loss} after {step} steps.",
                "setup": {"network": {"hidden_sizes": [4], "n_samples": 20, "steps": 5}},
                "actions": [{"do": "train", "steps": 2}],
            },
        ],
    }
    lesson_from_dict(lesson)
    return json.dumps(lesson, indent=1).encode()


def good_session():
    config = TrainConfig(n_samples=20, hidden_sizes=(3,), steps=5, boundary_resolution=5)
    trainer = Trainer(config)
    trainer.step()
    history = {key: [1.0] for key in ts.HISTORY_KEYS}
    history["step"] = [1]
    return ts.dumps(ts.Session(config, trainer.state(), history, {"title": "s"})).encode()


# -----------------------------------------------------------------------------
# Saving back what loaded: nothing loadable is unsaveable


def save_graph(loaded):
    doc, meta = loaded
    assert graph_file.loads(graph_file.dumps(doc, meta).encode("utf-8"))[0].to_dict() == doc.to_dict()


def save_recovery(loaded):
    text = recovery.dumps(loaded.doc, loaded.meta, loaded.groups, loaded.source, loaded.saved_at, loaded.title)
    assert recovery.loads(text.encode("utf-8")).doc.to_dict() == loaded.doc.to_dict()


def save_session(loaded):
    again = ts.loads(ts.dumps(loaded).encode("utf-8"))
    assert again.state == ts.loads(ts.dumps(again)).state


LOADERS = {
    #  name: (the seed file, load(path), its own error, save back or None)
    "graph": (good_graph, graph_file.load, FormatError, save_graph),
    "recovery": (good_recovery, recovery.load, FormatError, save_recovery),
    "lesson": (good_lesson, load_lesson, LessonError, None),  # lessons are read, never written
    "session": (good_session, ts.load, ts.SessionError, save_session),
}


def run_case(load, error, save, path, counts, wrong):
    try:
        loaded = load(path)
    except error as e:
        counts["refused"] += 1
        assert str(e), "an error with no message"
        return
    except BaseException as e:  # noqa: BLE001 -- anything else is the bug this test hunts
        counts["wrong error type"] += 1
        wrong.append(f"{os.path.basename(path)}: {type(e).__name__}: {str(e)[:200]}")
        return
    counts["loaded"] += 1
    if save is not None:
        try:
            save(loaded)
            counts["saved back"] += 1
        except BaseException as e:  # noqa: BLE001
            counts["unsaveable"] += 1
            wrong.append(f"{os.path.basename(path)} loads but does not save: {type(e).__name__}: {e}")


@pytest.mark.parametrize("kind", sorted(LOADERS))
def test_every_hostile_file_loads_or_is_refused_with_the_loaders_own_error(kind, tmp_path):
    make, load, error, save = LOADERS[kind]
    rng = random.Random(f"{SEED}-{kind}")
    base = make()
    load(_write(tmp_path / "good.json", base))  # the seed itself loads
    counts = {"loaded": 0, "saved back": 0, "refused": 0, "wrong error type": 0, "unsaveable": 0, "hangs": 0}
    wrong = []
    for i, raw in enumerate(hostile_files(base, FILES_PER_LOADER, rng)):
        run_case(load, error, save, _write(tmp_path / f"case{i:04d}.json", raw), counts, wrong)
    specials = special_paths(tmp_path / "special")
    for name, path in specials:
        if name == "fifo.json":
            with fifo_guard(path) as opened:
                run_case(load, error, save, path, counts, wrong)
            if opened:
                counts["hangs"] += 1
                wrong.append(f"{name}: the loader opened the FIFO (it would wait for a writer forever)")
        else:
            run_case(load, error, save, path, counts, wrong)
    total = FILES_PER_LOADER + len(specials)
    print(
        f"\nhostile {kind} files: {total} ({len(specials)} special) -> "
        + ", ".join(f"{key} {value}" for key, value in counts.items())
    )
    assert total >= 1000 and counts["refused"] > total // 2
    assert wrong == []


def test_special_files_are_refused_by_name_before_reading(tmp_path):
    seen = {}
    for name, path in special_paths(tmp_path):
        with pytest.raises(FormatError) as caught:
            graph_file.load(path)
        seen[name] = caught.value.fault
        assert str(caught.value).startswith(path + ": ")
    expected = {
        "folder.json": "directory",
        "missing.json": "missing",
        "dangling.json": "missing",
        "loop.json": "unreadable",
        "empty.json": "empty",
        "sparse.json": "too large",
    }
    if hasattr(os, "mkfifo"):
        expected["fifo.json"] = "special"
    if os.path.exists("/dev/zero"):
        expected["zero.json"] = "special"
    assert seen == expected


def test_hostile_typed_text_parses_or_is_an_expr_error_and_what_parses_saves():
    rng = random.Random(f"{SEED}-typed")
    counts = {"parsed": 0, "refused": 0, "wrong error type": 0, "unsaveable": 0}
    wrong = []
    texts = hostile_texts(TEXTS, rng)
    for i, text in enumerate(texts):
        try:
            doc = parse(text)
        except ExprError:
            counts["refused"] += 1
            continue
        except BaseException as e:  # noqa: BLE001
            counts["wrong error type"] += 1
            wrong.append(f"text {i} {text[:80]!r}: {type(e).__name__}: {e}")
            continue
        counts["parsed"] += 1
        try:
            graph_file.loads(graph_file.dumps(doc).encode("utf-8"))
        except BaseException as e:  # noqa: BLE001
            counts["unsaveable"] += 1
            wrong.append(f"text {i} {text[:80]!r} parses but does not save: {type(e).__name__}: {e}")
    print(f"\nhostile typed texts: {len(texts)} -> " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    assert len(texts) >= 500 and counts["parsed"] > 0 and counts["refused"] > 0
    assert wrong == []


def test_the_strict_reader_faults_are_the_documented_ones(tmp_path):
    for _name, path in special_paths(tmp_path):
        with pytest.raises(strict_json.JSONFileError) as caught:
            strict_json.load(path, 1024 * 1024)
        assert caught.value.fault in strict_json.FAULTS and caught.value.path == path


def _write(path, raw):
    path.write_bytes(raw)
    return str(path)
