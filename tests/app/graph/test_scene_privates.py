"""The GraphScene's parts own their state: nothing outside app/graph/scene.py
reaches into the scene's private attributes (issue 15 item 4).

The marks (app/graph/marks.py), the selection, the context menu, the group
layer, the gestures and the build of the items (app/graph/scene_build.py) are
objects the scene holds; they and every caller
talk to the scene through its public surface (`node_items()`, `node_item(nid)`,
`edge_item(edge)`, `edge_item_map()`, `marks`, `selection`, `group_layer`, ...).
This scans every module with `ast` for an attribute `_name` read or written on
an expression that names a scene (`scene._nodes`, `self._scene._edges`,
`window.scene._highlight`, `item.scene()._wire`).
"""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SCANNED = ("app", "tests", "bench")
ALLOWED = {"app/graph/scene.py"}  # the scene itself


def scene_privates(source, filename="<string>"):
    """[(line, text)] for every `<scene>._private` in source."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.Attribute):
            continue
        name = node.attr
        if not name.startswith("_") or name.startswith("__"):
            continue
        base = ast.unparse(node.value)
        last = [part for part in re.split(r"[.()\[\]]", base) if part][-1:]
        if last and "scene" in last[0].lower():
            found.append((node.lineno, node.col_offset, f"{base}.{name}"))
    return [(line, text) for line, _col, text in sorted(found)]


def test_the_scanner_finds_a_private_reached_through_a_scene():
    sample = (
        "scene._nodes\nself._scene._edges.get(e)\nwindow.scene._highlight[0]\n"
        "item.scene()._wire = None\nscene.marks.set_highlight()\nself._scene.node_items()\n"
    )
    assert [text for _line, text in scene_privates(sample)] == [
        "scene._nodes",
        "self._scene._edges",
        "window.scene._highlight",
        "item.scene()._wire",
    ]


def test_no_module_outside_the_scene_touches_its_privates():
    offences = []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel in ALLOWED:
                continue
            for line, text in scene_privates(path.read_text(encoding="utf-8"), rel):
                offences.append(f"{rel}:{line}: {text}")
    assert offences == [], "use the scene's public surface or one of its parts:\n" + "\n".join(offences)
