"""Recording which call of which function made each node -- only while asked.

A Value does not know where it was made. To group a 100,000-node graph the
way its code is written (`gpt` > `h = 2` > `softmax`), the studio watches the
graph being built: while a `Recorder` is on, every new node of the watched
class is *noted* -- the recorder looks at the Python call stack at that
moment and finds the innermost scope the node belongs to:

* a **call** of a function of the learner's code (`linear`, `rmsnorm`, ...):
  one scope per call, named by the function and by the line that called it
  (`q = linear(x, state_dict[f'layer{li}.attn_wq'])`);
* a turn of a **loop** inside such a call (`h = 2`), and a **section** headed
  by a numbered comment (`1) Multi-head Attention block`), see source.py;
* list comprehensions and generator expressions (`sum(wi * xi for ...)`) are
  no scope of their own: their nodes belong to the code around them.

The engine's own methods (`__add__`, `_node`, ...) are skipped, so a node made
by `x * y` inside `linear` is in `linear`. Scopes nest: each has a parent, and
everything made outside any call of the code being traced -- the script's
top level, or the code around a `with recording():` -- is in the root scope
(0). Nodes that were made before recording began (a model's parameters) were
never noted: they are the graph's inputs, in no scope.

Cost. Nothing, when off: recording swaps the engine's node factory
(`core.engine._node`) and `Value.__init__` for noting versions and puts them
back after; the engine itself has no code for scopes. When on, most nodes
are answered from the last frame seen (the same comprehension, or the same
line of the same call, outside any loop): about a microsecond per node.

A learner's own Value class is watched the same way, in the child process
that runs their script: its `__init__` notes `self` (core/scopes/script.py).

    with recording() as rec:
        loss = model_loss(tokens, model)
    graph = ScopedGraph.from_values(loss, rec)     # core/scopes/graph.py
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from threading import get_ident
from types import CodeType, FrameType, FunctionType
from typing import Any, NamedTuple

from core.scopes.source import Region, code_regions, regions_by_line, source_line

ROOT = 0  # the scope of everything made outside any call of the traced code
NO_SCOPE = -1  # a node made in another thread while recording

# frames that are part of an expression, not a scope of their own
COMPREHENSIONS = frozenset({"<listcomp>", "<genexpr>", "<setcomp>", "<dictcomp>"})
# a loop variable's value makes a scope's name only when it is short and plain
_PLAIN = (int, str)
MAX_NAME = 40


class Scope(NamedTuple):
    """One scope, as plain data (what a child process sends)."""

    parent: int  # the enclosing scope's index (-1 for the root)
    kind: str  # 'root', 'call', 'loop' or 'section'
    name: str  # 'linear', 'h = 2', '1) Multi-head Attention block'
    site: str  # the source line that made it: the call's line, the loop's header, the comment
    file: str  # the file of the code running inside it (its nodes' lines are lines of this file)
    line: int  # the line of `site` (a call's: in the caller's file)


ROOT_SCOPE = Scope(-1, "root", "", "", "", 0)


def code_of(functions: Iterable[Any]) -> set[CodeType]:
    """The code objects of functions (and of the functions and lambdas defined inside them)."""
    found: set[CodeType] = set()
    todo = []
    for f in functions:
        f = getattr(f, "__func__", f)  # staticmethod, classmethod, bound method
        code = getattr(f, "__code__", None)
        if isinstance(code, CodeType):
            todo.append(code)
    while todo:
        code = todo.pop()
        if code not in found:
            found.add(code)
            todo.extend(c for c in code.co_consts if isinstance(c, CodeType))
    return found


def class_code(cls: type) -> set[CodeType]:
    """The code of every method of cls and of its bases (their frames are the engine, not a scope)."""
    members: list[Any] = []
    for klass in cls.__mro__:
        if klass is object:
            continue
        for value in vars(klass).values():
            if isinstance(value, property):
                members += [value.fget, value.fset, value.fdel]
            else:
                members.append(value)
    return code_of(m for m in members if m is not None)


# -----------------------------------------------------------------------------
# The recorder


class Recorder:
    """Notes each node made while it is on: its scope and line (see the module docstring).

    nodes       every noted node, in the order they were made (kept alive while recording)
    scope_of    {id(node): index in nodes} -- while the nodes are alive
    node_scope  array: the scope of nodes[i]
    node_line   array: the line of the traced code that made nodes[i]
    node_maker  array: which method of the watched class made nodes[i] (an index into
                `makers`, 0: none -- made by the traced code itself, a leaf); for a
                learner's class this names the op (`__mul__`, `exp`) without guessing
    scopes      [Scope], index 0 the root
    """

    def __init__(
        self,
        skip: set[CodeType],
        base: FrameType | None = None,
        base_code: CodeType | None = None,
        base_file: str = "",
    ) -> None:
        # ids, not the code objects: hashing a code object hashes its bytecode, on every node
        self.skip = {id(code) for code in set(skip) | code_of([Recorder.note])}
        self._keep = list(skip)  # the code objects, so that their ids stay theirs
        self.base, self.base_code = base, base_code
        self.base_file = base_file  # a script run as a file: its top level is the root
        self.thread = get_ident()
        self.nodes: list[Any] = []
        self.node_scope = array("l")
        self.node_line = array("l")
        self.node_maker = array("h")
        self.makers: list[str] = [""]
        self._maker_of: dict[int, int] = {}  # id(code) -> index in makers
        self.scopes: list[Scope] = [ROOT_SCOPE]
        self._calls: dict[FrameType, int] = {}  # frame of a call -> its scope (the frames kept alive)
        self._regions: dict[int, dict[int, tuple[Region, ...]]] = {}  # id(code) -> regions by line
        self._turns: dict[tuple[int, int], tuple[Any, int]] = {}  # (parent, region id) -> (key, scope)
        self._known: dict[FrameType, tuple[int, int, int]] = {}  # the last frames' answers (see _answer)

    # -- noting ---------------------------------------------------------------------

    def note(self, node: Any) -> None:
        """Record node's scope: called by the watched class right after a node is made."""
        if get_ident() != self.thread:
            self.nodes.append(node)
            self.node_scope.append(NO_SCOPE)
            self.node_line.append(0)
            self.node_maker.append(0)
            return
        f = sys._getframe(1)
        skip = self.skip
        maker = f.f_back
        code = maker.f_code if maker is not None else None
        made_by = self._maker_of.get(id(code), -1) if code is not None else 0
        if made_by < 0:
            made_by = self._maker(code)
        self.node_maker.append(made_by)
        while id(f.f_code) in skip:
            f = f.f_back  # type: ignore[assignment]  # the engine is always called from somewhere
        known = self._known.get(f)
        if known is None or (known[0] and known[0] != f.f_lineno):
            known = self._answer(f)
        self.nodes.append(node)
        self.node_scope.append(known[1])
        self.node_line.append(known[2])

    def _maker(self, code: CodeType) -> int:
        """The index of the method whose code this is (0 if it is not the watched class's)."""
        found = 0
        if id(code) in self.skip:
            self.makers.append(code.co_name)
            found = len(self.makers) - 1
        self._maker_of[id(code)] = found
        self._keep.append(code)
        return found

    def _answer(self, f: FrameType) -> tuple[int, int, int]:
        """Work out the scope of a node made in frame f, and remember it for the next nodes
        made there: (valid at this line (0 any, -1 none), scope, line of the traced code)."""
        code_frame = f
        while code_frame.f_code.co_name in COMPREHENSIONS and code_frame.f_back is not None:
            code_frame = code_frame.f_back
        scope, line, plain = self._where(code_frame)
        if code_frame is not f:
            valid = 0  # a comprehension runs while the code around it stands still
        else:
            valid = line if plain else -1  # in a loop, the next node may be in the next turn
        known = (valid, scope, line)
        if len(self._known) > 64:  # a few frames take turns (a genexpr and the sum() reading it)
            self._known.clear()
        self._known[f] = known
        return known

    def _where(self, f: FrameType) -> tuple[int, int, bool]:
        """(scope, line, plain) for code running in frame f now; plain: no loop holds the line."""
        scope = self._call(f)
        line = f.f_lineno
        regions = self._regions_of(f.f_code).get(line)
        if not regions:
            return scope, line, True
        plain = True
        local_values = None
        for region in regions:
            key = None
            if region.kind == "loop":
                plain = False
                if local_values is None:
                    local_values = f.f_locals
                key = local_values.get(region.var)
                if not isinstance(key, _PLAIN) or isinstance(key, bool):
                    continue  # a loop over Values or pairs: no scope of its own
            scope = self._turn(scope, region, key, f.f_code.co_filename)
        return scope, line, plain

    def _regions_of(self, code: CodeType) -> dict[int, tuple[Region, ...]]:
        found = self._regions.get(id(code))
        if found is None:
            found = self._regions[id(code)] = regions_by_line(code_regions(code))
            self._keep.append(code)
        return found

    def _call(self, f: FrameType) -> int:
        """The scope of the call running in frame f (made the first time f is seen)."""
        scope = self._calls.get(f)
        if scope is not None:
            return scope
        # the frames of calls not seen yet, innermost first, up to one that is known
        pending = []
        frame: FrameType | None = f
        while frame is not None and frame not in self._calls:
            code = frame.f_code
            if (
                frame is self.base
                or code is self.base_code
                or (code.co_name == "<module>" and code.co_filename == self.base_file and self.base_file)
            ):
                self._calls[frame] = ROOT
                break
            if frame.f_code.co_name not in COMPREHENSIONS:
                pending.append(frame)
            frame = frame.f_back
        if frame is None and pending:  # no base on the stack: the outermost frame is the root
            self._calls[pending.pop()] = ROOT
        for frame in reversed(pending):
            caller = frame.f_back
            while caller is not None and caller.f_code.co_name in COMPREHENSIONS:
                caller = caller.f_back
            if caller is None:
                self._calls[frame] = ROOT
                continue
            parent, line, _plain = self._where(caller)
            code = frame.f_code
            name = "lambda" if code.co_name == "<lambda>" else code.co_name
            site = source_line(caller.f_code.co_filename, line)
            self._calls[frame] = self._new(Scope(parent, "call", name, site, code.co_filename, line))
        return self._calls[f]

    def _turn(self, parent: int, region: Region, key: Any, filename: str) -> int:
        """The scope of one turn of a loop (key: its variable's value) or of a section."""
        slot = (parent, region.id)
        last = self._turns.get(slot)
        if last is not None and type(last[0]) is type(key) and last[0] == key:
            return last[1]
        if region.kind == "loop":
            shown = repr(key)
            name = f"{region.var} = {shown if len(shown) <= MAX_NAME else shown[: MAX_NAME - 1] + '…'}"
            line = region.start - 1
        else:
            name, line = region.text, region.start
        scope = self._new(Scope(parent, region.kind, name, region.text, filename, line))
        self._turns[slot] = (key, scope)
        return scope

    def _new(self, scope: Scope) -> int:
        self.scopes.append(scope)
        return len(self.scopes) - 1

    def add_skip(self, codes: set[CodeType]) -> None:
        """Frames of these codes are the engine too (the noting wrappers)."""
        self._keep.extend(codes)
        self.skip |= {id(code) for code in codes}

    # -- reading --------------------------------------------------------------------

    def index(self) -> dict[int, int]:
        """{id(node): its position in `nodes`}: ids are safe while the recorder holds the nodes."""
        return {id(node): i for i, node in enumerate(self.nodes)}

    def finish(self) -> None:
        """Let go of the frames (and what they hold); the nodes and scopes stay."""
        self._calls.clear()
        self._known.clear()
        self._turns.clear()


# -----------------------------------------------------------------------------
# Watching the studio's engine, or a learner's class


@contextmanager
def recording(*classes: type, base_code: CodeType | None = None) -> Iterator[Recorder]:
    """Record scopes while the block runs; the root scope is the caller's code.

    With no class given, the studio's engine (`core.engine.Value`) is watched;
    otherwise each class given (a learner's Value) has its `__init__` wrapped.
    Everything is put back as it was when the block ends, even on an error."""
    base = sys._getframe(2) if base_code is None else None  # the frame of the `with` (past contextmanager)
    if classes:
        skip: set[CodeType] = set()
        for cls in classes:
            skip |= class_code(cls)
    else:
        from core import engine

        skip = class_code(engine.Value) | code_of([engine._node, engine._operand])
    rec = Recorder(skip, base, base_code)
    undo = watch_engine(rec) if not classes else [watch_class(cls, rec) for cls in classes]
    try:
        yield rec
    finally:
        for put_back in undo if isinstance(undo, list) else [undo]:
            put_back()
        rec.finish()


def watch_engine(rec: Recorder) -> Any:
    """Make the studio's engine note every node it makes; returns the function that stops it."""
    from core import engine

    make, init = engine._node, engine.Value.__init__
    note = rec.note

    def _node(data, a, b, op, backward):
        out = make(data, a, b, op, backward)
        note(out)
        return out

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        note(self)

    rec.add_skip(code_of([_node, __init__]))
    engine._node = _node
    engine.Value.__init__ = __init__  # type: ignore[method-assign]

    def stop() -> None:
        engine._node = make
        engine.Value.__init__ = init  # type: ignore[method-assign]

    return stop


def watch_class(cls: type, rec: Recorder) -> Any:
    """Make a learner's class note every instance its `__init__` makes; returns the undo."""
    own = cls.__dict__.get("__init__")
    init = cls.__init__
    note = rec.note

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        note(self)

    rec.add_skip(code_of([__init__]))
    cls.__init__ = __init__  # type: ignore[misc]

    def stop() -> None:
        if isinstance(own, FunctionType) or own is not None:
            cls.__init__ = own  # type: ignore[misc]
        else:
            del cls.__init__  # type: ignore[misc]

    return stop
