"""Where a field sits in a lesson file: the line a teacher's editor shows.

`LessonError` names a fault by its JSON path (`steps[2].actions[0].do`); a teacher
writing a lesson wants the line too. `field_lines(text)` walks the JSON text once
and records the line each value starts on, keyed by its path:

    {"steps": [            ->  ("steps",): 1
      {"text": "...",      ->  ("steps", 0): 2, ("steps", 0, "text"): 2
       "actions": ["zap"]} ->  ("steps", 0, "actions", 0): 3

The text has already been parsed by the strict reader, so this scanner may assume
valid JSON; on anything else it stops and returns what it found.
"""

from __future__ import annotations

import re

PATH_PART = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")


def field_lines(text: str) -> dict[tuple, int]:
    lines: dict[tuple, int] = {}
    try:
        _value(text, _skip(text, 0), (), lines)
    except (IndexError, ValueError):
        pass
    return lines


def path_of(step: int | None, field: str | None) -> tuple:
    """The JSON path of a LessonError's step and field ('actions[0].do')."""
    path: list = [] if step is None else ["steps", step]
    for name, index in PATH_PART.findall(field or ""):
        path.append(name if name else int(index))
    return tuple(path)


def line_of(text: str, step: int | None, field: str | None) -> int | None:
    """The line of the deepest part of the path that is in the file (a missing key:
    the object that should hold it)."""
    lines = field_lines(text)
    path = path_of(step, field)
    while path:
        if path in lines:
            return lines[path]
        path = path[:-1]
    return None


def _line(text: str, i: int) -> int:
    return text.count("\n", 0, i) + 1


def _skip(text: str, i: int) -> int:
    while text[i] in " \t\r\n":
        i += 1
    return i


def _string_end(text: str, i: int) -> int:
    """Index after the string starting at text[i] == '"'."""
    i += 1
    while text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    return i + 1


def _value(text: str, i: int, path: tuple, lines: dict[tuple, int]) -> int:
    lines[path] = _line(text, i)
    c = text[i]
    if c == "{":
        i = _skip(text, i + 1)
        if text[i] == "}":
            return i + 1
        while True:
            end = _string_end(text, i)
            key = text[i + 1 : end - 1]
            i = _skip(text, end)
            if text[i] != ":":
                raise ValueError("':' expected")
            i = _value(text, _skip(text, i + 1), path + (key,), lines)
            i = _skip(text, i)
            if text[i] == "}":
                return i + 1
            i = _skip(text, i + 1)  # ','
    if c == "[":
        i = _skip(text, i + 1)
        if text[i] == "]":
            return i + 1
        index = 0
        while True:
            i = _skip(text, _value(text, i, path + (index,), lines))
            index += 1
            if text[i] == "]":
                return i + 1
            i = _skip(text, i + 1)
    if c == '"':
        return _string_end(text, i)
    while i < len(text) and text[i] not in ",]} \t\r\n":
        i += 1
    return i
