"""Autosave records: the unsaved work of a session, written so a crash cannot lose it.

While a document has unsaved changes, the app writes it every few seconds to a
*recovery file* of its own (in the user's application-data folder, never next
to the user's files). A clean exit or a save deletes it; so a recovery file
that is still there when the app starts again is work a crash interrupted.

A recovery file is an ordinary graph file (`core.files.graph_file`), so the same
strict loader checks it and the same golden rules apply. Its `meta` carries
one extra object, `"recovery"`:

    {"source": "/home/ana/neuron.json" or null,   the file the work belongs to
     "saved_at": "2026-12-03T10:15:02Z",          when it was written (UTC)
     "title": "neuron.json"}                      what to call it when asking

The absolute path is the one exception to "no absolute paths in files", and
it is confined to this private file: restoring must know which file the work
was going to be saved into. `loads` gives back the document, the file's own
meta (without the recovery record) and its groups exactly as they were.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.document.groups import GroupError, join_meta, split_meta
from core.files import graph_file, strict_json

if TYPE_CHECKING:
    from core.document.graph import GraphDocument

RECOVERY_KEY = "recovery"


@dataclass
class Recovered:
    doc: object  # the GraphDocument as it was
    meta: dict  # the document's meta (title, description, ...), as it was
    groups: list  # its groups, as they were
    source: object  # the file path it belonged to, or None (never saved)
    saved_at: str  # when the autosave ran (ISO 8601, UTC)
    title: str  # a name for it, for the question "restore ...?"


def dumps(
    doc: GraphDocument,
    meta: dict[str, Any],
    groups: list[dict[str, Any]],
    source: str | None,
    saved_at: str,
    title: str = "",
) -> str:
    """The recovery file's text."""
    return graph_file.dumps(doc, _full_meta(meta, groups, source, saved_at, title))


def _full_meta(meta, groups, source, saved_at, title):
    if RECOVERY_KEY in meta:
        raise ValueError(f"meta already has a {RECOVERY_KEY!r} field")
    full = join_meta(meta, groups)
    full[RECOVERY_KEY] = {
        "source": None if source is None else str(source),
        "saved_at": str(saved_at),
        "title": str(title),
    }
    return full


# -----------------------------------------------------------------------------
# Writing off the GUI thread
#
# Turning a 5,000-node graph into JSON takes about a tenth of a second, too long
# to freeze the window every 30 s. So the app takes a `snapshot` (plain lists
# of plain values, a few milliseconds, on the thread that owns the document)
# and a worker turns it into text with `dumps_snapshot`, which gives exactly the
# bytes `dumps` gives (a test holds them equal).


def snapshot(doc: GraphDocument) -> dict[str, Any]:
    """The graph of doc as plain data, in the file's order, sharing nothing with doc."""
    nodes = [node.to_dict() for node in doc.nodes.values()]
    edges = [(src, nid, port) for nid in doc.nodes for port, src in enumerate(doc.inputs_of(nid)) if src is not None]
    return {"nodes": nodes, "edges": edges, "output": doc.output}


def dumps_snapshot(
    plain: dict[str, Any],
    meta: dict[str, Any],
    groups: list[dict[str, Any]],
    source: str | None,
    saved_at: str,
    title: str = "",
) -> str:
    """The recovery file's text from a snapshot; touches no document (thread-safe)."""
    full = _full_meta(meta, groups, source, saved_at, title)
    graph_file.check_meta(full)
    graph = {
        "nodes": plain["nodes"],
        "edges": [{"src": src, "dst": dst, "port": port} for src, dst, port in plain["edges"]],
        "output": plain["output"],
    }
    data = {"format": graph_file.FORMAT, "schema_version": graph_file.SCHEMA_VERSION, "meta": full, "graph": graph}
    return json.dumps(data, allow_nan=False, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def load(path: str | os.PathLike[str]) -> Recovered:
    """A Recovered from a recovery file; FormatError names the fault and the file.

    The recovery folder is scanned at every start, so whatever sits there is read
    by the strict reader (core.files.strict_json): a FIFO or a link to /dev/zero
    named *.json is refused before reading, never waited on or read without end."""
    path = os.fspath(path)
    try:
        return loads(strict_json.read_bytes(path, graph_file.MAX_BYTES, "an autosave"))
    except strict_json.JSONFileError as e:
        raise graph_file.FormatError(f"{path}: {e.message}", e.fault) from None
    except graph_file.FormatError as e:
        raise graph_file.FormatError(f"{path}: {e}", e.fault) from None


def loads(text: str | bytes) -> Recovered:
    """A Recovered from a recovery file's text; FormatError says what is wrong."""
    doc, meta = graph_file.loads(text)
    meta = dict(meta)
    record = meta.pop(RECOVERY_KEY, None)
    if not isinstance(record, dict):
        raise graph_file.FormatError("not a recovery file: meta has no 'recovery' object")
    source = record.get("source")
    saved_at = record.get("saved_at", "")
    title = record.get("title", "")
    if source is not None and not isinstance(source, str):
        raise graph_file.FormatError(f"recovery 'source' must be a path or null, got {source!r}")
    if not isinstance(saved_at, str) or not isinstance(title, str):
        raise graph_file.FormatError("recovery 'saved_at' and 'title' must be text")
    try:
        meta, groups = split_meta(meta, doc)
    except GroupError as e:
        raise graph_file.FormatError(str(e)) from None
    return Recovered(doc, meta, groups, source, saved_at, title)
