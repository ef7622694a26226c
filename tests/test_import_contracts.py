"""The layer rules as import contracts, read from the source with ast (every import,
also those inside functions), so a new side door fails here (issue 32 item 6).

1. core never imports app, Qt or pyqtgraph (also tests/core/test_import_boundary.py,
   which imports every core module in a clean process).
2. core's floors: a core package imports only packages on a lower floor (or itself);
   nothing runs back up. `ops` is the ground floor, `lessons` the top.
3. app's panels don't import each other: main_window (and startup, window_actions,
   each panel's install.py wiring) composes them; all may use the shared ground
   (look, settings, jobs, slices, collector, errors, undo, session).
"""

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]

CORE_FLOORS = {
    "ops": 0,
    "format": 0,
    "engine": 1,
    "nn": 2,
    "losses": 2,
    "optim": 2,
    "tape": 2,
    "gradcheck": 2,
    "document": 3,
    "foreign": 4,
    "training": 4,
    "debugger": 5,
    "files": 5,
    "lessons": 6,
}
APP_PANELS = {"debugger", "editor", "files", "foreign", "graph", "help", "lessons", "training"}
APP_SHARED = {"look", "settings", "jobs", "slices", "collector", "errors", "undo", "session"}
APP_COMPOSERS = {"main_window", "startup", "window_actions", "show", "install"}  # module names that wire panels
# panel -> panel imports there today, each with its reason; a new one fails the test
APP_KNOWN = {
    ("app/files/actions.py", "graph"): "CANVAS_VERSION, the node sizes a file's positions were saved for",
    ("app/help/welcome.py", "files"): "the welcome page lists File → Examples (app/files/examples.py)",
    ("app/lessons/lesson_file.py", "files"): "Open Lesson… asks and warns through app/files/dialogs.py",
    ("app/lessons/slides.py", "files"): "Export Lesson Slides… asks and warns through app/files/dialogs.py",
}
FORBIDDEN_IN_CORE = {"PySide6", "shiboken6", "pyqtgraph", "app", "PyQt5", "PyQt6"}


def imports(path):
    """(line, module) of every absolute import in the file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names if node.module == "app"]
    return found


def package_of(path, top):
    parts = path.relative_to(ROOT / top).with_suffix("").parts
    return parts[0]


def test_core_imports_no_qt_and_no_app():
    bad = [
        f"{p.relative_to(ROOT)}:{line} {m}"
        for p in sorted((ROOT / "core").rglob("*.py"))
        for line, m in imports(p)
        if m.split(".")[0] in FORBIDDEN_IN_CORE
    ]
    assert bad == []


def test_every_core_package_has_a_floor():
    packages = {package_of(p, "core") for p in (ROOT / "core").rglob("*.py")} - {"__init__"}
    assert packages == set(CORE_FLOORS)


def test_core_floors_never_import_upward():
    bad = []
    for p in sorted((ROOT / "core").rglob("*.py")):
        here = package_of(p, "core")
        if here == "__init__":
            continue
        for line, m in imports(p):
            parts = m.split(".")
            if parts[0] != "core" or len(parts) < 2 or parts[1] == here:
                continue
            if CORE_FLOORS[parts[1]] >= CORE_FLOORS[here]:
                bad.append(
                    f"{p.relative_to(ROOT)}:{line} imports {m}: "
                    f"floor {CORE_FLOORS[parts[1]]} from {here}, floor {CORE_FLOORS[here]}"
                )
    assert bad == []


def test_app_panels_do_not_import_each_other():
    bad, known = [], set()
    for p in sorted((ROOT / "app").rglob("*.py")):
        here = package_of(p, "app")
        if here not in APP_PANELS or p.stem in APP_COMPOSERS:
            continue
        rel = p.relative_to(ROOT).as_posix()
        for line, m in imports(p):
            parts = m.split(".")
            if parts[0] != "app" or len(parts) < 2 or parts[1] == here or parts[1] in APP_SHARED:
                continue
            if parts[1] in APP_PANELS:
                if (rel, parts[1]) in APP_KNOWN:
                    known.add((rel, parts[1]))
                else:
                    bad.append(f"{rel}:{line} imports {m}: panels don't import each other (main_window composes them)")
    assert bad == []
    assert known == set(APP_KNOWN)  # an exception no longer needed is taken off the list


def test_the_contracts_catch_a_side_door(tmp_path):
    """The checks are not vacuous: an upward import and a panel-to-panel import are found."""
    fake = tmp_path / "x.py"
    fake.write_text("def f():\n    from core.lessons.runner import run\n    import app.debugger.panel\n")
    found = [m for _line, m in imports(fake)]
    assert "core.lessons.runner" in found and "app.debugger.panel" in found
    assert CORE_FLOORS["lessons"] > CORE_FLOORS["training"]
