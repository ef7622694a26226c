"""A save that fails names the user's file and says why in words; the temporary files
of killed saves are swept (issue 32 item 9, repros)."""

import errno
import os
import subprocess
import sys

import pytest

from core.files.atomic import sweep_stale_temps, why_not_written, write_atomically


def test_a_failed_save_names_the_users_file_not_the_temporary_one(tmp_path):
    target = tmp_path / "missing-folder" / "graph.json"
    with pytest.raises(OSError) as caught:
        write_atomically(target, "{}")
    assert caught.value.filename == str(target) and ".tmp" not in str(caught.value)
    assert caught.value.strerror == "the folder does not exist"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_is_said_to_be_read_only(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(OSError) as caught:
            write_atomically(folder / "graph.json", "{}")
        assert "read-only" in caught.value.strerror
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize(
    "code, words",
    [
        (errno.EROFS, "the folder is read-only"),
        (errno.ENOSPC, "the disk is full"),
        (errno.EFBIG, "larger than the disk or a size limit allows"),
        (errno.EACCES, "read-only to you"),
    ],
)
def test_each_cause_in_words(code, words):
    assert words in why_not_written(OSError(code, os.strerror(code)))


def test_a_size_limit_is_worded_and_leaves_no_temporary_file(tmp_path):
    """Errno 27 (EFBIG), as a full disk or a quota gives it, in a child with a 1 kB file limit."""
    code = f"""
import resource, signal, sys
sys.path.insert(0, {os.getcwd()!r})
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))
from core.files.atomic import write_atomically
try:
    write_atomically({str(tmp_path / 'graph.json')!r}, 'x' * 100000)
except OSError as e:
    print(e.filename, '|', e.strerror)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stdout
    assert out.strip() == f"{tmp_path / 'graph.json'} | the file would be larger than the disk or a size limit allows"
    assert os.listdir(tmp_path) == []


def test_stale_temporary_files_of_killed_saves_are_swept(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    stale = tmp_path / f".graph.json.{dead_pid}.0a1b2c3d.tmp"
    running = tmp_path / f".graph.json.{os.getpid()}.deadbeef.tmp"  # a save under way in this process
    other = tmp_path / "graph.json"
    for path in (stale, running, other):
        path.write_text("x")
    assert sweep_stale_temps(tmp_path) == [stale.name]
    assert sorted(os.listdir(tmp_path)) == sorted([running.name, other.name])
