"""A pytest plugin: a course's failing gradient test gets the studio's diagnosis.

Courses grade a student's autograd by final numbers ("received derivative
f'=... for argument 1"), never which op or why. With this plugin

    python -m pytest -p core.foreign.pytest_plugin tests/

a test that fails on a module using a student's Value-like class (one that
defines `__add__` or `__mul__` and `backward`: micrograd's Value, MiniTorch's
Scalar ...) gets a section "backprop-studio" in its failure report: the
studio's check of the file that defines the class (run once per file, in a
child process with limits, like `--check-engine`), its first wrong gradient
and likely cause, the first hint, and the exact command that opens the
debugger at the fault:

    python main.py --debug-engine FILE --expr "x = -1.5; y = 2.0; x * y"

A class the studio finds right is said to be right, so the failure is
looked for elsewhere. Nothing is added to passing tests.
"""

from __future__ import annotations

import inspect
import os
import shlex
from typing import Any

import pytest

from core.foreign import hints
from core.foreign.report import fault_lines
from core.foreign.runner import check_file
from core.foreign.shapes import BACKWARD, is_value_class

STUDIO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_checked: dict[str, dict[str, Any]] = {}


def _looks_like_value(cls: Any) -> bool:
    """A learner's Value class (core/foreign/shapes.is_value_class), defined by them, with a backward()."""
    return is_value_class(cls) and any(callable(getattr(cls, name, None)) for name in BACKWARD)


def engine_files(module: Any) -> list[str]:
    """The files defining the Value-like classes a test module uses (imported by name,
    or through a module it imported); never the studio's own, nor installed packages."""
    candidates = []
    for obj in vars(module).values():
        if isinstance(obj, type):
            candidates.append(obj)
        elif inspect.ismodule(obj):
            candidates += [v for v in vars(obj).values() if isinstance(v, type)]
    found = []
    for cls in candidates:
        if not _looks_like_value(cls):
            continue
        try:
            path = inspect.getsourcefile(cls)
        except TypeError:
            continue
        if path and "site-packages" not in path and not os.path.abspath(path).startswith(STUDIO + os.sep + "core"):
            found.append(package_of(cls, os.path.abspath(path)))
    return list(dict.fromkeys(found))


def package_of(cls: type, path: str) -> str:
    """The engine to check for a class defined at `path`: the file, or -- for a class
    of a package (MiniTorch's `minitorch.scalar.Scalar`, with relative imports) -- the
    package's top folder, which the checker loads as a package."""
    module = getattr(cls, "__module__", "") or ""
    if "." not in module:
        return path
    folder = os.path.dirname(path)
    for _ in module.split(".")[1:]:
        if not os.path.isfile(os.path.join(folder, "__init__.py")):
            return path
        folder = os.path.dirname(folder) if folder != os.path.dirname(folder) else folder
    top = os.path.join(folder, module.split(".")[0])
    return top if os.path.isfile(os.path.join(top, "__init__.py")) else path


def launcher() -> str:
    """How to start the studio here: the checkout's main.py, or the installed command."""
    main = os.path.join(STUDIO, "main.py")
    return f"python {main}" if os.path.isfile(main) else "backprop-studio"


def command(path: str, fault: dict[str, Any]) -> str:
    expr = f" --expr {shlex.quote(fault['expr'])}" if fault.get("expr") else ""
    return f"{launcher()} --debug-engine {shlex.quote(path)}{expr}"


def diagnosis_text(path: str, report: dict[str, Any]) -> str:
    name = os.path.basename(path)
    if report["status"] == "ok":
        return f"The studio checked {name}: every gradient is right. The failure is not in its backward pass."
    if report["status"] != "wrong" or not report.get("fault"):
        return f"The studio could not judge {name} ({report['status']}): {report.get('message', '')}"
    fault = report["fault"]
    lines = [f"The studio checked {name}:"] + fault_lines(fault)
    lines.append(f"Hint: {hints.climb(fault, 1)[0]}")
    lines.append(f"Step it in the debugger: {command(path, fault)}")
    return "\n".join(lines)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any):  # noqa: ANN201 -- a pytest hook wrapper
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    module = getattr(item, "module", None)
    if module is None:
        return
    for path in engine_files(module):
        if path not in _checked:
            _checked[path] = check_file(path)
        report.sections.append((f"backprop-studio: {os.path.basename(path)}", diagnosis_text(path, _checked[path])))
