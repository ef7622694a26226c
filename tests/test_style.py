"""The tree stays as ruff wants it (pyproject.toml [tool.ruff]): lint and format, both clean."""

import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
RUFF = shutil.which("ruff")


@pytest.mark.skipif(RUFF is None, reason="ruff is not installed (pip install -e '.[test]' brings it)")
@pytest.mark.parametrize("command", [["check", "."], ["format", "--check", "."]], ids=["lint", "format"])
def test_ruff_is_clean(command):
    result = subprocess.run([RUFF, *command], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_test_files_have_unique_basenames():
    # pytest imports test modules by basename (no __init__.py in tests/): two alike stop the whole run
    import collections
    import pathlib

    names = collections.Counter(p.name for p in pathlib.Path(__file__).parent.rglob("test_*.py"))
    assert [n for n, k in names.items() if k > 1] == []
