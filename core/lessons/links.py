"""Which links in a lesson's text may be followed, and which images may be shown.

A lesson file is text a teacher (or anyone) wrote, opened with File → Open
Lesson…; its Markdown must never reach the machine it is shown on. So a link is
followed only when it is

    http:, https:, mailto:    opened by the system's browser or mail program
    studio:                   the studio's own links (`studio:check-engine?file=NAME.py`,
                              which only names classes the studio ships)

and every other link -- `file:`, `smb:`, `javascript:`, a custom scheme, a bare
path -- is refused with a note saying why. An image (`![alt](target)`) is
shown as its alt text unless it is a web image (which the text view does not
fetch anyway): a local image would read a file from the disk.
"""

from __future__ import annotations

import re

WEB = ("http", "https", "mailto")
STUDIO = "studio"

IMAGE = re.compile(r"!\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")


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


def without_local_images(markdown: str) -> tuple[str, list[str]]:
    """(markdown with every non-web image replaced by its alt text, a note per image)."""
    notes: list[str] = []

    def replace(match: re.Match[str]) -> str:
        alt, target = match.group(1), match.group(2)
        if scheme_of(target) in ("http", "https"):
            return match.group(0)
        notes.append(f"an image from {target!r} was not shown: lessons show no local files")
        return f"[image: {alt}]" if alt else "[image]"

    return IMAGE.sub(replace, markdown), notes
