"""microgpt trained by numpy replay: the same losses as the pure-Python script, the same grads as the engine."""

import os
import subprocess
import sys

import numpy as np
import pytest

from core.microgpt.model import loss
from core.microgpt.train import Tape, Trainer, train

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
SCRIPT = os.path.join(ROOT, "resources", "scripts", "microgpt.py")


@pytest.mark.parametrize("name", ["emma", "anna", "bob"])  # repeated letters, a short name
def test_a_tape_gives_the_engines_loss_and_grads_for_any_name_of_its_length(name):
    trainer = Trainer(10)
    model = trainer.model
    tokens = trainer.tokenizer.encode(name)
    tape = Tape.record(len(name), model)
    got, grads = tape.step(tokens, trainer.params)
    for p in model.params:
        p.grad = 0.0
    out = loss(tokens, model)
    out.backward()
    assert got == pytest.approx(out.data, rel=0, abs=1e-12)
    assert np.allclose(grads, [p.grad for p in model.params], rtol=0, atol=1e-12)


def test_a_tape_refuses_a_length_it_cannot_spell_with_different_letters():
    trainer = Trainer(1)
    with pytest.raises(ValueError, match="repeated letters"):
        Tape.record(40, trainer.model)


@pytest.mark.slow
def test_the_losses_are_the_scripts_to_1e_9():
    steps = 30
    run = subprocess.run([sys.executable, SCRIPT, str(steps)], capture_output=True, text=True, timeout=600, check=True)
    script = [float(line.split("loss ")[1]) for line in run.stdout.splitlines() if line.startswith("step")]
    ours = [p.loss for p in train(steps)]
    assert len(script) == steps == len(ours)
    assert max(abs(a - b) for a, b in zip(script, ours)) < 1e-9


def test_training_samples_names_every_n_steps():
    progress = list(train(4, sample_every=2))
    assert [bool(p.samples) for p in progress] == [False, True, False, True]
    assert all(isinstance(s, str) and s.isalpha() or s == "" for s in progress[1].samples)
    assert progress[0].loss == pytest.approx(3.358819808103668, abs=1e-12)  # the script's first loss


@pytest.mark.parametrize("name", ["a", "bo", "emma", "christopher", "abcdefghijklmno", "maximilianalexanderson"])
def test_the_longest_names_tape_runs_every_shorter_name_as_its_prefix(name):
    # issue 42 item 4: one recording for every length (a 22-letter name is read to block_size positions)
    trainer = Trainer(10)
    model = trainer.model
    tape = Tape.record_longest(model)
    assert tape.positions == model.config.block_size
    tokens = trainer.tokenizer.encode(name)
    got, grads = tape.step(tokens, trainer.params)
    for p in model.params:
        p.grad = 0.0
    out = loss(tokens, model)
    out.backward()
    assert got == pytest.approx(out.data, rel=0, abs=1e-12)
    assert np.allclose(grads, [p.grad for p in model.params], rtol=0, atol=1e-12)
    assert trainer.tape(len(name)) is trainer.tape(1)  # recorded once
