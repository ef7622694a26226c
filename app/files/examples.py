"""The examples the studio ships (resources/examples/): File → Examples and the
welcome page both list them."""

from __future__ import annotations

import os

from core.files import graph_file
from core.resources import shipped

EXAMPLES_DIR = shipped("examples")


def examples() -> list[tuple[str, str, str]]:
    """[(title, description, path)] of the valid graphs in resources/examples/, by title
    (File → Examples and the welcome page both list these)."""
    found = []
    try:
        names = sorted(n for n in os.listdir(EXAMPLES_DIR) if n.endswith(".json"))
    except OSError:
        return []
    for name in names:
        path = os.path.join(EXAMPLES_DIR, name)
        try:
            _doc, meta = graph_file.load(path)
        except (OSError, graph_file.FormatError):
            continue
        title = meta.get("title") or os.path.splitext(name)[0]
        found.append((title, meta.get("description", ""), path))
    return sorted(found, key=lambda row: row[0].lower())
