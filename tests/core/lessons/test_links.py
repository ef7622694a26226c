"""Lesson links reach only the web, mail and the studio's own links; local images are
not shown (core/lessons/links.py): repro for `[x](file:///etc/passwd)` opening the file."""

import pytest

from core.lessons.links import classify, without_local_images


@pytest.mark.parametrize("url", ["https://karpathy.ai", "http://example.org/x", "mailto:teacher@example.org"])
def test_web_and_mail_links_are_followed(url):
    assert classify(url) == ("web", url)


def test_the_studios_links_are_its_own():
    assert classify("studio:check-engine?file=tutorial_value.py")[0] == "studio"


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "FILE:///etc/passwd",
        "smb://server/share",
        "javascript:alert(1)",
        "vscode://file/etc/passwd",
        "/etc/passwd",
        "../secrets.txt",
    ],
)
def test_every_other_link_is_refused_with_a_reason(url):
    kind, why = classify(url)
    assert kind == "refused" and url in why and "http" in why


def test_local_images_are_shown_as_their_alt_text():
    text = "See ![the graph](file:///etc/passwd) and ![](/home/me/x.png) and ![web](https://e.org/a.png)."
    shown, notes = without_local_images(text)
    assert "file:" not in shown and "/home/me" not in shown and "[image: the graph]" in shown
    assert "![web](https://e.org/a.png)" in shown
    assert len(notes) == 2 and "file:///etc/passwd" in notes[0]
