"""From a drawn graph to code: a micrograd snippet, or a standalone PyTorch script.

A graph on the canvas is a program in disguise. Visit its nodes in
topological order (every node after its inputs) and write one line per node,
and you get the code that builds the same Value graph by hand::

    x = Value(2.0, label='x')
    y = Value(3.0, label='y')
    f = x * y + y ** 2

`to_python(doc)` writes that snippet; `core.document.expr.parse` reads it back into the
same document (same nodes, same ids, same wires; positions are left to the
layout). `to_pytorch(doc)` writes the same computation with float64 torch
tensors, calls `backward()` and prints the output and every input's gradient,
so our engine can be checked against a reference implementation.

Reading it back exactly
-----------------------
The snippet follows the rules `expr.parse` reads by:

* a leaf is `name = Value(v, label='...')`; a leaf with a label is an input,
  one without a const (as in `compile.trace`). So an input without a label
  comes back as a const, and a labelled const as an input: there is no way to
  say otherwise in micrograd's own words.
* `name = <expression>` labels the op it creates with `name`. A node is named
  by its label when that is a usable Python name, else by its id; an op whose
  label is not its name gets a `name.label = '...'` line, the lecture's idiom.
* An op with no label and one use, and a constant >= 0 with one use, are
  written inline where they are used (`x * y + y ** 2` holds an unnamed mul
  and pow; the 2 of `2.0 * x` is a const node). Only when that keeps the order
  in which the parser makes nodes equal to the document's order, so ids match.
* Nodes come in topological order, ties in document order; parse numbers
  nodes n1, n2, ... as it makes them, so a document whose ids are n1..nk in
  that order comes back with the same ids. The output is the last line (a bare
  `name` when the output is used by later nodes).

Names that are what they say
----------------------------
Python reads identifiers after NFKC normalisation: the labels `ｘ` (fullwidth),
`𝐱` (bold) and `x` are one variable to it, as are `ﬁ` and `fi`, and `ｐｒｉｎｔ`
is `print`. A label becomes a variable only when it is already NFKC-normal, a
valid identifier, no keyword, no builtin (`print`, `repr`, `len`...), no dunder
and none of the names the code itself uses (`Value`, `torch`, `grad`, the
method names); any other label is kept as the node's label (`label='ｘ'`) and the
variable is named after the node's id. Two nodes never share a live variable,
so the exported code computes what the graph computes.

Python precedence decides the parentheses: `**` binds tighter than unary minus,
which binds tighter than `* /`, then `+ -`; `a - (b - c)` keeps its brackets
because subtraction groups to the left.
"""

from __future__ import annotations

import builtins
import keyword
import unicodedata
from typing import TYPE_CHECKING

from core.document.graph import GraphError
from core.document.names import node_names
from core.ops import BY_NAME, METHODS, TABLE

if TYPE_CHECKING:
    from core.document.graph import GraphDocument

# names the exported code uses itself, and every builtin: a label never shadows them
RESERVED = frozenset(("Value", "torch", "grad", "print", "repr", *METHODS, *dir(builtins)))
MAX_INLINE = 8  # nodes written in one statement at most, so lines stay readable

# precedence of what an expression is, low to high
SUM, PRODUCT, UNARY, POWER, ATOM = 1, 2, 3, 4, 5
# Python's binary operators (an op's engine `_op`) and how tightly they bind
_PRECEDENCE = {"+": SUM, "-": SUM, "*": PRODUCT, "/": PRODUCT}
_BINARY = {op.name: (op.engine, _PRECEDENCE[op.engine]) for op in BY_NAME.values() if op.arity == 2}


# -----------------------------------------------------------------------------
# The plan: which nodes get a line of their own, and their names


class _Plan:
    """The statements of a snippet: their order, what is inlined, the names."""

    def __init__(self, doc):
        missing = doc.missing_inputs()
        if missing:
            nid, ports = next(iter(missing.items()))
            raise GraphError(
                f"node {nid!r} has unwired input {ports[0]}; wire every input before turning the graph into code"
            )
        self.doc = doc
        self.order = doc.topological_ids()
        self.output = doc.effective_output()
        self.inputs = {nid: doc.inputs_of(nid) for nid in self.order}
        uses = {}
        for src, _dst, _port in doc.edges:
            uses[src] = uses.get(src, 0) + 1
        self.inline = self._choose_inline(uses)
        self.statements = [nid for nid in self.order if nid not in self.inline]
        self.names = self._choose_names()

    def _inlinable(self, nid, uses):
        node = self.doc.nodes[nid]
        if node.label or uses.get(nid, 0) != 1 or nid == self.output:
            return False
        if node.kind == "op":
            return True
        # a literal: only a const, never negative (-2.0 reads as neg(2.0))
        return node.kind == "const" and str(float(node.value))[0] != "-"

    def _choose_inline(self, uses):
        """The ids of nodes written inside their single consumer's line."""
        position = {nid: i for i, nid in enumerate(self.order)}
        inline = set()
        tree = {}  # nid -> the nodes its line makes, in the parser's order
        for nid in self.order:
            node = self.doc.nodes[nid]
            chosen = []
            for src in self.inputs[nid]:
                if src in chosen or not self._inlinable(src, uses):
                    continue
                literal = self.doc.nodes[src].kind == "const"
                if literal and (node.op not in _BINARY or any(self.doc.nodes[c].kind == "const" for c in chosen)):
                    continue  # 2.0 * 3.0 would be folded into one number by the parser
                chosen.append(src)
            # the parser makes an operand expression's nodes as it reads them, but
            # turns a literal into a const node only when it builds the op itself
            literals = [src for src in chosen if self.doc.nodes[src].kind == "const"]
            made = [m for src in chosen if src not in literals for m in tree[src]] + literals + [nid]
            start = position[nid] - len(made) + 1
            if len(made) > MAX_INLINE or self.order[max(start, 0) : position[nid] + 1] != made:
                chosen, made = [], [nid]  # inlining would renumber nodes: give them lines
            inline.update(chosen)
            tree[nid] = made
        return inline

    def _choose_names(self):
        """A variable per statement: its label where Python allows, else its id.

        Two nodes may share a label, as `c = a + b` then `c = c + 1` does in
        micrograd code: the name is then re-bound, which is safe only once no
        later line needs the node it held before. Inputs and the output keep
        their names to the end, where the PyTorch script prints them.
        """
        last_use = {}  # statement id -> index of the last line that names it
        for i, nid in enumerate(self.statements):
            for src in self._named_operands(nid):
                last_use[src] = i
        end = len(self.statements)  # the closing lines name the output and every input
        for nid in self.statements:
            if nid == self.output or self.doc.nodes[nid].kind == "input":
                last_use[nid] = end
        names, holder = {}, {}
        for i, nid in enumerate(self.statements):
            label = self.doc.nodes[nid].label
            if _usable(label) and (label == nid or label not in self.doc.nodes):
                if label not in holder or last_use.get(holder[label], -1) <= i:
                    names[nid] = label
                    holder[label] = nid
        taken = set(names.values())
        for k, nid in enumerate(self.statements, start=1):
            if nid in names:
                continue
            name = nid if _usable(nid) else f"v{k}"
            while name in taken or (name in self.doc.nodes and name != nid):
                name = "_" + name
            names[nid] = name
            taken.add(name)
        return names

    def _named_operands(self, nid):
        """The statements whose names the line of statement nid reads."""
        found, todo = [], list(self.inputs[nid])
        while todo:
            src = todo.pop()
            if src in self.inline:
                todo.extend(self.inputs[src])
            else:
                found.append(src)
        return found

    # -- writing expressions ---------------------------------------------------

    def expression(self, nid, target):
        """(text, precedence) of the expression that computes op nid."""
        node = self.doc.nodes[nid]
        args = [self.operand(src, target) for src in self.inputs[nid]]
        if node.op in _BINARY:
            symbol, level = _BINARY[node.op]
            left = _wrap(args[0], level)
            right = _wrap(args[1], level + 1)  # a - (b - c): the right side groups
            return f"{left} {symbol} {right}", level
        if node.op == "neg":
            return f"-{_wrap(args[0], UNARY)}", UNARY
        if node.op == "pow":
            return f"{_wrap(args[0], ATOM)} ** {_exponent(node.param)}", POWER
        if node.op == "rpow":
            base = repr(float(node.param))
            base = f"({base})" if base.startswith("-") else base
            return f"{base} ** {_wrap(args[0], UNARY)}", POWER
        if target == "torch" and node.op in ("relu", "sigmoid"):
            return f"torch.{node.op}({args[0][0]})", ATOM
        return f"{_wrap(args[0], ATOM)}.{node.op}()", ATOM

    def operand(self, src, target):
        if src not in self.inline:
            return self.names[src], ATOM
        node = self.doc.nodes[src]
        if node.kind == "const":
            return repr(float(node.value)), ATOM
        return self.expression(src, target)


def _usable(name):
    """True when `name` can be a variable that means exactly `name` (see the docstring)."""
    return (
        name.isidentifier()
        and unicodedata.normalize("NFKC", name) == name
        and not keyword.iskeyword(name)
        and not name.startswith("__")
        and name not in RESERVED
    )


def _wrap(arg, level):
    text, precedence = arg
    return text if precedence >= level else f"({text})"


def _exponent(k):
    """An exponent as compile uses it: 2.0 is written 2 (the op reads '**2')."""
    if float(k).is_integer() and abs(k) < 2**53:
        return str(int(k))
    return repr(float(k))


def _quote(text):
    return repr(text)


# -----------------------------------------------------------------------------
# micrograd


def to_python(doc: GraphDocument) -> str:
    """A micrograd-style snippet that rebuilds doc; `expr.parse` reads it back."""
    plan = _Plan(doc)
    lines = ["# made by Backprop Studio: micrograd-style code for this graph"]
    for nid in plan.statements:
        node, name = doc.nodes[nid], plan.names[nid]
        if node.kind != "op":
            lines.append(f"{name} = Value({float(node.value)!r}, label={_quote(node.label)})")
            continue
        lines.append(f"{name} = {plan.expression(nid, 'python')[0]}")
        if node.label != name:
            lines.append(f"{name}.label = {_quote(node.label)}")
    if plan.output is not None and plan.statements and plan.statements[-1] != plan.output:
        lines.append(f"{plan.names[plan.output]}  # the output")
    return "\n".join(lines) + "\n"


# -----------------------------------------------------------------------------
# A script that runs: python graph.py prints the canvas's numbers

ENGINES = {
    # the installed name (a checkout: `pip install -e .` makes it importable; core.engine is its inside)
    "studio": ("backprop_studio", "Backprop Studio's engine: pip install backprop-studio"),
    "micrograd": ("micrograd.engine", "micrograd's engine: pip install micrograd"),
}
# what micrograd's Value (0.1.0: + * ** relu, and - / neg made of them) cannot compute: the op table's
# rows without `micrograd`, those with a number last (rpow is written `c ** x`)
MICROGRAD_LACKS = tuple(op.name for op in sorted(TABLE, key=lambda op: bool(op.param)) if not op.micrograd)


def micrograd_lacks(doc: GraphDocument) -> list[str]:
    """The ops of doc that micrograd's Value does not have (rpow is written `c ** x`)."""
    used = {node.op for node in doc.nodes.values() if node.kind == "op"}
    return [op for op in MICROGRAD_LACKS if op in used]


def to_script(doc: GraphDocument, engine: str = "studio") -> str:
    """A Python script that builds doc with `engine` ('studio' or 'micrograd'), runs
    backward() from the output and prints the output and every input, data and grad
    (floats written with repr: they parse back exactly) -- what the canvas shows.

    The graph part is `to_python`'s snippet, so File > Import Snippet reads the
    script back (core/document/expr.py skips its docstring and its `__main__` block).
    micrograd has no tanh, exp, log, sigmoid or c**x: GraphError naming those doc uses."""
    module, where = ENGINES[engine]
    plan = _Plan(doc)
    if plan.output is None:
        raise GraphError("the graph has no single output: choose one before exporting")
    lacking = micrograd_lacks(doc) if engine == "micrograd" else []
    if lacking:
        raise GraphError(
            f"micrograd's Value has no {', '.join(lacking)}, which this graph uses: "
            "export it for the studio's engine (Export as Python…) or as PyTorch"
        )
    out = plan.names[plan.output]
    snippet = to_python(doc).splitlines()[1:]  # without its comment line
    if engine == "micrograd":  # micrograd's Value takes no label: the variable names the node
        snippet = [line for line in map(_without_label, snippet) if line is not None]
    canvas = node_names(doc)  # what the canvas calls each node, printed beside its numbers
    shown = [("output", plan.output)] + [("input", nid) for nid in plan.statements if doc.nodes[nid].kind == "input"]
    width = max(len(canvas[nid]) for _kind, nid in shown)
    lines = [
        f'"""Made by Backprop Studio: the graph as Python, with {where.split(":")[0]}.',
        "",
        f"Run it (python this_file.py): it calls {out}.backward() and prints the output and every",
        "input, data and grad -- the numbers the studio's canvas shows. File > Import Snippet reads",
        'the graph back."""',
        "",
        f"from {module} import Value  # {where}",
        "",
        *snippet,
        "",
        'if __name__ == "__main__":',
        f"    {out}.backward()",
        "    shown = [",
        *(f"        ({kind!r}, {canvas[nid]!r}, {plan.names[nid]})," for kind, nid in shown),
        "    ]",
        "    for kind, name, v in shown:",
        f'        print(f"{{kind:<6}} {{name:<{width}}}  data {{v.data!r:<24}} grad {{v.grad!r}}")',
    ]
    return "\n".join(lines) + "\n"


def _without_label(line):
    """`x = Value(2.0, label='x')` -> `x = Value(2.0)`; a `f.label = ...` line -> None."""
    head, sep, _rest = line.partition(".label = ")
    if sep and head.isidentifier():
        return None
    if " = Value(" in line and ", label=" in line and line.endswith(")"):
        return line[: line.index(", label=")] + ")"
    return line


def variable_names(doc: GraphDocument) -> dict[str, str]:
    """{node id: the variable that holds it in to_python / to_pytorch} (inlined nodes absent)."""
    return dict(_Plan(doc).names)


# -----------------------------------------------------------------------------
# PyTorch


def to_pytorch(doc: GraphDocument) -> str:
    """A standalone PyTorch script computing doc in float64, with backward().

    It prints one line `output <name> <data>`, then `grad <name> <grad>` for
    each input, floats written with repr (so they parse back exactly).
    """
    plan = _Plan(doc)
    if plan.output is None:
        raise GraphError("the graph has no single output: choose one before exporting")
    lines = [
        '"""Made by Backprop Studio: the graph as PyTorch, to check its gradients."""',
        "import torch",
        "",
        "",
        "def grad(t):",
        "    return 0.0 if t.grad is None else t.grad.item()  # an unused input gets no grad",
        "",
        "",
    ]
    for nid in plan.statements:
        node, name = doc.nodes[nid], plan.names[nid]
        if node.kind != "op":
            # constants ask for a grad too: it costs nothing, and backward() needs
            # one leaf that requires grad even when the output uses constants only
            lines.append(f"{name} = torch.tensor({float(node.value)!r}, dtype=torch.float64, requires_grad=True)")
        else:
            lines.append(f"{name} = {plan.expression(nid, 'torch')[0]}")
    out = plan.names[plan.output]
    lines += ["", f"{out}.backward()", f"print('output', {_quote(out)}, repr({out}.item()))"]
    for nid in plan.statements:
        if doc.nodes[nid].kind == "input":
            name = plan.names[nid]
            lines.append(f"print('grad', {_quote(name)}, repr(grad({name})))")
    return "\n".join(lines) + "\n"
