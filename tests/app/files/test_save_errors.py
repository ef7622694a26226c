"""Issue 32 item 9: File → Save into a read-only folder or onto a full disk says so in
words, naming the person's file; temp files of killed saves are swept at start."""

import errno
import os

import pytest

import app.files.dialogs as file_dialogs
from app.main_window import MainWindow
from core.files import atomic


@pytest.fixture
def window(qtbot, tmp_path):
    w = MainWindow()
    w.files.prompt_on_close = False
    qtbot.addWidget(w)
    yield w
    w.close()


@pytest.mark.parametrize("code, why", [(errno.EROFS, "the folder is read-only"), (errno.ENOSPC, "the disk is full")])
def test_a_failed_save_says_why_and_names_the_file(window, tmp_path, monkeypatch, code, why):
    shown = []
    monkeypatch.setattr(file_dialogs, "show_error", lambda parent, title, text: shown.append(text))

    def fail(fd):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(atomic.os, "fsync", fail)
    (tmp_path / "work").mkdir()
    path = tmp_path / "work" / "homework.json"
    assert not window.files.save_to(str(path))
    assert len(shown) == 1 and shown[0].startswith(f"{path} was not written: {why}.")
    assert ".tmp" not in shown[0] and "Errno" not in shown[0]
    assert os.listdir(tmp_path / "work") == []
    assert window.files.path is None  # the graph is still open, not taken as saved
