"""What the editor's palette offers, and the composite blocks it can build.

A graph is drawn from a small catalogue of parts: two kinds of leaf (an
**Input**, a named number you change; a **Constant**), the primitive ops of
the engine (`+ − × ÷`, `neg`, `pow`, `relu`, `tanh`, ...) and two *blocks*
for small networks:

* a **Neuron** with n inputs is micrograd's `Neuron`: `act(b + w0*x0 + ...)`.
  It is not a new kind of node. Dropping one adds its scalar graph -- the
  weights and the bias as editable leaves, one `×` per input, a chain of `+`,
  the activation -- so every box on screen is still one chain-rule step.
* a **Layer** of n inputs × m neurons is m neurons reading the same inputs.

A block is built as one `Macro` of `AddNode` and `Connect` commands (one step
of the undo history) and returns a `Group` record naming its nodes, which the
editor can show collapsed into one box (see `core/document/groups.py`). The inputs of
a block are either nodes already in the document (say, the selected ones) or
new Input leaves `x0, x1, ...` created alongside it, outside the group.

Weights are drawn like `core.nn` draws them (uniform in [-1, 1], bias 0), from
a `random.Random` seeded with the block's name, so "N1" gets the same weights
on every run and the graph equals the one `core.nn.Neuron` builds: same ops,
same order, same numbers.

Everything here is plain data; `search` ranks the catalogue for the quick-add
box ("tan" finds tanh first).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from core.document.commands import AddNode, Connect, Macro
from core.document.graph import OPS, GraphError, Node, op_symbol
from core.document.layout import sugiyama
from core.nn import ACTIVATIONS, Neuron
from core.ops import BY_NAME

if TYPE_CHECKING:
    from core.document.graph import GraphDocument

Size = tuple[float, float]

MAX_BLOCK_INPUTS = 64
MAX_LAYER_NEURONS = 64


# -----------------------------------------------------------------------------
# The catalogue


@dataclass(frozen=True)
class Entry:
    key: str  # 'input', 'const', an op name, 'neuron' or 'layer'
    title: str  # what the palette shows
    section: str  # 'Leaves', 'Operations' or 'Blocks'
    symbol: str  # drawn on the palette tile
    tip: str  # one sentence: what it computes
    words: str = ""  # more words the search knows it by


CATALOGUE = (
    Entry(
        "input",
        "Input",
        "Leaves",
        "x",
        "A named leaf holding a number you can change; it gets a grad",
        "leaf variable value parameter weight",
    ),
    Entry("const", "Constant", "Leaves", "1", "A fixed number", "number literal"),
    *(
        Entry(
            op,
            op,
            "Operations",
            op_symbol(op, 2 if BY_NAME[op].param else None),
            BY_NAME[op].tip,  # the op table's words for the palette
            BY_NAME[op].words,
        )
        for op in OPS
    ),
    Entry("neuron", "Neuron", "Blocks", "N", "act(b + Σ wᵢ·xᵢ): weights and bias as leaves", "perceptron unit"),
    Entry("layer", "Layer", "Blocks", "L", "m neurons reading the same n inputs", "dense linear"),
)
ENTRIES = {entry.key: entry for entry in CATALOGUE}


def search(text: str, limit: int | None = None) -> list[Entry]:
    """Catalogue entries matching text, best first: exact, then prefix, then substring."""
    needle = text.strip().lower()
    if not needle:
        return list(CATALOGUE)[:limit]
    scored = []
    for order, entry in enumerate(CATALOGUE):
        names = [entry.key, entry.title.lower(), entry.symbol.lower()]
        words = entry.words.lower().split()
        if needle in names:
            rank = 0
        elif any(name.startswith(needle) for name in names):
            rank = 1
        elif any(word.startswith(needle) for word in words):
            rank = 2
        elif len(needle) >= 4 and needle in entry.tip.lower():
            rank = 3  # not shorter: "tan" must not find "constant"
        else:
            continue
        scored.append((rank, order, entry))
    scored.sort(key=lambda t: (t[0], t[1]))
    return [entry for _rank, _order, entry in scored][:limit]


def next_label(doc: GraphDocument, stem: str) -> str:
    """The first of stem1, stem2, ... that no node of doc is labelled with."""
    used = {node.label for node in doc.nodes.values()}
    k = 1
    while f"{stem}{k}" in used:
        k += 1
    return f"{stem}{k}"


def node_for(
    key: str,
    doc: GraphDocument,
    pos: Size = (0.0, 0.0),
    param: float | None = None,
    value: float | None = None,
    label: str | None = None,
) -> Node:
    """A new Node (id None: the document picks one) for a leaf or an op entry."""
    pos = (float(pos[0]), float(pos[1]))
    if key == "input":
        return Node(
            None,
            "input",
            value=1.0 if value is None else float(value),
            label=next_label(doc, "x") if label is None else label,
            pos=pos,
        )
    if key == "const":
        return Node(
            None, "const", value=1.0 if value is None else float(value), label="" if label is None else label, pos=pos
        )
    if key in OPS:
        if key in ("pow", "rpow"):
            param = 2.0 if param is None else float(param)
        else:
            param = None
        return Node(None, "op", key, param=param, label=label or "", pos=pos)
    raise GraphError(f"unknown palette entry {key!r} (known: {', '.join(ENTRIES)})")


# -----------------------------------------------------------------------------
# Blocks


@dataclass
class Block:
    """A block ready to push: `command` adds it; `group` names its nodes."""

    command: Macro
    group: dict  # {"id", "kind", "title", "nodes", "collapsed"}
    inputs: list  # the ids feeding it, port order (new or existing)
    outputs: list  # the ids of its neurons' outputs
    nodes: list = field(default_factory=list)  # every Node it adds, in order


class _Ids:
    """Hands out n1, n2, ... after the largest id in use, without touching doc."""

    def __init__(self, doc):
        self.k = int(doc.new_id()[1:])

    def __call__(self):
        nid = f"n{self.k}"
        self.k += 1
        return nid


def next_block_name(doc: GraphDocument, stem: str) -> str:
    """'N1', 'N2', ... (or 'L1', ...): a name no node label starts with."""
    used = {node.label.split(".", 1)[0] for node in doc.nodes.values()}
    k = 1
    while f"{stem}{k}" in used:
        k += 1
    return f"{stem}{k}"


def _check_shape(nin, nout, activation, inputs):
    if not isinstance(nin, int) or not 1 <= nin <= MAX_BLOCK_INPUTS:
        raise GraphError(f"a block takes 1 to {MAX_BLOCK_INPUTS} inputs, not {nin!r}")
    if not isinstance(nout, int) or not 1 <= nout <= MAX_LAYER_NEURONS:
        raise GraphError(f"a layer has 1 to {MAX_LAYER_NEURONS} neurons, not {nout!r}")
    if activation not in ACTIVATIONS:
        raise GraphError(f"unknown activation {activation!r} (choose one of {', '.join(ACTIVATIONS)})")
    if inputs is not None and len(inputs) != nin:
        raise GraphError(f"the block has {nin} inputs but {len(inputs)} nodes were given to feed it")


def neuron_block(
    doc: GraphDocument,
    pos: Size = (0.0, 0.0),
    nin: int = 2,
    activation: str = "tanh",
    inputs: Sequence[str] | None = None,
    name: str | None = None,
    sizes: Callable[[Node], Size] | None = None,
    group_id: str | None = None,
) -> Block:
    """One neuron act(b + w0*x0 + ...) as a Block; see `layer_block` for the arguments."""
    return _build(doc, pos, nin, 1, activation, inputs, name or next_block_name(doc, "N"), "neuron", sizes, group_id)


def layer_block(
    doc: GraphDocument,
    pos: Size = (0.0, 0.0),
    nin: int = 2,
    nout: int = 3,
    activation: str = "tanh",
    inputs: Sequence[str] | None = None,
    name: str | None = None,
    sizes: Callable[[Node], Size] | None = None,
    group_id: str | None = None,
) -> Block:
    """nout neurons reading the same nin inputs, as a Block.

    inputs   ids of existing nodes feeding input 0, 1, ... (None: new Input leaves x0..)
    name     the label prefix ('L1': leaves L1.n0.w0, ..., outputs L1.n0, ...)
    sizes    {node id: (w, h)} is not known yet, so a callable Node -> (w, h) for the
             layout; None lays the block out with every box the same size
    pos      where the block's left edge and vertical middle go
    """
    return _build(doc, pos, nin, nout, activation, inputs, name or next_block_name(doc, "L"), "layer", sizes, group_id)


def _build(doc, pos, nin, nout, activation, inputs, name, kind, sizes, group_id):
    _check_shape(nin, nout, activation, inputs)
    if inputs is not None:
        for nid in inputs:
            doc.node(nid)
    new_id = _Ids(doc)
    nodes, edges = [], []  # edges as (src, dst, port)
    rng = random.Random(name)  # a str seed: the same weights for "N1" on every run

    input_ids = list(inputs) if inputs is not None else []
    created_inputs = []
    if inputs is None:
        used = {node.label for node in doc.nodes.values()}
        k = 1
        for _i in range(nin):
            while f"x{k}" in used:
                k += 1
            used.add(f"x{k}")
            node = Node(new_id(), "input", value=1.0, label=f"x{k}")
            nodes.append(node)
            created_inputs.append(node.id)
            input_ids.append(node.id)

    members, outputs = [], []
    for j in range(nout):
        prefix = name if kind == "neuron" else f"{name}.n{j}"
        model = Neuron(nin, activation, rng, prefix)  # the numbers and labels of core.nn
        weights = []
        for w in model.w:
            node = Node(new_id(), "input", value=w.data, label=w.label)
            nodes.append(node)
            weights.append(node.id)
        bias = Node(new_id(), "input", value=model.b.data, label=model.b.label)
        nodes.append(bias)
        act = bias.id
        members += weights + [bias.id]
        # the same chain as core.nn.Neuron: ((b + w0*x0) + w1*x1) + ...
        for wid, xid in zip(weights, input_ids):
            mul = Node(new_id(), "op", "mul")
            add = Node(new_id(), "op", "add")
            nodes += [mul, add]
            members += [mul.id, add.id]
            edges += [(wid, mul.id, 0), (xid, mul.id, 1), (act, add.id, 0), (mul.id, add.id, 1)]
            act = add.id
        if activation != "linear":
            out = Node(new_id(), "op", activation)
            nodes.append(out)
            members.append(out.id)
            edges.append((act, out.id, 0))
            act = out.id
        by_id = {node.id: node for node in nodes}
        by_id[act].label = prefix  # the neuron's output carries its name
        outputs.append(act)

    _place(nodes, edges, pos, sizes)
    what = (
        f"Neuron {name} ({activation}, {nin} input{'s' if nin != 1 else ''})"
        if kind == "neuron"
        else f"Layer {name} ({nin}×{nout}, {activation})"
    )
    commands = [AddNode(node) for node in nodes] + [Connect(*edge) for edge in edges]
    group = {"id": group_id or name, "kind": kind, "title": what, "nodes": members, "collapsed": False}
    return Block(Macro(f"Add {what}", commands), group, input_ids, outputs, nodes)


def _place(nodes, edges, pos, sizes):
    """Lay the new nodes out left to right, left edge at pos[0], centred on pos[1]."""
    ids = [node.id for node in nodes]
    inside = set(ids)
    box = {node.id: (sizes(node) if sizes is not None else (150.0, 30.0)) for node in nodes}
    layout = sugiyama(ids, [(s, d) for s, d, _p in edges if s in inside and d in inside], sizes=box)
    xs = [layout.positions[nid][0] - box[nid][0] / 2 for nid in ids]
    ys = [layout.positions[nid][1] for nid in ids]
    dx = float(pos[0]) - min(xs)
    dy = float(pos[1]) - (min(ys) + max(ys)) / 2
    for node in nodes:
        x, y = layout.positions[node.id]
        node.pos = (round(x + dx, 1), round(y + dy, 1))
