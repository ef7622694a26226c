"""Quoting their run in the report: their exception at its line, a wrong grad beside the right one.

The child sends plain records (core/foreign/child/load.py `their_error`: where, type,
message, [file, line, source]); the learner reads sentences. Every verdict quotes
through here, so an exception, a line and a wrong number read the same in each.
"""

from __future__ import annotations

import math
from typing import Any

from core.foreign.agree import pair


def error_text(error: dict[str, Any]) -> str:
    """'your backward() raised ZeroDivisionError: float division by zero (engine.py,
    line 12: `self.grad += 1 / other.data`)' from the child's record of it."""
    text = f"{error['where']} raised {error['type']}: {error['message']}"
    at = error.get("at")
    if at:
        text += f" ({_short(at[0])}, line {at[1]}: `{at[2]}`)"
    return text[:600]


def _short(path: str) -> str:
    parts = path.replace("\\", "/").split("/")
    return "/".join(parts[-2:]) if len(parts) > 1 and parts[-2] not in ("", "tmp") else parts[-1]


def line_text(line: list[Any] | None) -> str | None:
    """'engine.py, line 27: self.grad += ...' from [file, line, source] (None for none)."""
    return f"{_short(line[0])}, line {line[1]}: {line[2]}" if line else None


def wrong_text(wrong: list[dict[str, Any]]) -> str:
    """'x.grad is 3, should be 5; y.grad is 0, should be -2' (the first three), with
    enough digits that the two numbers differ on the page."""
    parts = []
    for w in wrong[:3]:
        if w["got"] is None:
            parts.append(
                f"{w['name']}.grad is None (your backward() left it no gradient), should be {w['expected']:.6g}"
            )
            continue
        got, want = pair(w["got"], w["expected"])
        parts.append(f"{w['name']}.grad is {got}, should be {want}")
    return "; ".join(parts)


def as_number(x: Any) -> float:
    """A number the child sent (None, a missing value, as nan)."""
    return float(x) if x is not None else math.nan


def arg_value(a: Any, forward: dict[str, float]) -> float:
    """An argument of a test step: a step's id (its value in `forward`) or a constant {"n": x}."""
    return forward[a] if isinstance(a, str) else float(a["n"])
