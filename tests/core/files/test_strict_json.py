"""The strict JSON reader: special files refused before opening, bounded reads, one error type
naming the file and the fault; and every loader turning it into its own error (issue 20)."""

import json
import os

import pytest

from core.files import graph_file, recovery, strict_json
from core.files import training_session as ts
from core.files.strict_json import JSONFileError, load, loads, read_bytes
from core.lessons.format import LessonError, load_lesson
from tests.core.files.hostile import fifo_guard

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
needs_dev_zero = pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")

# every loader, and the error it raises
LOADERS = [
    pytest.param(graph_file.load, graph_file.FormatError, id="graph"),
    pytest.param(recovery.load, graph_file.FormatError, id="recovery"),
    pytest.param(load_lesson, LessonError, id="lesson"),
    pytest.param(ts.load, ts.SessionError, id="session"),
]


# -----------------------------------------------------------------------------
# the reader


@needs_fifo
def test_a_fifo_is_refused_without_being_opened(tmp_path):
    fifo = tmp_path / "graph.json"
    os.mkfifo(fifo)
    with fifo_guard(fifo) as opened:
        with pytest.raises(JSONFileError, match="named pipe") as caught:
            read_bytes(fifo, 1000)
    assert caught.value.fault == "special" and opened == []


@needs_dev_zero
def test_a_link_to_dev_zero_is_refused_not_read_forever(tmp_path):
    link = tmp_path / "zero.json"
    link.symlink_to("/dev/zero")
    with pytest.raises(JSONFileError, match="character device") as caught:
        read_bytes(link, 1000)
    assert caught.value.fault == "special" and caught.value.path == str(link)


def test_missing_folder_and_over_limit(tmp_path):
    with pytest.raises(JSONFileError, match="no such file") as caught:
        read_bytes(tmp_path / "none.json", 10)
    assert caught.value.fault == "missing"
    with pytest.raises(JSONFileError, match="folder") as caught:
        read_bytes(tmp_path, 10)
    assert caught.value.fault == "directory"
    big = tmp_path / "big.json"
    big.write_bytes(b"[" + b"0," * 100 + b"0]")
    with pytest.raises(JSONFileError, match="at most 150 bytes") as caught:
        read_bytes(big, 150)
    assert caught.value.fault == "too large"
    assert read_bytes(big, 1000) == big.read_bytes()


def test_a_file_that_grows_past_the_limit_while_read_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "growing.json"
    path.write_bytes(b"[1]")
    real_open = strict_json._open_for_reading

    def grow_then_open(p):
        path.write_bytes(b"[" + b"1," * 1000 + b"1]")  # after the stat, before the read
        return real_open(p)

    monkeypatch.setattr(strict_json, "_open_for_reading", grow_then_open)
    with pytest.raises(JSONFileError, match="over") as caught:
        read_bytes(path, 100)
    assert caught.value.fault == "too large"


def test_deep_nesting_is_refused_before_the_parser_recurses():
    # issue 20: 100k-deep JSON raised RecursionError
    with pytest.raises(
        JSONFileError,
        match=r"nested too deeply \(more than 100 levels, at line 1, "
        r"column 101\)",
    ) as caught:
        loads("[" * 100_000 + "]" * 100_000)
    assert caught.value.fault == "too deep"
    assert loads("[" * 100 + "]" * 100) == json.loads("[" * 100 + "]" * 100)
    assert loads('{"a": "' + "[" * 5000 + '"}') == {"a": "[" * 5000}  # brackets in a string


def test_lone_surrogates_are_refused_with_line_and_column_and_pairs_are_kept():
    with pytest.raises(JSONFileError, match=r"line 2, column 12: \\ud800 is half of a UTF-16") as caught:
        loads('{"a": 1,\n "label": "\\ud800"}')
    assert caught.value.fault == "surrogate" and (caught.value.line, caught.value.col) == (2, 12)
    with pytest.raises(JSONFileError, match="surrogate"):
        loads('["\\udc00\\ud800"]')  # low then high is no pair
    with pytest.raises(JSONFileError, match="U\\+D800"):
        loads('["\ud800"]')  # a str handed in directly
    assert loads('["\\ud83d\\ude00"]') == ["😀"]
    assert loads('["\\\\ud800"]') == ["\\ud800"]  # an escaped backslash, then text


@pytest.mark.parametrize(
    "text, words",
    [
        ('{"a": 1, "a": 2}', "'a' appears twice"),
        ("[NaN]", "NaN"),
        ("[-Infinity]", "Infinity"),
        ("[1e400]", "1e400 is too large"),
        ("[" + "9" * 5000 + "]", "5000 characters"),
        ("[1,", "not valid JSON"),
        ("  ", "empty"),
    ],
)
def test_json_that_python_would_accept_or_choke_on_is_refused(text, words):
    with pytest.raises(JSONFileError, match=words):
        loads(text)


def test_bytes_are_strict_utf8():
    with pytest.raises(JSONFileError, match="not UTF-8 text: byte 0xff at offset 1"):
        loads(b"[\xff]")
    with pytest.raises(JSONFileError, match="not UTF-8"):
        loads(b'["\xed\xa0\x80"]')  # a surrogate encoded as UTF-8 bytes
    assert loads(b"\xef\xbb\xbf[1]") == [1]


def test_load_names_the_file(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("[1, 2")
    with pytest.raises(JSONFileError) as caught:
        load(path, 100)
    assert str(caught.value).startswith(f"{path}: not valid JSON")


# -----------------------------------------------------------------------------
# every loader: its own error, never OSError / RecursionError / UnicodeError


@pytest.mark.parametrize("loader, error", LOADERS)
def test_a_missing_path_or_a_folder_is_the_loaders_error(loader, error, tmp_path):
    # issue 20: these raised FileNotFoundError / IsADirectoryError
    with pytest.raises(error, match="no such file"):
        loader(tmp_path / "missing.json")
    with pytest.raises(error, match="folder"):
        loader(tmp_path)


@needs_fifo
@pytest.mark.parametrize("loader, error", LOADERS)
def test_a_fifo_is_the_loaders_error_and_never_blocks(loader, error, tmp_path):
    # issue 20: opening a FIFO as a graph file blocked forever
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with fifo_guard(fifo) as opened:
        with pytest.raises(error, match="named pipe"):
            loader(fifo)
    assert opened == []


@needs_dev_zero
@pytest.mark.parametrize("loader, error", LOADERS)
def test_a_link_to_dev_zero_is_the_loaders_error(loader, error, tmp_path):
    link = tmp_path / "zero.json"
    link.symlink_to("/dev/zero")
    with pytest.raises(error, match="not a regular file"):
        loader(link)


@pytest.mark.parametrize("loader, error", LOADERS)
def test_100k_deep_json_is_the_loaders_error(loader, error, tmp_path):
    # issue 20: a lesson raised RecursionError
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(error, match="nested too deeply"):
        loader(path)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads anything")
@pytest.mark.parametrize("loader, error", LOADERS)
def test_an_unreadable_file_is_the_loaders_error(loader, error, tmp_path):
    path = tmp_path / "locked.json"
    path.write_text("{}")
    path.chmod(0)
    with pytest.raises(error, match="permission denied"):
        loader(path)
