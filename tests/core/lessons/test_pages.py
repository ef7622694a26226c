"""A step's text in pages (core/lessons/pages.py): cut only where a reader pauses,
nothing lost, each page fitting the room the screen answers for."""

from core.lessons.pages import Unit, changed_word, join, page_of, paginate, split, split_heading, units

STEP = """# backward()

One call gives x.grad = -3. Walk it forwards and a node passes its grad on early.

```python
def backward(self):
    topo = []
    self.grad = 1.0
```

The end."""


def lines_fit(most):
    return lambda markdown: len(markdown.splitlines()) <= most


def words(text):
    return [w for w in text.replace("```python", " ").replace("```", " ").replace("#", " ").split()]


def test_units_keep_code_lines_and_paragraphs_whole():
    found = units(STEP)
    assert [u.kind for u in found] == ["heading", "prose", "code", "code", "code", "prose"]
    assert found[2].group == found[4].group and found[2].fence == "```python"
    assert join(found) == STEP  # cut and joined again: the same Markdown


def test_a_step_that_fits_is_one_page():
    assert paginate(STEP, lines_fit(100)) == [STEP]


def test_pages_fit_and_lose_nothing():
    pages = paginate(STEP, lines_fit(6), lambda k, n: f"\n\n*more {k} of {n}*")
    assert len(pages) > 1
    assert all(len(page.splitlines()) <= 6 for page in pages)
    assert all(f"more {k + 1} of {len(pages)}" in page for k, page in enumerate(pages[:-1]))
    assert "more" not in pages[-1]
    shown = [w for page in pages for w in words(page.split("\n\n*more")[0])]
    assert shown == words(STEP)  # every word, in order, once
    code = [page for page in pages if "def backward" in page or "topo" in page]
    assert all(page.count("```") == 2 for page in code)  # a cut code block closes and reopens its fence


def test_a_heading_never_ends_a_page():
    pages = paginate("# Title\n\nfirst\n\n# Second\n\nsecond para", lines_fit(3))
    assert not any(page.rstrip().splitlines()[-1].startswith("#") for page in pages if len(page.splitlines()) > 1)


def test_a_paragraph_too_tall_is_cut_between_sentences_then_words():
    text = "One two three. Four five six seven eight nine ten eleven."
    assert [u.text for u in split(Unit(0, "prose", text))] == [
        "One two three.",
        "Four five six seven eight nine ten eleven.",
    ]
    pages = paginate(text, lambda markdown: len(markdown) <= 20)
    assert all(len(page) <= 20 for page in pages)
    assert " ".join(pages).split() == text.split()


def test_headings_take_the_asked_level():
    pages = paginate("# Big\n\n" + "word " * 30, lambda markdown: len(markdown) <= 60, heading="####")
    assert pages[0].startswith("#### Big")


def test_the_opening_heading_goes_to_the_title():
    assert split_heading(STEP)[0] == "backward()"
    assert split_heading(STEP)[1].startswith("One call")
    assert split_heading("no heading") == (None, "no heading")


def test_the_page_an_answer_changed():
    before = "# T\n\nfirst x = ?\n\nsecond y = ?"
    after = "# T\n\nfirst x = ?\n\nsecond y = 4.0000"
    pages = paginate(after, lines_fit(2))
    assert changed_word(before, after) == "4.0000"
    k = page_of(pages, changed_word(before, after))
    assert "4.0000" in pages[k]
    assert changed_word(after, after) is None and page_of(pages, None) is None  # nothing changed: stay


def test_a_list_is_cut_between_its_items():
    text = "Intro:\n\n- one\n- two\n- three\n\nAfter."
    assert [u.kind for u in units(text)] == ["prose", "item", "item", "item", "prose"]
    assert join(units(text)) == text
    pages = paginate(text, lines_fit(2))
    assert all(len(page.splitlines()) <= 2 for page in pages)
    assert [line for page in pages for line in page.splitlines() if line] == [
        line for line in text.splitlines() if line
    ]
