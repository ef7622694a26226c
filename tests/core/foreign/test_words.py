"""core/foreign/words.py: the report's word for each special method agrees with the op table."""

from core import ops
from core.foreign.words import WORDS


def test_every_special_method_of_the_op_table_has_the_ops_word():
    for dunder, name in ops.DUNDERS.items():
        reflected = dunder.startswith("__r") and dunder[3:] in {d[2:] for d in ops.DUNDERS if not d.startswith("__r")}
        assert WORDS[dunder] == ("r" + name if reflected else name), dunder


def test_the_words_are_short_names_not_dunders():
    assert all(not word.startswith("_") and word.isidentifier() for word in WORDS.values())
    assert len(set(WORDS.values())) == len(WORDS)  # one word, one method: a report never merges two
