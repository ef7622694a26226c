"""The test expressions the studio builds with a learner's own Value class.

Each test is a few lines of Python, as a learner would write them:

    x = -1.5; y = 2.0; x * y            each op alone, at several points
    x = 0.5; 1 - x                      reflected ops: their __rsub__
    x = 2.0; s = -2.0; x.tanh() * s     scaled, so out.grad is not 1 at the op
    a = 3.0; a + a                      one value used twice
    x = 2.0; y = -3.0; h = x*y; h*z + h  an intermediate at two depths
    ...                                 a neuron, a 40-step chain, micrograd's tests

`program(text)` reads such text with Python's own parser (`ast`; nothing is
run) into a *program*: plain data the child builds with their class
(core/foreign/child/build.py). A leaf is a name given a number; a number
inside an expression stays a number, so `2 * x` calls their `__rmul__`.
`cases(offered, unknown, seed)` picks the tests their class can build, with
leaf values drawn afresh for each run (within 10 % of the written ones, signs
kept), so no engine can be tuned to fixed points. Points sit away from kinks:
relu and abs are never tested at 0.

Ops the studio does not know (their `sin`, `abs`, `softplus` ...) are tested
through `EACH_METHOD`: a template the child fills in with each unary method
it finds on their class.
"""

from __future__ import annotations

import ast
import random
from collections.abc import Collection
from typing import Any, NamedTuple

from core import ops, pyast


class Case(NamedTuple):
    """One test: its name in reports, its program (plain data), its text."""

    name: str
    program: dict[str, Any]
    text: str = ""

    @property
    def needs(self) -> tuple[str, ...]:
        return tuple(needs_of(self.program))


class ProgramError(ValueError):
    """The text is not one of the forms a test program may take."""


# Python's operators, as a program's "call" (the special method's name without underscores)
CALLS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.Pow: "pow"}
# a call -> the studio's op: 'truediv' -> 'div', from the op table's first special method of each op
STUDIO_OP = {op.dunders[0].strip("_"): op.name for op in ops.TABLE if op.dunders}


def program(text: str, name: str = "") -> dict[str, Any]:
    """The program of `text`: `name = number` lines make leaves, `name = expr` lines
    name a step, the last line is the output. Raises ProgramError."""
    try:
        tree = pyast.parse("\n".join(part.strip() for part in text.replace(";", "\n").splitlines()))
    except SyntaxError as e:
        raise ProgramError(f"{text!r}: {e.msg}") from None
    steps: list[dict[str, Any]] = []
    env: dict[str, str] = {}
    output = None
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            target = stmt.targets[0].id
            number = _number(stmt.value)
            if number is not None:
                steps.append({"id": target, "leaf": number})
                env[target] = target
            else:
                ref = _expr(stmt.value, steps, env)
                if isinstance(ref, dict):
                    raise ProgramError(f"{target} = a plain number expression: write the number")
                step = next(s for s in steps if s["id"] == ref)
                step.setdefault("name", target)
                env[target] = ref
        elif isinstance(stmt, ast.Expr) and stmt is tree.body[-1]:
            ref = _expr(stmt.value, steps, env)
            if isinstance(ref, dict):
                raise ProgramError("the last line must use a Value")
            output = ref
        else:
            raise ProgramError(f"line {stmt.lineno}: only `name = ...` lines and a last expression")
    if output is None:
        raise ProgramError("no expression at the end")
    return {"name": name or text, "steps": steps, "output": output}


def _number(node: ast.AST) -> float | int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    return None


def _expr(node: ast.AST, steps: list[dict[str, Any]], env: dict[str, str]) -> str | dict[str, Any]:
    """A step id for a Value-valued expression, or {"n": number} for a number."""
    number = _number(node)
    if number is not None:
        return {"n": number}
    if isinstance(node, ast.Name):
        if node.id not in env:
            raise ProgramError(f"{node.id} is used before it is given a value")
        return env[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in CALLS:
        args = [_expr(node.left, steps, env), _expr(node.right, steps, env)]
        return _step(steps, {"call": CALLS[type(node.op)], "args": args})
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _step(steps, {"call": "neg", "args": [_expr(node.operand, steps, env)]})
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        if isinstance(node.func, ast.Attribute):
            return _step(steps, {"method": node.func.attr, "args": [_expr(node.func.value, steps, env)]})
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "abs" and len(node.args) == 1:
        return _step(steps, {"call": "abs", "args": [_expr(node.args[0], steps, env)]})
    raise ProgramError(f"{ast.unparse(node)}: not an operation the tests use")


def _step(steps: list[dict[str, Any]], step: dict[str, Any]) -> str:
    step = {"id": f"t{len(steps) + 1}", **step}
    steps.append(step)
    return step["id"]


# a method named as the op table spells the op otherwise -- a learner's x.ln() is the studio's log
SPELLED_METHODS = {
    spelling: op.name for op in ops.TABLE if op.method for spelling in op.spellings if spelling.isidentifier()
}


def studio_op(step: dict[str, Any]) -> tuple[str | None, float | None, list[int]]:
    """(the studio's op name, its param, which args are operands) of a program step:
    `x ** 2` is pow with k = 2 on operand 0; `1 - x` is sub on (1, x), both operands,
    the number a constant; `x.sin()` is None -- an op the studio does not know."""
    args = step.get("args", [])
    if "method" in step:
        name = step["method"]
        return (name if name in ops.METHODS else SPELLED_METHODS.get(name)), None, [0]
    call = step["call"]
    if call == "pow":
        if isinstance(args[1], dict):
            return "pow", float(args[1]["n"]), [0]
        if isinstance(args[0], dict):
            return "rpow", float(args[0]["n"]), [1]
        return None, None, [0, 1]
    if call == "abs":
        return None, None, [0]
    return STUDIO_OP[call], None, list(range(len(args)))


def needs_of(prog: dict[str, Any]) -> list[str]:
    """What a program asks of the class: '__rsub__' for `1 - x`, 'tanh', 'numbers' ...
    (the same reading as the child's, core/foreign/child/run.py)."""
    from core.foreign.child.run import needs_of as child_needs

    return child_needs(prog)


# -----------------------------------------------------------------------------
# The tests

BINARY_POINTS = ((-1.5, 2.0), (0.0, 3.0), (2.0, -0.5))
DEFAULT_POINTS = (-1.5, 0.0, 0.5, 2.0)  # a unary op's, unless its row says where (relu: away from 0)
SYMBOL = {"add": "+", "mul": "*", "sub": "-", "div": "/"}  # Python's binary operators, in the tests' order
# the unary ops without a number, each tested alone, scaled and reused: -x, x.relu(), x.tanh() ...
UNARY = tuple(op for op in ops.TABLE if op.arity == 1 and not op.param)


def unary_text(op: ops.Op, grouped: bool = False) -> str:
    """The op on x as a learner writes it: '-x', 'x.tanh()'; `grouped`: ready for `* s`: '(-x)'."""
    text = op.python.format(a="x")
    return f"({text})" if grouped and not op.method else text


def op_texts() -> list[tuple[str, str]]:
    """(name, text) of each op alone at several points, reflected, and scaled."""
    out: list[tuple[str, str]] = []
    for sym in SYMBOL.values():
        for x, y in BINARY_POINTS:
            out.append((f"x {sym} y at x={{x}}, y={{y}}", f"x = {x}; y = {y}; x {sym} y"))
    for k in (2, 3, -1, 0.5, -1.5):
        points = (0.5, 2.0) if k != int(k) else (-1.5, 0.5, 2.0)
        for x in points:
            out.append((f"x**{k} at x={{x}}", f"x = {x}; x**{k}"))
    for op in UNARY:
        for x in op.points or DEFAULT_POINTS:
            out.append((f"{op.name}(x) at x={{x}}", f"x = {x}; {unary_text(op)}"))
    for c, sym in ((2.5, "+"), (1.0, "-"), (3.0, "*"), (3.0, "/")):  # a number first: their __radd__ ...
        out.append((f"{c} {sym} x at x={{x}}", f"x = 0.5; {c} {sym} x"))
        out.append((f"{c} {sym} x at x={{x}}", f"x = -2.0; {c} {sym} x"))
    for c, sym in ((2.5, "+"), (1.0, "-"), (3.0, "*"), (4.0, "/")):  # a number second
        out.append((f"x {sym} {c} at x={{x}}", f"x = -1.5; x {sym} {c}"))
    out.append(("2**x at x={x}", "x = 0.5; 2**x"))
    for sym in SYMBOL.values():
        out.append((f"(x {sym} y)*s at x={{x}}, y={{y}}, s={{s}}", f"x = 2.0; y = -0.5; s = -2.0; (x {sym} y)*s"))
    out.append(("x**2*s at x={x}, s={s}", "x = 1.5; s = -2.0; x**2*s"))
    for op in UNARY:
        out.append((f"{op.name}(x)*s at x={{x}}, s={{s}}", f"x = 0.5; s = -2.0; {unary_text(op, True)}*s"))
    return out


def reuse_texts() -> list[tuple[str, str]]:
    """x used again after each op: `=` instead of `+=` shows only where a value has two
    uses (run after the classic expressions, which name the simplest case first)."""
    out: list[tuple[str, str]] = []
    for op in UNARY:  # x used again: `=` for `+=` shows here
        out.append((f"{op.name}(x)*x at x={{x}} (x used twice)", f"x = 0.7; {unary_text(op, True)}*x"))
    for sym in SYMBOL.values():  # an operand used again after the op
        out.append((f"(x {sym} y) + x at x={{x}}, y={{y}} (x used twice)", f"x = 1.3; y = -0.6; (x {sym} y) + x"))
    out.append(("x**3 + x at x={x} (x used twice)", "x = 1.2; x**3 + x"))
    out.append(("a diamond: h = x*y; h*h + h", "x = 0.8; y = -1.1; h = x*y; h*h + h"))
    return out


EXPRESSIONS = (
    ("x*x (one value, both operands)", "x = 3.0; x*x"),
    ("b = a + a (the lecture's bug)", "a = 3.0; a + a"),
    ("tutorial: f = x*y + y**2", "x = -2.0; y = 3.0; x*y + y**2"),
    ("tutorial: f = x*y + y**2 at x=0.5, y=-1.5", "x = 0.5; y = -1.5; x*y + y**2"),
    ("tutorial: f = x*y + y**2 at x=3, y=0", "x = 3.0; y = 0.0; x*y + y**2"),
    ("x**2 + x**3 at x=1.5 (one x, two powers)", "x = 1.5; x**2 + x**3"),
    ("x**2 + x**3 at x=-0.5", "x = -0.5; x**2 + x**3"),
    (
        "a neuron: tanh(x1*w1 + x2*w2 + b)",
        "x1 = 2.0; x2 = 0.0; w1 = -3.0; w2 = 1.0; b = 6.8813735870195432; (x1*w1 + x2*w2 + b).tanh()",
    ),
    ("reused intermediate: h = x*y; (h + z)*(h*z)", "x = 2.0; y = -3.0; z = 0.5; h = x*y; (h + z)*(h*z)"),
    ("h at two depths: h = x*y; h*z + h", "x = 2.0; y = -3.0; z = 0.5; h = x*y; h*z + h"),
    ("h at two depths: h = x*y; h + h*z", "x = 2.0; y = -3.0; z = 0.5; h = x*y; h + h*z"),
    ("deep chain: 40 x (v*c + d)", "x = 0.8; c = 0.9; d = 0.1; v = x" + "; v = v*c + d" * 40 + "; v"),
    ("deep chain: 20 x tanh(v*c + d)", "x = 0.8; c = 1.3; d = -0.2; v = x" + "; v = (v*c + d).tanh()" * 20 + "; v"),
    (
        "micrograd sanity check",
        "x = -4.0; z = 2 * x + 2 + x; q = z.relu() + z * x; h = (z * z).relu(); h + q + q * x",
    ),
    (
        "micrograd more ops",
        "a = -4.0; b = 2.0; c = a + b; d = a * b + b**3; c = c + c + 1; c = c + 1 + c + (-a); "
        "d = d + d * 2 + (b + a).relu(); d = d + 3 * d + (b - a).relu(); e = c - d; f = e**2; "
        "g = f / 2.0; g + 10.0 / f",
    ),
)

# Ops of theirs the studio does not know: each unary method the child finds (METHOD)
EACH_METHOD = (
    ("METHOD(x) at x={x}", "x = 0.6; x.METHOD()"),
    ("METHOD(x) at x={x}", "x = 1.7; x.METHOD()"),
    ("METHOD(x) at x={x}", "x = -1.3; x.METHOD()"),
    ("METHOD(x)*s at x={x}, s={s}", "x = 0.9; s = -2.0; x.METHOD()*s"),
    ("METHOD(x)*x at x={x} (x used twice)", "x = 0.8; x.METHOD()*x"),
)

TOPO_TEXTS = (  # where a wrong topological sort shows
    ("reused intermediate: h = x*y; (h + z)*(h*z)", "x = 2.0; y = -3.0; z = 0.5; h = x*y; (h + z)*(h*z)"),
    ("h at two depths: h = x*y; h*z + h", "x = 2.0; y = -3.0; z = 0.5; h = x*y; h*z + h"),
)

ZERO_GRAD_CASE = "zero_grad between two passes"
TOPO_CASE = "your topological sort"


def draw(prog: dict[str, Any], rng: random.Random | None) -> dict[str, Any]:
    """The program with each leaf moved within 10 % of its written value (sign kept;
    0 stays 0). `rng` None: the written values."""
    if rng is None:
        return prog
    steps = []
    for step in prog["steps"]:
        if "leaf" in step and step["leaf"]:
            value = float(step["leaf"]) * (1 + rng.uniform(-0.1, 0.1))
            step = {**step, "leaf": float(f"{value:.4g}")}
        steps.append(step)
    return {**prog, "steps": steps}


def case(name: str, text: str, rng: random.Random | None = None) -> Case:
    """A Case of `text` with points drawn by `rng`; `name`'s {x} fields show the points."""
    prog = draw(program(text, name), rng)
    leaves = {s["id"]: s["leaf"] for s in prog["steps"] if "leaf" in s}
    shown = name.format(**{k: repr(v) for k, v in leaves.items()}) if "{" in name else name
    prog["name"] = shown
    return Case(shown, prog, source(prog))


def source(prog: dict[str, Any]) -> str:
    """The program as text again (with its drawn points): `--expr` and the debugger take it."""
    lines, names = _written(prog)
    out = names[prog["output"]]
    lines.append(out[1:-1] if out.startswith("(") and out.endswith(")") else out)
    return "; ".join(lines)


def step_texts(prog: dict[str, Any]) -> dict[str, str]:
    """Each step's id -> how the program writes it: a leaf's or a named step's name, an
    unnamed step's expression over them ('x * y + 2'), as a learner reads it."""
    _, names = _written(prog)
    return {k: v[1:-1] if v.startswith("(") and v.endswith(")") else v for k, v in names.items()}


def _written(prog: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    """(the program's lines, each step's id -> its name or its parenthesised expression)."""
    names: dict[str, str] = {}
    lines = []

    def ref(a: Any) -> str:
        if isinstance(a, dict):
            return repr(a["n"]) if a["n"] >= 0 else f"({a['n']!r})"
        return names[a]

    for step in prog["steps"]:
        if "leaf" in step:
            names[step["id"]] = step["id"]
            lines.append(f"{step['id']} = {step['leaf']!r}")
            continue
        args = [ref(a) for a in step["args"]]
        if "method" in step:
            text = f"{_paren(args[0])}.{step['method']}()"
        elif step["call"] == "neg":
            text = f"-{_paren(args[0])}"
        elif step["call"] == "abs":
            text = f"abs({args[0]})"
        else:
            sym = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "pow": "**"}[step["call"]]
            text = f"{_paren(args[0])} {sym} {_paren(args[1])}"
        if step.get("name"):
            lines.append(f"{step['name']} = {text}")
            names[step["id"]] = step["name"]
        else:
            names[step["id"]] = f"({text})"
    return lines, names


def _paren(text: str) -> str:
    return text if text.replace("_", "").replace(".", "").isalnum() or text.startswith("(") else f"({text})"


def cases(seed: int | None = None) -> tuple[list[Case], list[Case]]:
    """(the battery's tests, the templates for ops the studio does not know), leaf
    values drawn from `seed` (None: the written values, for tests and examples)."""
    rng = None if seed is None else random.Random(seed)
    texts = op_texts() + list(EXPRESSIONS) + reuse_texts()
    tests = [case(n, t, rng) for n, t in texts]
    templates = [case(n, t, rng) for n, t in EACH_METHOD]
    return tests, templates


def request(tests: list[Case], templates: list[Case]) -> dict[str, Any]:
    """What the child harness is asked to run (core/foreign/child/run.py `run`): the tests, the
    templates for their other methods, the topological-sort tests, and the op table's methods
    (the child, which never imports the studio, learns from this which methods have tests)."""
    return {
        "cases": [{"name": c.name, "program": c.program} for c in tests],
        "each_method": [{"name": c.name, "program": c.program} for c in templates],
        "topo": [{"name": c.name, "program": c.program} for c in topo_cases()],
        "methods": list(ops.METHODS),
    }


def topo_cases() -> list[Case]:
    return [case(n, t) for n, t in TOPO_TEXTS]


def cases_for(
    offered: Collection[str], unknown: Collection[str] = ()
) -> tuple[list[Case], list[tuple[str, list[str]]]]:
    """(tests to run, [(test name, what its class lacks)]) for a class offering `offered`."""
    run: list[Case] = []
    skipped: list[tuple[str, list[str]]] = []
    have = set(offered) | set(unknown)
    for c in cases()[0]:
        missing = [n for n in c.needs if n not in have]
        if missing:
            skipped.append((c.name, missing))
        else:
            run.append(c)
    return run, skipped
