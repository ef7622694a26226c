"""CONTRIBUTING.md's map names every package and every top-level module of core and app.

A row's first cell lists paths in backticks: the first is from the root (`core/nn.py`,
`app/debugger/`), the rest sit beside it (`losses.py`, `training/`).
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def mapped_paths(text):
    """Every path the map's rows name, as written from the root ('core/nn.py', 'app/graph/')."""
    paths = set()
    for line in text.splitlines():
        if not line.startswith("| `"):
            continue
        names = re.findall(r"`([^`]+)`", line.split("|")[1])
        base = names[0].rstrip("/").rpartition("/")[0]
        paths.add(names[0])
        paths.update(f"{base}/{name}" for name in names[1:])
    return paths


def places(root=ROOT):
    """core's and app's packages ('core/scopes/', nested ones too) and their top-level modules."""
    found = []
    for top in ("core", "app"):
        found += [f"{top}/{p.name}" for p in sorted((root / top).glob("*.py")) if p.name != "__init__.py"]
        found += [
            f"{p.parent.relative_to(root).as_posix()}/"
            for p in sorted((root / top).rglob("__init__.py"))
            if p.parent != root / top and "standin" not in p.parts  # the lecture's stand-ins: one row for all
        ]
    return found


def test_every_package_and_top_level_module_has_its_row():
    mapped = mapped_paths((ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8"))
    missing = [place for place in places() if place not in mapped]
    assert "core/scopes/" in places() and "core/engine.py" in places()
    assert not missing, f"CONTRIBUTING.md's map has no row for: {missing}"


def test_every_row_names_what_exists():
    mapped = mapped_paths((ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8"))
    gone = sorted(p for p in mapped if not (ROOT / p).exists())
    assert not gone, f"CONTRIBUTING.md's map names what is not there: {gone}"


def test_the_map_check_can_fail(tmp_path):
    for path in ("core/__init__.py", "core/nn.py", "core/ops.py", "core/new/__init__.py", "app/__init__.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    mapped = mapped_paths("| where | what |\n| --- | --- |\n| `core/nn.py` `ops.py` | neurons; the op table |\n")
    assert [place for place in places(tmp_path) if place not in mapped] == ["core/new/"]
