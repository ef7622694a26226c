"""Run a pasted lecture cell in a child process and get its graph as a document.

`run_cell(text)` runs core/lecture/child.py on the cell in a box
(core/sandbox.py's `run_boxed`) -- the same box, limits (memory, processes,
disk, wall time) and clean-up (every process the code starts ends with the
run) as a learner's engine gets: the cell sees a scratch folder and the
studio's `core` read-only, not the teacher's files, environment or network. The
studio's own process never runs the cell: it reads back one line of plain JSON
and builds a `GraphDocument` from it, node by node, checked like any file.

The result says what happened in the learner's terms:

    CellResult.doc       the graph(s), with the learner's names, or None
    CellResult.error     CellError(message, line) when the cell raised, did
                         not parse, ran out of time or memory, or made no graph
    CellResult.notes     what the studio did that the cell did not say: the
                         notebook commands skipped, the names set up before the
                         first line, Values left out, numbers that differ
    CellResult.printed   what the cell printed (the first 8,000 characters)

Numbers that differ. The canvas computes the graph with the studio's engine
from its leaves. When a cell changes a leaf after building the graph (the
training loop's `p.data += -0.1 * p.grad`), or its own Value class computes an
op differently, the canvas's numbers are not the ones the code printed; and
the grads a cell's `backward()` left may not be one backward pass's (called
twice without zeroing). Each such difference is said, with an example.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from typing import Any

from core import sandbox
from core.document.compile import compile_document
from core.document.graph import GraphDocument, GraphError, Node

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child.py")
TIMEOUT = 20.0  # seconds of wall time
MEMORY = sandbox.MEMORY
CORE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_TEXT = 200_000  # characters of code
CLOSE = 1e-9  # relative difference below which two numbers are the same


class CellError(ValueError):
    """The cell gave no graph: `message`, and `line` (1-based) when it is known."""

    def __init__(self, message: str, line: int | None = None, col: int | None = None) -> None:
        self.message, self.line, self.col = message, line, col
        super().__init__(f"line {line}: {message}" if line else message)


class CellResult:
    """doc, error, notes, printed (see the module docstring); `roots`: how many graphs
    the document holds; `ran`: the cell ran to its end (a notebook keeps it)."""

    def __init__(
        self,
        doc: GraphDocument | None,
        error: CellError | None,
        notes: list[str],
        printed: str,
        roots: int = 1,
        ran: bool = False,
    ) -> None:
        self.doc, self.error, self.notes, self.printed = doc, error, notes, printed
        self.roots, self.ran = roots, ran


def run_cell(
    text: str, earlier: list[str] = (), timeout: float = TIMEOUT, memory: int = MEMORY, box: bool | None = None
) -> CellResult:
    """Run `text` as Python in a child process, after the `earlier` cells (see the
    module docstring and `Notebook`). `box`: see `core.sandbox.run_boxed`."""
    if not isinstance(text, str) or not text.strip():
        return CellResult(None, CellError("there is no code to run"), [], "")
    cells = [*earlier, text]
    size = sum(len(cell) for cell in cells)
    if size > MAX_TEXT:
        return CellResult(None, CellError(f"the code is too long: {size:,} characters (at most {MAX_TEXT:,})"), [], "")
    with tempfile.TemporaryDirectory(prefix="bps-cell-") as tmp:
        source = os.path.join(tmp, "cells.json")
        with open(source, "w", encoding="utf-8") as f:
            json.dump(cells, f)
        args = ["cells.json", str(int(memory)), str(int(math.ceil(timeout)))]
        files = {"cells.json": source, "studio/core": CORE}
        result = sandbox.run_boxed(CHILD, args, files, stdin=b"\n", timeout=timeout, memory=memory, box=box)
    return result_of(result.data, result.status(), timeout, memory, result.output[-2000:])


class Notebook:
    """The cells run so far, as a notebook's kernel would remember them.

    In the lecture's notebook one cell defines `class MLP`, the next makes
    `n = MLP(3, [4, 4, 1])`, a later one trains `n`. Pasted one by one, each
    needs what the ones before it made. A child process keeps nothing between
    runs, so the notebook keeps the cells that ran to their end and runs them
    again, in order, before the new one (random is seeded once, at the start,
    so they make the same numbers again). `forget()` starts afresh."""

    MAX_CELLS = 50

    def __init__(self) -> None:
        self.cells: list[str] = []

    def run(self, text: str, timeout: float = TIMEOUT, memory: int = MEMORY) -> CellResult:
        result = run_cell(text, self.cells, timeout, memory)
        if result.ran and (not self.cells or self.cells[-1] != text):
            self.cells.append(text)
            del self.cells[: -self.MAX_CELLS]
        return result

    def forget(self) -> None:
        self.cells.clear()


def result_of(data: bytes, status: dict[str, Any], timeout: float, memory: int, log: str = "") -> CellResult:
    """The CellResult of the child's report (`data`, its one JSON line) and the
    supervisor's status: a missing or unreadable report is said, never ignored."""
    report = None
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            report = json.loads(line)
        except ValueError:
            report = None
    if not isinstance(report, dict) or report.get("kind") not in ("graph", "error"):
        if status.get("timed_out"):
            message = f"your code did not finish within {timeout:g} s and was stopped: an endless loop?"
        elif status.get("ended") in ("memory", "processes", "lost", "stopped"):
            message = f"your code {status['message']}"
        elif status.get("code") not in (0, None) and status.get("code", 0) < 0:
            message = f"your code's process was killed (out of memory? the limit is {memory >> 20} MB)"
        else:
            message = "your code ended the process before it finished (os._exit()?)"
            if log.strip():
                message += f": {log.strip().splitlines()[-1]}"
        return CellResult(None, CellError(message), [], "")
    printed = str(report.get("printed", ""))
    if report["kind"] == "error":
        error = CellError(str(report.get("message", "")), _int(report.get("line")), _int(report.get("col")))
        return CellResult(None, error, [], printed, ran=report.get("ran") is True)
    notes = [str(n) for n in report.get("notes", [])]
    try:
        doc = document_of(report)
    except (GraphError, KeyError, TypeError, ValueError) as e:
        return CellResult(None, CellError(f"the graph could not be opened: {e}"), notes, printed, ran=True)
    notes += differences(doc, report)
    return CellResult(doc, None, notes, printed, _int(report.get("roots")) or 1, ran=True)


def document_of(report: dict[str, Any]) -> GraphDocument:
    """The child's plain data as a GraphDocument (each node and wire checked)."""
    doc = GraphDocument()
    for n in report["nodes"]:
        if n["kind"] == "op":
            doc.add_node(Node(n["id"], "op", n["op"], param=n.get("param"), label=n["label"]))
        else:
            doc.add_node(Node(n["id"], n["kind"], value=float(n["value"]), label=n["label"]))
    for n in report["nodes"]:
        for port, child in enumerate(n["children"]):
            doc.connect(child, n["id"], port)
    doc.set_output(report["output"])
    return doc


def differences(doc: GraphDocument, report: dict[str, Any]) -> list[str]:
    """Notes on the numbers the canvas shows that differ from those the code left."""
    compiled = compile_document(doc)
    values = compiled.values
    nodes = report["nodes"]
    names = {n["id"]: n["label"] or n["id"] for n in nodes}
    notes = []
    data_off = [n for n in nodes if n["id"] in values and not _same(values[n["id"]].data, float(n["data"]))]
    if data_off:
        n = data_off[-1]
        notes.append(
            f"{len(data_off)} of {len(nodes)} values differ from what your code computed "
            f"(like {names[n['id']]}: {_show(values[n['id']].data)} here, {_show(float(n['data']))} in your code): "
            "the canvas computes the graph from its leaves as they are now, with the studio's ops. "
            "Did your code change a leaf after building the graph (p.data += ...)?"
        )
        return notes
    grads = {n["id"]: float(n["grad"]) for n in nodes}
    if compiled.output is None or not any(g != 0 for g in grads.values()):
        return notes  # the cell never ran backward(): nothing to compare
    for value in values.values():
        value.grad = 0.0
    compiled.output.backward()
    grad_off = [n for n in nodes if n["id"] in values and not _same(values[n["id"]].grad, grads[n["id"]])]
    if grad_off:
        n = next((m for m in grad_off if m["kind"] == "input"), grad_off[0])
        ours, theirs = values[n["id"]].grad, grads[n["id"]]
        notes.append(
            f"The grads your code left differ from those of one backward() from {names[doc.effective_output()]} "
            f"in {len(grad_off)} of {len(nodes)} nodes (like {names[n['id']]}.grad: {_show(ours)} here, "
            f"{_show(theirs)} in your code). The canvas shows one whole backward pass."
            + (
                " Was backward() run twice without zeroing the grads? They add up."
                if _piled_up(grad_off, values, grads)
                else ""
            )
        )
    return notes


def _piled_up(nodes, values, grads):
    """True when every differing grad is larger than one backward's, with its sign: what
    grads look like after backward() ran again without zeroing them (they add up)."""
    return all(values[n["id"]].grad != 0 and grads[n["id"]] / values[n["id"]].grad > 1.5 for n in nodes)


def _same(a, b):
    if a != a or b != b:
        return a != a and b != b
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= CLOSE * max(1.0, abs(a), abs(b))


def _show(x):
    return repr(x) if math.isfinite(x) else str(x)


def _int(x):
    return x if isinstance(x, int) and not isinstance(x, bool) else None
