"""A traced graph as compact arrays, with the scopes that made it: `ScopedGraph`.

A training step of microgpt is 100,000 Values. A `GraphDocument` (a networkx
graph with a `Node` object per node) costs ~1.3 KB a node and seconds to
build; the Values themselves cost ~140 bytes. So a big traced graph is kept
as a handful of numpy arrays, one entry per node -- its op, its operands, its
data and grad, its scope and the line that made it -- about 50 bytes a node,
beside the engine's own Values when the studio steps them.

Order. Nodes are numbered in the order they were made: the inputs first
(leaves made before recording began, such as the model's parameters), then
every recorded node as it was made. The order in which a program makes its
nodes is a topological order (a node is made from operands that exist), and
it keeps every scope together: the nodes of one call of `softmax`, of one turn
of `for h in ...`, are one run of consecutive numbers, `[start, end)`. The
backward pass runs this order backwards -- the last thing computed passes
its gradient on first -- which is what lets the debugger step over a whole
block ("the backward of softmax, 16 steps"): a block's steps come together.

Inputs. The model's parameters were made before the step, in no scope. They
are grouped by name stem (`layer0.attn_wq[3][5]` is in `layer0.attn_wq`, the
name the code gives the matrix), each group a scope of kind 'inputs' inside
one 'parameters' scope under the root, so that the collapsed picture shows
one block of parameters, then a block per matrix, rather than 4,192 loose
leaves. Unlabelled leaves made before recording are 'constants'.

`ScopedGraph.from_values(root, recorder)` builds one from the studio's Values;
`from_plain` / `to_plain` carry one across a process boundary as plain arrays
(core/scopes/script.py); `values()` makes (or hands back) the engine Values
the debugger steps.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from core import ops
from core.engine import Value, topological_order
from core.recorded import CONST, INPUT, OP_CODE, OP_NAMES, fill_rows  # noqa: F401 (OP_CODE is read as graph's too)
from core.scopes.names import CodeNames
from core.scopes.record import ROOT, ROOT_SCOPE, Recorder, Scope

# op codes: the two kinds of leaf, then the op table in its order -- the recorded graph's (core/recorded.py)
ARRAYS = ("op", "a", "b", "param", "data", "grad", "scope", "line")
DTYPES = {"op": np.int8, "a": np.int32, "b": np.int32, "param": np.float64, "data": np.float64,
          "grad": np.float64, "scope": np.int32, "line": np.int32}  # fmt: skip
FORMAT = "backprop-studio.scoped-graph"
NAME_MAX = 24  # characters of a formula name before its operands are elided (as core/document/names.py)
_STEM = re.compile(r"^([^\[]+)\[")


def label_stem(label: str) -> str:
    """The group a labelled input belongs to: 'layer0.attn_wq[3][5]' -> 'layer0.attn_wq',
    'L1.n3.w0' -> 'L1.n3', 'x' -> 'x'."""
    match = _STEM.match(label)
    if match:
        return match.group(1)
    return label.rsplit(".", 1)[0] if "." in label else label


class ScopedGraph:
    """A traced graph in arrays (see the module docstring).

    n                  number of nodes; node i's operands are a[i], b[i] (-1: none)
    op                 OP_NAMES index per node (INPUT, CONST, or an op)
    param              pow's exponent / rpow's base (nan otherwise)
    data, grad         the numbers
    scope, line        the innermost scope of each node, and the line that made it
    labels             {node: label} of the labelled nodes
    root               the output node
    scopes             [Scope]; scope 0 is the root
    parent             array: each scope's parent (-1 for the root)
    start, end         arrays: the nodes of scope s (its inner scopes' included) are start[s]..end[s]-1
    notes              what the trace guessed or recovered (a learner's class), for the screen
    engine             'studio' or the learner's class name
    """

    def __init__(
        self,
        arrays: dict[str, np.ndarray],
        labels: dict[int, str],
        root: int,
        scopes: Sequence[Scope],
        notes: Sequence[str] = (),
        engine: str = "studio",
        values: list[Value] | None = None,
        sources: dict[str, list[str]] | None = None,
    ) -> None:
        for key in ARRAYS:
            setattr(self, key, np.ascontiguousarray(arrays[key], dtype=DTYPES[key]))
        self.op: np.ndarray
        self.a: np.ndarray
        self.b: np.ndarray
        self.param: np.ndarray
        self.data: np.ndarray
        self.grad: np.ndarray
        self.scope: np.ndarray
        self.line: np.ndarray
        self.n = len(self.op)
        self.labels = dict(labels)
        self.root = int(root)
        self.scopes = list(scopes)
        self.notes = list(notes)
        self.engine = engine
        self._values = values
        self._check()
        self.parent = np.array([s.parent for s in self.scopes], dtype=np.int32)
        self.depth = np.zeros(len(self.scopes), dtype=np.int32)
        for s in range(1, len(self.scopes)):
            self.depth[s] = self.depth[self.parent[s]] + 1
        self._spans()
        self._names: dict[int, str] = {}
        self.code_names = CodeNames(sources)
        # the code's statements indexed now, where the graph is made (a worker when a script is
        # traced): naming blocks on the GUI thread is then a lookup, not a walk of the code's tree
        self.code_names.prepare({s.file for s in self.scopes if s.file})

    # -- building ---------------------------------------------------------------

    @classmethod
    def from_values(
        cls, root: Value, recorder: Recorder | None = None, parameters: Sequence[Value] = ()
    ) -> ScopedGraph:
        """The graph that made `root` (the studio's Values), its scopes from `recorder`
        (None: no scopes, every node in the root scope)."""
        reached = topological_order(root)
        made: dict[int, int] = recorder.index() if recorder is not None else {}
        before = [v for v in reached if id(v) not in made]  # made before recording: inputs first
        in_graph = {id(v) for v in reached}
        recorded = [v for v in recorder.nodes if id(v) in in_graph] if recorder is not None else []
        order, scope_of, groups = _inputs_first(before, {id(p): k for k, p in enumerate(parameters)})
        scopes = [ROOT_SCOPE]
        if len(groups) > 1:  # one block of all the matrices, each a block inside it
            title = "parameters" if parameters else "inputs"
            scopes.append(Scope(ROOT, "inputs", title, f"{len(order):,} values made before the step", "", 0))
            scope_of = {i: k + 1 for i, k in scope_of.items()}
        top = len(scopes) - 1
        scopes += [Scope(top, "inputs", name, name, "", 0) for name in groups]
        keep = _kept_scopes(recorder, [made[id(v)] for v in recorded]) if recorder is not None else {}
        shift = len(scopes)
        for old in sorted(keep):
            if old == ROOT:
                continue
            s = recorder.scopes[old]  # type: ignore[union-attr]
            scopes.append(s._replace(parent=keep[s.parent] + shift - 1 if s.parent != ROOT else ROOT))
        nodes = order + recorded
        index = {id(v): i for i, v in enumerate(nodes)}
        n = len(nodes)
        arrays = {key: np.zeros(n, dtype=DTYPES[key]) for key in ARRAYS}
        arrays["a"][:] = -1
        arrays["b"][:] = -1
        arrays["param"][:] = math.nan
        labels = {i: v.label for i, v in enumerate(nodes) if v.label}
        fill_rows(nodes, index, set(map(id, parameters)), arrays["op"], arrays["a"], arrays["b"], arrays["param"])
        arrays["data"][:] = [v.data for v in nodes]
        arrays["grad"][:] = [v.grad for v in nodes]
        for i, s in scope_of.items():
            arrays["scope"][i] = s
        if recorder is not None and recorded:
            width = np.int64 if recorder.node_scope.itemsize == 8 else np.int32
            old_scopes = np.frombuffer(recorder.node_scope, dtype=width)
            lines = np.frombuffer(recorder.node_line, dtype=old_scopes.dtype)
            positions = np.fromiter((made[id(v)] for v in recorded), dtype=np.int64, count=len(recorded))
            remap = np.zeros(len(recorder.scopes) + 1, dtype=np.int32)  # NO_SCOPE (-1) maps to the root
            for old, new in keep.items():
                remap[old] = new + shift - 1 if old != ROOT else ROOT
            arrays["scope"][len(order) :] = remap[old_scopes[positions]]
            arrays["line"][len(order) :] = lines[positions]
        return cls(arrays, labels, index[id(root)], scopes, values=nodes)

    @classmethod
    def from_plain(cls, meta: dict[str, Any], blobs: dict[str, bytes]) -> ScopedGraph:
        """The graph a child process wrote (`to_plain`): meta as JSON, arrays as raw bytes."""
        if meta.get("format") != FORMAT:
            raise ValueError(f"not a scoped graph (format {meta.get('format')!r})")
        n = int(meta["n"])
        arrays = {}
        for key in ARRAYS:
            array = np.frombuffer(blobs[key], dtype=DTYPES[key])
            if len(array) != n:
                raise ValueError(f"scoped graph: '{key}' has {len(array)} entries, not {n}")
            arrays[key] = array.copy()
        scopes = [Scope(*s) for s in meta["scopes"]]
        labels = {int(k): str(v) for k, v in meta["labels"].items()}
        sources = {str(k): [str(line) for line in v] for k, v in meta.get("sources", {}).items()}
        engine = meta.get("engine", "studio")
        return cls(arrays, labels, int(meta["root"]), scopes, meta.get("notes", ()), engine, sources=sources)

    def to_plain(self) -> tuple[dict[str, Any], dict[str, bytes]]:
        """(meta, {array name: raw bytes}): what `from_plain` reads."""
        meta = {
            "format": FORMAT,
            "n": self.n,
            "root": self.root,
            "scopes": [list(s) for s in self.scopes],
            "labels": {str(k): v for k, v in self.labels.items()},
            "notes": self.notes,
            "engine": self.engine,
            "sources": {f: self.code_names.lines(f) for f in sorted({s.file for s in self.scopes if s.file})},
        }
        return meta, {key: getattr(self, key).tobytes() for key in ARRAYS}

    def write(self, folder: str) -> None:
        """Write the graph into folder (meta.json and one .bin per array)."""
        meta, blobs = self.to_plain()
        for key, blob in blobs.items():
            with open(os.path.join(folder, f"{key}.bin"), "wb") as f:
                f.write(blob)
        with open(os.path.join(folder, "meta.json"), "w", encoding="utf-8") as f:
            json.dump(meta, f, allow_nan=False)

    @classmethod
    def read(cls, folder: str, max_nodes: int = 5_000_000) -> ScopedGraph:
        with open(os.path.join(folder, "meta.json"), encoding="utf-8") as f:
            meta = json.load(f)
        if not isinstance(meta, dict) or not 0 < int(meta.get("n", 0)) <= max_nodes:
            raise ValueError(f"a traced graph of {meta.get('n') if isinstance(meta, dict) else '?'} nodes is too large")
        blobs = {}
        for key in ARRAYS:
            with open(os.path.join(folder, f"{key}.bin"), "rb") as f:
                blobs[key] = f.read()
        return cls.from_plain(meta, blobs)

    # -- checks and spans -----------------------------------------------------------

    def _check(self) -> None:
        n = self.n
        for key in ARRAYS:
            if len(getattr(self, key)) != n:
                raise ValueError(f"scoped graph: '{key}' has {len(getattr(self, key))} entries, not {n}")
        idx = np.arange(n)
        for side in (self.a, self.b):
            bad = np.nonzero((side >= idx) | (side < -1))[0]
            if len(bad):
                raise ValueError(f"scoped graph: node {bad[0]} reads node {side[bad[0]]}, not one made before it")
        is_op = self.op >= 2
        if np.any(is_op & (self.a < 0)) or np.any(~is_op & ((self.a >= 0) | (self.b >= 0))):
            raise ValueError("scoped graph: an op without its operand, or a leaf with one")
        if np.any((self.op < 0) | (self.op >= len(OP_NAMES))):
            raise ValueError("scoped graph: an unknown op code")
        if not 0 <= self.root < n:
            raise ValueError(f"scoped graph: the output {self.root} is not a node")
        m = len(self.scopes)
        if m == 0 or self.scopes[0].parent != -1:
            raise ValueError("scoped graph: scope 0 must be the root")
        for s, scope in enumerate(self.scopes[1:], start=1):
            if not 0 <= scope.parent < s:
                raise ValueError(f"scoped graph: scope {s} ({scope.name!r}) has parent {scope.parent}")
        if np.any((self.scope < 0) | (self.scope >= m)):
            raise ValueError("scoped graph: a node in no known scope")
        if any(not (isinstance(k, int) and 0 <= k < n) for k in self.labels):
            raise ValueError("scoped graph: a label names no node")

    def _spans(self) -> None:
        """start/end of every scope (its inner scopes' nodes included), and the count
        of its own nodes."""
        m = len(self.scopes)
        idx = np.arange(self.n)
        start = np.full(m, self.n, dtype=np.int64)
        end = np.zeros(m, dtype=np.int64)
        np.minimum.at(start, self.scope, idx)
        np.maximum.at(end, self.scope, idx + 1)
        self.own = np.bincount(self.scope, minlength=m).astype(np.int64)  # nodes directly in each scope
        total = self.own.copy()
        for s in range(m - 1, 0, -1):  # children come after their parents
            p = self.parent[s]
            start[p] = min(start[p], start[s])
            end[p] = max(end[p], end[s])
            total[p] += total[s]
        start[0], end[0] = 0, self.n
        self.start, self.end, self.total = start, end, total
        # a scope whose nodes are not one run (code that makes a block's nodes out of
        # order) still works everywhere but in the block steps; say so
        self.contiguous = bool(np.all((end - start == total) | (total == 0)))

    # -- reading ----------------------------------------------------------------

    def op_name(self, i: int) -> str:
        return OP_NAMES[self.op[i]]

    def kind(self, i: int) -> str:
        """'input', 'const' or 'op', as a document node's kind."""
        code = self.op[i]
        return OP_NAMES[code] if code < 2 else "op"

    def operands(self, i: int) -> list[int]:
        return [int(x) for x in (self.a[i], self.b[i]) if x >= 0]

    def children(self, s: int) -> list[int]:
        """The scopes directly inside scope s, in the order they were made."""
        kids = self._kids()
        return kids.get(s, [])

    def _kids(self) -> dict[int, list[int]]:
        kids = getattr(self, "_kids_cache", None)
        if kids is None:
            kids = {}
            for s in range(1, len(self.scopes)):
                kids.setdefault(int(self.parent[s]), []).append(s)
            self._kids_cache = kids
        return kids

    def own_nodes(self, s: int) -> np.ndarray:
        """The nodes directly in scope s (not in an inner scope), in order."""
        lo, hi = self.start[s], self.end[s]
        inside = np.nonzero(self.scope[lo:hi] == s)[0]
        return inside + lo

    def path(self, s: int) -> list[int]:
        """Scope s and its ancestors, the root first."""
        chain = []
        while s >= 0:
            chain.append(s)
            s = int(self.parent[s])
        return chain[::-1]

    def title(self, s: int) -> str:
        """What a block says it is: 'softmax', 'h = 2', '1) Multi-head Attention block'."""
        scope = self.scopes[s]
        return scope.name if scope.kind != "root" else "the traced code"

    def name(self, i: int) -> str:
        """The node's name on screen: its label, a constant's number, else a short formula
        of its operands' names, elided past NAME_MAX characters ('tanh(…)', '… + b')."""
        known = self._names.get(i)
        if known is None:
            known = self._names[i] = self._name(i, 2)
        return known

    def _name(self, i: int, depth: int) -> str:
        label = self.labels.get(i)
        if label:
            return label
        code = self.op[i]
        if code == CONST or code == INPUT:
            return ops.short_number(self.data[i]) if math.isfinite(self.data[i]) else str(self.data[i])
        file = self.scopes[self.scope[i]].file
        if file:
            named = self.code_names.name(file, int(self.line[i]), OP_NAMES[code])
            if named:
                return named
        if depth == 0:
            return "…"
        args = []
        for j in self.operands(i):
            text = self._name(j, depth - 1)
            if len(text) > NAME_MAX // 2:
                text = "…"
            elif " " in text:
                text = f"({text})"
            args.append(text)
        param = None if math.isnan(self.param[i]) else float(self.param[i])
        return ops.formula(OP_NAMES[code], args, param)

    # -- the engine's Values -------------------------------------------------------

    def twin(self) -> ScopedGraph:
        """The same graph (its arrays shared, read only) with Values of its own, made from the
        arrays when asked: a walk over the twin (an exported page's) leaves this graph's Values,
        and the stepping on them, where they are."""
        import copy

        made = copy.copy(self)
        made._values = None
        return made

    def values(self) -> list[Value]:
        """The studio's Values of this graph, in node order: the traced ones when the graph
        was traced from them, else made now from the arrays (a learner's graph is computed
        and stepped with the studio's engine). Their grads are zero until a backward pass."""
        if self._values is None:
            self._values = self._compile()
        return self._values

    def _compile(self) -> list[Value]:
        made: list[Value] = []
        for i in range(self.n):
            code = self.op[i]
            if code < 2:
                made.append(Value(float(self.data[i]), label=self.labels.get(i, "")))
                continue
            a = made[self.a[i]]
            name = OP_NAMES[code]
            if name == "pow":
                k = float(self.param[i])
                out = a ** (int(k) if k.is_integer() and abs(k) < 2**53 else k)
            elif name == "rpow":
                out = float(self.param[i]) ** a
            elif self.b[i] >= 0:
                b = made[self.b[i]]
                out = {"add": a.__add__, "sub": a.__sub__, "mul": a.__mul__, "div": a.__truediv__}[name](b)
            elif name == "neg":
                out = -a
            else:
                out = getattr(a, name)()
            out.label = self.labels.get(i, "")
            made.append(out)
        return made

    def read_numbers(self) -> None:
        """Copy data and grad back from the Values (after a backward pass or a step)."""
        values = self.values()
        self.data[:] = [v.data for v in values]
        self.grad[:] = [v.grad for v in values]

    def nbytes(self) -> int:
        """Bytes held by the arrays (what a node costs beside its Value)."""
        return sum(getattr(self, key).nbytes for key in ARRAYS) + 5 * 8 * len(self.scopes)


# -----------------------------------------------------------------------------
# helpers of from_values


def _inputs_first(before: list[Value], params: dict[int, int]) -> tuple[list[Value], dict[int, int], list[str]]:
    """The nodes made before recording, leaves grouped by label stem first, then the
    rest in topological order; ({node index: group scope}, group names)."""
    leaves = [v for v in before if v._a is None]
    others = [v for v in before if v._a is not None]
    groups: dict[str, list[Value]] = {}
    loose: list[Value] = []
    for v in leaves:
        if v.label:
            groups.setdefault(label_stem(v.label), []).append(v)
        elif id(v) in params:
            groups.setdefault("parameters", []).append(v)
        else:
            loose.append(v)
    if loose:
        groups.setdefault("constants", []).extend(loose)
    order: list[Value] = []
    scope_of: dict[int, int] = {}
    names = []
    if params:  # the matrices in the order the model made them
        first = {name: min((params[id(v)] for v in members if id(v) in params), default=len(params))
                 for name, members in groups.items()}  # fmt: skip
        groups = dict(sorted(groups.items(), key=lambda item: first[item[0]]))
    for k, (name, members) in enumerate(groups.items(), start=1):
        names.append(name)
        for v in members:
            scope_of[len(order)] = k
            order.append(v)
    return order + others, scope_of, names


def _kept_scopes(recorder: Recorder, positions: list[int]) -> dict[int, int]:
    """{recorder scope: new index (1-based among the kept, the root 0)} of the scopes that
    hold a node of the graph or an inner scope that does."""
    used = {ROOT}
    node_scope = recorder.node_scope
    for p in positions:
        s = node_scope[p]
        while s > ROOT and s not in used:
            used.add(s)
            s = recorder.scopes[s].parent
    return {old: k for k, old in enumerate(sorted(used))}
