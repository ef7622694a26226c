"""Python's own parser, safe to call from any thread.

The studio reads Python text in many places -- a typed expression, a test
program of the engine check, a lecture cell, the source line a scope names --
and some of them run on worker threads (a class is graded two submissions at a
time; the window parses while a script is traced). CPython 3.11 keeps the
counter its AST converter uses to check its own recursion in one place per
interpreter, not per thread: when a thread gives up the interpreter in the
middle of `ast.parse` (a finalizer that runs Python code is enough) and another
thread parses meanwhile, the first one ends with

    SystemError: AST constructor recursion depth mismatch (before=39, after=35)

(python/cpython#106905). A class's grading once lost a submission to it: "the
check itself failed". So every parse in the studio goes through `parse` below,
which lets one thread at a time into the converter; ruff's banned-api rule
(pyproject.toml) names `ast.parse` outside this file.
"""

import ast
import threading

_ONE_AT_A_TIME = threading.Lock()


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse(source, filename)`, one thread at a time (see above). Raises
    what `ast.parse` raises: SyntaxError, ValueError, RecursionError, MemoryError."""
    with _ONE_AT_A_TIME:
        return ast.parse(source, filename)  # noqa: TID251 -- the one place it is called
