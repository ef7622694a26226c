"""Typed text -> GraphDocument: a formula, or micrograd code pasted from a tutorial.

Two kinds of text are read, and they are really one:

    x*y + y**2                      a formula: x and y become inputs

    x = Value(2.0, label='x')       a micrograd-style snippet
    y = Value(3.0)
    f = x*y + y**2

The text is never run. `eval`/`exec` would hand the user's text -- or a pasted
`__import__('os').system(...)` -- to the Python interpreter. Instead Python's
own parser (`ast.parse`) turns the text into a syntax tree, and this module
walks the tree with a *whitelist*: every kind of tree node it knows is turned
into graph nodes, and everything else is refused with an `ExprError` that says
what and where ("line 2, col 5: unknown function 'foo'").

What is understood
------------------
* numbers (`3`, `2.5`, `1e-3`); a number meeting a Value becomes a `const` node,
  one per occurrence, exactly as micrograd wraps the 2 in `x * 2`. Arithmetic on
  numbers alone is done right away, as Python would (`x * 2**3` has one const, 8).
* `+ - * /`, unary `-` (a `neg` node) and unary `+` (nothing), parentheses.
* `**` with a number exponent (`x**2`, `x**-1`, `x**0.5`) is `pow`; a number
  base (`2**x`) is `rpow`. `x ** y` with a Value exponent is refused.
* `Value(2.0)`, `Value(2.0, label='x')`, `Value(data=2.0, label='x')`.
* the methods `.relu() .tanh() .exp() .log() .sigmoid()` and the same five as
  functions, `tanh(x)`.
* statements, one per line (or `;`): `name = expr`, `name += expr` (also `-= *=
  /= **=`), `name.label = 'text'` (as in the lecture), a bare expression,
  `o.backward()` (o becomes the output), and `from micrograd.engine import Value`
  or the studio's `from backprop_studio import Value` (`from core.engine import Value`
  in a checkout), accepted and ignored. Any
  other import is refused. A script's docstring and its `if __name__ == "__main__":`
  block (what it does when run: print the numbers) are not the graph: skipped,
  so a script exported by the studio reads back.

Names and labels
----------------
* A name that is used before it is assigned is a *free* name: it becomes an
  `input` node labelled with the name, made once, at its first use. Its value
  comes from the `values` argument ({name: number}), else `DEFAULT_VALUE` (1.0).
* `name = <number>` makes an `input` node labelled `name`; `values[name]`, when
  given, overrides the number. So `x = 2` / `y = 3` / `x*y + y**2` works.
* An assignment labels the node its right-hand side creates with the variable
  name (`f = x*y + y**2` labels the add 'f'); `Value(..., label='q')` wins over
  the name, and `b = a` creates nothing and relabels nothing. Reassignment is
  fine: later uses see the newest node.
* A leaf with a label is an `input`, a leaf without one a `const` -- the same rule
  `compile.trace` uses -- so `Value(3.0, label='')` is a const.
* The last assignment or bare expression is the document's output.

Node ids are "n1", "n2", ... in the order the nodes are made, which is Python's
left-to-right evaluation order. Positions are all (0, 0); the app lays out.

Limits (each gives an ExprError, never a hang or a crash)
----------------------------------------------------------
MAX_TEXT characters; MAX_NESTING levels of brackets and MAX_TOKENS tokens in one
statement, both checked on the raw text *before* `ast.parse` (core/document/expr_text.py), whose C parser
would otherwise fail deep inside on 10 000 nested brackets; expressions at most
MAX_DEPTH deep; at most MAX_NODES nodes; |exponent| <= MAX_EXPONENT (so `9**9**9`
is refused rather than computed); every number finite (`1e400` is refused).
"""

from __future__ import annotations

import ast
import math
import warnings
from collections.abc import Mapping
from typing import Any, NoReturn

from core import pyast
from core.document.expr_text import (  # noqa: F401 (ExprError and the limits are read as expr's)
    LINE_BREAK,
    MAX_NESTING,
    MAX_TEXT,
    MAX_TOKENS,
    SURROGATE,
    ExprError,
    prescan,
)
from core.document.graph import GraphDocument, Node
from core.ops import BY_ENGINE, METHODS

MAX_DEPTH = 200
MAX_NODES = 20_000
MAX_EXPONENT = 1_000
DEFAULT_VALUE = 1.0

FUNCTIONS = METHODS  # relu tanh exp log sigmoid, from the op table
_METHOD_LIST = " ".join(f".{name}()" for name in METHODS)  # for the error messages
RESERVED = ("Value",) + FUNCTIONS

# Python's operator -> the document op whose engine `_op` it is
_BINARY = {
    ast.Add: BY_ENGINE["+"].name,
    ast.Sub: BY_ENGINE["-"].name,
    ast.Mult: BY_ENGINE["*"].name,
    ast.Div: BY_ENGINE["/"].name,
}
_SYMBOLS = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.Pow: "**",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.MatMult: "@",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
}

_EXPRESSIONS_REFUSED = {
    ast.Lambda: "lambda",
    ast.ListComp: "a list comprehension",
    ast.SetComp: "a set comprehension",
    ast.DictComp: "a dict comprehension",
    ast.GeneratorExp: "a generator expression",
    ast.JoinedStr: "an f-string",
    ast.NamedExpr: "':=' inside an expression",
    ast.Subscript: "indexing with [...]",
    ast.Slice: "a slice",
    ast.Compare: "a comparison",
    ast.BoolOp: "'and' / 'or'",
    ast.IfExp: "'... if ... else ...'",
    ast.List: "a list",
    ast.Tuple: "a tuple",
    ast.Dict: "a dict",
    ast.Set: "a set",
    ast.Starred: "'*' unpacking",
    ast.Await: "'await'",
    ast.Yield: "'yield'",
    ast.YieldFrom: "'yield from'",
}
_STATEMENTS_REFUSED = {
    ast.For: "a 'for' loop",
    ast.AsyncFor: "a 'for' loop",
    ast.While: "a 'while' loop",
    ast.If: "an 'if' statement",
    ast.With: "a 'with' block",
    ast.AsyncWith: "a 'with' block",
    ast.FunctionDef: "a function definition",
    ast.AsyncFunctionDef: "a function definition",
    ast.ClassDef: "a class definition",
    ast.Return: "'return'",
    ast.Delete: "'del'",
    ast.Pass: "'pass'",
    ast.Break: "'break'",
    ast.Continue: "'continue'",
    ast.Global: "'global'",
    ast.Nonlocal: "'nonlocal'",
    ast.Try: "a 'try' block",
    ast.Raise: "'raise'",
    ast.Assert: "'assert'",
    ast.AnnAssign: "an annotated assignment",
}


# -----------------------------------------------------------------------------
# The entry point


def parse(text: str, values: Mapping[str, float] | None = None) -> GraphDocument:
    """Read a formula or a micrograd-style snippet into a new GraphDocument."""
    return read(text, values)[0]


def read(text: str, values: Mapping[str, float] | None = None) -> tuple[GraphDocument, list[str]]:
    """(parse's document, notes): the notes say what the text does not, e.g. which of a
    formula's names were made inputs and with which values, for the screen to show."""
    if not isinstance(text, str):
        raise TypeError(f"parse needs text, got {type(text).__name__}")
    prescan(text)
    try:
        with warnings.catch_warnings():  # e.g. an invalid escape in a label: not our concern
            warnings.simplefilter("ignore")
            tree = pyast.parse(text)
    except SyntaxError as error:  # IndentationError is one too
        raise ExprError(error.msg, *_syntax_position(error)) from None
    except (MemoryError, RecursionError):  # the prescan should make this unreachable
        raise ExprError("the text is too deeply nested to read; split it into several lines") from None
    builder = _Builder(text, values)
    for node in ast.walk(tree):  # an escape like '\\ud800' in quotes makes one too
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and SURROGATE.search(node.value):
            builder.fail(
                node,
                "this text holds half of a UTF-16 surrogate pair (like \\ud800): "
                "not a character, and it cannot be saved",
            )
    return builder.program(tree), builder.notes()


def _syntax_position(error):
    line = error.lineno or 1
    col = error.offset if error.offset and error.offset > 0 else 1
    end = error.end_offset if error.end_lineno == line and error.end_offset and error.end_offset > col else None
    return line, col, end


# -----------------------------------------------------------------------------
# The tree walker
#
# An expression evaluates to either a node id (a str: the expression is a Value)
# or a plain int/float (the expression is a number, like `2**3`). A number turns
# into a const node only when it meets a Value.


class _Builder:
    def __init__(self, text, values):
        self.lines = LINE_BREAK.split(text)
        self.values = dict(values or {})
        self.nodes = []  # Node, in creation order: nodes[k] has id f"n{k+1}"
        self.wires = []  # (src, dst, port)
        self.names = {}  # variable -> node id, the newest binding
        self.fixed = set()  # node ids whose label is not the assigned variable's
        self.output = None
        self.free = {}  # a name used before any value was given to it -> (where first used, its input's id)
        self.given = {}  # a name -> the line where it was first assigned
        self.gives_values = None  # the first `x = 2` or `Value(...)`, if the text gives any value

    # -- statements --------------------------------------------------------------

    def program(self, tree):
        self.first = tree.body[0] if len(tree.body) > 1 else None  # a docstring, when code follows it
        for statement in tree.body:
            self.statement(statement)
        if self.free and self.gives_values is not None:
            self.fail_free()
        doc = GraphDocument()
        for node in self.nodes:
            if node.kind != "op":  # the leaf rule: labelled -> input, unlabelled -> const
                node.kind = "input" if node.label else "const"
            doc.add_node(node)
        for src, dst, port in self.wires:
            doc.connect(src, dst, port)
        if self.output is not None:
            doc.set_output(self.output)
        return doc

    def statement(self, s):
        if _is_script_only(s) or (s is self.first and _is_text(s)):
            return  # a script's docstring, and what it does when run (print the numbers): not the graph
        if isinstance(s, ast.Assign):
            if len(s.targets) > 1:
                self.fail(s.targets[1], "assign one name at a time ('a = b = ...' is not supported)", True)
            target = s.targets[0]
            if isinstance(target, ast.Attribute):
                self.set_label(target, s.value)
            else:
                self.check_target(target)
                first_new = len(self.nodes)
                self.assign(target.id, s.value, self.expr(s.value, 1), first_new)
        elif isinstance(s, ast.AugAssign):
            self.check_target(s.target)
            first_new = len(self.nodes)
            left = self.name(s.target.id, s.target)
            result = self.binary(s.op, left, s.target, self.expr(s.value, 1), s.value, s)
            self.assign(s.target.id, s, result, first_new)
        elif isinstance(s, ast.Expr) and _backward_of(s.value) in self.names:
            self.output = self.names[_backward_of(s.value)]  # `o.backward()`: o is where backward starts
        elif isinstance(s, ast.Expr):
            result = self.expr(s.value, 1)
            self.output = self.as_node(result, s.value)
        elif isinstance(s, ast.ImportFrom) and _is_micrograd_import(s):
            pass  # tutorials start with it; Value is always known here
        elif isinstance(s, (ast.Import, ast.ImportFrom)):
            self.fail(
                s,
                "imports are not allowed (only 'from micrograd.engine import Value' and the studio's "
                "'from backprop_studio import Value' or 'from core.engine import Value' are accepted, and ignored)",
                True,
            )
        else:
            what = _STATEMENTS_REFUSED.get(type(s), f"'{type(s).__name__}'")
            self.fail(s, f"{what} is not supported: write one assignment or expression per line", True)

    def check_target(self, target):
        if not isinstance(target, ast.Name):
            self.fail(target, "only a plain name can be assigned to (like 'f = ...')", True)
        if target.id in RESERVED:
            self.fail(target, f"'{target.id}' is a built-in name here; choose another variable name")

    def assign(self, name, where, result, first_new):
        """Bind `name` to the result of its right-hand side and label what it created."""
        self.given.setdefault(name, where.lineno)
        if not isinstance(result, str) and self.gives_values is None:
            self.gives_values = where.lineno
        if isinstance(result, str):
            nid = result
            node = self.nodes[int(nid[1:]) - 1]
            if int(nid[1:]) > first_new and nid not in self.fixed:
                node.label = name
        else:  # name = number: an input, unless `values` says otherwise
            nid = self.leaf(self.value_of(name, where, result), name, where)
        self.names[name] = nid
        self.output = nid

    def set_label(self, target, value):
        """`e.label = 'e'`, as written in the micrograd lecture."""
        if target.attr != "label" or not isinstance(target.value, ast.Name):
            self.fail(target, "only a label can be set, like \"e.label = 'e'\"", True)
        if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
            self.fail(value, "a label must be text in quotes, like 'e'")
        if target.value.id not in self.names:
            self.fail(target.value, f"'{target.value.id}' is not defined yet")
        nid = self.names[target.value.id]
        self.nodes[int(nid[1:]) - 1].label = value.value
        self.fixed.add(nid)

    # -- expressions ---------------------------------------------------------------

    def expr(self, e, depth):
        """A node id, or a number, for expression `e` (see the section comment)."""
        if depth > MAX_DEPTH:
            self.fail(
                e,
                f"the expression is nested too deeply (more than {MAX_DEPTH} levels); "
                "split it into several assignments",
            )
        if isinstance(e, ast.Constant):
            return self.number(e)
        if isinstance(e, ast.Name):
            return self.name(e.id, e)
        if isinstance(e, ast.UnaryOp):
            operand = self.expr(e.operand, depth + 1)
            if isinstance(e.op, ast.UAdd):
                return operand
            if isinstance(e.op, ast.USub):
                if isinstance(operand, str):
                    return self.op("neg", [operand], [e.operand], e)
                return self.checked(-operand, e)
            word = "not" if isinstance(e.op, ast.Not) else "~"
            self.fail(e, f"'{word}' is not supported", True)
        if isinstance(e, ast.BinOp):
            # a chain such as x0*w0 + x1*w1 + ... is a BinOp per +, nested down its left
            # side: walked as a loop, so 1,000 terms are one level deep, not 1,000
            chain = [e]
            while isinstance(chain[-1].left, ast.BinOp):
                chain.append(chain[-1].left)
            left = self.expr(chain[-1].left, depth + 1)
            for b in reversed(chain):  # Python's order: the left operand first, then each right
                right = self.expr(b.right, depth + 1)
                left = self.binary(b.op, left, b.left, right, b.right, b)
            return left
        if isinstance(e, ast.Call):
            return self.call(e, depth)
        if isinstance(e, ast.Attribute):
            if e.attr in FUNCTIONS:
                self.fail_attribute(e, f"'.{e.attr}' is a method: call it, '.{e.attr}()'")
            self.fail_attribute(e, f"'.{e.attr}' is not supported (the methods are {_METHOD_LIST})", True)
        what = _EXPRESSIONS_REFUSED.get(type(e), f"'{type(e).__name__}'")
        self.fail(e, f"{what} is not supported", True)

    def number(self, e):
        value = e.value
        if isinstance(value, bool) or value is None or value is Ellipsis:
            self.fail(e, f"{value!r} is not a number")
        if isinstance(value, complex):
            self.fail(e, "complex numbers are not supported")
        if isinstance(value, (str, bytes)):
            self.fail(e, "text is only allowed as a label, like Value(2.0, label='x')")
        return self.checked(value, e)

    def name(self, name, where):
        if name in self.names:
            return self.names[name]
        if name == "Value":
            self.fail(where, "Value must be called, like Value(2.0)")
        if name in FUNCTIONS:
            self.fail(where, f"'{name}' is a function: call it, like {name}(x)")
        # a free name: an input, made at its first use (in a formula; see fail_free)
        nid = self.leaf(self.value_of(name, where, DEFAULT_VALUE), name, where)
        self.fixed.add(nid)
        self.names[name] = nid
        self.free[name] = (where, nid)
        return nid

    def fail_free(self):
        """A name used before it has a value, in text that gives values (`x = Value(2.0)`):
        a typo or a line out of order, never an input of value 1.0 made in silence."""
        name, (where, _nid) = next(iter(self.free.items()))
        if name in self.given:
            self.fail(
                where, f"'{name}' is used before it is given a value (on line {self.given[name]}): move that line up"
            )
        line = self.gives_values
        self.fail(
            where,
            f"'{name}' has no value: give it one first, like {name} = Value(1.0, label='{name}'), or check "
            f"its spelling (line {line} gives values, so a name without one is not made an input)",
        )

    def notes(self):
        """What the reader did that the text does not say: the formula's names made inputs."""
        if not self.free:
            return []
        parts = []
        for name, (_where, nid) in self.free.items():
            value = self.nodes[int(nid[1:]) - 1].value
            parts.append(f"{name} = {value!r}" + (" (from the Inputs table)" if name in self.values else ""))
        return [f"Inputs made from the formula's names: {', '.join(parts)}. Change them in the Inputs table."]

    def value_of(self, name, where, default):
        if name not in self.values:
            return default
        value = self.values[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            self.fail(where, f"the value given for '{name}' must be a finite number, got {value!r}")
        return value

    def binary(self, op, left, left_e, right, right_e, where):
        """`left op right` for + - * / ** on node ids and numbers."""
        if isinstance(op, ast.Pow):
            return self.power(left, left_e, right, right_e, where)
        if type(op) not in _BINARY:
            self.fail_operator(left_e, right_e, _SYMBOLS.get(type(op), "?"), where)
        if isinstance(left, str) or isinstance(right, str):
            return self.op(_BINARY[type(op)], [left, right], [left_e, right_e], where)
        if isinstance(op, ast.Div):
            if right == 0:
                self.fail(right_e, "division by zero")
            try:
                return self.checked(left / right, where)
            except OverflowError:
                self.fail(where, "the number is too large")
        if isinstance(op, ast.Add):
            return self.checked(left + right, where)
        if isinstance(op, ast.Sub):
            return self.checked(left - right, where)
        return self.checked(left * right, where)

    def power(self, base, base_e, k, k_e, where):
        """x**k is pow, c**x is rpow, c**k is a number; x**y (both Values) is refused."""
        if isinstance(k, str):
            if isinstance(base, str):
                self.fail(k_e, "the exponent of ** must be a number, not a Value (x**2 and 2**x work; x**y does not)")
            return self.op("rpow", [k], [k_e], where, param=float(base))
        if isinstance(base, str):
            return self.op("pow", [base], [base_e], where, param=self.exponent(k, k_e))
        self.exponent(k, k_e)
        if base == 0 and k < 0:
            self.fail(where, "0 cannot be raised to a negative power")
        if base < 0 and not float(k).is_integer():
            self.fail(where, "a negative number to a fractional power is not a real number")
        # log2 of the result, known before computing it, so 10.0**-1000 or a
        # 300-digit int never gets built
        if base != 0 and k * math.log2(abs(base)) > 1024:
            self.fail(where, "the number is too large (it must be a finite float)")
        try:
            return self.checked(base**k, where)
        except OverflowError:
            self.fail(where, "the number is too large (it must be a finite float)")

    def exponent(self, k, where):
        if abs(k) > MAX_EXPONENT:
            self.fail(where, f"the exponent {k} is too large (the limit is ±{MAX_EXPONENT})")
        return k

    def call(self, e, depth):
        for arg in e.args:
            if isinstance(arg, ast.Starred):
                self.fail(arg, "'*' arguments are not supported", True)
        for keyword in e.keywords:
            if keyword.arg is None:
                self.fail(keyword, "'**' arguments are not supported", True)
        func = e.func
        if isinstance(func, ast.Name) and func.id == "Value":
            return self.value_call(e, depth)
        if isinstance(func, ast.Name) and func.id in FUNCTIONS:
            if len(e.args) != 1 or e.keywords:
                self.fail(e, f"{func.id}() takes exactly one argument, like {func.id}(x)")
            arg = self.expr(e.args[0], depth + 1)
            return self.op(func.id, [arg], [e.args[0]], e)
        if isinstance(func, ast.Name):
            self.fail(func, f"unknown function '{func.id}' (known: Value, {', '.join(FUNCTIONS)})", True)
        if isinstance(func, ast.Attribute):
            receiver = self.expr(func.value, depth + 1)
            if func.attr == "backward":
                self.fail_attribute(
                    func,
                    "'.backward()' is not needed here: the studio runs the backward pass itself (remove this line)",
                )
            if func.attr not in FUNCTIONS:
                self.fail_attribute(
                    func,
                    f"unknown method '.{func.attr}()' (the methods are {_METHOD_LIST})",
                    True,
                )
            if e.args or e.keywords:
                self.fail(e, f".{func.attr}() takes no arguments")
            return self.op(func.attr, [receiver], [func.value], e)
        self.fail(func, "only Value(...), the five functions and the five methods can be called", True)

    def value_call(self, e, depth):
        """Value(2.0), Value(2.0, label='x'), Value(data=2.0, label='x')."""
        if len(e.args) > 1:
            self.fail(e.args[1], "Value takes one number; give the label as label='...'")
        data_e = e.args[0] if e.args else None
        label = None
        for keyword in e.keywords:
            if keyword.arg == "data":
                if data_e is not None:
                    self.fail(keyword, "the number is given twice")
                data_e = keyword.value
            elif keyword.arg == "label":
                if label is not None:
                    self.fail(keyword, "label= is given twice")
                if not (isinstance(keyword.value, ast.Constant) and isinstance(keyword.value.value, str)):
                    self.fail(keyword.value, "a label must be text in quotes, like label='x'")
                label = keyword.value.value
            else:
                self.fail(keyword, f"Value takes data= and label=, not {keyword.arg}=")
        if data_e is None:
            self.fail(e, "Value needs a number, like Value(2.0)")
        data = self.expr(data_e, depth + 1)
        if isinstance(data, str):
            self.fail(data_e, "Value(...) needs a number, not a Value")
        nid = self.leaf(data, label or "", e)
        if label is not None:
            self.fixed.add(nid)
        if self.gives_values is None:
            self.gives_values = e.lineno
        return nid

    # -- making nodes ----------------------------------------------------------------

    def new_node(self, kind, where, **fields):
        if len(self.nodes) >= MAX_NODES:
            self.fail(where, f"too many nodes (at most {MAX_NODES:,})")
        node = Node(f"n{len(self.nodes) + 1}", kind, **fields)
        self.nodes.append(node)
        return node.id

    def leaf(self, value, label, where):
        # kind is settled in program(), once the label is final
        return self.new_node("const", where, value=float(value), label=label)

    def as_node(self, result, where):
        """A node id for an operand: a number becomes a const node, here and now."""
        return result if isinstance(result, str) else self.leaf(result, "", where)

    def op(self, name, operands, wheres, where, param=None):
        ids = [self.as_node(operand, w) for operand, w in zip(operands, wheres)]
        nid = self.new_node("op", where, op=name, param=param)
        for port, src in enumerate(ids):
            self.wires.append((src, nid, port))
        return nid

    def checked(self, number, where):
        """A number folded from the text, refused unless it is a finite float."""
        try:
            finite = math.isfinite(float(number))
        except OverflowError:
            finite = False
        if not finite:
            self.fail(where, "the number is too large (it must be a finite float)")
        return number

    # -- errors ----------------------------------------------------------------------

    def col(self, line, byte_offset):
        """ast counts columns in UTF-8 bytes; editors count characters."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return len(text.encode("utf-8")[:byte_offset].decode("utf-8", "replace")) + 1

    def fail(self, node: Any, message: str, python: bool = False) -> NoReturn:
        line = node.lineno
        col = self.col(line, node.col_offset)
        end = self.col(line, node.end_col_offset) if node.end_lineno == line else None
        raise ExprError(message, line, col, end, python)

    def fail_attribute(self, node: Any, message: str, python: bool = False) -> NoReturn:
        """Point at the attribute's name, not at the expression before the dot."""
        line = node.end_lineno
        end = self.col(line, node.end_col_offset)
        raise ExprError(message, line, end - len(node.attr), end, python)

    def fail_operator(self, left: Any, right: Any, symbol: str, where: Any) -> NoReturn:
        """Point at the operator itself, found in the text between its operands."""
        if left.end_lineno == right.lineno:
            line = left.end_lineno
            start, stop = self.col(line, left.end_col_offset), self.col(line, right.col_offset)
            found = self.lines[line - 1].find(symbol, start - 1, stop - 1)
            if found >= 0:
                raise ExprError(
                    f"operator '{symbol}' is not supported (use + - * / **)", line, found + 1, found + 1 + len(symbol)
                )
        self.fail(where, f"operator '{symbol}' is not supported (use + - * / **)")


def _backward_of(e):
    """'o' for the call `o.backward()`, else None."""
    if isinstance(e, ast.Call) and not e.args and not e.keywords and isinstance(e.func, ast.Attribute):
        if e.func.attr == "backward" and isinstance(e.func.value, ast.Name):
            return e.func.value.id
    return None


def _is_text(s):
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str)


def _is_script_only(s):
    """`if __name__ == "__main__":` -- what a file does when run as a script."""
    test = s.test if isinstance(s, ast.If) else None
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
        and not s.orelse
    )


def _is_micrograd_import(s):
    """`from micrograd.engine import Value`, or the studio's own: `from backprop_studio import Value`
    (what Export as Python writes) or, in a checkout, `from core.engine import Value`."""
    return (
        s.module in ("micrograd.engine", "core.engine", "backprop_studio")
        and s.level == 0
        and len(s.names) == 1
        and s.names[0].name == "Value"
        and s.names[0].asname is None
    )
