"""Where in a function's source its loops and numbered sections are, line by line.

A call of `gpt` makes thousands of nodes, and the lines of its body group
them further: the body of `for h in range(n_head):` runs once per attention
head, and Karpathy's comments `# 1) Multi-head Attention block` and
`# 2) MLP block` name the two halves of a transformer layer. The recorder
(record.py) asks, for the line a node was made on, which of these *regions*
of the function hold that line, outermost first:

* a **loop**: the body of a `for NAME in ...:` (or `for NAME, ... in
  enumerate(...)`), named by its variable; the recorder reads the variable's
  value when a node is made, so each turn of the loop is a scope ("h = 2");
* a **section**: from a numbered comment (`# 1) ...`, `# 2. ...`) to the next
  numbered comment of the same block, or the block's end, named by the
  comment ("1) Multi-head Attention block").

The header line of a loop is not in its region (its iterable is computed once,
before the first turn). Nested functions and classes are their own code, with
their own regions. Source that cannot be read (typed into a console, a file
gone) simply has no regions.
"""

from __future__ import annotations

import ast
import linecache
import re
from types import CodeType
from typing import NamedTuple

from core import pyast

SECTION = re.compile(r"^\s*#\s*(\d+\s*[.)]\s*\S.*?)\s*$")


class Region(NamedTuple):
    id: int  # its number within its function
    kind: str  # 'loop' or 'section'
    start: int  # first line of the region
    end: int  # last line
    var: str  # a loop's variable ('' for a section)
    text: str  # the loop's header line or the section's comment, stripped


def source_line(filename: str, lineno: int) -> str:
    """Line `lineno` of the file, stripped ('' if it cannot be read)."""
    return linecache.getline(filename, lineno).strip()


# -----------------------------------------------------------------------------
# Regions of one code object


_trees: dict[str, ast.Module | None] = {}


def _tree(filename: str) -> ast.Module | None:
    if filename not in _trees:
        lines = linecache.getlines(filename)
        try:
            _trees[filename] = pyast.parse("".join(lines)) if lines else None
        except (SyntaxError, ValueError):
            _trees[filename] = None
    return _trees[filename]


def forget_sources() -> None:
    """Drop the parsed files (a script traced again may have changed)."""
    _trees.clear()


def _defining_node(tree: ast.Module, code: CodeType) -> ast.AST | None:
    if code.co_name == "<module>":
        return tree
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            if first == code.co_firstlineno and (isinstance(node, ast.Lambda) or node.name == code.co_name):
                return node
    return None


def _bodies(node: ast.AST) -> list[list[ast.stmt]]:
    """Every statement list inside node's own code (nested defs and classes excluded)."""
    found: list[list[ast.stmt]] = []

    def visit(stmts: list[ast.stmt]) -> None:
        if not stmts:
            return
        found.append(stmts)
        for stmt in stmts:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    visit(inner)
            for handler in getattr(stmt, "handlers", []):
                visit(handler.body)
            for case in getattr(stmt, "cases", []):
                visit(case.body)

    body = getattr(node, "body", None)
    if isinstance(body, list):
        visit(body)
    return found


def _loop_var(target: ast.expr) -> str:
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name):
        return target.elts[0].id  # for i, x in enumerate(...)
    return ""


def code_regions(code: CodeType) -> list[Region]:
    """The loops and numbered sections of code's own body (see the module docstring)."""
    filename = code.co_filename
    tree = _tree(filename)
    node = _defining_node(tree, code) if tree is not None else None
    if node is None or isinstance(node, ast.Lambda):
        return []
    lines = linecache.getlines(filename)
    regions: list[Region] = []
    bodies = _bodies(node)
    for stmts in bodies:
        for stmt in stmts:
            if isinstance(stmt, (ast.For, ast.AsyncFor)) and stmt.body:
                var = _loop_var(stmt.target)
                if var:
                    end = stmt.body[-1].end_lineno or stmt.body[-1].lineno
                    header = lines[stmt.lineno - 1].strip() if stmt.lineno <= len(lines) else ""
                    regions.append(Region(0, "loop", stmt.body[0].lineno, end, var, header))
        regions.extend(_sections(stmts, lines))
    regions.sort(key=lambda r: (r.start, -r.end))
    return [r._replace(id=i) for i, r in enumerate(regions)]


def _sections(stmts: list[ast.stmt], lines: list[str]) -> list[Region]:
    """The numbered comments heading parts of one statement list, each up to the next."""
    col = stmts[0].col_offset
    first = stmts[0].lineno
    last = stmts[-1].end_lineno or stmts[-1].lineno
    # comments just above the first statement head it too
    top = first
    while top - 1 >= 1 and lines[top - 2].strip().startswith("#"):
        top -= 1
    starts = []
    for lineno in range(top, last + 1):
        text = lines[lineno - 1] if lineno <= len(lines) else ""
        match = SECTION.match(text)
        if match and len(text) - len(text.lstrip()) == col and _between_statements(stmts, lineno):
            starts.append((lineno, match.group(1)))
    found = []
    for k, (lineno, title) in enumerate(starts):
        end = starts[k + 1][0] - 1 if k + 1 < len(starts) else last
        # it begins at its first statement: the comment line itself holds no code, and a
        # section heading a loop's body then nests inside the loop, as it does in the code
        begin = next((s.lineno for s in stmts if s.lineno > lineno), None)
        if begin is not None and begin <= end:
            found.append(Region(0, "section", begin, end, "", title))
    return found


def _between_statements(stmts: list[ast.stmt], lineno: int) -> bool:
    """True if no statement of the list spans line lineno (a comment of this block, not inside a statement)."""
    return not any(s.lineno <= lineno <= (s.end_lineno or s.lineno) for s in stmts)


def regions_by_line(regions: list[Region]) -> dict[int, tuple[Region, ...]]:
    """{line: the regions holding it, outermost first}."""
    by_line: dict[int, list[Region]] = {}
    for region in regions:
        for line in range(region.start, region.end + 1):
            by_line.setdefault(line, []).append(region)
    return {line: tuple(found) for line, found in by_line.items()}
