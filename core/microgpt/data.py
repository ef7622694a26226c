"""The names microgpt learns from, and its tokenizer of characters.

The studio ships its own list of a few hundred common given names
(resources/data/names.txt, one a line, lowercase a-z), the kind of list
Karpathy's script downloads (32,000 names). Each name is a document; its
tokens are its letters, numbered in alphabetical order of the letters the
data uses (a = 0, ..., z = 25), with BOS (26), the token that begins and
ends every document, around them:

    "emma"  ->  [BOS, e, m, m, a, BOS]  ->  [26, 4, 12, 12, 0, 26]

The model learns to predict each next token from the ones before it; a
sample is drawn token by token from BOS until the model says BOS again.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.resources import shipped

NAMES = shipped("data", "names.txt")


def load_names(path: str = NAMES) -> list[str]:
    """The documents: one name a line, blank lines skipped (as the script reads input.txt)."""
    with open(path, encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip()]


class Tokenizer:
    """Characters to token ids and back; BOS is the last id."""

    def __init__(self, docs: Sequence[str]) -> None:
        self.uchars = sorted(set("".join(docs)))  # the letters the data uses
        self.BOS = len(self.uchars)
        self.vocab_size = len(self.uchars) + 1

    def encode(self, doc: str) -> list[int]:
        """[BOS, each letter's id, BOS]; a letter the data never used is a ValueError naming it."""
        try:
            return [self.BOS] + [self.uchars.index(ch) for ch in doc] + [self.BOS]
        except ValueError:
            bad = next(ch for ch in doc if ch not in self.uchars)
            raise ValueError(f"{doc!r}: the letter {bad!r} is not in the names the model learns from") from None

    def decode(self, tokens: Sequence[int]) -> str:
        return "".join(self.uchars[t] for t in tokens if t != self.BOS)
