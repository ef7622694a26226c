"""One training step of microgpt, on the studio's own engine: open it with

    python main.py resources/examples/microgpt_step.py

The studio runs this file in a child process up to its first backward() and
shows the step's graph -- about 43,000 Values for "emma" -- collapsed by the
functions of the model (core/microgpt/model.py): the step (`loss`), a block
per position, in each a `gpt` and a `softmax`; inside `gpt` the attention
and MLP blocks, the heads `h = 0..3`, each `linear`, `rmsnorm`, `softmax`,
down to single ops. Change NAME to see a longer step (15 letters: ~100,000 Values).
"""

import random

from core.microgpt.data import Tokenizer, load_names
from core.microgpt.model import Config, MicroGPT, loss

NAME = "emma"

docs = load_names()
rng = random.Random(42)
rng.shuffle(docs)  # as the script does, so the numbers are the script's
tokenizer = Tokenizer(docs)
model = MicroGPT(Config(vocab_size=tokenizer.vocab_size), rng)

step_loss = loss(tokenizer.encode(NAME), model)
step_loss.backward()
print(f"loss on {NAME!r}: {step_loss.data:.4f}")
