"""Which links in a lesson's text may be followed, and which images may be shown.

A lesson file is text a teacher (or anyone) wrote, opened with File → Open
Lesson…; its Markdown must never reach the machine it is shown on. So a link is
followed only when it is

    http:, https:, mailto:    opened by the system's browser or mail program
    studio:                   the studio's own links (`studio:check-engine?file=NAME.py`,
                              which only names classes the studio ships)

and every other link -- `file:`, `smb:`, `javascript:`, a custom scheme, a bare
path -- is refused with a note saying why. An image is shown as its alt text
unless it is a web image (which the text view does not fetch anyway): a local
image would read a file from the disk (`/dev/zero` reads forever). Every way
Markdown has to name an image is filtered -- `![alt](target)`, `![alt](<a
target>)`, a reference `![alt][ref]` with its `[ref]: target` line, an HTML
`<img src=...>`, `data:` and `file:` URLs, relative paths like `../x.png` --
and, behind the filter, the lesson view's one resource loader
(`shipped_image`) shows only an image the studio ships, a regular file under
its resources folder: whatever slips past the filter reads nothing else.
"""

from __future__ import annotations

import os
import re
import stat

WEB = ("http", "https", "mailto")
STUDIO = "studio"

IMAGE = re.compile(r"!\[([^\]]*)\]\(\s*(?:<([^>]*)>|([^)\s]*))(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REFERENCE = re.compile(r"^( {0,3})\[([^\]]+)\]:\s*(?:<([^>]*)>|(\S+))(.*)$", re.MULTILINE)
HTML_IMAGE = re.compile(r"<img\b[^>]*>", re.IGNORECASE)
HTML_SRC = re.compile(r"""\bsrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)
HTML_ALT = re.compile(r"""\balt\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)
MAX_IMAGE = 8 << 20  # bytes: a shipped image larger than this is not one


def scheme_of(url: str) -> str:
    match = re.match(r"\s*([A-Za-z][A-Za-z0-9+.\-]*):", url)
    return match.group(1).lower() if match else ""


def classify(url: str) -> tuple[str, str]:
    """('web' | 'studio' | 'refused', the url or why it is refused)."""
    scheme = scheme_of(url)
    if scheme in WEB:
        return "web", url
    if scheme == STUDIO:
        return "studio", url
    if not scheme:
        return "refused", f"the link {url!r} names no web address: lessons link only to http, https and mailto"
    return "refused", f"the link {url!r} uses {scheme}:, which lessons may not open (only http, https, mailto)"


def web_image(target: str) -> bool:
    return scheme_of(target) in ("http", "https")


def without_local_images(markdown: str) -> tuple[str, list[str]]:
    """(markdown with every non-web image replaced by its alt text, a note per image)."""
    notes: list[str] = []

    def refuse(target: str, alt: str) -> str:
        notes.append(f"an image from {target!r} was not shown: lessons show no local files")
        return f"[image: {alt}]" if alt else "[image]"

    def inline(match: re.Match[str]) -> str:
        alt, target = match.group(1), match.group(2) if match.group(2) is not None else match.group(3)
        return match.group(0) if web_image(target) else refuse(target, alt)

    def reference(match: re.Match[str]) -> str:
        target = match.group(3) if match.group(3) is not None else match.group(4)
        if web_image(target) or scheme_of(target) in ("mailto", STUDIO):
            return match.group(0)
        notes.append(f"the reference [{match.group(2)}] to {target!r} was dropped: lessons show no local files")
        return f"{match.group(1)}[{match.group(2)}]: #"

    def html(match: re.Match[str]) -> str:
        src = HTML_SRC.search(match.group(0))
        alt = HTML_ALT.search(match.group(0))
        target = next((g for g in src.groups() if g is not None), "") if src else ""
        if src and web_image(target):
            return match.group(0)
        return refuse(target, next((g for g in alt.groups() if g is not None), "") if alt else "")

    markdown = REFERENCE.sub(reference, markdown)
    markdown = HTML_IMAGE.sub(html, markdown)
    return IMAGE.sub(inline, markdown), notes


def shipped_image(target: str, root: str) -> tuple[str | None, str]:
    """(the path of the image `target` names, if the studio ships it; else None and why).

    The lesson view's resource loader asks this for every image: only a regular
    file under `root` (the studio's resources folder), of at most MAX_IMAGE bytes,
    is read. A device (`/dev/zero`), a path outside, a `file:` or `data:` URL, a
    web image (the view fetches nothing) are refused, never opened."""
    scheme = scheme_of(target)
    if scheme in ("http", "https"):
        return None, f"the web image {target!r} is not fetched"
    if scheme not in ("", "qrc"):
        return None, f"an image from a {scheme}: address is not shown"
    path = target.split(":", 1)[1] if scheme == "qrc" else target
    here = os.path.realpath(os.path.join(root, path.lstrip("/")) if scheme == "qrc" else path)
    top = os.path.realpath(root)
    if not here.startswith(top + os.sep):
        return None, f"{target!r} is not an image the studio ships"
    try:
        info = os.stat(here)
    except OSError as e:
        return None, f"{target!r}: {e.strerror}"
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_IMAGE:
        return None, f"{target!r} is not an image file"
    return here, ""
