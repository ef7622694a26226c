"""Blocks a graph shows by itself, when nobody recorded how it was made: `infer_scopes(graph)`.

Learners build a graph and then look at it -- `loss.backward(); show(loss)` --
without asking the studio to watch (record.py). A microgpt step made that way
is 138,000 Values and nothing says which belong to `softmax` or to position 3.
But the graph itself shows a lot of structure, and this module reads it:

* **What a value alone needs.** Node d *dominates* node v when every path
  from v to the output passes through d: whatever v computes, it matters only
  through d. The closest such d is v's *immediate dominator*, and these form
  a tree: each node's subtree is exactly the work done *for it alone* -- a
  neuron's dot product and its inputs' products, a position's attention, the
  loss term of one sample. A value used by many (a layer's outputs, a key of
  the attention that later positions read) belongs to the node where all its
  users meet, not to the first one. (Cooper, Harvey & Kennedy's "simple, fast
  dominance algorithm", on a graph whose nodes are already in topological
  order: one pass from the output back, each node's dominator the meeting
  point of its users' in the tree built so far.)
* **The chain of a sum().** Python's `sum(terms)` adds one term at a time:
  `((t0 + t1) + t2) + ...`, a chain of adds in which each add is used only by
  the next. Such a chain (of adds, or of multiplies) is read as one thing,
  "a sum of 15 terms", its terms side by side (a link is the add's first
  operand, the running total: a sum added as a term stays one term): a neuron's dot product, the sum
  of the exps of a softmax, the sum of the losses.
* **Reading order.** In a block, the sub-blocks come in the order their
  outputs were computed, then the block's own ops -- a valid order to compute
  in, and every block one run of consecutive nodes, which is what lets the
  debugger step a whole block at once (debug.py). A sub-block that holds most
  of its parent (the spine: the residual stream, one layer feeding the next)
  is not boxed again inside it but laid out in line, so blocks do not nest
  forty deep; each level at least halves. A block of more than `MAX_ITEMS`
  things is cut into consecutive parts.
* **Names.** The learner's label when the output has one (`loss`, `n1`);
  otherwise what the shape says: `dot product, 16 terms`, `neuron (tanh, 16
  inputs)`, `softmax of 27`, `sum of 15 terms`, `−log p`, else the output's
  op with its operands (`… · …`). Blocks of the same shape side by side are
  numbered (`neuron (tanh, 16 inputs) #3`), and say so.

Cost: a few passes over the nodes in plain Python and numpy: ~1 s for a
138,000-node step (bench/bench_show_big.py).

    graph = infer_scopes(ScopedGraph.from_values(loss))   # or auto_scoped(loss)
"""

from __future__ import annotations

import math

import numpy as np

from core import ops
from core.scopes.graph import OP_CODE, ScopedGraph
from core.scopes.record import ROOT, Scope

MIN_BLOCK = 12  # a piece of fewer ops stays loose in its block
MAX_ITEMS = 24  # a block shows at most this many things when opened; more are cut into parts
CHAIN = 3  # a chain of at least this many adds (or multiplies) reads as one sum
KIND = "block"  # the kind of an inferred scope (recorded ones are 'call', 'loop', 'section');
# 'shared' for the values every term after them reads (drawn as a bus: core/scopes/layout.py)
_ADD, _MUL = OP_CODE["add"], OP_CODE["mul"]
_ACTIVATIONS = {OP_CODE[k]: k for k in ("tanh", "relu", "sigmoid")}


def infer_scopes(graph: ScopedGraph) -> ScopedGraph:
    """The same graph, its ops renumbered in reading order and grouped in blocks read from its
    structure (see the module docstring). The inputs keep their groups (graph.py); a graph
    that has recorded scopes beyond them is handed back as it is."""
    if any(s.kind not in ("root", "inputs") for s in graph.scopes):  # recorded: as the code made it
        return graph
    tree = _Tree(graph)
    blocks = tree.blocks()
    order, scope_of, scopes = _emit(graph, blocks, tree)
    return _renumbered(graph, order, scope_of, scopes)


class _Tree:
    """The dominator tree of the ops, with the chains of sums folded into their last add."""

    def __init__(self, g: ScopedGraph) -> None:
        self.g = g
        n, op, a, b = g.n, g.op, g.a, g.b
        root = g.root
        is_op = op >= 2
        reach = np.zeros(n, dtype=bool)  # ops the output depends on
        reach[root] = bool(is_op[root])
        a_list, b_list, reach_list = a.tolist(), b.tolist(), reach.tolist()
        for v in range(root, -1, -1):
            if reach_list[v]:
                for x in (a_list[v], b_list[v]):
                    if x >= 0 and is_op[x]:
                        reach_list[x] = True
        reach = np.array(reach_list, dtype=bool)
        self.reach = reach
        # users of each op (among reached ops), as one sorted array and offsets
        src = np.concatenate([a[reach], b[reach]])
        dst = np.concatenate([np.nonzero(reach)[0], np.nonzero(reach)[0]])
        keep = (src >= 0) & is_op[np.maximum(src, 0)]
        src, dst = src[keep], dst[keep]
        by = np.argsort(src, kind="stable")
        src, dst = src[by], dst[by]
        starts = np.searchsorted(src, np.arange(n + 1)).tolist()
        users = dst.tolist()
        self.starts, self.users = starts, users
        self.user_count = np.diff(np.array(starts))
        idom = [-1] * n
        ops_reached = np.nonzero(reach)[0].tolist()
        for v in reversed(ops_reached):
            if v == root:
                continue
            lo, hi = starts[v], starts[v + 1]
            if lo == hi:
                idom[v] = root
                continue
            d = users[lo]
            for k in range(lo + 1, hi):
                u = users[k]
                while d != u:  # the meeting point of d and u in the tree so far (indices rise to the root)
                    while d < u:
                        d = idom[d]
                    while u < d:
                        u = idom[u]
            idom[v] = d
        self.idom = idom
        # chains: an add (mul) whose only user is an add (mul) that takes it as its first operand
        # (the running total of `acc = acc + t`, of sum()) is a link of that user's chain; a whole
        # sum added as a term stays a term
        op_list = op.tolist()
        top = list(range(n))
        absorbed = [False] * n
        for v in reversed(ops_reached):
            if v == root or starts[v + 1] - starts[v] != 1:
                continue
            u = users[starts[v]]
            if op_list[v] == op_list[u] and op_list[v] in (_ADD, _MUL) and a_list[u] == v:
                absorbed[v] = True
                top[v] = top[u]
        self.top, self.absorbed, self.op_list = top, absorbed, op_list
        self.children: dict[int, list[int]] = {}
        self.members: dict[int, list[int]] = {}
        size = [1] * n
        for v in ops_reached:  # ascending: a node's subtree is complete before its parent's
            if v == root:
                continue
            if absorbed[v]:
                self.members.setdefault(top[v], []).append(v)
                size[top[v]] += 1
            else:
                parent = top[idom[v]]
                self.children.setdefault(parent, []).append(v)
                size[parent] += size[v]
        self.size = size
        self.loose = [v for v in range(n) if is_op[v] and not reach[v]]  # ops the output does not use

    def chain(self, v: int) -> list[int]:
        """The links of v's chain in order, v (its last add) included."""
        return self.members.get(v, []) + [v]

    def terms(self, v: int) -> list[int]:
        """The operands of v's chain that are not links of it."""
        g, absorbed = self.g, self.absorbed
        found = []
        for m in self.chain(v):
            for x in (int(g.a[m]), int(g.b[m])):
                if x >= 0 and not (absorbed[x] and self.top[x] == v):
                    found.append(x)
        return found

    # -- blocks -----------------------------------------------------------------------

    def blocks(self) -> list[dict]:
        """The blocks as a tree: [{'node', 'parent', 'items', 'what'}], block 0 the graph's root
        scope; an item is a node (>= 0) or a block (~index)."""
        g, size = self.g, self.size
        blocks: list[dict] = [{"node": g.root, "parent": -1, "items": [], "what": "root"}]
        if not g.op[g.root] >= 2:
            return blocks

        def new_block(node: int, parent: int, what: str, items: list[int] | None = None) -> int:
            blocks.append({"node": node, "parent": parent, "items": items or [], "what": what})
            blocks[parent]["items"].append(~(len(blocks) - 1))
            return len(blocks) - 1

        def pieces(kids: list[int], whole: int, blk: int) -> tuple[list[tuple], bool]:
            plan, boxed = [], False
            for c in kids:
                box = size[c] >= MIN_BLOCK and 2 * size[c] <= whole
                boxed |= box
                plan.append(("box" if box else "unit", c, blk, None))
            return plan, boxed

        stack: list[tuple] = [("unit", g.root, 0, None)]
        while stack:
            kind, v, blk, extra = stack.pop()
            if kind == "own":
                links = self.chain(v)
                if extra and len(links) >= CHAIN:  # the sum's adds, one block beside its terms
                    new_block(v, blk, "chain", links)
                else:
                    blocks[blk]["items"].extend(links)
                continue
            if kind == "group":  # a term, and what it computes first that later terms reuse
                members = extra + [v] if v >= 0 else extra
                total = sum(size[m] for m in members)
                if total < MIN_BLOCK:
                    plan, _ = pieces(members, total, blk)
                else:
                    group = new_block(v if v >= 0 else extra[-1], blk, "group" if v >= 0 else "shared")
                    plan, _ = pieces(members, total, group)
                    if len(members) > 1 and not any(p[0] == "box" for p in plan) and total > 2 * MAX_ITEMS:
                        plan = [("box", m, group, None) for m in members]  # never a wall of loose ops
                stack.extend(reversed(plan))
                continue
            if kind == "box":
                blk = new_block(v, blk, "unit")
            plan, any_boxed = [], False
            for c, members in self._groups(v):
                if members:
                    plan.append(("group", c, blk, members))
                    any_boxed = True
                else:
                    step, boxed = pieces([c], size[v], blk)
                    plan += step
                    any_boxed |= boxed
            stack.append(("own", v, blk, any_boxed))
            stack.extend(reversed(plan))
        if self.loose:  # computed but not used by the output: one block at the start
            blocks.append({"node": self.loose[-1], "parent": 0, "items": list(self.loose), "what": "unused"})
            blocks[0]["items"].insert(0, ~(len(blocks) - 1))
        _cut(blocks)
        return blocks

    def _groups(self, v: int) -> list[tuple[int, list[int]]]:
        """v's children in the order to lay them out, each with the shared values that go with it.

        v's *terms* are its chain's own operands (a sum's terms, a product's two sides); its
        other children are values several terms share (the keys of a position, read by every
        later position). A shared value read by only some of the terms goes with the first
        term that reads it (a position's keys with that position); one read by every term is
        laid out before them all, together (-1, [those]): what every term reads (a layer every
        neuron of the next reads; the keys of the first position)."""
        kids = self.children.get(v, [])
        if len(kids) < 3:
            return [(c, []) for c in kids]
        terms = sorted(set(self.terms(v)) & set(kids))
        if len(terms) < 2 or len(terms) == len(kids):
            return [(c, []) for c in kids]
        term_no = {t: k for k, t in enumerate(terms)}
        kid_set = set(kids)
        top, idom, starts, users = self.top, self.idom, self.starts, self.users
        reads: dict[int, set[int]] = {}
        for h in sorted(kid_set - set(terms), reverse=True):  # users first: they come later
            found: set[int] = set()
            for k in range(starts[h], starts[h + 1]):
                u = users[k]
                while u not in kid_set:  # up to the child of v that holds this user
                    u = top[idom[u]] if not self.absorbed[u] else top[u]
                    if u == v or u < 0:
                        break
                if u in term_no:
                    found.add(term_no[u])
                elif u in reads:
                    found |= reads[u]
            reads[h] = found
        every = len(terms)
        shared = [h for h in sorted(reads) if len(reads[h]) == every or not reads[h]]
        with_term: dict[int, list[int]] = {}
        for h in sorted(reads):
            if reads[h] and len(reads[h]) < every:
                with_term.setdefault(terms[min(reads[h])], []).append(h)
        first = [(-1, shared)] if shared else []
        return first + [(t, with_term.get(t, [])) for t in terms]

    def describe(self, v: int, depth: int = 0) -> str:
        """What the shape of v's work says it is (see the module docstring)."""
        g, op = self.g, self.op_list
        label = g.labels.get(v)
        if label:
            return label
        name = g.op_name(v)
        links = self.chain(v)
        if len(links) >= CHAIN - 1 and op[v] in (_ADD, _MUL):
            terms = self.terms(v)
            if op[v] == _MUL:
                return f"product of {len(terms)} factors"
            products = sum(1 for t in terms if op[t] == _MUL)
            if products * 2 >= len(terms) and products >= 2:
                return f"dot product, {products} terms"
            exps = sum(1 for t in terms if g.op_name(t) == "exp")
            if exps * 2 >= len(terms):
                return f"sum of {exps} exps"
            return f"sum of {len(terms)} terms"
        if op[v] in _ACTIVATIONS:
            inner = int(g.a[v])
            if op[inner] == _ADD:
                count = self._products(inner)
                if count >= 2:
                    return f"neuron ({name}, {count} inputs)"
            return f"{name}(…)"
        if name == "div":
            den = int(g.b[v])
            if den >= 0 and op[den] == _ADD and g.op_name(int(g.a[v])) == "exp":
                return f"softmax of {len(self.terms(den)) if self.members.get(den) else 2}"
            return "… / …"
        if name == "neg" and g.op_name(int(g.a[v])) == "log":
            return "−log p"
        if name == "mul" and {g.op_name(x) for x in g.operands(v)} == {"log", "const"}:
            const = next(x for x in g.operands(v) if g.op_name(x) == "const")
            if g.data[const] == -1:
                return "−log p"
        if name == "mul" and any(g.op_name(x) == "pow" and g.param[x] == -0.5 for x in g.operands(v)):
            return "… · (…)^-0.5 (a norm)"
        if name == "pow" and g.param[v] == 2 and g.op_name(int(g.a[v])) in ("sub", "add"):
            return "squared error"
        operands = g.operands(v)
        inner = [x for x in operands if op[x] >= 2]
        if name in ("mul", "add", "sub", "div") and len(operands) == 2 and len(inner) == 1 and depth < 2:
            said = self.describe(inner[0], depth + 1)  # w · neuron (tanh, 16 inputs)
            if not said.startswith(("…", "(")):
                sign = {"mul": "·", "add": "+", "sub": "−", "div": "/"}[name]
                return f"{said} {sign} …" if inner[0] == operands[0] else f"… {sign} {said}"
        args = ["…" for _ in g.operands(v)]
        param = None if math.isnan(g.param[v]) else float(g.param[v])
        return ops.formula(name, args, param)

    def _products(self, v: int) -> int:
        """How many products feed the add chain at v (or the chain under `chain + b`)."""
        g = self.g
        if self.members.get(v):
            return sum(1 for t in self.terms(v) if self.op_list[t] == _MUL)
        return sum(1 for x in g.operands(v) if self.op_list[x] == _MUL) + sum(
            self._products(x) for x in g.operands(v) if self.op_list[x] == _ADD and self.members.get(x)
        )


def _cut(blocks: list[dict]) -> None:
    """Cut every block of more than MAX_ITEMS items into consecutive parts (parts of parts, if
    need be), so that opening a block never shows more than MAX_ITEMS things."""
    for k in range(len(blocks)):
        items = blocks[k]["items"]
        if len(items) <= 2 * MAX_ITEMS and all(i >= 0 for i in items):
            continue  # a block of single ops: up to twice as many read fine opened
        while len(items) > MAX_ITEMS:
            per = MAX_ITEMS
            chunks = [items[i : i + per] for i in range(0, len(items), per)]
            grouped = []
            for chunk in chunks:
                if len(chunk) == 1:
                    grouped.append(chunk[0])
                    continue
                blocks.append({"node": _last_node(blocks, chunk[-1]), "parent": k, "items": chunk, "what": "part"})
                for item in chunk:
                    if item < 0:
                        blocks[~item]["parent"] = len(blocks) - 1
                grouped.append(~(len(blocks) - 1))
            items = grouped
        blocks[k]["items"] = items


def _last_node(blocks: list[dict], item: int) -> int:
    while item < 0:
        item = blocks[~item]["items"][-1]
    return item


def _emit(g: ScopedGraph, blocks: list[dict], tree: _Tree) -> tuple[list[int], list[int], list[Scope]]:
    """(the ops in reading order, the scope of each, the scopes): a walk of the block tree,
    scopes numbered parents first after the graph's input scopes."""
    tree_names = _names(g, blocks, tree)
    scopes = list(g.scopes)
    index = {0: ROOT}
    order: list[int] = []
    scope_of: list[int] = []
    stack = [(0, iter(blocks[0]["items"]))]
    while stack:
        k, items = stack[-1]
        item = next(items, None)
        if item is None:
            stack.pop()
            continue
        if item >= 0:
            order.append(item)
            scope_of.append(index[k])
            continue
        child = ~item
        title, site = tree_names[child]
        kind = "shared" if blocks[child]["what"] == "shared" else KIND  # read by all after it: a bus
        scopes.append(Scope(index[k], kind, title, site, "", 0))
        index[child] = len(scopes) - 1
        stack.append((child, iter(blocks[child]["items"])))
    return order, scope_of, scopes


def _names(g: ScopedGraph, blocks: list[dict], tree: _Tree) -> dict[int, tuple[str, str]]:
    """{block: (title, the line under it)}; siblings of one shape numbered."""
    found: dict[int, tuple[str, str]] = {}
    sizes = _sizes(blocks)
    for k, blk in enumerate(blocks):
        if k == 0:
            continue
        v = blk["node"]
        what = blk["what"]
        if what == "chain":
            op = "adds" if g.op_name(v) == "add" else "multiplies"
            title, site = f"the sum: {len(blk['items'])} {op}", "a chain: each adds one term to the last"
            if g.op_name(v) == "mul":
                title = f"the product: {len(blk['items'])} multiplies"
        elif what == "group":
            title = tree.describe(v)
            site = "a term + what later ones reuse"
        elif what == "shared":
            title = "read by every term"
            site = "what the terms after it all read"
        elif what == "part":
            title, site = "", ""
        elif what == "unused":
            title, site = "not used by the output", "computed, but the output does not depend on it"
        else:
            title = tree.describe(v)
            site = f"output: {g.op_name(v)}"
        found[k] = (title, site)
    # parts: named by what they hold; siblings alike: numbered
    for blk in blocks:
        kids = [~i for i in blk["items"] if i < 0]
        parts = [c for c in kids if blocks[c]["what"] == "part"]
        for p, c in enumerate(parts, start=1):
            inner = [found[~i][0] for i in blocks[c]["items"] if i < 0]
            first = inner[0] if inner else g.name(_last_node(blocks, blocks[c]["items"][0]))
            last = inner[-1] if inner else g.name(blocks[c]["node"])
            title = f"part {p} of {len(parts)}: {first}" + (f" … {last}" if last != first else "")
            found[c] = (title, f"{len(blocks[c]['items'])} things, in the order they were computed")
        same: dict[str, list[int]] = {}
        for c in kids:
            if blocks[c]["what"] in ("unit", "group"):
                same.setdefault(found[c][0], []).append(c)
        for title, members in same.items():
            if len(members) < 2:
                continue
            alike = len({sizes[c] for c in members}) == 1
            for i, c in enumerate(members, start=1):
                note = f"{i} of {len(members)}" + (", alike" if alike else "")
                found[c] = (f"{title} #{i}", f"{note} · {found[c][1]}")
    return found


def _sizes(blocks: list[dict]) -> list[int]:
    """Ops in each block (inner blocks included)."""
    sizes = [0] * len(blocks)
    for k in range(len(blocks) - 1, -1, -1):  # a block is made after its parent (parts: after, too)
        sizes[k] += sum(1 for i in blocks[k]["items"] if i >= 0)
    done = [False] * len(blocks)

    def total(k: int) -> int:
        if not done[k]:
            sizes[k] += sum(total(~i) for i in blocks[k]["items"] if i < 0)
            done[k] = True
        return sizes[k]

    stack = [0]
    post = []
    while stack:  # the totals without deep recursion: children first
        k = stack.pop()
        post.append(k)
        stack.extend(~i for i in blocks[k]["items"] if i < 0)
    for k in reversed(post):
        total(k)
    return sizes


def _renumbered(g: ScopedGraph, order: list[int], scope_of: list[int], scopes: list[Scope]) -> ScopedGraph:
    """The graph with its ops in `order` after the leaves, each in its new scope."""
    n = g.n
    leaves = np.nonzero(g.op < 2)[0]
    seen = np.zeros(n, dtype=bool)
    seen[leaves] = True
    seen[np.array(order, dtype=np.int64)] = True
    rest = np.nonzero(~seen)[0]  # ops neither used nor placed (none, when the tree is whole)
    new_order = np.concatenate([leaves, rest, np.array(order, dtype=np.int64)]).astype(np.int64)
    new_scope = np.concatenate([g.scope[leaves], np.zeros(len(rest), dtype=np.int64), np.array(scope_of)])
    position = np.empty(n, dtype=np.int64)
    position[new_order] = np.arange(n)
    arrays = {}
    for key in ("op", "param", "data", "grad", "line"):
        arrays[key] = getattr(g, key)[new_order]
    for key in ("a", "b"):
        old = getattr(g, key)[new_order]
        arrays[key] = np.where(old >= 0, position[np.maximum(old, 0)], -1)
    arrays["scope"] = new_scope
    labels = {int(position[i]): text for i, text in g.labels.items()}
    values = g._values
    if values is not None:
        values = [values[i] for i in new_order.tolist()]
    notes = list(g.notes) + ["no scopes were recorded: the blocks are read from the graph's own structure"]
    made = ScopedGraph(arrays, labels, int(position[g.root]), scopes, notes, g.engine, values=values)
    made.inferred = True
    return made


# -----------------------------------------------------------------------------
# The one entry point: any Value graph, too big to read op by op, collapsed

BIG = 1_500  # nodes: a graph larger than this opens collapsed (op by op it is a wall of boxes)


def is_big(count: int) -> bool:
    return count > BIG


def collapsed(value, recorder=None) -> ScopedGraph:
    """The graph that produced `value`, grouped for reading: by the scopes `recorder` noted
    (`with recording() as rec:`), else by its own structure. The studio's Values or any
    micrograd-like class (read-only, core/foreign/trace.py); show(), the notebook and the
    engine checker all open big graphs through here. The graph's Values to step are made
    fresh from its numbers: stepping never touches the learner's own objects."""
    from core.engine import Value

    if isinstance(value, Value):
        graph = ScopedGraph.from_values(value, recorder)
    else:
        from core.foreign.trace import trace
        from core.scopes.foreign import from_foreign, from_trace

        if recorder is None:
            return _by_structure(from_trace(trace(value)))
        graph = from_foreign(value, recorder)
    graph._values = None  # stepped on copies: the learner's Values keep their grads
    return infer_scopes(graph) if recorder is None else graph


def _by_structure(graph: ScopedGraph) -> ScopedGraph:
    graph._values = None  # stepped on copies: the learner's Values keep their grads
    return infer_scopes(graph)


class _Read:
    """A node of a graph read in another process: its numbers and label, as a Value shows them."""

    __slots__ = ("data", "grad", "label")

    def __init__(self, data, grad, label):
        self.data, self.grad, self.label = data, grad, label or ""


def collapsed_rows(rows, engine: str = "") -> ScopedGraph:
    """`collapsed` of a graph read in the engine checker's child process (core/foreign/child/
    probe.py `big_graph`: rows [label, data, grad, op, [operand rows], ordered], each after its
    operands, the last the output): the same reading (core/foreign/trace.py) and grouping
    by structure as show(loss) of the same graph in this process."""
    from core.foreign.trace import interpret
    from core.scopes.foreign import from_trace

    def number(x):
        return None if x is None else float(x)  # 'inf', '-inf', 'nan' written as text

    raw = [
        {"id": f"n{i}", "label": label, "data": number(data), "raw_op": op, "ordered": bool(ordered),
         "children": [f"n{int(k)}" for k in kids]}
        for i, (label, data, _grad, op, kids, ordered) in enumerate(rows)
    ]  # fmt: skip
    found = interpret(raw)
    found.objects = {f"n{i}": _Read(number(row[1]), number(row[2]), row[0]) for i, row in enumerate(rows)}
    return _by_structure(from_trace(found, engine))
