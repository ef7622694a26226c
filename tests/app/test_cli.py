"""app/cli.py: the command line without Qt -- --copy-notebook, --check-engine, and the window asked for
where Qt is not installed (issue 39 items 6, 7)."""

import sys

from app import cli


def test_copy_notebook_copies_once(tmp_path, capsys):
    assert cli.main(["--copy-notebook", str(tmp_path)]) == 0
    copied = tmp_path / "backprop_tutorial.ipynb"
    assert copied.is_file() and '"cells"' in copied.read_text(encoding="utf-8")
    assert "Copied the tutorial notebook" in capsys.readouterr().out
    copied.write_text("my own edits")
    assert cli.main(["--copy-notebook", str(tmp_path)]) == 2  # never over the learner's copy
    assert copied.read_text() == "my own edits" and "already there" in capsys.readouterr().err


def test_copy_notebook_defaults_to_here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.parse_args(["--copy-notebook"]).copy_notebook == "."
    assert cli.main(["--copy-notebook"]) == 0 and (tmp_path / "backprop_tutorial.ipynb").is_file()


def test_the_window_without_qt_says_how_to_get_it(monkeypatch, capsys):
    import app

    monkeypatch.setitem(sys.modules, "app.startup", None)  # as where PySide6 is not installed: ImportError
    monkeypatch.delattr(app, "startup", raising=False)  # (imported already by another test)
    assert cli.main(["--no-welcome"]) == 2
    err = capsys.readouterr().err
    assert "pip install 'backprop-studio[app]'" in err and "--check-engine" in err


def test_the_tour_and_the_slides_have_their_command_lines_in_startup(capsys):
    """`--tour` and `--export-slides` reach app/startup.py's own parsers (no lesson module builds a
    window; issue 41): their --help names them, and the window's parser never sees them."""
    import pytest

    for flag, words in (("--tour", "OUT"), ("--export-slides", "PDF")):
        with pytest.raises(SystemExit) as stop:
            cli.main([flag, "--help"])
        assert stop.value.code == 0
        out = capsys.readouterr().out
        assert f"backprop-studio {flag}" in out and words.lower() in out.lower()
