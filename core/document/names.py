"""One name per node: what the canvas, the narration, the tables and the lessons call it.

A learner gives names to the values they care about (`x`, `w1`, `loss`); the
rest -- the intermediate results of a formula -- get none. An internal id such
as `n17` means nothing on screen, so a node without a label is named by the
formula that computes it, written with its operands' names:

    x = Value(2.0, label='x'); y = Value(3.0, label='y')
    f = x*y + y**2            ->  x*y is 'x·y', y**2 is 'y^2', f (labelled) is 'f'

Operands are bracketed only where the order of operations needs it
(`(a + b)·c`, but `a·b + c`). A formula longer than NAME_MAX characters is
shortened by writing its long operands as `…` (`tanh(…)`, `… + b`), never by
falling back to an id. Two unlabelled nodes that would read the same get a
subscript (`tanh(…)₂`, `(a·b)₂`) so a name always points at one node; labels are the
user's own and are kept exactly as written, even when two are equal.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from core.ops import BY_NAME, formula, short_number

if TYPE_CHECKING:
    from core.document.graph import GraphDocument

NAME_MAX = 24  # characters a formula name may take before operands are elided
STEP_NODES = 200  # nodes named between two yields of naming_steps
ELLIPSIS = "…"
_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")

# How tightly each op binds: an operand binding less tightly than its op needs brackets.
_BINDING = {"add": 1, "sub": 1, "mul": 2, "div": 2, "neg": 3, "pow": 4, "rpow": 4}
_ATOM = 9  # a label, a number or a function call such as tanh(x)


def node_names(doc: GraphDocument) -> dict[str, str]:
    """{node id: name} for every node of a GraphDocument (see the module docstring)."""
    names: dict[str, str] = {}
    for _ in naming_steps(doc, names):
        pass
    return names


def naming_steps(doc: GraphDocument, names: dict[str, str], every: int = STEP_NODES) -> Iterator[None]:
    """Fill `names` ({} to begin with) with node_names(doc), yielding after every
    `every` nodes: a window naming 5,000 nodes (~40 ms) does it a slice at a time."""
    binding = {}
    nodes = doc.nodes
    done = 0
    for start in nodes:  # depth first from each node, operands before the node they feed
        stack = [start]
        while stack:
            nid = stack[-1]
            if nid in names:
                stack.pop()
                continue
            node = nodes[nid]
            sources = doc.inputs_of(nid) if node.kind == "op" and not node.label else ()
            waiting = [src for src in sources if src is not None and src not in names]
            if waiting:
                stack.extend(waiting)
                continue
            stack.pop()
            if node.label:
                names[nid], binding[nid] = node.label, _ATOM
            elif node.kind == "const":
                names[nid], binding[nid] = short_number(node.value), _ATOM
            elif node.kind == "op" and node.op in BY_NAME:
                names[nid], binding[nid] = _op_name(node, sources, names, binding)
            else:
                names[nid], binding[nid] = ("input" if node.kind == "input" else "value"), _ATOM
            done += 1
            if done % every == 0:
                yield
    _disambiguate(doc, names)


def _op_name(node, sources, names, binding):
    """The formula naming an unlabelled op node, and how tightly it binds."""
    tight = _BINDING.get(node.op, _ATOM)
    operands = []
    for port, src in enumerate(sources):
        if src is None:
            operands.append(("?", _ATOM))
            continue
        text, bound = names[src], binding[src]
        # a - (b - c) and a / (b / c) need brackets on the right even at equal binding
        right_of_same = port == 1 and node.op in ("sub", "div") and bound == tight
        if tight != _ATOM and (bound < tight or right_of_same):  # tanh(a + b) needs none
            text = f"({text})"
        operands.append((text, bound))
    text = formula(node.op, [t for t, _b in operands] or ["?"], node.param)
    if len(text) > NAME_MAX:
        short = [t if len(t) <= NAME_MAX // 3 else ELLIPSIS for t, _b in operands] or [ELLIPSIS]
        text = formula(node.op, short, node.param)
    if len(text) > NAME_MAX:
        text = formula(node.op, [ELLIPSIS] * max(1, len(operands)), node.param)
    return text, tight


def _disambiguate(doc, names):
    """Subscript the second, third ... unlabelled op or input that reads like an
    earlier one (in document order). Constants keep their number: two 2s are alike."""
    seen = {}
    labelled = {names[nid] for nid, node in doc.nodes.items() if node.label}
    for nid, node in doc.nodes.items():
        if node.label or node.kind == "const":
            continue
        name = names[nid]
        count = seen.get(name, 1 if name in labelled else 0) + 1
        seen[name] = count
        if count > 1:
            plain = all(ch.isalnum() or ch == "_" for ch in name) or name.endswith(")")
            names[nid] = (name if plain else f"({name})") + str(count).translate(_SUBSCRIPTS)
    return names
