"""Backprop Studio: the PySide6 desktop shell over core.

`__version__` has one home, `version` in pyproject.toml: an installed studio reads it
from its distribution's metadata; a checkout that was never installed reads the file.
"""

import re
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

DISTRIBUTION = "backprop-studio"
PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def read_version(pyproject: Path = PYPROJECT) -> str:
    """The studio's version: the installed distribution's, else pyproject.toml's beside app/."""
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        pass
    try:
        found = re.search(r'(?m)^version\s*=\s*"([^"]+)"', pyproject.read_text(encoding="utf-8"))
    except OSError:
        found = None
    return found.group(1) if found else "unknown"


__version__ = read_version()
