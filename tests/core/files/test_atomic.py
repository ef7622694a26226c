"""Issue 32 item 9: a save that fails names the person's file and says why in words;
temp files of saves killed midway are swept at the next start."""

import errno
import os
import subprocess
import sys

import pytest

from core.files import atomic
from core.files.atomic import SaveError, sweep_stale_temps, write_atomically


def failing(monkeypatch, name, code):
    real = getattr(os, name)

    def fail(*args, **kwargs):
        if name == "open" and not str(args[0]).endswith(".tmp"):
            return real(*args, **kwargs)
        raise OSError(code, os.strerror(code), str(args[0]) if name == "open" else None)

    monkeypatch.setattr(atomic.os, name, fail)


@pytest.mark.parametrize(
    "name, code, why",
    [
        ("open", errno.EROFS, "the folder is read-only"),
        ("open", errno.EACCES, "the folder is read-only"),
        ("fsync", errno.ENOSPC, "the disk is full"),
        ("fsync", errno.EFBIG, "larger than this disk allows"),
    ],
)
def test_a_failed_save_names_the_file_and_says_why(tmp_path, monkeypatch, name, code, why):
    path = tmp_path / "my graph.json"
    path.write_text("old")
    failing(monkeypatch, name, code)
    with pytest.raises(SaveError) as raised:
        write_atomically(path, "new")
    message = str(raised.value)
    assert message.startswith(f"{path} was not saved: ") and why in message
    assert ".tmp" not in message and "Errno" not in message  # repro: .my graph.json.PID.xxxx.tmp, Errno 27
    assert raised.value.errno == code and why in raised.value.strerror
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["my graph.json"]


def test_a_folder_given_as_the_file_says_it_is_a_folder(tmp_path):
    with pytest.raises(SaveError, match="was not saved: that name is a folder"):
        write_atomically(tmp_path, "x")


def test_temp_files_of_killed_saves_are_swept_and_live_ones_stay(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    stale = tmp_path / f".g.json.{dead_pid}.0a1b2c3d.tmp"
    ours = tmp_path / f".g.json.{os.getpid()}.0a1b2c3d.tmp"
    parent = tmp_path / f".g.json.{os.getppid()}.deadbeef.tmp"
    others = [tmp_path / "g.json", tmp_path / ".g.json.notes.tmp", tmp_path / f"g.json.{dead_pid}.0a1b2c3d.tmp"]
    for p in [stale, ours, parent, *others]:
        p.write_text("x")
    assert sweep_stale_temps(tmp_path) == [stale.name]
    assert sorted(os.listdir(tmp_path)) == sorted(p.name for p in [ours, parent, *others])
    assert sweep_stale_temps(tmp_path / "missing") == []
