"""Lesson links reach only the web, mail and the studio's own links; local images are
not shown (core/lessons/links.py): repro for `[x](file:///etc/passwd)` opening the file."""

import os

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


HOSTILE_IMAGES = {  # issue 37: six Markdown image forms got past the filter and drew local files
    "reference": "![a][r]\n\n[r]: /dev/zero\n",
    "html": '<img src="/dev/zero" alt="a">',
    "html-unquoted": "<IMG SRC=file:///etc/passwd>",
    "data": "![a](data:image/png;base64,iVBORw0KGgo=)",
    "file": "![a](file:///dev/zero)",
    "relative": "![a](../../secret.png)",
    "angle": "![a](</dev/zero> 'title')",
    "angle-spaces": "![a](<../my secret.png>)",
}


@pytest.mark.parametrize("text", HOSTILE_IMAGES.values(), ids=HOSTILE_IMAGES.keys())
def test_every_markdown_image_form_is_filtered(text):
    shown, notes = without_local_images(text)
    assert notes
    for target in ("/dev/zero", "file:", "data:", "../", "secret"):
        assert target not in shown


def test_web_images_and_web_references_stay():
    text = "![w](https://e.org/a.png) <img src='https://e.org/b.png'>\n\n[r]: https://e.org\n"
    assert without_local_images(text) == (text, [])


def test_only_a_regular_file_the_studio_ships_is_an_image(tmp_path):
    from core.lessons.links import shipped_image

    (tmp_path / "lessons").mkdir()
    png = tmp_path / "lessons" / "a.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n")
    (tmp_path.parent / "outside.png").write_bytes(b"x")
    assert shipped_image(str(png), str(tmp_path))[0] == str(png)
    for target in (
        "/dev/zero",
        str(tmp_path / "lessons" / ".." / ".." / "outside.png"),
        "file:///dev/zero",
        "data:image/png;base64,AAAA",
        "https://e.org/a.png",
        str(tmp_path / "lessons"),
    ):
        path, why = shipped_image(target, str(tmp_path))
        assert path is None and why
    os.symlink("/dev/zero", tmp_path / "lessons" / "zero.png")
    assert shipped_image(str(tmp_path / "lessons" / "zero.png"), str(tmp_path))[0] is None
