"""The lecture-code runner's child process: run pasted cells, report the last one's graph.

Started by core/lecture/run.py under core/foreign/runner.py's supervisor as

    python -I core/lecture/child.py FD CELLS MEMORY SECONDS

It limits itself (memory, CPU, file sizes: `core.sandbox.limit_child`), puts the
stand-ins of core/lecture/standin first on `sys.path` (so `micrograd` is the
studio's engine), and runs the cells of the JSON list CELLS one after the
other in one namespace, as a notebook's kernel runs them: the earlier cells
the learner ran before (their classes, their `n = MLP(...)`), then the new
one, each with the calls of core/lecture/instrument.py added. It writes one
JSON line to the pipe FD: the new cell's graph (core/lecture/collect.py), or
what went wrong and on which line. What the new cell prints is kept (the first
MAX_PRINTED characters) and sent along.

The picture is the notebook's state after the new cell: the Values as the
cells left them (data and grad untouched: 0 before backward(), grads piled up
by a second `_backward()`, a buggy class's numbers), the graph whole from the
outermost Value that holds what the cell showed, set or read (after
`n._backward()` it is still `o`'s graph), and which of its nodes the cell
touched (made, or changed the data or grad of). Only the new cell's
`draw_dot` and last line count: an earlier cell's picture never leaks into
this one. The last line's value goes along as `out`, the text a notebook
prints under `Out:`.

While the cells run, a thread writes `progress.txt` (the running cell's line
and the last line printed) twice a second, and a file `stop` in the working
folder (the Stop button) ends the cell where it is. A graph of more than BIG
nodes is written as a ScopedGraph (core/scopes) into the folder `big`, its
scopes recorded while the new cell ran: the studio opens it collapsed.

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
import threading
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STANDIN = os.path.join(HERE, "standin")
MAX_PRINTED = 8_000
MAX_OUT = 3_000  # characters of the last line's value (`Out:`)
MAX_ROOTS = 4  # separate graphs drawn at most; beyond, the last one alone
MAX_SNAPSHOT = 1_000_000  # nodes whose numbers are noted before the new cell, to see what it touched
BIG = 3_000  # nodes: a larger graph opens collapsed by scope (core/scopes)
RECORD_AT_MOST = 400_000  # nodes the scope recorder holds; a new top-level loop turn then starts afresh
KEEP_PER_NAME = 4  # Values a name keeps naming (`c = a + b; c += 1` names both c); a loop's older ones go
KEEP_ROOTS = 4  # Values a backward() ran from, remembered (held) at most
TICK = 0.5  # seconds between two progress lines
OUTPUT = 64 << 20  # bytes the child may write to any file (the report travels by pipe)


class Stopped(BaseException):
    """Raised in the cell when the learner pressed Stop."""


class OutOfTime(BaseException):
    """Raised in the cell when its time is up (a BaseException: `except Exception` in
    their code does not swallow it), so the report can say which line was running."""


class Printed(io.TextIOBase):
    """stdout/stderr for the cells: keeps the first MAX_PRINTED characters."""

    def __init__(self):
        self.parts, self.size, self.cut = [], 0, False
        self.last, self._line = "", ""  # the last whole line printed (the progress line shows it)

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
        if "\n" in text:
            lines = (self._line + text[-400:]).split("\n")
            self.last, self._line = lines[-2][:200], lines[-1][:200]
        else:
            self._line = (self._line + text)[:200]
        return len(text)

    def text(self):
        return "".join(self.parts) + ("\n…" if self.cut else "")


def main(write_fd: int, cells_path: str, memory: int, seconds: int) -> int:
    cells_path = os.path.abspath(cells_path)  # given relative to the box's scratch folder
    os.chdir(os.path.dirname(cells_path))  # progress.txt and stop live beside the cells
    sys.stdin.readline()  # the supervisor's key line: this report is not signed
    sys.stdin.close()
    os.set_inheritable(write_fd, False)
    sys.path[:0] = [STANDIN, ROOT]
    sys.path.append(os.path.join(STANDIN, "fallback"))  # matplotlib, sklearn: the real ones when installed
    from core.sandbox import limit_child, plain

    limit_child(memory, seconds, OUTPUT)
    _real_libraries_first()
    out = os.fdopen(write_fd, "w", encoding="utf-8")
    with open(cells_path, encoding="utf-8") as f:
        given = json.load(f)
    cells = given["cells"]
    if given.get("folder"):  # an opened script's folder: its own modules import
        sys.path.insert(1, os.path.abspath(given["folder"]))  # `../work` beside the cells' folder
    report = run_cells(cells, seconds, memory)
    out.write(json.dumps(plain(report), allow_nan=False) + "\n")
    out.flush()
    return 0


class Recorder:
    """What the bind and show calls of the running cells record. Names are kept
    from every cell; what is shown (draw_dot, the last line) only from the new one."""

    def __init__(self):
        from core.lecture import collect

        self.collect = collect
        self.names: dict[int, str] = {}  # id(value) -> the first variable that held it
        self.when: dict[int, int] = {}  # id(value) -> when it was last assigned, to find the output
        self.keep: dict[str, list] = {}  # name -> the last Values it named, alive so no id is reused
        self.shown: list = []
        self.said = ""  # the text of the last line, when it is what is shown
        self.out = None  # repr of the last line's value, as a notebook prints it
        self.clock = 0
        self.active = False  # True while the new cell runs
        self.turn = None  # called at each turn of the new cell's top-level loops
        self.backwards = None  # the Backwards of the run: which Values a backward() ran from
        self.cell_globals = None  # the new cell's module namespace, seen from its first assignment

    def bind(self, name, obj):
        if self.active:  # the running cell's variables, should it stop before runpy hands them back
            self.cell_globals = sys._getframe(1).f_globals
        held = self.keep.setdefault(name, [])
        for i, value in enumerate(self.collect.values_in(obj)):
            key = id(value)
            if key not in self.names:
                self.names[key] = name if value is obj else f"{name}[{i}]"
                held.append(value)
            self.clock += 1
            self.when[key] = self.clock
        while len(held) > KEEP_PER_NAME:  # a loop's earlier graphs go (they may be freed: their ids too)
            gone = id(held.pop(0))
            self.names.pop(gone, None)
            self.when.pop(gone, None)
        if self.active and self.turn is not None:
            self.turn()

    def show(self, obj, said=""):
        if isinstance(obj, Drawing):
            self.show(obj.root)
            return obj
        if self.active:
            self.shown.extend(self.collect.values_in(obj))
            self.said = said if self.collect.is_value(obj) else ""
        return obj

    def last_line(self, obj, said=""):
        """The cell's last line, an expression: shown, and its value is the cell's `Out:`."""
        if self.active:
            self.out = out_text(obj)
        return self.show(obj, said)

    def draw_dot(self, root, *args, **kwargs):
        return self.show(Drawing(root))


class Drawing:
    """What the provided `draw_dot(root)` returns: the graph, drawn on the studio's canvas
    (`dot = draw_dot(y); dot.render('gout')` runs, as with graphviz)."""

    def __init__(self, root):
        self.root = root

    def render(self, *args, **kwargs):
        return None

    def __repr__(self):
        return "<the graph, drawn on the studio's canvas>"


def out_text(obj):
    """What a notebook prints under `Out:` for obj: '' for None and for a graph drawn on the
    canvas (the notebook shows the picture there: ours is the canvas)."""
    if obj is None or isinstance(obj, Drawing) or type(obj).__module__ == "graphviz" and "stand-in" in repr(obj):
        return ""
    try:
        text = repr(obj)
    except Exception as e:  # noqa: BLE001 -- their __repr__ may raise anything
        text = f"<{type(obj).__name__}: its repr raised {type(e).__name__}>"
    return text if len(text) <= MAX_OUT else text[: MAX_OUT - 1] + "…"


class _Backward:
    """A studio node's `_backward`, callable as micrograd's is: `o._backward()` (the
    lecture's manual backprop cells) as well as the engine's `node._backward(node)`."""

    __slots__ = ("function", "node")

    def __init__(self, function, node):
        self.function, self.node = function, node

    def __call__(self, *args):
        return self.function(*args) if args else self.function(self.node)


def micrograd_backward():
    """In this child only: reading a studio Value's `_backward` gives a `_Backward`, so a
    cell may call `n._backward()` with no argument, as on micrograd's Value. Setting it
    (`out._backward = _backward`) sets the slot, as before."""
    from core.engine import Value

    slot = Value.__dict__["_backward"]

    class BackwardSlot:
        def __get__(self, obj, cls=None):
            if obj is None:
                return self
            function = slot.__get__(obj, cls)
            return function if isinstance(function, _Backward) else _Backward(function, obj)

        def __set__(self, obj, value):
            slot.__set__(obj, value)

    Value._backward = BackwardSlot()


def _real_libraries_first():
    """matplotlib in the child draws to no screen: Agg, the figures are sent as pictures."""
    os.environ["MPLBACKEND"] = "Agg"


def run_cells(cells: list[str], seconds: int, memory: int) -> dict:
    """Run the cells; {'kind': 'graph', ...} for the last, or {'kind': 'error', message, line, ran}."""
    import math
    import random

    from core.engine import Value
    from core.lecture import figures
    from core.lecture.instrument import BIND, LOOP, SHOW, CellSyntaxError, instrument, loop_variables

    sources, trees, notes = [], [], []
    for k, text in enumerate(cells):
        last = k == len(cells) - 1
        try:
            source, tree, cell_notes = instrument(text, show=last, loops=last)
        except CellSyntaxError as e:
            if last:
                return {"kind": "error", "message": e.message, "line": e.line, "col": e.col, "ran": False}
            return _earlier_failed(k, e.message)
        sources.append(source)
        trees.append(tree)
        if last:
            notes += cell_notes
    import linecache
    import runpy

    paths = []
    for k, source in enumerate(sources):
        paths.append(os.path.abspath(f"cell_{k}.py"))  # the working folder is a fresh temporary one
        with open(paths[-1], "w", encoding="utf-8") as f:
            f.write(source)
        # what tracebacks and the scopes' names quote: their text, line for line (no mtime: never re-read)
        lines = cells[k].splitlines(keepends=True)
        linecache.cache[paths[-1]] = (len(cells[k]), None, lines, paths[-1])

    micrograd_backward()
    backwards = Backwards()
    record = Recorder()
    record.backwards = backwards
    random.seed(0)
    provided = {"Value": Value, "math": math, "random": random, "draw_dot": record.draw_dot}
    scopes = Scopes(paths[-1])
    namespace = {BIND: record.bind, SHOW: record.last_line, LOOP: scopes.loop, **provided}
    printed = Printed()
    real = sys.stdout, sys.stderr
    sys.setrecursionlimit(10_000)
    signal.signal(signal.SIGALRM, _out_of_time)
    signal.signal(signal.SIGUSR1, _stopped)
    signal.setitimer(signal.ITIMER_REAL, max(1.0, seconds - 1.0))
    watcher = Watcher(paths, printed)
    watcher.start()
    failure, failed_at, before = None, None, None
    try:
        for k, path in enumerate(paths):
            last = k == len(paths) - 1
            sys.stdout = sys.stderr = printed if last else Printed()
            watcher.cell = k
            if last:
                figures.forget()  # an earlier cell's figures are not this one's
                before = Snapshot(namespace, set(provided) | {BIND, SHOW, LOOP})
                record.active, record.turn = True, scopes.turn
                scopes.start(namespace)
            try:
                namespace = runpy.run_path(path, namespace, "__main__")  # their code, in this child only
            except BaseException as e:  # noqa: BLE001 -- whatever their code raises is reported
                failure, failed_at = e, k
                if last and record.cell_globals is not None:  # stopped: its Values as they were
                    namespace = record.cell_globals
                break
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        watcher.done = True
        record.active = False
        scopes.stop()
        backwards.stop()
        sys.stdout, sys.stderr = real
    shown_figures = figures.collect()
    if failure is not None:
        explained = _explain(failure, paths, seconds, memory)
        if isinstance(failure, Stopped) and failed_at < len(paths) - 1:
            explained["message"] = f"you stopped your code while an earlier cell ({failed_at + 1}) ran again"
            return {"kind": "error", "printed": "", "ran": False, "figures": [], **explained}
        if failed_at < len(paths) - 1:
            return _earlier_failed(failed_at, explained["message"])
        if not isinstance(failure, Stopped):
            return {"kind": "error", "printed": printed.text(), "ran": False, "figures": shown_figures, **explained}
        # stopped: as a notebook's interrupted cell, its Values stay as they were; the picture shows them
        notes.append(
            f"You stopped your code at line {explained['line']}: the picture shows your Values as they were then. "
            "(A stopped cell is not kept for the next run.)"
        )
    tree = trees[-1]
    skip = {BIND, SHOW, LOOP} | {k for k, v in provided.items() if namespace.get(k) is v} | loop_variables(tree)
    notes += provided_notes(trees, namespace, provided)
    if len(cells) > 1:
        notes.append(f"Ran after {_count(len(cells) - 1, 'earlier cell')}, as a notebook would.")
    extra = {"printed": printed.text(), "out": record.out or "", "figures": shown_figures}
    try:
        graph = _graph(namespace, skip, record, tree, before, scopes)
    except record.collect.CollectError as e:
        if failure is not None:
            return {"kind": "error", "printed": printed.text(), "ran": False, "figures": shown_figures, **explained}
        return {"kind": "error", "message": str(e), "line": None, "ran": True, **extra}
    notes += graph.pop("notes")
    if failure is not None:  # stopped
        return {"kind": "graph", "notes": notes, **extra, **graph, "ran": False, "stopped": True}
    return {"kind": "graph", "notes": notes, **extra, **graph}


class Watcher:
    """A thread that writes progress.txt -- `cell line` and the last line printed -- every TICK
    seconds, and raises Stopped in the cell (by a signal to this process) when a file `stop`
    appears in the working folder."""

    def __init__(self, paths, printed):
        self.paths, self.printed = paths, printed
        self.cell, self.done = 0, False
        self.main = threading.main_thread().ident

    def start(self):
        import threading

        threading.Thread(target=self._run, daemon=True, name="progress").start()

    def _run(self):
        import time

        stopped = False
        while not self.done:
            time.sleep(TICK)
            if not stopped and os.path.exists("stop"):
                stopped = True
                os.kill(os.getpid(), signal.SIGUSR1)
            line = 0
            frame = sys._current_frames().get(self.main)
            while frame is not None:
                if frame.f_code.co_filename == self.paths[-1] or frame.f_code.co_filename in self.paths:
                    line = frame.f_lineno if frame.f_code.co_filename == self.paths[self.cell] else line
                    if line:
                        break
                frame = frame.f_back
            text = f"{len(self.paths)} {self.cell + 1} {line}\n{self.printed.last}\n"
            try:
                with open("progress.tmp", "w", encoding="utf-8") as f:
                    f.write(text)
                os.replace("progress.tmp", "progress.txt")
            except OSError:
                pass


class Backwards:
    """Which Values a whole `backward()` ran from, in any cell: the studio's Value's and the
    learner's classes' (their method wrapped when the class is made). After one, a grad of 0
    where the chain rule has another is wrong, not "not reached yet" (run.py's wrong_grads)."""

    def __init__(self):
        import builtins

        from core.engine import Value

        self.roots: dict[int, object] = {}  # id -> the Value, held so the id stays its own (the last ones)
        self.undo = []
        self._wrap(Value)
        build_class = builtins.__build_class__

        def __build_class__(*args, **kwargs):
            cls = build_class(*args, **kwargs)
            try:
                if callable(cls.__dict__.get("backward")) and "__mul__" in dir(cls):
                    self._wrap(cls)
            except Exception:  # noqa: BLE001 -- an odd class of theirs: not watched
                pass
            return cls

        builtins.__build_class__ = __build_class__
        self.undo.append(lambda: setattr(builtins, "__build_class__", build_class))

    def _wrap(self, cls):
        method = cls.__dict__["backward"]
        roots = self.roots

        def backward(self, *args, **kwargs):
            roots.pop(id(self), None)
            roots[id(self)] = self
            while len(roots) > KEEP_ROOTS:  # a training loop's earlier graphs go (they may be freed)
                del roots[next(iter(roots))]
            return method(self, *args, **kwargs)

        backward.__doc__ = method.__doc__
        cls.backward = backward
        self.undo.append(lambda: setattr(cls, "backward", method))

    def ran_from(self, value) -> bool:
        return id(value) in self.roots

    def stop(self):
        for put_back in reversed(self.undo):
            put_back()
        self.undo = []


class Snapshot:
    """The data and grad of every Value the namespace reaches before the new cell runs
    (held, so no id is reused): afterwards, the nodes the cell made or changed are those
    not in it or with other numbers."""

    def __init__(self, namespace, skip):
        from core.lecture import collect

        self.numbers: dict[int, tuple] = {}
        self.held: list = []
        found = collect.candidates(namespace, skip)
        stack = list(found)
        while stack and len(self.held) < MAX_SNAPSHOT:
            value = stack.pop()
            if id(value) in self.numbers:
                continue
            self.numbers[id(value)] = _numbers(value)
            self.held.append(value)
            try:
                stack.extend(collect.children_of(value))
            except Exception:  # noqa: BLE001 -- a learner's class read wrong here only loses the lighting
                pass

    def touched(self, value) -> bool:
        known = self.numbers.get(id(value))
        return known is None or known != _numbers(value)


def _numbers(value):
    return (getattr(value, "data", None), getattr(value, "grad", None))


class Scopes:
    """Records the scopes of the Values the new cell makes (core/scopes/record.py): the studio's
    engine, and the learner's own Value classes, of earlier cells or this one. At a turn of a
    top-level loop it starts afresh once it holds RECORD_AT_MOST nodes (the training loop's
    graph of the last turn is recorded whole; 100 turns are not kept)."""

    def __init__(self, path):
        self.path = path
        self.rec = None
        self.undo = []
        self.classes = []
        self.build_class = None

    def start(self, namespace):
        import builtins

        from core import engine
        from core.scopes.script import looks_like_value

        self.classes = [
            v for v in list(namespace.values()) if isinstance(v, type) and v is not engine.Value and _own(v)
        ]
        self.classes = [c for c in self.classes if looks_like_value(c)]
        self._begin()
        build_class = self.build_class = builtins.__build_class__

        def __build_class__(*args, **kwargs):
            cls = build_class(*args, **kwargs)
            try:
                mine = looks_like_value(cls)
            except Exception:  # noqa: BLE001
                mine = False
            if mine and self.rec is not None:
                from core.scopes.record import class_code, watch_class

                self.classes.append(cls)
                self.rec.add_skip(class_code(cls))
                if self.undo:  # recording now (not paused in a loop's earlier turn)
                    self.undo.append(watch_class(cls, self.rec))
            return cls

        builtins.__build_class__ = __build_class__

    def loop(self, iterable):
        """The items of a top-level `for` loop of the new cell, scopes recorded in its last
        turn only (its graph is the one the cell leaves; 100 turns' nodes cost 100 times
        the time). An iterable without a length is recorded throughout."""
        try:
            n = len(iterable)
        except Exception:  # noqa: BLE001 -- a generator, or their object's __len__
            n = None
        if n is None or self.rec is None:
            yield from iterable
            return
        try:
            for k, item in enumerate(iterable):
                if k < n - 1:
                    self.pause()
                else:
                    self.resume()
                yield item
        finally:  # also when the loop breaks early
            self.resume()

    def pause(self):
        if self.undo:
            for put_back in reversed(self.undo):
                put_back()
            self.undo = []

    def resume(self):
        from core.scopes.record import watch_class, watch_engine

        if not self.undo and self.rec is not None:
            self.undo = [watch_engine(self.rec)] + [watch_class(cls, self.rec) for cls in self.classes]

    def _begin(self):
        from core import engine
        from core.scopes.record import Recorder, class_code, code_of, watch_class, watch_engine

        rec = Recorder(class_code(engine.Value) | code_of([engine._node, engine._operand]), base_file=self.path)
        for cls in self.classes:
            rec.add_skip(class_code(cls))
        self.undo = [watch_engine(rec)] + [watch_class(cls, rec) for cls in self.classes]
        self.rec = rec

    def _end(self):
        for put_back in reversed(self.undo):
            put_back()
        self.undo = []
        if self.rec is not None:
            self.rec.finish()

    def turn(self):
        if self.undo and self.rec is not None and len(self.rec.nodes) > RECORD_AT_MOST:
            self._end()
            self._begin()

    def stop(self):
        import builtins

        self._end()
        if self.build_class is not None:
            builtins.__build_class__ = self.build_class
            self.build_class = None

    def graph(self, root):
        """The ScopedGraph of root, with the scopes recorded -- none when root was made while
        recording was paused (a loop's earlier turn, the cell stopped there): one block then."""
        from core.engine import Value
        from core.scopes.foreign import from_foreign
        from core.scopes.graph import ScopedGraph
        from core.scopes.record import Recorder

        recorded = self.rec is not None and id(root) in self.rec.index()
        if recorded:
            try:
                if isinstance(root, Value):
                    return ScopedGraph.from_values(root, self.rec)
                return from_foreign(root, self.rec)
            except ValueError:  # part of it made while paused, reading what was recorded: no scopes then
                pass
        if isinstance(root, Value):
            return ScopedGraph.from_values(root, None)
        return from_foreign(root, Recorder(set()))


def _own(cls):
    return getattr(cls, "__module__", "") == "__main__"


def _graph(namespace, skip, record, tree, before, scopes):
    """The graph data of the notebook's state after the cell: the graph(s) whole from the
    outermost Values that hold what the cell shows, else what it assigns, else what it
    reads (`n._backward()` shows the graph of `o`, which n is part of)."""
    from core.lecture.instrument import assigned, classes_and_functions, read

    collect = record.collect
    notes = []
    shown = bool(record.shown)
    if shown:
        focus = list({id(v): v for v in record.shown}.values())
    else:
        focus = []
        for names in (assigned(tree), read(tree)):
            mine = {name: namespace[name] for name in names if name in namespace and name not in skip}
            focus = focus or collect.candidates(mine, skip)
        if not focus:
            defs = classes_and_functions(tree)
            what = f"defines {', '.join(defs[:6])} (kept for your next cells); " if defs else ""
            raise collect.CollectError(
                f"your code ran and {what}no variable it sets holds a Value, so there is nothing to draw "
                "(end the cell with the Value to show, like `o` or `n(x)`)"
            )
    everything = collect.candidates(namespace, skip)
    roots = collect.outermost(focus, everything)
    walked = collect.walk_names(namespace, skip)
    if not shown:
        made = [r for r in roots if collect.children_of(r)]
        if not made:
            raise collect.CollectError(
                "your code made Values but no operation on them: nothing to draw "
                "(compute something, like `o = (x1*w1 + b).tanh()`)"
            )
        alone = [collect.name_of(r, record.names, walked) or "a Value" for r in roots if not collect.children_of(r)]
        if alone:
            more = "…" if len(alone) > 5 else ""
            notes.append(f"Not drawn, as no operation uses them: {', '.join(alone[:5])}{more}.")
        roots = made
    if len(roots) > MAX_ROOTS:  # a score per grid point (the demo's decision boundary): the last one
        notes.append(f"Your code made {len(roots):,} separate graphs: the last one is drawn.")
        roots = roots[-1:]
    if shown and record.shown[-1] in roots:
        output = record.shown[-1]
    elif shown:
        output = roots[-1]
    else:
        output = max(roots, key=lambda r: record.when.get(id(r), -1))
    if shown and record.said and not collect.name_of(output, record.names, {}):
        record.names[id(output)] = record.said
    size = collect.size_at_least(roots, BIG + 1)
    if size > BIG and len(roots) == 1 and scopes is not None:
        return _big(output, scopes, collect.name_of(output, record.names, walked), notes, before)
    data = collect.graph_data(roots, output, record.names, walked)
    if before is not None:
        data["touched"] = [
            node["id"] for node, value in zip(data["nodes"], data.pop("objects")) if before.touched(value)
        ]
    else:
        data.pop("objects")
    if len(roots) > 1:
        label = {n["id"]: n["label"] for n in data["nodes"]}
        notes.append(
            f"{len(roots)} graphs, one for each of your {len(roots)} results: backward starts from "
            f"{label[data['output']] or 'the last'}. To start it from another, right-click that node › Set as Output."
        )
    outer = roots[-1] if len(roots) == 1 else None
    if outer is not None and not any(v is outer for v in focus):
        name = collect.name_of(outer, record.names, walked) or "the outermost Value"
        notes.append(f"The whole graph of {name} is drawn, the nodes your cell touched lit.")
    data["full_backward"] = record.backwards is not None and record.backwards.ran_from(output)
    data["roots"] = len(roots)
    data["notes"] = notes
    return data


def _big(root, scopes, name, notes, before):
    """A graph too big for the canvas: written as a ScopedGraph into ./big for the studio."""
    try:
        graph = scopes.graph(root)
    except Exception as e:  # noqa: BLE001 -- a learner's class that cannot be read
        raise scopes_error(e) from None
    os.makedirs("big", exist_ok=True)
    graph.write("big")
    label = name or "your graph"
    notes.append(
        f"{graph.n:,} nodes: too many for one picture, so {label} opens collapsed by the code that made it "
        "(double-click a block to open it)."
    )
    return {"big": "big", "label": label, "n": graph.n, "notes": notes, "roots": 1}


def scopes_error(e):
    from core.lecture.collect import CollectError

    return CollectError(f"the graph is too big to draw node by node, and could not be grouped: {e}")


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


def _stopped(signum, frame):
    raise Stopped


def _explain(error, paths, seconds, memory):
    """{message, line} for what the cell raised, in the learner's terms."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == paths[-1]]
    line = frames[-1].lineno if frames else None
    if isinstance(error, Stopped):
        return {"message": "you stopped your code", "line": line, "stopped": True}
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
