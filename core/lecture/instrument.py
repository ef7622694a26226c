"""What the lecture-code runner adds to a pasted cell before running it.

A cell from the lecture is Python, run as Python (in a child process, see
core/lecture/child.py). Two things are added, and nothing else is changed:

1. **Names.** After every assignment at the cell's top level (also inside its
   `for`, `while`, `if`, `with` and `try` blocks, but not inside a function or a
   class, whose variables are theirs alone), a call records which Value each
   name now holds, on the same line, so that line numbers stay the learner's:

       c = a + b          ->      c = a + b; __studio_bind__('c', c)

   so the canvas can call that node `c`, as the learner does. A Value keeps the
   first name it is given (`b = a` leaves `a` named `a`), and a `.label` set by
   the code wins over any name. A loop variable (`for p in n.parameters()`) names
   nothing: `p` would otherwise name the first weight.

2. **What the cell shows.** In a notebook, a cell's last line, when it is an
   expression (`L`, `n(x)`), is what the notebook displays. The runner shows the
   same thing: that value's graph, named by the line's text when nothing else
   names it.

       n(x)               ->      __studio_show__(n(x), 'n(x)')

A notebook command (`%matplotlib inline`, `!pip install micrograd`) is not
Python: such a line is left out, with a note, when the cell cannot be read
otherwise (a blank line takes its place). Line numbers never change, so a
message about line 7 means the learner's line 7.

3. **Which turn of a loop is the last** (`loops=True`, the cell whose graph is
   wanted). The iterable of a `for` loop that is in no other loop is wrapped:

       for k in range(100):   ->      for k in __studio_loop__(range(100)):

   The wrapper yields the same items and tells the runner when the last turn
   begins: the graph a training loop leaves is the last turn's, and only that
   turn's nodes need their scopes recorded (core/lecture/child.py).
"""

from __future__ import annotations

import ast
import re
import warnings

from core import pyast

BIND = "__studio_bind__"
SHOW = "__studio_show__"
LOOP = "__studio_loop__"

_MAGIC = re.compile(r"^[ \t]*[%!]")


class CellSyntaxError(ValueError):
    """The cell is not Python: message, line and column (1-based) of the fault."""

    def __init__(self, message: str, line: int = 1, col: int = 1) -> None:
        self.message, self.line, self.col = message, line, col
        super().__init__(f"line {line}, col {col}: {message}")


def instrument(text: str, show: bool = True, loops: bool = False) -> tuple[str, ast.Module, list[str]]:
    """(the cell with the calls of the module docstring added, its syntax tree, notes).

    The calls go on the lines they belong to (`c = a + b; __studio_bind__('c', c)`),
    so every line keeps its number. `show=False`: the last line is not shown (an
    earlier cell, run again before the one whose graph is wanted)."""
    tree, lines, notes = _parse(text)
    inserts: list[tuple[int, int, str]] = []  # (line, column in characters, text), 1-based lines
    for s in _assignments(tree.body):
        for name in _names(_targets(s)):
            inserts.append(
                (s.end_lineno, _column(lines, s.end_lineno, s.end_col_offset), f"; {BIND}({name!r}, {name})")
            )
    if show and tree.body and isinstance(tree.body[-1], ast.Expr):
        e = tree.body[-1].value
        said = ast.get_source_segment("".join(lines), e) or ""
        said = said if len(said) <= 24 and "\n" not in said else ""  # what names the node if nothing else does
        inserts.append((e.lineno, _column(lines, e.lineno, e.col_offset), f"{SHOW}("))
        inserts.append((e.end_lineno, _column(lines, e.end_lineno, e.end_col_offset), f", {said!r})"))
    if loops:
        for s in _outer_loops(tree.body):
            it = s.iter
            inserts.append((it.lineno, _column(lines, it.lineno, it.col_offset), f"{LOOP}("))
            inserts.append((it.end_lineno, _column(lines, it.end_lineno, it.end_col_offset), ")"))
    # right to left, so earlier columns stay where they were; at one spot, the last made first
    ordered = sorted(enumerate(inserts), key=lambda k: (k[1][0], k[1][1], k[0]), reverse=True)
    for _, (line, col, piece) in ordered:
        lines[line - 1] = lines[line - 1][:col] + piece + lines[line - 1][col:]
    return "".join(lines), tree, notes


def _parse(text):
    """(tree, the lines with their ends, notes); notebook commands blanked when needed."""
    lines = text.splitlines(keepends=True)
    try:
        return _ast(text), lines, []
    except SyntaxError as error:
        first = error
    magic = [i for i, line in enumerate(lines) if _MAGIC.match(line)]
    if magic:
        kept = ["\n" if i in magic else line for i, line in enumerate(lines)]
        try:
            tree = _ast("".join(kept))
        except SyntaxError:
            pass
        else:
            skipped = ", ".join(f"line {i + 1} ({lines[i].strip()!r})" for i in magic[:3])
            more = f" and {len(magic) - 3} more" if len(magic) > 3 else ""
            return tree, kept, [f"Skipped notebook commands, which are not Python: {skipped}{more}."]
    raise CellSyntaxError(f"syntax error: {first.msg}", first.lineno or 1, first.offset or 1)


def _ast(text):
    with warnings.catch_warnings():  # an invalid escape in a string: theirs to keep
        warnings.simplefilter("ignore")
        return pyast.parse(text, "<your code>")


def _column(lines, line, byte_offset):
    """ast counts columns in UTF-8 bytes; the text is indexed in characters."""
    return len(lines[line - 1].encode("utf-8")[:byte_offset].decode("utf-8", "replace"))


def _top_level(statements):
    """The cell's statements, also those inside its blocks, not those of its functions or classes."""
    for s in statements:
        yield s
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from _top_level(getattr(s, field, []))
        for handler in getattr(s, "handlers", []):
            yield from _top_level(handler.body)


def _outer_loops(statements):
    """The `for` loops of the cell that are inside no other loop, function or class."""
    for s in statements:
        if isinstance(s, ast.For):
            yield s
        elif isinstance(s, (ast.If, ast.With, ast.Try)):
            for field in ("body", "orelse", "finalbody"):
                yield from _outer_loops(getattr(s, field, []))
            for handler in getattr(s, "handlers", []):
                yield from _outer_loops(handler.body)


def _assignments(statements):
    for s in _top_level(statements):
        if isinstance(s, (ast.Assign, ast.AugAssign)) or (isinstance(s, ast.AnnAssign) and s.value is not None):
            yield s


def _targets(s):
    return s.targets if isinstance(s, ast.Assign) else [s.target]


def _names(targets):
    """The plain names assigned by `targets` (a, b = ... gives both), in order."""
    found = []
    todo = list(targets)
    while todo:
        t = todo.pop(0)
        if isinstance(t, ast.Name):
            found.append(t.id)
        elif isinstance(t, (ast.Tuple, ast.List)):
            todo[:0] = t.elts
        elif isinstance(t, ast.Starred):
            todo.insert(0, t.value)
    return list(dict.fromkeys(found))


def assigned(tree: ast.Module) -> list[str]:
    """The names the cell assigns at its top level and in its blocks (not loop variables)."""
    return list(dict.fromkeys(name for s in _assignments(tree.body) for name in _names(_targets(s))))


def read(tree: ast.Module) -> list[str]:
    """The names the cell's top level reads (`o` in `o.backward()`, `draw_dot(o)`)."""
    found = []
    for s in _top_level(tree.body):
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("value", "targets", "target", "iter", "test", "items"):
            part = getattr(s, field, None)
            for item in part if isinstance(part, list) else [part] if part is not None else []:
                found += [n.id for n in ast.walk(item) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    return list(dict.fromkeys(found))


def loop_variables(tree: ast.Module) -> set[str]:
    """The names of the cell's top-level `for` loops (`for p in n.parameters()`)."""
    found: set[str] = set()
    for s in _top_level(tree.body):
        if isinstance(s, (ast.For, ast.AsyncFor)):
            found.update(_names([s.target]))
    return found


def defined(tree: ast.Module) -> set[str]:
    """Every name the cell gives a value to: assignments, imports, def, class, loop variables."""
    found = set(assigned(tree)) | loop_variables(tree)
    for s in ast.walk(tree):
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            found.update((alias.asname or alias.name).split(".")[0] for alias in s.names)
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(s.name)
    return found


def classes_and_functions(tree: ast.Module) -> list[str]:
    """The names of the classes and functions the cell defines at its top level."""
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return [s.name for s in _top_level(tree.body) if isinstance(s, kinds)]
