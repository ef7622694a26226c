"""A step's text in pages, for a screen too small to show it whole.

At presenter 3x on a 1920x1080 projector (or 2x on 1280x720) a lesson step has
room for five or six lines of text under the graph. Scrolling there hides lines
from the class without anyone noticing; a page does not: the step is shown page
by page, each whole, with a visible "more" at the foot of each but the last,
and the presenter's Next shows the next page before it moves on to the next step.

The text is cut only where a reader would pause:

    units("# Title\\n\\nA paragraph. Two sentences.\\n\\n```\\nline 1\\nline 2\\n```")
    -> [Unit(0, 'heading', '# Title'), Unit(1, 'prose', 'A paragraph. Two sentences.'),
        Unit(2, 'code', 'line 1'), Unit(2, 'code', 'line 2')]

A paragraph, a heading, a line of code is one unit; a code block is cut between
its lines (each page closes and reopens the fence), a paragraph too tall for a
page alone between its sentences (`split`), a sentence too tall between words. `paginate` packs units into pages
greedily with a `fits(markdown) -> bool` the screen answers (this module measures
nothing); a heading never ends a page it does not start.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

FENCE = re.compile(r"^\s*(```+|~~~+)(.*)$")
ITEM = re.compile(r"^\s*([-*+]|\d+[.)])\s")
SENTENCE = re.compile(r"(?<=[.!?:])\s+(?=\S)")


@dataclass(frozen=True)
class Unit:
    """One piece of a step's text that is never cut: `group` joins the pieces of one
    paragraph or one code block again; `fence` is a code block's opening line."""

    group: int
    kind: str  # "heading", "prose", "item" (of a list), "code"
    text: str
    fence: str = "```"


def units(markdown: str) -> list[Unit]:
    """The step's Markdown as units, in order (blank lines dropped)."""
    out: list[Unit] = []
    group = 0
    para: list[str] = []
    fence = opening = None

    def flush() -> None:
        nonlocal group
        if para:
            text = "\n".join(para)
            kind = "heading" if text.lstrip().startswith("#") else "item" if ITEM.match(text) else "prose"
            out.append(Unit(group, kind, text))
            group += 1
            para.clear()

    for line in markdown.splitlines():
        match = FENCE.match(line)
        if fence is not None:
            if match and match.group(1)[0] == fence[0] and not match.group(2).strip():
                fence = None
                group += 1
            else:
                out.append(Unit(group, "code", line, opening or "```"))
            continue
        if match:
            flush()
            fence, opening = match.group(1), line.strip()
            continue
        if not line.strip():
            flush()
        elif ITEM.match(line):  # a list: each item a unit of its own, the list one group
            if para and not ITEM.match(para[0]):
                flush()
            if para:
                out.append(Unit(group, "item", "\n".join(para)))
                para.clear()
            para.append(line)
        elif line.lstrip().startswith("#"):
            flush()
            para.append(line)
            flush()
        else:
            para.append(line)
    flush()
    return out


def split(unit: Unit) -> list[Unit]:
    """A prose unit cut between its sentences (the same group: they join with a space)."""
    if unit.kind != "prose":
        return [unit]
    parts = SENTENCE.split(unit.text)
    return [Unit(unit.group, "prose", part) for part in parts] if len(parts) > 1 else [unit]


def join(page: list[Unit]) -> str:
    """The Markdown of a page: a code block's lines inside its fence again, a
    paragraph's sentences in one paragraph, groups apart by a blank line."""
    chunks: list[str] = []
    previous: Unit | None = None
    for unit in page:
        same = previous is not None and previous.group == unit.group
        if unit.kind == "code":
            if same:
                chunks[-1] = chunks[-1][: -len("\n```")] + "\n" + unit.text + "\n```"
            else:
                chunks.append(f"{unit.fence}\n{unit.text}\n```")
        elif same:
            chunks[-1] += ("\n" if unit.kind == "item" else " ") + unit.text
        else:
            chunks.append(unit.text)
        previous = unit
    return "\n\n".join(chunks)


def paginate(
    markdown: str, fits: Callable[[str], bool], more: Callable[[int, int], str] = lambda k, n: "", heading: str = ""
) -> list[str]:
    """The step's text as pages, each one that `fits` (with its `more(k, n)` line at
    the foot of page k of n but the last). One page when it fits whole; a unit too
    tall for a page alone is cut into sentences, and one still too tall gets a page
    of its own (the only case where a page may not fit). `heading` ("####"): the
    level a paged step's headings take (a title-sized heading would fill a page)."""
    if fits(markdown):
        return [markdown]
    pieces: list[Unit] = []
    for unit in units(markdown):
        if heading and unit.kind == "heading":
            unit = Unit(unit.group, unit.kind, heading + " " + unit.text.lstrip().lstrip("#").strip())
        if fits(join([unit]) + more(1, 2)):
            pieces.append(unit)
            continue
        for sentence in split(unit):  # too tall alone: its sentences; one still too tall, its words
            alone = fits(join([sentence]) + more(1, 2))
            pieces.extend([sentence] if alone or sentence.kind != "prose" else _words(sentence, fits, more))
    for _ in range(3):  # the "k of n" line is as long for n = 2 as for 9: settles at once
        pages = _pack(pieces, fits, lambda page: join(page) + more(1, 2))
        n = len(pages)
        texts = [join(page) + more(k + 1, n) if k + 1 < n else join(page) for k, page in enumerate(pages)]
        if all(fits(text) for text in texts[:-1]):
            return texts
    return texts


def _words(unit: Unit, fits: Callable[[str], bool], more: Callable[[int, int], str]) -> list[Unit]:
    """A sentence taller than a page: as many words a piece as fit (the same group:
    the pieces join with a space again)."""
    out: list[Unit] = []
    words: list[str] = []
    for word in unit.text.split():
        if words and not fits(" ".join(words + [word]) + more(1, 2)):
            out.append(Unit(unit.group, "prose", " ".join(words)))
            words = []
        words.append(word)
    if words:
        out.append(Unit(unit.group, "prose", " ".join(words)))
    return out


def _pack(pieces: list[Unit], fits: Callable[[str], bool], render: Callable[[list[Unit]], str]) -> list[list[Unit]]:
    pages: list[list[Unit]] = []
    page: list[Unit] = []
    for unit in pieces:
        if page and not fits(render(page + [unit])):
            tail: list[Unit] = []
            while len(page) > 1 and page[-1].kind == "heading":  # a heading goes with what it heads
                tail.insert(0, page.pop())
            pages.append(page)
            page = tail
        page.append(unit)
    if page:
        pages.append(page)
    return pages


def split_heading(markdown: str) -> tuple[str | None, str]:
    """(the text of the step's opening heading, the rest); (None, markdown) when it
    does not open with one. A paged step shows its heading as the panel's title:
    on a page of three lines it would take one of them."""
    lines = markdown.lstrip("\n").split("\n", 1)
    if not lines[0].startswith("#"):
        return None, markdown
    return lines[0].lstrip("#").strip(), (lines[1] if len(lines) > 1 else "").lstrip("\n")


def changed_word(before: str, after: str) -> str | None:
    """The first word of `after` that differs from `before` (None: the same text):
    what an answer revealed, to find on a page."""
    old, new = before.splitlines(), after.splitlines()
    first = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), None)
    if first is None:
        return None if len(old) == len(new) else (new[len(old)] if len(new) > len(old) else None)
    line = new[first]
    at = next((i for i, (a, b) in enumerate(zip(old[first], line)) if a != b), min(len(line), len(old[first])))
    start, end = at, at
    while start > 0 and not line[start - 1].isspace():
        start -= 1
    while end < len(line) and not line[end].isspace():
        end += 1
    return line[start:end] or line.strip() or None  # the changed word, whole (pages rejoin lines at spaces)


def page_of(pages: list[str], word: str | None) -> int | None:
    """The first page holding `word` (None: no word, or on no page)."""
    if not word:
        return None
    return next((k for k, page in enumerate(pages) if word in page), None)
