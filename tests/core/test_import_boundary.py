"""core is a Qt-free library: it never imports PySide6, shiboken6, pyqtgraph or app."""

import ast
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
FORBIDDEN = ("PySide6", "shiboken6", "pyqtgraph", "app", "PyQt5", "PyQt6")


def test_no_forbidden_import_statements_in_core():
    offenders = []
    for path in sorted((ROOT / "core").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path.name}:{node.lineno} {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert offenders == []


def test_importing_every_core_module_loads_no_qt():
    core = ROOT / "core"
    modules = sorted(
        ".".join(p.relative_to(ROOT).with_suffix("").parts) for p in core.rglob("*.py") if p.stem != "__init__"
    )
    assert "core.document.graph" in modules and "core.engine" in modules
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in modules)
        + f"bad = [m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}]\n"
        "print(bad)\nsys.exit(1 if bad else 0)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
