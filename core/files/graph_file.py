"""Graph files: plain JSON on disk, written safely, read suspiciously.

A saved graph is one JSON object::

    {
      "format": "backprop-studio.graph",     what this file is
      "schema_version": 1,                   which layout of the fields below
      "meta": {"title": ..., "description": ...},
      "graph": {
        "nodes": [{"id": "n1", "kind": "input", "value": 2.0, "label": "x", "pos": [0, 0]},
                  {"id": "n3", "kind": "op", "op": "mul", "label": "", "pos": [160, 0]}, ...],
        "edges": [{"src": "n1", "dst": "n3", "port": 0}, ...],
        "output": "n3"                        or null: the single sink
      }
    }

Writing. `save` never leaves a half-written file where a good one was: it
writes a temporary file in the same directory, flushes it to the disk
(`os.fsync`) and only then renames it over the old one with `os.replace`,
which is atomic. A crash, a full disk or a kill at any instant leaves either
the old file or the new one. Keys are sorted and NaN is refused
(`allow_nan=False`), so the same graph always gives the same bytes.

Reading. A file may come from anywhere, so `load` trusts nothing. The strict
reader every file kind shares (core/files/strict_json.py) refuses what is not
a regular file (a FIFO, /dev/zero) before reading it, a file over `MAX_BYTES`,
text that is not UTF-8, malformed JSON (with line and column), nesting too
deep to parse, duplicate keys and strings no file could store (a lone
surrogate). On top of it this module refuses the tokens NaN and Infinity,
numbers too large for a float (1e400 would silently become infinity), and any
graph that `GraphDocument` could not hold:
unknown ops, wires to missing nodes, two wires into one port, cycles. Every
refusal is a `FormatError` whose message says what is wrong and where (the
line, the node id, the edge index). Nothing is skipped silently: a file that
loads is exactly the file that was written. No pickle, no eval, ever.

Versions. `schema_version` is a plain integer that grows by one whenever the
layout changes. A file from a newer program is refused with a message saying
so; a file from an older one is upgraded step by step through `MIGRATIONS`
(0 -> 1, then 1 -> 2, ...), each step a small function from one layout to the
next. Golden files of every version live in tests/data/ and must load forever.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any

from core.document.graph import KINDS, OPS, GraphDocument, GraphError
from core.files import strict_json
from core.files.atomic import write_atomically

FORMAT = "backprop-studio.graph"
SCHEMA_VERSION = 1
MAX_BYTES = 20 * 1024 * 1024  # a 10,000-node graph is ~2 MB
MAX_META_DEPTH = 16
MAX_DIGITS = 400  # an integer this long cannot be a float anyway
WHAT = "a graph file"  # how error messages name what the file should have been

NODE_KEYS = ("id", "kind", "op", "param", "value", "label", "pos")
EDGE_KEYS = ("src", "dst", "port")
TOP_KEYS = ("format", "schema_version", "meta", "graph")


class FormatError(ValueError):
    """A file we will not load; the message says what is wrong and where.

    `fault` is set when the strict reader refused the file itself (one of
    strict_json.FAULTS: 'missing', 'special', ...), else None."""

    def __init__(self, message: str, fault: str | None = None) -> None:
        super().__init__(message)
        self.fault = fault


# -----------------------------------------------------------------------------
# Writing


def dumps(doc: GraphDocument, meta: dict[str, Any] | None = None) -> str:
    """The file's text for doc: sorted keys, two-space indent, a final newline."""
    meta = {} if meta is None else meta
    check_meta(meta)
    data = {"format": FORMAT, "schema_version": SCHEMA_VERSION, "meta": meta, "graph": doc.to_dict()}
    return json.dumps(data, allow_nan=False, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def save(doc: GraphDocument, path: str | os.PathLike[str], meta: dict[str, Any] | None = None) -> None:
    """Write doc to path atomically: the old file stays whole until the new one is."""
    write_atomically(path, dumps(doc, meta))


# -----------------------------------------------------------------------------
# Reading: bytes -> text -> JSON values


def load(path: str | os.PathLike[str]) -> tuple[GraphDocument, dict[str, Any]]:
    """(GraphDocument, meta) from a file; FormatError names the fault and the file.

    The file must be a regular file of at most MAX_BYTES (core.files.strict_json):
    a FIFO, a device, a folder or a missing path is refused before any reading."""
    path = os.fspath(path)
    try:
        raw = strict_json.read_bytes(path, MAX_BYTES, WHAT)
        return loads(raw)
    except strict_json.JSONFileError as e:
        raise FormatError(f"{path}: {e.message}", e.fault) from None
    except FormatError as e:
        raise FormatError(f"{path}: {e}", e.fault) from None


def loads(text: str | bytes) -> tuple[GraphDocument, dict[str, Any]]:
    """(GraphDocument, meta) from the file's text (str, or bytes that must be UTF-8)."""
    try:
        data = strict_json.loads(text, WHAT, MAX_BYTES, parse_constant=_constant, parse_float=_float, parse_int=_int)
    except strict_json.JSONFileError as e:
        raise FormatError(e.message, e.fault) from None
    return read(data)


class BadNumber:
    """What the parser returns for a number no graph may hold (NaN, 1e400, ...).

    Refusing it inside the parser would lose *where* it was; returning this
    marker lets the checks below name the node and the field.
    """

    __slots__ = ("text", "why")

    def __init__(self, text, why) -> None:
        self.text = text if len(text) <= 24 else f"{text[:12]}…({len(text)} characters)"
        self.why = why

    def __repr__(self) -> str:
        return self.text


def _constant(token):  # NaN, Infinity, -Infinity: accepted by Python's json, not by JSON
    return BadNumber(token, "which is not a finite number; JSON has no NaN or Infinity")


def _float(text):
    x = float(text)
    return x if math.isfinite(x) else BadNumber(text, "too large: it overflows a float to infinity")


def _int(text):
    if len(text) > MAX_DIGITS:
        return BadNumber(text, "too large: it overflows a float to infinity")
    return int(text)


# -----------------------------------------------------------------------------
# Reading: JSON values -> a checked graph


def read(data: Any) -> tuple[GraphDocument, dict[str, Any]]:
    """(GraphDocument, meta) from parsed JSON of any schema we know."""
    if not isinstance(data, dict):
        raise FormatError(f"a graph file holds one JSON object {{...}}, not {_kind(data)}")
    if "format" not in data:
        raise FormatError(
            f"not a Backprop Studio graph: there is no 'format' field (expected \"format\": \"{FORMAT}\")"
        )
    if isinstance(data["format"], str) and data["format"].startswith("backprop-studio.") and data["format"] != FORMAT:
        kind = data["format"].split(".", 1)[1]
        raise FormatError(
            f"this is a Backprop Studio {kind!r} file, not a graph (format is {data['format']!r}, expected {FORMAT!r})"
        )
    if data["format"] != FORMAT:
        raise FormatError(f"not a Backprop Studio graph: format is {_show(data['format'])} (expected {FORMAT!r})")
    data = upgrade(data)
    for key in data:
        if key not in TOP_KEYS:
            raise FormatError(f"unknown top-level field {key!r} (known: {', '.join(TOP_KEYS)})")
    meta = data.get("meta", {})
    check_meta(meta)
    if "graph" not in data:
        raise FormatError("there is no 'graph' field")
    graph = check_graph(data["graph"])
    try:
        doc = GraphDocument.from_dict(graph)
    except GraphError as e:  # the checks above should have caught it; never pass it silently
        raise FormatError(str(e)) from None
    return doc, meta


def upgrade(data: dict[str, Any]) -> dict[str, Any]:
    """Bring data to SCHEMA_VERSION through MIGRATIONS, one version at a time."""
    if "schema_version" not in data:
        raise FormatError("there is no 'schema_version' field, so the file's layout is unknown")
    version = data["schema_version"]
    if not _is_int(version):
        raise FormatError(f"schema_version must be an integer, got {_show(version)}")
    if version > SCHEMA_VERSION:
        raise FormatError(
            f"made by a newer Backprop Studio (schema {version}); this version reads "
            f"up to {SCHEMA_VERSION}. Update Backprop Studio to open it"
        )
    while version < SCHEMA_VERSION:
        if version not in MIGRATIONS:
            raise FormatError(
                f"unknown schema_version {version} (this version reads {min(MIGRATIONS)} to {SCHEMA_VERSION})"
            )
        data = MIGRATIONS[version](data)
        version += 1
    return data


def check_meta(meta: Any) -> None:
    """Raise FormatError unless meta is a small JSON object (title and description are text)."""
    if not isinstance(meta, dict):
        raise FormatError(f"meta must be an object, got {_kind(meta)}")
    for key in ("title", "description"):
        if key in meta and not isinstance(meta[key], str):
            raise FormatError(f"meta {key!r} must be text, got {_show(meta[key])}")
    todo = [(meta, "meta", 1)]
    while todo:  # a loop, not recursion: depth is what we are checking
        item, where, depth = todo.pop()
        if depth > MAX_META_DEPTH:
            raise FormatError(f"{where} is nested more than {MAX_META_DEPTH} levels deep")
        if isinstance(item, dict):
            todo.extend((v, f"{where}.{k}", depth + 1) for k, v in item.items())
            if not all(isinstance(k, str) for k in item):
                raise FormatError(f"{where} has a key that is not text")
        elif isinstance(item, list):
            todo.extend((v, f"{where}[{i}]", depth + 1) for i, v in enumerate(item))
        elif isinstance(item, BadNumber):
            raise FormatError(f"{where} is {item.text}, {item.why}")
        elif isinstance(item, float) and not math.isfinite(item):
            raise FormatError(f"{where} is {item}, which is not a finite number")
        elif item is not None and not isinstance(item, (str, int, float)):
            raise FormatError(f"{where} holds a {type(item).__name__}, which JSON cannot store")


def check_graph(graph: Any) -> dict[str, Any]:
    """Check the 'graph' object field by field; return it (unchanged) if it is sound."""
    if not isinstance(graph, dict):
        raise FormatError(f"'graph' must be an object, got {_kind(graph)}")
    for key in graph:
        if key not in ("nodes", "edges", "output"):
            raise FormatError(f"graph: unknown field {key!r} (known: nodes, edges, output)")
    nodes = graph.get("nodes")
    edges = graph.get("edges", [])
    if not isinstance(nodes, list):
        raise FormatError(f"graph 'nodes' must be a list, got {_kind(nodes)}")
    if not isinstance(edges, list):
        raise FormatError(f"graph 'edges' must be a list, got {_kind(edges)}")
    arity = {}  # id -> number of input ports
    for i, raw in enumerate(nodes):
        nid = _check_node(i, raw)
        if nid in arity:
            first = next(j for j, n in enumerate(nodes) if n.get("id") == nid)
            raise FormatError(f"duplicate node id {nid!r} (nodes {first} and {i})")
        arity[nid] = OPS[raw["op"]][0] if raw["kind"] == "op" else 0
    _check_edges(edges, nodes, arity)
    output = graph.get("output")
    if output is not None and not isinstance(output, str):
        raise FormatError(f"graph 'output' must be a node id or null, got {_show(output)}")
    if output is not None and output not in arity:
        raise FormatError(f"graph 'output' {output!r} is not a node of the graph")
    return {"nodes": nodes, "edges": edges, "output": output}


def _check_node(i, raw):
    if not isinstance(raw, dict):
        raise FormatError(f"node {i} must be an object, got {_kind(raw)}")
    if "id" not in raw:
        raise FormatError(f"node {i} has no 'id'")
    nid = raw["id"]
    if not isinstance(nid, str) or not nid:
        raise FormatError(f"node {i}: 'id' must be a non-empty string, got {_show(nid)}")
    where = f"node {nid!r}"
    for key in raw:
        if key not in NODE_KEYS:
            raise FormatError(f"{where}: unknown field {key!r} (known: {', '.join(NODE_KEYS)})")
    if "kind" not in raw:
        raise FormatError(f"{where} has no 'kind'")
    kind = raw["kind"]
    if kind not in KINDS:
        raise FormatError(f"{where}: unknown kind {_show(kind)} (expected one of {', '.join(KINDS)})")
    if not isinstance(raw.get("label", ""), str):
        raise FormatError(f"{where}: 'label' must be text, got {_show(raw['label'])}")
    if "pos" in raw:
        pos = raw["pos"]
        if not isinstance(pos, list) or len(pos) != 2:
            raise FormatError(f"{where}: 'pos' must be a list [x, y], got {_show(pos)}")
        _check_number(pos[0], f"{where}: pos x")
        _check_number(pos[1], f"{where}: pos y")
    if kind == "op":
        if "value" in raw:
            raise FormatError(f"{where}: an op node has no 'value' (it computes one)")
        op = raw.get("op")
        if not isinstance(op, str) or op not in OPS:
            raise FormatError(f"{where}: unknown op {_show(op)} (known: {', '.join(OPS)})")
        if op in ("pow", "rpow"):
            if "param" not in raw:
                what = "exponent" if op == "pow" else "base"
                raise FormatError(f"{where}: {op} needs its {what} in 'param'")
            _check_number(raw["param"], f"{where}: 'param'")
        elif raw.get("param") is not None:
            raise FormatError(f"{where}: op {op} takes no 'param'")
    else:
        for key in ("op", "param"):
            if key in raw:
                raise FormatError(f"{where}: an {kind} node has no {key!r}")
        if "value" not in raw:
            raise FormatError(f"{where}: an {kind} node needs a 'value'")
        _check_number(raw["value"], f"{where}: 'value'")
    return nid


def _check_number(x, where):
    if isinstance(x, BadNumber):
        raise FormatError(f"{where} is {x.text}, {x.why}")
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise FormatError(f"{where} must be a number, got {_show(x)}")
    try:
        finite = math.isfinite(float(x))
    except OverflowError:
        finite = False
    if not finite:
        raise FormatError(f"{where} is {_show(x)}, too large: it overflows a float to infinity")


def _check_edges(edges, nodes, arity):
    kinds = {n["id"]: (n["op"] if n["kind"] == "op" else n["kind"]) for n in nodes}
    taken = {}  # (dst, port) -> edge index
    for i, raw in enumerate(edges):
        if not isinstance(raw, dict):
            raise FormatError(f"edge {i} must be an object {{src, dst, port}}, got {_kind(raw)}")
        for key in EDGE_KEYS:
            if key not in raw:
                raise FormatError(f"edge {i} has no {key!r}")
        for key in raw:
            if key not in EDGE_KEYS:
                raise FormatError(f"edge {i}: unknown field {key!r} (known: src, dst, port)")
        src, dst, port = raw["src"], raw["dst"], raw["port"]
        for key, nid in (("src", src), ("dst", dst)):
            if not isinstance(nid, str):
                raise FormatError(f"edge {i}: {key!r} must be a node id, got {_show(nid)}")
        if not _is_int(port) or port < 0:
            raise FormatError(f"edge {i} ({src} → {dst}): 'port' must be an integer >= 0, got {_show(port)}")
        where = f"edge {i} ({src} → {dst}:{port})"
        for nid in (src, dst):
            if nid not in arity:
                raise FormatError(f"{where} is dangling: there is no node {nid!r}")
        if arity[dst] == 0:
            raise FormatError(f"{where}: node {dst!r} is an {kinds[dst]}; it has no input ports")
        if port >= arity[dst]:
            raise FormatError(f"{where}: node {dst!r} ({kinds[dst]}) has no input port {port}; it takes {arity[dst]}")
        if (dst, port) in taken:
            raise FormatError(
                f"edges {taken[(dst, port)]} and {i} both feed input {port} of node {dst!r}; an input takes one wire"
            )
        taken[(dst, port)] = i
        if src == dst:
            raise FormatError(f"{where}: node {src!r} feeds itself, a cycle")
    cycle = _find_cycle(list(arity), taken, edges)
    if cycle:
        raise FormatError(f"the edges make a cycle: {' → '.join(cycle)}; values must flow one way")


def _find_cycle(ids, taken, edges):
    """A list of ids around one cycle (first id repeated at the end), or None.

    Kahn's algorithm strips every node whose inputs are all known; what
    remains sits on a cycle or downstream of one. Walking backwards from a
    remaining node through remaining inputs must come round to a repeat.
    """
    inputs = {nid: [] for nid in ids}
    for (dst, _port), i in taken.items():
        inputs[dst].append(edges[i]["src"])
    pending = {nid: len(srcs) for nid, srcs in inputs.items()}
    users = {nid: [] for nid in ids}
    for dst, srcs in inputs.items():
        for src in srcs:
            users[src].append(dst)
    ready = [nid for nid in ids if pending[nid] == 0]
    while ready:
        nid = ready.pop()
        for dst in users[nid]:
            pending[dst] -= 1
            if pending[dst] == 0:
                ready.append(dst)
    stuck = [nid for nid in ids if pending[nid] > 0]
    if not stuck:
        return None
    path, seen = [stuck[0]], {stuck[0]: 0}
    while True:
        nid = next(src for src in inputs[path[-1]] if pending[src] > 0)
        if nid in seen:
            loop = path[seen[nid] :] + [nid]
            return loop[::-1]  # in the direction values flow
        seen[nid] = len(path)
        path.append(nid)


# -----------------------------------------------------------------------------
# Migrations: each turns one schema version into the next


def migrate_0_to_1(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 0, the first draft, into schema 1.

    Schema 0 called a node's kind 'type', stored each edge as a list
    [src, dst, port], and kept the title at the top level (schema 1 moved it
    into 'meta').
    """
    graph = data.get("graph")
    if not isinstance(graph, dict):
        raise FormatError(f"schema 0: 'graph' must be an object, got {_kind(graph)}")
    nodes = graph.get("nodes")
    if not isinstance(nodes, list):
        raise FormatError(f"schema 0: graph 'nodes' must be a list, got {_kind(nodes)}")
    new_nodes = []
    for i, raw in enumerate(nodes):
        if not isinstance(raw, dict):
            raise FormatError(f"schema 0: node {i} must be an object, got {_kind(raw)}")
        if "kind" in raw:
            raise FormatError(f"schema 0: node {i} has 'kind'; schema 0 called it 'type'")
        node = {("kind" if key == "type" else key): value for key, value in raw.items()}
        new_nodes.append(node)
    edges = graph.get("edges", [])
    if not isinstance(edges, list):
        raise FormatError(f"schema 0: graph 'edges' must be a list, got {_kind(edges)}")
    new_edges = []
    for i, raw in enumerate(edges):
        if not isinstance(raw, list) or len(raw) != 3:
            raise FormatError(f"schema 0: edge {i} must be a list [src, dst, port], got {_show(raw)}")
        new_edges.append({"src": raw[0], "dst": raw[1], "port": raw[2]})
    upgraded = {key: value for key, value in data.items() if key != "title"}
    upgraded["schema_version"] = 1
    upgraded["meta"] = {"title": data["title"]} if "title" in data else {}
    upgraded["graph"] = dict(graph, nodes=new_nodes, edges=new_edges)
    return upgraded


MIGRATIONS = {0: migrate_0_to_1}


# -----------------------------------------------------------------------------
# Words for error messages


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _kind(x) -> str:
    if isinstance(x, dict):
        return "an object"
    if isinstance(x, list):
        return "a list"
    if isinstance(x, str):
        return "a string"
    if isinstance(x, bool):
        return "true/false"
    if x is None:
        return "null"
    return "a number"


def _show(x):
    if isinstance(x, BadNumber):
        return x.text
    text = json.dumps(x, ensure_ascii=False, default=repr) if not isinstance(x, str) else repr(x)
    return text if len(text) <= 40 else text[:37] + "..."
