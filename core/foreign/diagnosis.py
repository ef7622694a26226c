"""Why a learner's gradient is wrong: the classic bugs, from the numbers they leave.

`judge.py` finds the first wrong number; this module says what it most likely
means. A hand-written micrograd engine goes wrong in a handful of ways, and
each leaves a recognisable fingerprint. The evidence for one wrong step is:

    before, after   the operand's grad around THEIR `_backward` for the node
    got             after - before, what their code added
    expected        local derivative · out.grad, what the chain rule adds
    out.grad        the gradient arriving at the node (g below)
    ports           where the operand sits: both ports for `x*x`
    x, the node's data   the operand's value and the node's own output

and `diagnose` tries the bugs in this order, the first fit wins:

    assign              `=` instead of `+=`: the operand already had a grad
                        (from another use) and after == expected: the old
                        value was thrown away. Or the operand is both ports
                        (`x*x`, `a+a`) and got is one port's share only.
    missing-out-grad    got == expected / g (g not 1): the bare local
                        derivative, never multiplied by out.grad.
    swapped-operands    in `a*b`, got == a·g: the operand's own data where
                        the other's belongs (d(a·b)/da = b).
    sign                in + − neg, got == −expected.
    power-rule          for x**k, got fits k·x^k, (k−1)·x^(k−1), k·x^(k−2)
                        or x^(k−1), each times g.
    relu/tanh/exp-derivative   got fits a known slip (x for relu's step,
                        1 − x² for 1 − tanh(x)², x for exp(x) ...), times g.
    no-backward         got == 0 where something was due and no other
                        operand moved: the closure was never attached, or
                        it wrote to a copy.
    wrong-derivative    none of the above: the numbers, with no guess.

A walk in the wrong order leaves every single step right and the sum wrong,
so its evidence is the order of THEIR calls (`order_fault`): a node's
`_backward` run twice, never, or before every node that uses it had added to
its grad. Without closures to watch (the local-grads style) `backward_fault`
compares their final grads with the right ones: all zero means no seed
(`self.grad = 1` missing); exactly what a forward walk gives means they walk
inputs first. And `zeroing_fault`: grads left after their `zero_grad()`, so
a second pass adds onto the first.

Each diagnosis is a code (for tests and autograders) and a sentence for the
learner that names their node, their op as they spelled it, and the numbers.
"""

from __future__ import annotations

import math
import re
from typing import Any, NamedTuple

from core import ops
from core.foreign.agree import FLOAT64, Tolerance, agree
from core.foreign.trace import Trace, TracedNode

REL, ABS = 1e-6, 1e-9  # a step agrees with the studio's derivative


class Diagnosis(NamedTuple):
    """One kind of fault: its code (reports, autograders), its words (a class's table and
    histogram), the fix (the last hint, core/foreign/hints.py)."""

    code: str
    words: str
    fix: str


DIAGNOSES = (
    Diagnosis("assign", "`=` instead of `+=`", "accumulate: write `child.grad += ...`, never `child.grad = ...` -- a "
              "value used twice (x·x, or x in two places) must keep every contribution"),
    Diagnosis("missing-out-grad", "missing `* out.grad`",
              "multiply by the gradient arriving at the node: `child.grad += local * out.grad`"),
    Diagnosis("swapped-operands", "operands swapped", "in `__mul__`'s _backward, `self.grad += other.data * out.grad` "
              "and `other.grad += self.data * out.grad` (each operand gets the OTHER one's data)"),
    Diagnosis("sign", "wrong sign", "mind the sign: d(a − b)/db = −1 and d(−a)/da = −1, so that operand's grad goes "
              "DOWN by out.grad"),
    Diagnosis("power-rule", "power rule", "the power rule: `self.grad += k * self.data ** (k - 1) * out.grad`"),
    # relu-derivative, tanh-derivative, exp-derivative: each op whose row names its classic slips
    *(Diagnosis(f"{op.name}-derivative", f"{op.name} derivative", op.fix) for op in ops.TABLE if op.slips),
    Diagnosis("no-backward", "_backward never attached", "attach the closure: `out._backward = _backward` before "
              "`return out` (and make it write to the operands, not to copies of them)"),
    Diagnosis("wrong-derivative", "wrong local derivative",
              "compare your local derivative with the one of rung 3, term by term"),
    Diagnosis("forward", "wrong forward value", "fix the forward pass first: compute the op's value exactly as its "
              "formula says (a wrong forward makes every gradient through it wrong too), then check its _backward "
              "against the new value"),
    Diagnosis("order", "backward pass in the wrong order", "build the topological order first (each node after all "
              "its children), then call `_backward` on `reversed(topo)`, each node once"),
    Diagnosis("set-order", "order depends on a set", "a set's order is arbitrary: build `topo` by visiting every "
              "child before the node itself (depth first), so the order is right whatever order the set gives"),
    Diagnosis("cut-graph", "result not connected", "make each op's result with its operands as children -- "
              "`Value(data, (self, other))` -- so backward() can walk from the output back to every input"),
    Diagnosis("pass-shadowed", "closure hides backward()", "store each op's closure as `out._backward`: an "
              "attribute `backward` on a node hides the class's backward() method, so `loss.backward()` runs only "
              "the output's closure"),
    Diagnosis("no-seed", "output grad never set to 1",
              "start the pass with `self.grad = 1` on the output, before the loop over the nodes"),
    Diagnosis("not-zeroed", "zero_grad leaves grads",
              "zero_grad() must set the grad of EVERY node of the graph to 0, not only the leaves"),
    Diagnosis("topo-sort", "topological sort wrong", "in your topological sort, visit every child BEFORE appending "
              "the node itself, and skip a node already visited: then each node comes once, after all its inputs"),
    Diagnosis("grad-node", "a grad that is a Value", "keep plain numbers in .grad: in _backward use the numbers "
              "`other.data`, `out.data`, never the Value `other` itself (a Value in .grad builds a new graph at "
              "every step and breaks `p.data -= lr * p.grad`)"),
    Diagnosis("raised", "code raised",
              "read the error: your code raised while computing the gradient -- the line it names is the bug"),
    Diagnosis("wrong-result", "wrong result", "step your backward pass node by node (python main.py --debug-engine "
              "FILE) and compare each grad with the chain rule"),
)  # fmt: skip
BY_CODE = {d.code: d for d in DIAGNOSES}


def close(got: float, want: float, rel: float = REL, abs_: float = ABS) -> bool:
    """`got` agrees with `want` (NaN agrees with NaN, an infinity only with itself)."""
    if got != got or want != want:
        return got != got and want != want
    if math.isinf(got) or math.isinf(want):
        return got == want
    return math.isclose(got, want, rel_tol=rel, abs_tol=abs_)


def ref(name: str) -> str:
    """A node's name before .grad or .data: (x + y).grad, not x + y.grad."""
    return f"({name})" if " " in name else name


def fmt(x: float) -> str:
    return f"{x:.6g}"


# -----------------------------------------------------------------------------
# One wrong step


# MiniTorch's names for micrograd's: a Scalar's gradient is `.derivative`, the gradient arriving at
# an op is `d_output` (its Function's backward(ctx, d_output)), and that backward is the op's code
MINITORCH_WORDS = (
    (re.compile(r"\bout\.grad\b"), "d_output"),
    (re.compile(r"\.grad\b"), ".derivative"),
    (re.compile(r"\b_backward\b"), "backward"),
    (re.compile(r"(?<![.\w])grads\b"), "derivatives"),  # the word: "the grads already there", not `out.grads`
    (re.compile(r"(?<![.\w])grad\b"), "derivative"),
)


def their_words(sentence: str, style: str) -> str:
    """`sentence` as a learner of that style writes it: MiniTorch's `d_output` and
    `x.derivative` for micrograd's `out.grad` and `x.grad`."""
    if style != "minitorch":
        return sentence
    for pattern, word in MINITORCH_WORDS:
        sentence = pattern.sub(word, sentence)
    return sentence


def their_names(sentence: str, names: dict[str, str]) -> str:
    """`sentence` with their pass's and closures' names for micrograd's `backward()` and
    `_backward` (`backprop()`, `.back`), where theirs differ."""
    passed, closure = names.get("pass") or "backward", names.get("closure") or "_backward"
    if passed != "backward":
        sentence = re.sub(r"(?<![\w.])backward\(\)", f"{passed}()", sentence)
    if closure != "_backward":
        sentence = re.sub(r"(?<![\w])_backward\b", closure, sentence)
    return sentence


def diagnose(
    tr: Trace,
    node: TracedNode,
    child: str,
    ports: list[int],
    local: list[float],
    out_grad: float,
    before: float,
    after: float,
    got: float,
    expected: float,
    tol: Tolerance = FLOAT64,
    others_moved: bool | None = None,
    attached: bool | None = None,
) -> tuple[str, str]:
    """(code, sentence) naming the likely bug behind one wrong gradient change. Numbers
    are compared by the checker's one rule (core/foreign/agree.py) at `tol`;
    `others_moved`: did the step change any other operand's grad (None: read it
    from the trace's objects, in the user's own process); `attached`: does the node
    carry a closure of its own, not a leaf's do-nothing one (None: unknown)."""

    def close(a: float, b: float) -> bool:
        return agree(a, b, tol)

    name, x = tr.by_id[child].name, tr.by_id[child].data
    op = node.op
    g = out_grad
    raw = node.raw_op or op or "?"
    if before != 0.0 and close(after, expected):
        return "assign", (
            f"`=` instead of `+=`: {ref(name)}.grad was already {fmt(before)} (from another use of "
            f"{name}) and the {raw} op's _backward replaced it with {fmt(after)} instead of "
            f"adding {fmt(expected)} to it; gradients must accumulate (+=)"
        )
    if len(ports) > 1 and any(close(got, local[p] * g) for p in ports):
        return "assign", (
            f"`=` instead of `+=`: {name} is both operands of {node.name}, so the {raw} op's "
            f"_backward must add two contributions to {ref(name)}.grad; it kept only one "
            f"({fmt(got)} instead of {fmt(expected)})"
        )
    if not close(g, 1.0) and g != 0.0 and close(got, expected / g):
        return "missing-out-grad", (
            f"missing `* out.grad` in the {raw} op: it added the local derivative "
            f"{fmt(got)} to {ref(name)}.grad, but the chain rule multiplies it by "
            f"out.grad = {fmt(g)}: {fmt(expected)}"
        )
    if op == "mul" and len(ports) == 1:
        other = tr.by_id[node.children[1 - ports[0]]]
        if not close(x, other.data) and close(got, x * g):
            return "swapped-operands", (
                f"operands swapped in `*`: {ref(name)}.grad got {ref(name)}.data · out.grad = "
                f"{fmt(got)}; d(a·b)/da = b, so it should get {ref(other.name)}.data · "
                f"out.grad = {fmt(expected)}"
            )
    if op in ("sub", "neg", "add") and close(got, -expected):
        return "sign", (
            f"wrong sign in `{raw}`: {ref(name)}.grad changed by {fmt(got)}, should be "
            f"{fmt(expected)} (d(a−b)/da = 1, d(a−b)/db = −1)"
        )
    if op == "pow" and node.param is not None:  # a pow node has its exponent (trace.normalize_op)
        k = node.param
        for text, want in (
            ("k·x^k (the exponent not lowered by one)", k * ops.ieee_pow(x, k)),
            ("(k−1)·x^(k−1)", (k - 1) * ops.ieee_pow(x, k - 1)),
            ("k·x^(k−2) (lowered by two)", k * ops.ieee_pow(x, k - 2)),
            ("x^(k−1) (the factor k missing)", ops.ieee_pow(x, k - 1)),
        ):
            if close(got, want * g):
                return "power-rule", (
                    f"power rule off: the {raw} op computes {text} = {fmt(got / g if g else got)}; "
                    f"d(x^k)/dx = k·x^(k−1) = {fmt(expected / g if g else expected)}"
                )
    if op in SLIPPED:
        guess = _unary_guess(op, x, node.data, g, got, close)
        if guess:
            return f"{op}-derivative", _unary_cause(op, raw, name, guess, expected, got)
    if others_moved is None:
        others_moved = not all(close(float(tr.objects[c].grad), 0.0) for c in node.children if c != child)
    if got == 0.0 and expected != 0.0 and not others_moved and before == 0.0 and attached is not True:
        return "no-backward", (
            f"{ref(node.name)}'s _backward added nothing to {ref(name)}.grad: is `out._backward = "
            f"_backward` missing in the {raw} op, or does it write to a copy?"
        )
    if op in SLIPPED:
        return f"{op}-derivative", _unary_cause(op, raw, name, None, expected, got)
    return "wrong-derivative", (
        f"the {raw} op added {fmt(got)} to {ref(name)}.grad; the chain rule says "
        f"local derivative · out.grad = {fmt(expected)}"
    )


# the unary ops whose classic slips the op table names, and their right derivative: '1 − tanh(x)²'
SLIPPED = tuple(op.name for op in ops.TABLE if op.slips)
RIGHT = {name: ops.BY_NAME[name].math[0].format(a="x") for name in SLIPPED}


def _unary_guess(op, x, out, g, got, close=None):
    """Which classic slip (its op table row's `slips`) explains `got` for the op's step, or None."""
    guesses = [(text, slip(x, out)) for text, slip in ops.BY_NAME[op].slips]
    near = close or globals()["close"]
    for text, local in guesses:
        if near(got, local * g):
            return text
    return None


def _unary_cause(op, raw, name, guess, expected, got) -> str:
    uses = f"it uses {guess}; " if guess else ""
    return (
        f"{raw} derivative wrong: {uses}d {op}(x)/dx = {RIGHT[op]}, so {ref(name)}.grad should change by "
        f"{fmt(expected)}, not {fmt(got)}"
    )


# -----------------------------------------------------------------------------
# Their backward(): the order of its calls, its final grads


def order_fault(tr: Trace, calls: list[str]) -> dict[str, Any] | None:
    """A fault if their backward() called some node's _backward (`calls`: node ids in
    the order it called them) twice, never, or before all the nodes that use it had
    passed their gradient down; None if the order is right."""
    users = tr.consumers()
    done = set()
    if not calls and any(n.children for n in tr.nodes):
        return _order(
            tr,
            tr.by_id[tr.root],
            "your backward() ran no node's _backward at all: after building the topological order, walk it "
            "(`self.grad = 1`, then `for node in reversed(topo): node._backward()`), and check that "
            "`build_topo(self)` is called once, outside build_topo itself",
        )
    for call, nid in enumerate(calls):
        node = tr.by_id[nid]
        if nid in done:
            return _order(
                tr,
                node,
                f"your backward() ran {ref(node.name)}'s _backward more than once, so its "
                f"operands got its gradient more than once: visit each node once, "
                f"in reverse topological order",
                call,
            )
        early = [u for u in users[nid] if u not in done]
        if early:
            return _order(
                tr,
                node,
                f"your backward() ran {ref(node.name)}'s _backward before "
                f"{tr.by_id[early[0]].name}'s, which still had to add to "
                f"{ref(node.name)}.grad: visit nodes in reverse topological order "
                f"(build the topological order first, then walk it backwards)",
                call,
            )
        done.add(nid)
    missing = [n for n in tr.nodes if n.children and n.id not in done]
    if missing:
        return _order(tr, missing[-1], f"your backward() never ran {ref(missing[-1].name)}'s _backward")
    return None


def _order(tr, node, cause, call=None):
    """An order fault at `node`; `call`: the index of their backward()'s call at fault."""
    return {
        "node": node.name,
        "node_id": node.id,
        "op": "order",
        "studio_op": None,
        "diagnosis": "order",
        "cause": cause,
        "call": call,
    }


def backward_fault(tr: Trace, want: dict[str, float], got: dict[str, float]) -> dict[str, Any] | None:
    """The grads their backward() left (`got`, by node id) against the right ones
    (`want`, from the checked steps): None if they agree, else a fault at the first
    wrong node -- no seed, a forward walk, or a walk that is wrong some other way."""
    wrong = [nid for nid in got if nid in want and not close(got[nid], want[nid])]  # ids: the parent has no objects
    if not wrong:
        return None
    first = next(n for n in tr.nodes if n.id in wrong)
    base = {
        "node": first.name,
        "node_id": first.id,
        "op": "backward()",
        "studio_op": None,
        "expected": want[first.id],
        "got": got[first.id],
    }
    if all(v == 0.0 for v in got.values()):
        return {
            **base,
            "diagnosis": "no-seed",
            "cause": "your backward() left every grad at 0: does it start with self.grad = 1?",
        }
    if tr.style in ("local-grads", "local-fn") and _simulate(tr, list(tr.nodes)) == got:
        return {
            **base,
            "op": "order",
            "diagnosis": "order",
            "cause": "your backward() walks the nodes forwards (inputs first): it must visit them in "
            "reverse topological order, the output first",
        }
    return {
        **base,
        "op": "order" if tr.style in ("local-grads", "local-fn") else "backward()",
        "diagnosis": "order",
        "cause": f"every node's own step is right, but your backward() gives {ref(first.name)}.grad = "
        f"{fmt(got[first.id])} instead of {fmt(want[first.id])}: check the order it visits "
        f"nodes in and that it visits each once",
    }


def _simulate(tr, order):
    """The grads a generic local-grads loop gives when it walks `order`."""
    grads = {n.id: 0.0 for n in tr.nodes}
    grads[tr.root] = 1.0
    for node in order:
        if node.local_grads:
            for c, g in zip(node.children, node.local_grads):
                grads[c] += g * grads[node.id]
    return grads


# -----------------------------------------------------------------------------
# Zeroing between passes

ACCUMULATES = "backward() adds to the grads already there (as micrograd's does): zero every grad before each pass"


def zeroing_fault(first: dict[str, float], second: dict[str, float], left: list[str]) -> dict[str, Any] | None:
    """A fault if their zero_grad() left grads behind: `first` and `second` are x's and
    y's grads after the passes before and after it, `left` the nodes it did not zero."""
    if left or any(not close(second[k], first[k]) for k in first):
        who = left[0] if left else "x"
        if close(second["x"], first["x"]):  # the grads come out right anyway: say only what is left
            effect = "; backward() sets the grads afresh, so nothing adds up yet -- but every node must start at 0"
        else:
            effect = f", so the second backward() gives x.grad = {fmt(second['x'])} instead of {fmt(first['x'])}"
        return {
            "node": who,
            "node_id": None,
            "op": "zero_grad",
            "studio_op": None,
            "diagnosis": "not-zeroed",
            "expected": first["x"],
            "got": second["x"],
            "cause": f"grads not zeroed between passes: after your zero_grad(), {who}.grad is not 0{effect}",
        }
    return None
