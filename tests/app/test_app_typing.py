"""Type hints on app's modules that carry them: every public function of ANNOTATED says
what it returns.

mypy runs over all of core and app in tests/test_mypy.py ([tool.mypy] in
pyproject.toml): its override lists name the app modules not annotated yet and those
that write Qt's short enum names (`Qt.AlignLeft`; PySide6's stubs know only
`Qt.AlignmentFlag.AlignLeft`).
"""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("core_typing", ROOT / "tests" / "core" / "test_typing.py")
_core_typing = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_core_typing)
_missing_returns = _core_typing._missing_returns  # the same ast walk as core's

# app's modules whose public API is annotated. Add a module here once its hints are in.
ANNOTATED = [
    "app/collector.py",
    "app/debugger/controller.py",
    "app/editor/code_runner.py",
    "app/errors.py",
    "app/fields.py",
    "app/jobs.py",
    "app/lessons/opening.py",
    "app/lessons/presenter_install.py",
    "app/lessons/presenter_layout.py",
    "app/graph/layout_runner.py",
    "app/files/dialogs.py",
    "app/files/examples.py",
    "app/files/recent.py",
    "app/files/exports.py",
    "app/files/recovery.py",
    "app/files/window_state.py",
    "app/look/ui_scale.py",
    "app/session.py",
    "app/settings.py",
    "app/slices.py",
    "app/undo.py",
    "app/window_actions.py",
    "app/window_layout.py",
    "app/services.py",
    "app/lessons/opening.py",
]


def test_every_public_function_of_the_annotated_app_modules_says_what_it_returns():
    missing = [m for module in ANNOTATED for m in _missing_returns(ROOT / module)]
    assert not missing, "public functions without a return annotation:\n" + "\n".join(missing)
