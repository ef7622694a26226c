"""Naming a node by the code that made it: `val - max_val`, `scale`, `sum(exps)`.

A traced microgpt step has 100,000 nodes and almost none has a label. A
formula of the operands' names (`… + …·…`) says nothing at that size; the line
of code that made the node does. The recorder knows that line (record.py), so
a node made by `scale = (ms + 1e-5) ** -0.5` is named from it:

* the expression on that line whose operator is the node's op, written as the
  code writes it: the `+` node is `ms + 1e-5`;
* the name assigned, when that expression is the whole right-hand side of a
  plain assignment: the `**` node is `scale`;
* the adds of `sum(...)` (Python's sum adds one term at a time) are named by
  the call: `sum(exps)`; `.exp()`, `.log()`, `.relu()` ... by the call.

Only when exactly one expression of the line fits the node's op -- a line
with two products (`a*b + c*d`) names neither of them, and the studio falls
back to a formula of the operands' names. Long texts are shortened with `…`.
"""

from __future__ import annotations

import ast
import linecache
from collections.abc import Iterable, Mapping, Sequence

from core import ops, pyast

MAX_TEXT = 28  # characters of code shown in a node's name row
_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.Pow: "pow"}
_METHODS = set(ops.METHODS)  # x.tanh(): the op table's methods


def shorten(text: str, limit: int = MAX_TEXT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class CodeNames:
    """Names from source lines; `sources` {file: its lines} for files not on this disk
    (a script traced in another process), else the file is read (linecache)."""

    def __init__(self, sources: Mapping[str, Sequence[str]] | None = None) -> None:
        self.sources = {k: list(v) for k, v in (sources or {}).items()}
        self._trees: dict[str, ast.Module | None] = {}
        self._statements: dict[str, dict[int, ast.stmt]] = {}  # file -> {line: innermost simple statement}
        self._lines: dict[tuple[str, int], dict[str, list[str]]] = {}

    def prepare(self, filenames: Iterable[str]) -> None:
        """Parse these files and index their statements now (a worker thread's job):
        afterwards every `name` is a dict lookup, never a walk of the tree on the GUI thread."""
        for filename in filenames:
            self._statement_index(filename)

    def lines(self, filename: str) -> list[str]:
        if filename in self.sources:
            return self.sources[filename]
        return linecache.getlines(filename)

    def name(self, filename: str, line: int, op: str) -> str | None:
        """What the code on that line calls a node of op `op` made there (None: it cannot tell)."""
        found = self._lines.get((filename, line))
        if found is None:
            found = self._lines[(filename, line)] = self._read(filename, line)
        texts = found.get(op)
        return texts[0] if texts and len(texts) == 1 else None

    def _tree(self, filename: str) -> ast.Module | None:
        if filename not in self._trees:
            try:
                self._trees[filename] = pyast.parse("".join(self.lines(filename)))
            except (SyntaxError, ValueError):
                self._trees[filename] = None
        return self._trees[filename]

    def _statement_index(self, filename: str) -> dict[int, ast.stmt]:
        """{line: the innermost simple statement spanning it} for the file, made once
        (one walk of its tree; it was a walk per line asked, 25-31 ms on the GUI thread)."""
        index = self._statements.get(filename)
        if index is None:
            tree = self._tree(filename)
            index = self._statements[filename] = _statements_by_line(tree) if tree is not None else {}
        return index

    def _read(self, filename: str, line: int) -> dict[str, list[str]]:
        stmt = self._statement_index(filename).get(line)
        if stmt is None:
            return {}
        source = "".join(self.lines(filename))
        named = _assigned(stmt)
        found: dict[str, list[str]] = {}
        for node in _expressions(stmt):
            op = _op_of(node)
            if op is None:
                continue
            if node is named[0]:
                text = named[1]
            else:
                text = shorten(ast.get_source_segment(source, node) or "")
            if text:
                found.setdefault(op, []).append(text)
        return found


def _statements_by_line(tree: ast.Module) -> dict[int, ast.stmt]:
    """{line: the innermost simple statement spanning it}: where statements nest
    (`a = f(\n b)` inside a block), the one that starts last wins, as before."""
    index: dict[int, ast.stmt] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not hasattr(node, "body"):
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                best = index.get(line)
                if best is None or node.lineno >= best.lineno:
                    index[line] = node
    return index


def _assigned(stmt: ast.stmt) -> tuple[ast.AST | None, str]:
    """(the value expression, the name it is assigned to) of `name = expr`."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.value, stmt.targets[0].id
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        return stmt.value, stmt.target.id
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        return stmt, stmt.target.id
    return None, ""


def _expressions(stmt: ast.stmt):
    return ast.walk(stmt)


def _op_of(node: ast.AST) -> str | None:
    if isinstance(node, ast.AugAssign):
        return _BINOPS.get(type(node.op))
    if isinstance(node, ast.BinOp):
        op = _BINOPS.get(type(node.op))
        if op == "pow" and isinstance(node.left, ast.Constant):
            return "rpow"
        return op
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return None if isinstance(node.operand, ast.Constant) else "neg"
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _METHODS:
            return func.attr
        if isinstance(func, ast.Name) and func.id == "sum":
            return "add"
    return None
