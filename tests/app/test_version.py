"""One version: pyproject.toml's, read through importlib.metadata or, in a checkout
never installed, from the file (app/__init__.py)."""

import re
from importlib.metadata import PackageNotFoundError
from pathlib import Path

import app

ROOT = Path(__file__).resolve().parents[2]


def _pyproject_version():
    return re.search(r'(?m)^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(encoding="utf-8")).group(1)


def test_the_version_is_pyprojects():
    assert app.__version__ == _pyproject_version()


def test_the_changelogs_newest_release_is_the_version():
    newest = re.search(r"(?m)^## (\d+\.\d+\.\d+)", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")).group(1)
    assert newest == _pyproject_version()


def _not_installed(name):
    raise PackageNotFoundError(name)


def test_a_checkout_never_installed_reads_pyproject(monkeypatch, tmp_path):
    monkeypatch.setattr(app, "version", _not_installed)
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "backprop-studio"\nversion = "9.8.7"\n')
    assert app.read_version(pyproject) == "9.8.7"
    assert app.read_version(tmp_path / "missing.toml") == "unknown"


def test_an_installed_studio_reads_its_metadata(monkeypatch, tmp_path):
    monkeypatch.setattr(app, "version", lambda name: "1.2.3" if name == "backprop-studio" else _not_installed(name))
    assert app.read_version(tmp_path / "missing.toml") == "1.2.3"
