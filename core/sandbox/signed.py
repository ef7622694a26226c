"""The signed report pipe: a harness proves each line it writes is its own.

The harness gets a key on its stdin before their code runs, signs each report
line with it (`sign`) and forgets it; the parent keeps a report only when every
line is signed (`verified`), so their code cannot forge a verdict on the same
pipe. Values go as plain JSON (`plain`: inf and nan as strings).
"""

from __future__ import annotations

import json
import math
from typing import Any


def read_text(path: str, limit: int) -> str:
    """The first `limit` bytes of a file as text ('' when it cannot be read)."""
    try:
        with open(path, "rb") as f:
            return f.read(limit).decode("utf-8", "replace")
    except OSError:
        return ""


def sign(key: str, text: str) -> str:
    """The HMAC of one report line (a harness proves a line is its own with it)."""
    import hashlib
    import hmac

    return hmac.new(key.encode(), text.encode(), hashlib.sha256).hexdigest()


def verified(data: bytes, key: str) -> list[Any] | None:
    """The report's items, or None when any line is not signed with the key."""
    import hmac

    items = []
    for raw in data.decode("utf-8", "replace").splitlines():
        mac, _, text = raw.partition(" ")
        if not hmac.compare_digest(mac, sign(key, text)):
            return None
        try:
            items.append(json.loads(text))
        except ValueError:
            return None
    return items


def plain(x: Any) -> Any:
    """JSON-safe plain data: inf/nan become the strings 'inf', '-inf', 'nan'."""
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if x != x else ("inf" if x > 0 else "-inf")
    if isinstance(x, dict):
        return {str(k): plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    return x
