"""The lecture-code runner's child process: run pasted cells, report the last one's graph.

Started by core/lecture/run.py in core/sandbox.py's box as

    python -I core/lecture/child.py FD CELLS MEMORY SECONDS

It limits itself (memory, CPU, file sizes: `sandbox.limit_child`), puts the
stand-ins of core/lecture/standin first on `sys.path` (so `micrograd` is the
studio's engine), and runs the cells of the JSON list CELLS one after the
other in one namespace, as a notebook's kernel runs them: the earlier cells
the learner ran before (their classes, their `n = MLP(...)`), then the new
one, each with the calls of core/lecture/instrument.py added. It writes one
JSON line to the pipe FD: the new cell's graph (core/lecture/collect.py), or
what went wrong and on which line. What the new cell prints is kept (the first
MAX_PRINTED characters) and sent along.

Before the first cell, the namespace holds what the lecture's notebook had
by then: `Value` (the studio's), `math`, `random` (seeded with 0, so a run
gives the same weights every time) and a `draw_dot` that shows its argument's
graph on the canvas. A cell that defines or imports them uses its own.
"""

from __future__ import annotations

import io
import json
import os
import signal
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STANDIN = os.path.join(HERE, "standin")
MAX_PRINTED = 8_000
OUTPUT = 64 << 20  # bytes the child may write to any file (the report travels by pipe)


class OutOfTime(BaseException):
    """Raised in the cell when its time is up (a BaseException: `except Exception` in
    their code does not swallow it), so the report can say which line was running."""


class Printed(io.TextIOBase):
    """stdout/stderr for the cells: keeps the first MAX_PRINTED characters."""

    def __init__(self):
        self.parts, self.size, self.cut = [], 0, False

    def writable(self):
        return True

    def write(self, text):
        text = str(text)
        room = MAX_PRINTED - self.size
        if room > 0:
            self.parts.append(text[:room])
            self.size += min(room, len(text))
        if len(text) > max(room, 0):
            self.cut = True
        return len(text)

    def text(self):
        return "".join(self.parts) + ("\n…" if self.cut else "")


def main(write_fd: int, cells_path: str, memory: int, seconds: int) -> int:
    sys.stdin.readline()  # the supervisor's key line: this report is not signed
    sys.stdin.close()
    os.set_inheritable(write_fd, False)
    sys.path[:0] = [STANDIN, ROOT]
    from core.sandbox import limit_child, plain

    limit_child(memory, seconds, OUTPUT)
    out = os.fdopen(write_fd, "w", encoding="utf-8")
    with open(cells_path, encoding="utf-8") as f:
        cells = json.load(f)
    report = run_cells(cells, seconds, memory)
    out.write(json.dumps(plain(report), allow_nan=False) + "\n")
    out.flush()
    return 0


class Recorder:
    """What the bind and show calls of the running cells record."""

    def __init__(self):
        from core.lecture import collect

        self.collect = collect
        self.names: dict[int, str] = {}  # id(value) -> the first variable that held it
        self.when: dict[int, int] = {}  # id(value) -> when it was last assigned, to find the output
        self.keep: list = []  # the Values named stay alive, so no id is reused by another
        self.shown: list = []
        self.said = ""  # the text of the last line, when it is what is shown
        self.clock = 0

    def bind(self, name, obj):
        for i, value in enumerate(self.collect.values_in(obj)):
            key = id(value)
            if key not in self.names and len(self.keep) < self.collect.MAX_WALK:
                self.names[key] = name if value is obj else f"{name}[{i}]"
                self.keep.append(value)
            self.clock += 1
            self.when[key] = self.clock

    def show(self, obj, said=""):
        self.shown.extend(self.collect.values_in(obj))
        self.said = said if self.collect.is_value(obj) else ""
        return obj

    def draw_dot(self, root, *args, **kwargs):
        return self.show(root)


def run_cells(cells: list[str], seconds: int, memory: int) -> dict:
    """Run the cells; {'kind': 'graph', ...} for the last, or {'kind': 'error', message, line, ran}."""
    import math
    import random
    import runpy

    from core.engine import Value
    from core.lecture.instrument import BIND, SHOW, CellSyntaxError, instrument, loop_variables

    sources, trees, notes = [], [], []
    for k, text in enumerate(cells):
        last = k == len(cells) - 1
        try:
            source, tree, cell_notes = instrument(text, show=last)
        except CellSyntaxError as e:
            if last:
                return {"kind": "error", "message": e.message, "line": e.line, "col": e.col, "ran": False}
            return _earlier_failed(k, e.message)
        sources.append(source)
        trees.append(tree)
        if last:
            notes += cell_notes
    paths = []
    for k, source in enumerate(sources):
        paths.append(os.path.abspath(f"cell_{k}.py"))  # the working folder is a fresh temporary one
        with open(paths[-1], "w", encoding="utf-8") as f:
            f.write(source)

    record = Recorder()
    random.seed(0)
    provided = {"Value": Value, "math": math, "random": random, "draw_dot": record.draw_dot}
    namespace = {BIND: record.bind, SHOW: record.show, **provided}
    printed = Printed()
    real = sys.stdout, sys.stderr
    sys.setrecursionlimit(10_000)
    signal.signal(signal.SIGALRM, _out_of_time)
    signal.setitimer(signal.ITIMER_REAL, max(1.0, seconds - 1.0))
    failure, failed_at = None, None
    try:
        for k, path in enumerate(paths):
            sys.stdout = sys.stderr = printed if k == len(paths) - 1 else Printed()
            try:
                namespace = runpy.run_path(path, namespace, "__main__")  # their code, in this child only
            except BaseException as e:  # noqa: BLE001 -- whatever their code raises is reported
                failure, failed_at = e, k
                break
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.stdout, sys.stderr = real
    if failure is not None:
        explained = _explain(failure, paths, seconds, memory)
        if failed_at < len(paths) - 1:
            return _earlier_failed(failed_at, explained["message"])
        return {"kind": "error", "printed": printed.text(), "ran": False, **explained}
    tree = trees[-1]
    skip = {BIND, SHOW} | {k for k, v in provided.items() if namespace.get(k) is v} | loop_variables(tree)
    notes += provided_notes(trees, namespace, provided)
    if len(cells) > 1:
        notes.append(f"Ran after {_count(len(cells) - 1, 'earlier cell')}, as a notebook would.")
    try:
        graph = _graph(namespace, skip, record, tree)
    except record.collect.CollectError as e:
        return {"kind": "error", "message": str(e), "line": None, "printed": printed.text(), "ran": True}
    notes += graph.pop("notes")
    return {"kind": "graph", "notes": notes, "printed": printed.text(), **graph}


def _graph(namespace, skip, record, tree):
    """The graph data of what the last cell shows, else of the Values it assigns,
    else of those it reads (`o.backward()` shows o's graph)."""
    from core.lecture.instrument import assigned, classes_and_functions, read

    collect = record.collect
    notes = []
    if record.shown:
        roots = collect.roots_of(list({id(v): v for v in record.shown}.values()))
        output = record.shown[-1] if any(r is record.shown[-1] for r in roots) else roots[-1]
        if record.said and not collect.name_of(output, record.names, {}):
            record.names[id(output)] = record.said
    else:
        found = []
        for names in (assigned(tree), read(tree)):
            mine = {name: namespace[name] for name in names if name in namespace and name not in skip}
            found = found or collect.candidates(mine, skip)
        if not found:
            defs = classes_and_functions(tree)
            what = f"defines {', '.join(defs[:6])} (kept for your next cells); " if defs else ""
            raise collect.CollectError(
                f"your code ran and {what}no variable it sets holds a Value, so there is nothing to draw "
                "(end the cell with the Value to show, like `o` or `n(x)`)"
            )
        roots = collect.roots_of(found)
        made = [r for r in roots if collect.children_of(r)]
        if not made:
            raise collect.CollectError(
                "your code made Values but no operation on them: nothing to draw "
                "(compute something, like `o = (x1*w1 + b).tanh()`)"
            )
        walked = collect.walk_names(namespace, skip)
        alone = [collect.name_of(r, record.names, walked) or "a Value" for r in roots if not collect.children_of(r)]
        if alone:
            more = "…" if len(alone) > 5 else ""
            notes.append(f"Not drawn, as no operation uses them: {', '.join(alone[:5])}{more}.")
        roots = made
        output = max(roots, key=lambda r: record.when.get(id(r), -1))
    walked = collect.walk_names(namespace, skip)
    data = collect.graph_data(roots, output, record.names, walked)
    if len(roots) > 1:
        label = {n["id"]: n["label"] for n in data["nodes"]}
        notes.append(
            f"{len(roots)} graphs, one for each of your {len(roots)} results: backward starts from "
            f"{label[data['output']] or 'the last'}. To start it from another, right-click that node › Set as Output."
        )
    data["roots"] = len(roots)
    data["notes"] = notes
    return data


def provided_notes(trees, namespace, provided):
    """Say which of the names set up before the first cell the cells used without
    defining them (the learner may not know they were there)."""
    import ast

    from core.lecture.instrument import defined

    used = {n.id for t in trees for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    own = set().union(*(defined(t) for t in trees))
    took = [n for n in provided if n in used and n not in own and namespace.get(n) is provided[n]]
    words = {
        "Value": "Value is the studio's",
        "math": "math was imported",
        "random": "random was imported and seeded with 0",
        "draw_dot": "draw_dot(...) shows its graph here",
    }
    found = [f"Set up before your first line, as in the lecture's notebook: {'; '.join(words[n] for n in took)}."]
    imports = {
        (a.name if isinstance(s, ast.Import) else s.module or "").split(".")[0]
        for t in trees
        for s in ast.walk(t)
        if isinstance(s, (ast.Import, ast.ImportFrom))
        for a in s.names
    }
    if "micrograd" in imports:
        found.append("micrograd here is the studio's engine: its Value, with micrograd's ops and more.")
    return found[1:] if not took else found


def _earlier_failed(k, message):
    return {
        "kind": "error",
        "message": f"an earlier cell you ran ({_count(k + 1, 'cell')} back from the first) fails now: {message}. "
        "Forget the earlier cells, then run them again",
        "line": None,
        "ran": False,
        "earlier": True,
    }


def _count(n, word):
    return f"{n} {word}{'' if n == 1 else 's'}"


def _out_of_time(signum, frame):
    raise OutOfTime


def _explain(error, paths, seconds, memory):
    """{message, line} for what the cell raised, in the learner's terms."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == paths[-1]]
    line = frames[-1].lineno if frames else None
    if isinstance(error, OutOfTime):
        return {"message": f"your code ran for {seconds} s and was stopped: an endless loop?", "line": line}
    if isinstance(error, MemoryError):
        return {"message": f"your code ran out of memory (the limit is {memory >> 20} MB)", "line": line}
    if isinstance(error, RecursionError):
        return {"message": "too deep a recursion (a recursive build_topo on a deep graph?)", "line": line}
    if isinstance(error, SystemExit):
        return {"message": "your code called exit(): the run stopped there", "line": line}
    if isinstance(error, NameError) and getattr(error, "name", None):
        return {
            "message": f"'{error.name}' has no value yet: assign it before this line, or run the cell that defines it",
            "line": line,
        }
    if isinstance(error, ModuleNotFoundError) and error.name:
        return {
            "message": f"no module named '{error.name}' here: the studio runs your code with micrograd "
            f"(its own engine), math, random and numpy; leave out what needs {error.name.split('.')[0]}",
            "line": line,
        }
    return {"message": f"{type(error).__name__}: {error}", "line": line}


if __name__ == "__main__" and len(sys.argv) == 5:
    sys.exit(main(int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
