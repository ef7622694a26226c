"""Whatever a user types, the parser answers with a document or an ExprError that says where."""

import ast
import pathlib
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from core.document.expr import ExprError, parse

ROOT = pathlib.Path(__file__).resolve().parents[3]

TOKENS = [
    "x",
    "y",
    "Value",
    "(",
    ")",
    "2.0",
    "-",
    "+",
    "*",
    "/",
    "**",
    "=",
    "\n",
    ",",
    "label",
    "'a'",
    ".tanh()",
    ".relu",
    "relu",
    "exp(",
    "1e400",
    "9",
    "__import__",
    "lambda",
    ":",
    "[",
    "]",
    "{",
    "}",
    "#",
    " ",
    ".",
    "f'",
    "\"",
    "\\",
    ":=",
    "import",
    "os",
    "+=",
    "0",
    "(((((",
    ")))))",
]


def check(text):
    try:
        parse(text)
    except ExprError as error:
        assert isinstance(error.line, int) and error.line >= 1
        assert isinstance(error.col, int) and error.col >= 1
        assert str(error).startswith(f"line {error.line}, col {error.col}")


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=200))
def test_random_text(text):
    check(text)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=60))
def test_random_token_soup(tokens):
    check("".join(tokens))


def test_random_bytes_decoded_any_way():
    rng = random.Random(7)
    for _ in range(300):
        raw = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 120)))
        check(raw.decode("latin-1"))
        check(raw.decode("utf-8", errors="replace"))


def test_no_eval_exec_pickle_or_marshal_anywhere_in_the_product():
    """The user's text and files never run as code: no eval/exec/compile() calls,
    no pickle or marshal in core/, app/ or main.py."""
    offenders = []
    paths = sorted((ROOT / "core").rglob("*.py")) + sorted((ROOT / "app").rglob("*.py")) + [ROOT / "main.py"]
    for path in paths:
        if not path.exists():
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("eval", "exec", "compile", "__import__")
            ):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.func.id}()")
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + ([node.module] if getattr(node, "module", None) else [])
                for name in names:
                    if name.split(".")[0] in ("pickle", "marshal", "shelve", "dill"):
                        offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} import {name}")
    assert offenders == []
