"""The text a reader is given, before it is parsed: the error it raises, and the
limits checked on the raw characters (core/document/expr.py reads the rest).

`ExprError` says what is wrong with a text and where (line and column, in
characters, 1-based). `prescan(text)` refuses, before `ast.parse` sees it, text
that would make Python's own parser fail deep inside or take long: more than
MAX_TEXT characters, a NUL, half of a surrogate pair, brackets nested more than
MAX_NESTING deep, a statement of more than MAX_TOKENS tokens. The token limit is
below where `ast.parse` gives up (about 3,000 chained operators, 2 tokens each,
on CPython 3.11: measured in tests/core/document/test_expr.py).
"""

from __future__ import annotations

import re

MAX_TEXT = 100_000
MAX_NESTING = 100
MAX_TOKENS = 4_000  # ast.parse stops near 3,000 chained operators (2 tokens each); see tests

LINE_BREAK = re.compile(r"\r\n|\r|\n")
SURROGATE = re.compile("[\ud800-\udfff]")


class ExprError(ValueError):
    """The text cannot be read as a graph.

    `message` says what is wrong, `line` and `col` (both 1-based, in characters)
    where; `end_col`, when known, is the column just past the faulty text on the
    same line, so an editor can underline [col, end_col). `python` is True when
    the text is Python this reader does not take (a loop, a class, an import,
    `sum(...)`): it can be run as Python instead, in a child process (core/lecture).
    """

    def __init__(
        self, message: str, line: int = 1, col: int = 1, end_col: int | None = None, python: bool = False
    ) -> None:
        self.message = message
        self.line = line
        self.col = col
        self.end_col = end_col
        self.python = python  # Python this reader does not take, which runs as Python (core/lecture)
        super().__init__(f"line {line}, col {col}: {message}")


# -----------------------------------------------------------------------------
# Refuse runaway text before the C parser sees it


def prescan(text: str) -> None:
    """Check length, NUL characters, bracket depth and statement size on the raw text.

    A tiny tokenizer: it skips comments and string literals, counts brackets,
    and counts tokens (a word or number is one, any other symbol one) in each
    statement; a statement ends at a newline outside brackets or at ';'.
    """
    if len(text) > MAX_TEXT:
        raise ExprError(
            f"the text is too long: {len(text):,} characters (at most {MAX_TEXT:,})", *position(text, MAX_TEXT)
        )
    if "\0" in text:
        raise ExprError("the text contains a NUL character", *position(text, text.index("\0")))
    surrogate = SURROGATE.search(text)  # ast.parse would raise UnicodeEncodeError
    if surrogate:
        raise ExprError(
            f"the text holds U+{ord(surrogate.group()):04X}, half of a UTF-16 surrogate pair: "
            "not a character, and it cannot be saved; delete it and type the character again",
            *position(text, surrogate.start()),
        )
    depth = tokens = 0
    line, line_start = 1, 0
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "\r\n":
            i += 2 if text.startswith("\r\n", i) else 1
            line, line_start = line + 1, i
            if depth == 0:
                tokens = 0
            continue
        if ch == "\\" and text[i + 1 : i + 2] in ("\r", "\n"):  # a continued line
            i += 1
            i += 2 if text.startswith("\r\n", i) else 1
            line, line_start = line + 1, i
            continue
        if ch in " \t\f":
            i += 1
            continue
        if ch == "#":
            while i < n and text[i] not in "\r\n":
                i += 1
            continue
        col = i - line_start + 1
        tokens += 1
        if tokens > MAX_TOKENS:
            hint = " (is a bracket left open?)" if depth else ""
            raise ExprError(
                f"this statement is too long (more than {MAX_TOKENS} tokens); split it into several assignments{hint}",
                line,
                col,
            )
        if ch in "'\"":
            i, line, line_start = _skip_string(text, i, line, line_start)
        elif ch.isalnum() or ch == "_" or (ch == "." and text[i + 1 : i + 2].isdigit()):
            i = _skip_word(text, i)
        else:
            if ch in "([{":
                depth += 1
                if depth > MAX_NESTING:
                    raise ExprError(
                        f"brackets are nested too deeply (more than {MAX_NESTING} levels)", line, col, col + 1
                    )
            elif ch in ")]}":
                depth = max(0, depth - 1)
            elif ch == ";" and depth == 0:
                tokens = 0
            i += 1


def _skip_string(text, i, line, line_start):
    """Index just past the string literal starting at i (an unterminated one ends at
    its line's end; ast.parse will then say so), with the line count kept."""
    quote = text[i] * 3 if text.startswith(text[i] * 3, i) else text[i]
    i += len(quote)
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 1
            if i < n and text[i] in "\r\n":
                i += 2 if text.startswith("\r\n", i) else 1
                line, line_start = line + 1, i
            else:
                i += 1
        elif text.startswith(quote, i):
            return i + len(quote), line, line_start
        elif ch in "\r\n":
            if len(quote) == 1:
                return i, line, line_start
            i += 2 if text.startswith("\r\n", i) else 1
            line, line_start = line + 1, i
        else:
            i += 1
    return i, line, line_start


def _skip_word(text, i):
    """Index just past a name or a number (1e-3 counts as one token)."""
    number = not (text[i].isalpha() or text[i] == "_")
    i += 1
    while i < len(text):
        ch = text[i]
        if ch.isalnum() or ch == "_" or (number and ch == "."):
            i += 1
        elif number and ch in "+-" and text[i - 1] in "eE":
            i += 1
        else:
            break
    return i


def position(text: str, index: int) -> tuple[int, int]:
    """(line, col), 1-based, of character `index` of `text`."""
    before = text[:index]
    breaks = list(LINE_BREAK.finditer(before))
    if not breaks:
        return 1, index + 1
    return len(breaks) + 1, index - breaks[-1].end() + 1
