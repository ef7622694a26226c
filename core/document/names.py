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

Naming 5,000 nodes takes ~40 ms, and the canvas, the layout and the debugger
all ask for the same names. So a document's names are made once and kept
until the document changes in a way that could rename a node (anything but a
move): `node_names(doc)` answers from that memory. A document that swaps its
whole graph with another (`GraphDocument.replace_with`, how a file opens) takes
the names of the graph it gets along with it: `replace_named`. Opening a large
graph then names it once, on the worker thread that checks it, not on the
window's thread.
"""

from __future__ import annotations

import threading
import weakref
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
    """{node id: name} for every node of a GraphDocument (see the module docstring).
    Made once per version of the document: read the dict, do not change it."""
    names = known_names(doc)
    if names is None:
        names = {}
        for _ in naming_steps(doc, names):
            pass
    return names


def naming_steps(doc: GraphDocument, names: dict[str, str], every: int = STEP_NODES) -> Iterator[None]:
    """Fill `names` ({} to begin with) with node_names(doc), yielding after every
    `every` nodes: a window naming 5,000 nodes (~40 ms) does it a slice at a time.
    Names already known for this version of doc are copied in at once; names made
    here are remembered unless doc changed while they were being made."""
    known = known_names(doc)
    if known is not None:
        names.update(known)
        return
    version = _version(doc)
    yield from _name_all(doc, names, every)
    if _version(doc) == version:
        _remember(doc, version, names)


def _name_all(doc, names, every):
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


# -----------------------------------------------------------------------------
# Named once per version of a document
#
# A name depends on the wiring (`doc.revision` grows with every change to nodes,
# wires and the output) and on three fields a node may change in place: its
# label, a constant's value, an op's parameter. Names are kept with both and are
# current while both are as they were, so whoever asks first after an edit gets
# the new names, whatever order the document's listeners run in.


class _Named:
    """A document's names and the version of the document they were made from."""

    def __init__(self, revision: int, fields: list, names: dict[str, str]) -> None:
        self.revision, self.fields, self.names = revision, fields, names
        self.in_sentences: dict[str, str] | None = None  # sentence_names, made when first asked


_named: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # GraphDocument -> _Named
_named_lock = threading.Lock()  # a worker names the graph it checks while the window names its own


def _fields(doc):
    """What names read from the nodes besides the wiring (~1 ms at 5,000 nodes)."""
    return [(n.label, n.param, n.value if n.kind == "const" else None) for n in doc.nodes.values()]


def _version(doc):
    return doc.revision, _fields(doc)


def _remember(doc, version, names):
    revision, fields = version
    with _named_lock:
        _named[doc] = _Named(revision, fields, names)


def known_names(doc: GraphDocument) -> dict[str, str] | None:
    """The names of doc's nodes if they were made for doc as it is now, else None."""
    with _named_lock:
        named = _named.get(doc)
    if named is None or named.revision != doc.revision or named.fields != _fields(doc):
        return None
    return named.names


def sentence_names(doc: GraphDocument) -> dict[str, str]:
    """node_names(doc) as a sentence writes them: a label or a number as it is, a
    formula in brackets, so that `(x·y).grad` reads as one thing. Made once per
    version of the document, like the names."""
    names = node_names(doc)
    with _named_lock:
        named = _named.get(doc)
    if named is not None and named.names is names and named.in_sentences is not None:
        return named.in_sentences
    nodes = doc.nodes
    shown = {}
    for nid, name in names.items():
        node = nodes[nid]
        plain = node.label or node.kind == "const" or all(ch.isalnum() or ch == "_" for ch in name)
        shown[nid] = name if plain else f"({name})"
    if named is not None and named.names is names:
        named.in_sentences = shown
    return shown


def replace_named(doc: GraphDocument, other: GraphDocument) -> None:
    """`doc.replace_with(other)`: the two documents trade graphs, and each graph
    keeps the names already made for it."""
    carried = [(known_names(d), _named.get(d)) for d in (doc, other)]  # names current now, or none
    doc.replace_with(other)  # the revisions grow: the names are re-filed under the new ones
    for (names, named), holder in zip(reversed(carried), (doc, other)):
        if names is not None:
            _remember(holder, (holder.revision, named.fields), names)
            _named[holder].in_sentences = named.in_sentences
