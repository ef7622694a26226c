"""Run a pasted lecture cell in a child process and get its graph as a document.

`run_cell(text)` writes the cell to a fresh temporary folder and runs
core/lecture/child.py in a box (core/sandbox/: the studio's core and
resources and the opened script's folder read-only, that temporary folder
read-write for the progress line, the Stop file and a big graph, nothing else
of the machine, no network) -- the same limits (memory, CPU, file size, wall
time) and the same clean-up (every process the code starts ends with the run)
as a learner's engine gets. The
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

    CellResult.state     the notebook's state: {node id: (data, grad)} as the
                         code left them -- what the canvas shows
    CellResult.touched   the nodes the cell made or changed (lit on the canvas)
    CellResult.reference {node id: grad} by the chain rule from the output,
                         on the code's own data: a toggle away on the canvas
    CellResult.wrong     {node id: (theirs, chain rule's)} where they differ
    CellResult.out       the last line's value, as a notebook prints `Out:`
    CellResult.figures   what the cell plotted (core/lecture/figures.py)
    CellResult.big       a graph too big for one picture: a ScopedGraph that
                         opens collapsed by scope (doc is None then)

The learner's numbers, not the studio's. The canvas shows the Values as the
code left them: a grad is 0 until their backward() ran, piles up when it runs
twice, is 1.0 where their `self.grad = ...` overwrote a 2.0. The chain rule's
grads are computed here, from the output, on the data their code computed
(`reference`); where theirs differ -- and theirs is not simply a 0 not reached
yet -- the node is marked and a note says what that usually means.

A long cell (micrograd's demo trains for a minute or two) shows a progress
line: `Progress` reads the line running now and the last line printed, and
`Progress.stop()` ends the cell where it is (the Stop button).
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from typing import Any

from core import ops, sandbox
from core.document.compile import compile_document
from core.document.graph import GraphDocument, GraphError, Node
from core.foreign import runner

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child.py")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIMEOUT = 600.0  # seconds of wall time: micrograd's demo trains ~2 min after its earlier cells
MEMORY = runner.MEMORY
MAX_TEXT = 200_000  # characters of code
CLOSE = 1e-9  # relative difference below which two numbers are the same


class CellError(ValueError):
    """The cell gave no graph: `message`, and `line` (1-based) when it is known."""

    def __init__(self, message: str, line: int | None = None, col: int | None = None) -> None:
        self.message, self.line, self.col = message, line, col
        super().__init__(f"line {line}: {message}" if line else message)


class CellResult:
    """doc, error, notes, printed and the rest (see the module docstring); `roots`: how
    many graphs the document holds; `ran`: the cell ran to its end (a notebook keeps it)."""

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
        self.state: dict[str, tuple[float, float]] = {}
        self.touched: list[str] = []
        self.reference: dict[str, float] = {}
        self.wrong: dict[str, tuple[float, float]] = {}
        self.out = ""
        self.figures: list[dict[str, Any]] = []
        self.big: Any = None  # a ScopedGraph
        self.title = ""
        self.stopped = False


class Progress:
    """A running cell, seen from the studio: `read()` gives (cell, cells, line, last printed
    line) from the child's progress.txt; `stop()` asks the child to stop where it is."""

    def __init__(self) -> None:
        self.folder: str | None = None
        self.stopped = False

    def read(self) -> tuple[int, int, int, str] | None:
        if self.folder is None:
            return None
        try:
            with open(os.path.join(self.folder, "progress.txt"), encoding="utf-8") as f:
                head, _, printed = f.read(2000).partition("\n")
            cells, cell, line = (int(x) for x in head.split())
        except (OSError, ValueError):
            return None
        return cell, cells, line, printed.rstrip("\n")

    def stop(self) -> None:
        self.stopped = True
        if self.folder is not None:
            try:
                with open(os.path.join(self.folder, "stop"), "w"):
                    pass
            except OSError:
                pass


def run_cell(
    text: str,
    earlier: list[str] = (),
    timeout: float = TIMEOUT,
    memory: int = MEMORY,
    progress: Progress | None = None,
    folder: str | None = None,
) -> CellResult:
    """Run `text` as Python in a child process, after the `earlier` cells (see the
    module docstring and `Notebook`); `folder` (an opened script's) is on its import path."""
    if not isinstance(text, str) or not text.strip():
        return CellResult(None, CellError("there is no code to run"), [], "")
    cells = [*earlier, text]
    size = sum(len(cell) for cell in cells)
    if size > MAX_TEXT:
        return CellResult(None, CellError(f"the code is too long: {size:,} characters (at most {MAX_TEXT:,})"), [], "")
    with tempfile.TemporaryDirectory(prefix="bps-cell-") as tmp:
        # the box (core/sandbox/) holds the studio's core and resources read-only, the opened
        # script's folder read-only as `work`, and `run` -- this folder -- read-write: the cells,
        # progress.txt, the Stop file and a big graph pass through it, nothing else of the machine
        run = os.path.join(tmp, "run")
        os.mkdir(run)
        with open(os.path.join(run, "cells.json"), "w", encoding="utf-8") as f:
            json.dump({"cells": cells, "folder": "../work" if folder else ""}, f)
        from core.resources import root as resources_root

        files = {"studio/core": os.path.join(ROOT, "core"), "studio/resources": resources_root()}
        if folder:
            files["work"] = folder
        args = ["run/cells.json", str(int(memory)), str(int(math.ceil(timeout)))]
        if progress is not None:
            progress.folder = run
        boxed = sandbox.run_boxed(
            CHILD, args, files, stdin=b"\n", timeout=timeout, output=64 << 20, writable={"run": run}
        )  # a big graph may take 64 MB a file (child.OUTPUT)
        if progress is not None:
            progress.folder = None
        data, status = boxed.data, boxed.status()
        log_text = _tail_of(boxed.output)
        result = result_of(data, status, timeout, memory, log_text, run)
    if progress is not None and progress.stopped and result.error is not None:
        result.stopped = True  # stopped before it made any graph
    return result


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

    def run(
        self,
        text: str,
        timeout: float = TIMEOUT,
        memory: int = MEMORY,
        progress: Progress | None = None,
        folder: str | None = None,
    ) -> CellResult:
        result = run_cell(text, self.cells, timeout, memory, progress, folder)
        if result.ran:  # the same cell run twice ran twice, as in a notebook (grads pile up)
            self.cells.append(text)
            del self.cells[: -self.MAX_CELLS]
        return result

    def forget(self) -> None:
        self.cells.clear()


def result_of(
    data: bytes, status: dict[str, Any], timeout: float, memory: int, log: str = "", folder: str = ""
) -> CellResult:
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
        result = CellResult(None, error, [], printed, ran=report.get("ran") is True)
        result.out, result.figures = _extras(report)
        return result
    notes = [str(n) for n in report.get("notes", [])]
    if "big" in report:
        return _big(report, folder, notes, printed)
    try:
        doc = document_of(report)
    except (GraphError, KeyError, TypeError, ValueError) as e:
        return CellResult(None, CellError(f"the graph could not be opened: {e}"), notes, printed, ran=True)
    result = CellResult(doc, None, notes, printed, _int(report.get("roots")) or 1, ran=report.get("ran") is not False)
    result.stopped = report.get("stopped") is True
    result.out, result.figures = _extras(report)
    nodes = report["nodes"]
    result.state = {n["id"]: (float(n["data"]), float(n["grad"])) for n in nodes}
    result.touched = [t for t in report.get("touched", []) if isinstance(t, str) and t in doc.nodes]
    result.reference = reference_grads(nodes, report["output"])
    result.wrong = wrong_grads(result.state, result.reference, report.get("full_backward") is True, report["output"])
    result.notes[:0] = differences(doc, report, result)  # what is wrong first
    return result


def _extras(report):
    out = report.get("out")
    figures = report.get("figures")
    return (out if isinstance(out, str) else ""), prepared(figures if isinstance(figures, list) else [])


def prepared(figures: list[Any]) -> list[Any]:
    """The figures, each filled contour's picture computed here (on the runner's worker
    thread, not the studio's GUI thread): item["image"], an RGBA array (colormaps.py)."""
    from core.lecture.colormaps import contour_image

    for figure in figures:
        items = figure.get("items") if isinstance(figure, dict) and figure.get("kind") == "record" else None
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict) and item.get("kind") == "contour" and item.get("z"):
                try:
                    item["image"] = contour_image(
                        item["z"], str(item.get("cmap", "viridis")), float(item.get("alpha", 1))
                    )
                except (TypeError, ValueError):
                    item["image"] = None
    return figures


def _big(report, folder, notes, printed):
    """The child wrote a big graph as a ScopedGraph: read it before the folder goes."""
    from core.scopes.graph import ScopedGraph

    name = report.get("big")
    if name != "big" or not folder:
        return CellResult(None, CellError("the child's report names no graph folder"), notes, printed, ran=True)
    try:
        graph = ScopedGraph.read(os.path.join(folder, name))
    except (OSError, ValueError, KeyError, TypeError) as e:
        return CellResult(None, CellError(f"the big graph could not be read: {e}"), notes, printed, ran=True)
    result = CellResult(None, None, notes, printed, 1, ran=report.get("ran") is not False)
    result.stopped = report.get("stopped") is True
    result.out, result.figures = _extras(report)
    result.big, result.title = graph, str(report.get("label", "your graph"))
    return result


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


def reference_grads(nodes: list[dict[str, Any]], output: str) -> dict[str, float]:
    """The chain rule's grads from `output` (grad 1), on the data the code computed: each
    node passes grad × the op's local derivative (core/ops.py) to its operands, the nodes
    taken output first (the report lists operands before their ops)."""
    data = {n["id"]: float(n["data"]) for n in nodes}
    grads = dict.fromkeys(data, 0.0)
    if output not in grads:
        return grads
    grads[output] = 1.0
    for n in reversed(nodes):
        if n["kind"] != "op" or grads[n["id"]] == 0.0:
            continue
        op = ops.BY_NAME[n["op"]]
        param = () if n.get("param") is None else (n["param"],)
        operands = [data[c] for c in n["children"]]
        for k, child in enumerate(n["children"]):
            try:
                local = op.local[k](data[n["id"]], *operands, *param)
            except (ArithmeticError, ValueError):
                local = math.nan
            grads[child] += local * grads[n["id"]]
    return grads


def wrong_grads(
    state: dict[str, tuple[float, float]], reference: dict[str, float], full: bool = False, output: str | None = None
) -> dict[str, tuple[float, float]]:
    """{node: (their grad, the chain rule's)} where they differ. A grad of 0 is one their
    backward has not reached yet (the lecture fills them in a cell at a time), not a wrong
    one -- unless a whole backward() ran from the output (`full`): then a 0 is a grad their
    `_backward` never passed on (a missing `out._backward = _backward`). Nothing is compared
    while the output's own grad is 0: no backward started there (the grads the shared weights
    hold then come from another graph's, like the training loss's)."""
    if not any(g != 0 for _, g in state.values()):
        return {}  # no backward yet: nothing to compare
    if output is not None and output in state and state[output][1] == 0.0:
        return {}
    wrong = {}
    for nid, (_, theirs) in state.items():
        ours = reference.get(nid)
        if ours is None or _same(theirs, ours) or (theirs == 0.0 and not full):
            continue
        wrong[nid] = (theirs, ours)
    return wrong


def differences(doc: GraphDocument, report: dict[str, Any], result: CellResult) -> list[str]:
    """Notes on what the canvas shows: their numbers where they are not the studio's."""
    nodes = report["nodes"]
    names = {n["id"]: n["label"] or n["id"] for n in nodes}
    notes = []
    compiled = compile_document(doc)
    values = compiled.values
    data_off = [n for n in nodes if n["id"] in values and not _same(values[n["id"]].data, float(n["data"]))]
    if data_off:
        n = data_off[-1]
        notes.append(
            f"{len(data_off)} of {len(nodes)} values differ from what the graph computes from its leaves now "
            f"(like {names[n['id']]}: {_show(float(n['data']))} as your code left it, "
            f"{_show(values[n['id']].data)} from the leaves): the canvas shows your code's numbers. "
            "Did your code change a leaf after building the graph (p.data += ...)? Its grads were "
            "computed on the numbers before, so they are not checked against the chain rule."
        )
        result.wrong = {}
    wrong = result.wrong
    if wrong:
        nid = next((m for m in wrong if doc.nodes[m].kind == "input"), next(iter(wrong)))
        theirs, ours = wrong[nid]
        cause = ""
        if all(ours != 0 and t / ours > 1.5 for t, ours in wrong.values()):
            cause = " They are larger: did backward() (or a _backward()) run twice without zeroing? Grads add up."
        elif any(ours != 0 and _same(t * 2, ours) for t, ours in wrong.values()):
            cause = " Half of it: a Value used twice (a + a) keeps only one use's grad when `=` replaces `+=`."
        notes.append(
            f"Your grads differ from the chain rule's from {names[report['output']]} in {len(wrong)} of "
            f"{len(nodes)} nodes (like {names[nid]}.grad: {_show(theirs)}, the chain rule gives {_show(ours)}); "
            "they are marked ✗ on the canvas, which shows yours." + cause
        )
    return notes


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


def _tail_of(text: str, limit: int = 2000) -> str:
    return text[-limit:]
