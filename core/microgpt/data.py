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


MAX_NAMES = 1_000_000  # lines read at most (Karpathy's names.txt has 32,033)
MAX_LETTERS = 200  # different characters at most: each is a token, and the model grows with them


class NamesError(ValueError):
    """A names file the model cannot learn from: the message says why and where."""


def load_names(path: str = NAMES) -> list[str]:
    """The documents: one name a line, blank lines skipped (as the script reads input.txt).
    A file that cannot be read, holds no name, or is not text is a NamesError naming it."""
    try:
        with open(path, encoding="utf-8") as f:
            docs = []
            for number, line in enumerate(f, start=1):
                if number > MAX_NAMES:
                    raise NamesError(f"{path}: more than {MAX_NAMES:,} lines; the model learns from fewer")
                if line.strip():
                    docs.append(line.strip())
    except UnicodeDecodeError as e:
        raise NamesError(f"{path}: not a text file in UTF-8 (byte {e.start}); one name a line is wanted") from None
    except OSError as e:
        raise NamesError(f"{path}: {e.strerror or e}") from None
    if not docs:
        raise NamesError(f"{path}: no names in it (one name a line)")
    letters = set("".join(docs))
    if len(letters) > MAX_LETTERS:
        raise NamesError(f"{path}: {len(letters)} different characters; at most {MAX_LETTERS} (is it names?)")
    return docs


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
