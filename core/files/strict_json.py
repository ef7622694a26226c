"""Reading a JSON file that may come from anywhere: one strict reader for every file kind.

Graph files, lessons, training sessions and autosaves are all JSON, and all of
them may be handed to us by someone else -- or be something that only looks
like a file. Python's `json` module is generous where a loader must not be:

- `open(path).read()` on a named pipe (FIFO) waits for a writer that never
  comes, and on a symlink to /dev/zero reads until memory runs out;
- it accepts NaN and Infinity (not JSON), keeps the last of two equal keys
  without a word, and turns 1e400 into infinity;
- it recurses once per bracket, so 100,000 `[` raise RecursionError;
- a `"\\ud800"` escape gives a string with half a UTF-16 surrogate pair,
  which no UTF-8 file can hold: it loads, and then can never be saved.

So reading goes in three steps, each refusing what it cannot vouch for:

1. `read_bytes`: the path must name a regular file -- checked with `os.stat`
   *before* opening, and again with `fstat` on a descriptor opened with
   O_NONBLOCK (so even a FIFO swapped in between cannot block) -- and at most
   `limit + 1` bytes are read.
2. `decode`: strict UTF-8 (a byte-order mark is dropped; UTF-16 and pickles
   are named as what they are).
3. `loads`: the nesting depth is measured by a linear scan *before* the
   parser runs; then `json.loads` with hooks that refuse duplicate keys, NaN,
   infinite floats and runaway integers; then lone surrogates are refused.

Every refusal is one error type, `JSONFileError`, whose message names the file
and the fault (and the line and column where there is one). Each loader turns
it into its own error (`FormatError`, `LessonError`, `SessionError`), so a
caller never sees an `OSError`, a `RecursionError` or a `UnicodeError`.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import stat
from collections.abc import Callable
from typing import Any, NoReturn

MAX_DEPTH = 100  # no file of ours nests deeper than ~60 (a graph's meta)
MAX_INT_DIGITS = 1000  # Python refuses to read integers over 4,300 digits anyway

FAULTS = (
    "missing",
    "directory",
    "special",
    "unreadable",
    "too large",
    "empty",
    "encoding",
    "json",
    "too deep",
    "number",
    "duplicate key",
    "surrogate",
)


class JSONFileError(ValueError):
    """A file (or text) the strict reader refuses.

    `fault` is one of FAULTS; `message` says what is wrong (with the line and
    column where there is one); `path` is the file, or None for text.
    """

    def __init__(
        self,
        message: str,
        fault: str,
        path: str | os.PathLike[str] | None = None,
        line: int | None = None,
        col: int | None = None,
    ) -> None:
        self.message = message
        self.fault = fault
        self.path = path
        self.line = line
        self.col = col
        super().__init__(message if path is None else f"{path}: {message}")

    def at(self, path: str | os.PathLike[str] | None) -> JSONFileError:
        """The same error, naming the file it came from."""
        return JSONFileError(self.message, self.fault, path, self.line, self.col)


# -----------------------------------------------------------------------------
# 1. bytes: only from a regular file, and never more than limit + 1 of them


def read_bytes(path: str | os.PathLike[str], limit: int, what: str = "this kind of file") -> bytes:
    """The bytes of the regular file at path; JSONFileError if it is not one or is over limit."""
    path = os.fspath(path)
    try:
        info = os.stat(path)  # follows symlinks: a link to /dev/zero is a device
    except (OSError, ValueError) as e:
        raise _os_fault(e, path) from None
    _check_kind(info, path, what)
    if info.st_size > limit:
        raise JSONFileError(
            f"the file is {info.st_size / 1e6:.1f} MB; {what} is at most {_size(limit)}, so this is not one",
            "too large",
            path,
        )
    try:
        fd = _open_for_reading(path)
    except (OSError, ValueError) as e:
        raise _os_fault(e, path) from None
    try:
        _check_kind(os.fstat(fd), path, what)  # the name may point elsewhere since the stat
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as e:
        raise _os_fault(e, path) from None
    finally:
        os.close(fd)
    if total > limit:  # it grew since the stat
        raise JSONFileError(f"the file is over {_size(limit)}; {what} is smaller", "too large", path)
    return b"".join(chunks)


def _open_for_reading(path):
    # O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting
    # for a writer (for a regular file the flag changes nothing)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    return os.open(path, flags)


def _check_kind(info, path, what):
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        raise JSONFileError(f"this is a folder, not a file; {what} is a file", "directory", path)
    if not stat.S_ISREG(mode):
        kind = (
            "a named pipe (FIFO)"
            if stat.S_ISFIFO(mode)
            else "a character device (like /dev/zero)"
            if stat.S_ISCHR(mode)
            else "a block device"
            if stat.S_ISBLK(mode)
            else "a socket"
            if stat.S_ISSOCK(mode)
            else "a special file"
        )
        raise JSONFileError(
            f"this is {kind}, not a regular file; it was not read ({what} is an ordinary file)", "special", path
        )


def _os_fault(error, path):
    if isinstance(error, ValueError):  # e.g. a NUL character inside the path
        return JSONFileError(f"not a usable file name ({error})", "missing", path)
    if isinstance(error, (FileNotFoundError, NotADirectoryError)):
        return JSONFileError("there is no such file", "missing", path)
    if isinstance(error, IsADirectoryError):
        return JSONFileError("this is a folder, not a file", "directory", path)
    reason = "permission denied" if isinstance(error, PermissionError) else (error.strerror or str(error))
    return JSONFileError(f"cannot read the file: {reason}", "unreadable", path)


def _size(limit) -> str:
    if limit < 1024:
        return f"{limit} bytes"
    if limit % (1024 * 1024) == 0:
        return f"{limit // (1024 * 1024)} MB"
    return f"{limit // 1024} KB"


# -----------------------------------------------------------------------------
# 2. text: strict UTF-8


def decode(raw: bytes, what: str = "this kind of file") -> str:
    """str from bytes that must be UTF-8 (a leading byte-order mark is dropped)."""
    if raw.startswith(b"\xef\xbb\xbf"):  # as Notepad writes: harmless
        raw = raw[3:]
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in raw[:4]:
        raise JSONFileError(f"the file is UTF-16 (or UTF-32) text; {what} is UTF-8. Re-save it as UTF-8", "encoding")
    if raw[:1] == b"\x80" and raw[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        raise JSONFileError(
            "this looks like a Python pickle, not JSON; Backprop Studio never loads pickles (they can run any code)",
            "encoding",
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        raise JSONFileError(
            f"the file is not UTF-8 text: byte 0x{raw[e.start]:02x} at offset "
            f"{e.start} (line {line}); re-save it as UTF-8",
            "encoding",
            line=line,
        ) from None


# -----------------------------------------------------------------------------
# 3. JSON: depth first, then the parser with strict hooks, then surrogates


def load(path: str | os.PathLike[str], limit: int, what: str = "this kind of file", **options: Any) -> Any:
    """Parsed JSON from the file at path; JSONFileError names the file and the fault."""
    path = os.fspath(path)
    try:
        return loads(read_bytes(path, limit, what), what=what, limit=limit, **options)
    except JSONFileError as e:
        raise (e if e.path else e.at(path)) from None


def loads(
    text: str | bytes,
    what: str = "this kind of file",
    limit: int | None = None,
    max_depth: int = MAX_DEPTH,
    parse_constant: Callable[[str], Any] | None = None,
    parse_float: Callable[[str], Any] | None = None,
    parse_int: Callable[[str], Any] | None = None,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> Any:
    """Parsed JSON from text (str, or bytes that must be UTF-8).

    The hooks default to refusing NaN/Infinity, non-finite floats, integers of
    over MAX_INT_DIGITS digits and duplicate keys; a loader may pass its own
    (the graph file keeps bad numbers as markers, to name the node they are in).
    """
    if isinstance(text, (bytes, bytearray)):
        text = decode(bytes(text), what)
    if limit is not None and len(text) > limit:
        raise JSONFileError(f"the text is over {_size(limit)}; {what} is smaller", "too large")
    if not text.strip():
        raise JSONFileError("the file is empty", "empty")
    _refuse_surrogate_characters(text)
    check_depth(text, max_depth, what)
    try:
        data = json.loads(
            text,
            parse_constant=parse_constant or refuse_constant,
            parse_float=parse_float or finite_float,
            parse_int=parse_int or bounded_int,
            object_pairs_hook=object_pairs_hook or unique_keys,
        )
    except json.JSONDecodeError as e:
        raise JSONFileError(
            f"not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})", "json", line=e.lineno, col=e.colno
        ) from None
    except RecursionError:  # check_depth makes this unreachable; never let it out anyway
        raise JSONFileError(f"the JSON is nested too deeply to be {what}", "too deep") from None
    _refuse_surrogate_escapes(text)
    return data


def refuse_constant(token: str) -> NoReturn:
    """parse_constant: NaN, Infinity and -Infinity, which Python's json accepts and JSON does not."""
    raise JSONFileError(f"the file holds {token}, which is not a number JSON allows; write a finite number", "number")


def finite_float(text: str) -> float:
    """parse_float: a float, unless the literal overflows to infinity (1e400)."""
    x = float(text)
    if not math.isfinite(x):
        raise JSONFileError(f"the number {_clip(text)} is too large: it overflows a float to infinity", "number")
    return x


def bounded_int(text: str) -> int:
    """parse_int: an int of at most MAX_INT_DIGITS digits."""
    if len(text) > MAX_INT_DIGITS:
        raise JSONFileError(f"the integer {_clip(text)} is too large ({len(text)} characters)", "number")
    return int(text)


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """object_pairs_hook: a dict, refusing a key given twice (json would keep the last)."""
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            where = f" (in the object with id {data['id']!r})" if isinstance(data.get("id"), str) else ""
            raise JSONFileError(
                f"the key {key!r} appears twice in one object{where}; JSON readers would silently keep only the last",
                "duplicate key",
            )
        data[key] = value
    return data


def _clip(text):
    return text if len(text) <= 24 else f"{text[:12]}…"


# -- depth: a linear scan of the brackets outside strings ---------------------

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def check_depth(text: str, max_depth: int = MAX_DEPTH, what: str = "this kind of file") -> None:
    """JSONFileError if brackets outside strings nest deeper than max_depth.

    The parser recurses once per level; this never does. Regular expressions
    drop the strings and everything but brackets, so the scan runs at C speed
    over the text; only a refusal walks it again, to say where.
    """
    if text.count("[") + text.count("{") <= max_depth:
        return
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if max(itertools.accumulate(map(_STEP.__getitem__, brackets)), default=0) <= max_depth:
        return
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        step = _STEP.get(match.group())
        if step is None:
            continue
        depth += step
        if depth > max_depth:
            line, col = _position(text, match.start())
            raise JSONFileError(
                f"the JSON is nested too deeply (more than {max_depth} levels, at "
                f"line {line}, column {col}) to be {what}",
                "too deep",
                line=line,
                col=col,
            )


# -- surrogates: text no file can store ----------------------------------------

_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LOW_ESCAPE = re.compile(r"\\u[dD][c-fC-F][0-9a-fA-F]{2}")


def _refuse_surrogate_characters(text):
    # bytes decoded as UTF-8 never hold one; a str handed in directly may
    match = _SURROGATE.search(text)
    if match:
        line, col = _position(text, match.start())
        raise JSONFileError(
            f"line {line}, column {col}: the text holds U+{ord(match.group()):04X}, "
            "half of a UTF-16 surrogate pair: not a character, and no file can store it",
            "surrogate",
            line=line,
            col=col,
        )


def _refuse_surrogate_escapes(text):
    """JSONFileError at the first \\uD800-\\uDFFF escape that is not half of a proper pair."""
    position = 0
    while True:
        match = _SURROGATE_ESCAPE.search(text, position)
        if match is None:
            return
        start, end = match.span()
        before = start
        while before > 0 and text[before - 1] == "\\":  # "\\\\ud800" is a backslash, then text
            before -= 1
        if (start - before) % 2 == 0:
            code = int(match.group()[2:], 16)
            if code < 0xDC00 and _LOW_ESCAPE.match(text, end):
                position = end + 6  # a high half followed by a low half: one real character
                continue
            line, col = _position(text, start)
            raise JSONFileError(
                f"line {line}, column {col}: {match.group()} is half of a UTF-16 "
                "surrogate pair with no other half: not a character, and no file can "
                "store it. Remove it or write the character itself",
                "surrogate",
                line=line,
                col=col,
            )
        position = end


def _position(text, index):
    """(line, column), 1-based, of text[index]."""
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1
