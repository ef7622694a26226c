"""app's layer rule as an import contract, read from the source with ast (every import,
also those inside functions), so a new side door fails here (issue 32 item 6). core's
rules: tests/core/test_import_boundary.py (no Qt, no app) and tests/core/test_layers.py
(its floors).

app's panels don't import each other: main_window (and startup, window_actions,
each panel's install.py wiring) composes them; all may use the shared ground
(look, settings, jobs, slices, collector, errors, undo, session, fields).
"""

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]

APP_PANELS = {"debugger", "editor", "files", "foreign", "graph", "help", "lessons", "training"}
APP_SHARED = {"look", "settings", "jobs", "slices", "collector", "errors", "undo", "session", "fields"}
APP_COMPOSERS = {"main_window", "startup", "window_actions", "show", "install"}  # module names that wire panels
# panel -> panel imports there today, each with its reason; a new one fails the test
APP_KNOWN = {
    ("app/files/actions.py", "graph"): "CANVAS_VERSION, the node sizes a file's positions were saved for",
    ("app/help/welcome.py", "files"): "the welcome page lists File → Examples (app/files/examples.py)",
    ("app/lessons/lesson_file.py", "files"): "Open Lesson… asks and warns through app/files/dialogs.py",
    ("app/lessons/slides.py", "files"): "Export Lesson Slides… asks and warns through app/files/dialogs.py",
}


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
    """The check is not vacuous: imports inside a function are found."""
    fake = tmp_path / "x.py"
    fake.write_text("def f():\n    from app.lessons.panel import LessonsPanel\n    import app.debugger.panel\n")
    found = [m for _line, m in imports(fake)]
    assert "app.lessons.panel" in found and "app.debugger.panel" in found
