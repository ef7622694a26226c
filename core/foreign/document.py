"""A learner's traced graph (plain data from the child process) as a read-only document.

The child sends each node as a dict (`TracedNode.as_dict`): its id, name, op
and operand ids. Turning that into a `GraphDocument` lets the canvas draw the
learner's graph with the studio's boxes -- the failing expression, with the
faulty node highlighted. The document's vocabulary is closed, so a graph with
an op the studio does not know cannot be drawn; `to_document` says which.
"""

from __future__ import annotations

import math
from typing import Any

from core.document.graph import GraphDocument, Node


def number(x: float | str) -> float:
    """A float from the child's plain data ('nan', 'inf' and '-inf' come as strings)."""
    return float(x)


def to_document(nodes: list[dict[str, Any]]) -> tuple[GraphDocument, None] | tuple[None, str]:
    """(doc, None) for the traced `nodes`, or (None, reason) if it cannot be drawn."""
    unknown = [n["raw_op"] for n in nodes if n["children"] and n["op"] is None]
    if unknown:
        return None, f"the graph has an op the studio cannot draw: {unknown[0]!r}"
    bad = [n["name"] for n in nodes if not math.isfinite(number(n["data"])) and not n["children"]]
    if bad:
        return None, f"the leaf {bad[0]} is not a finite number"
    doc = GraphDocument()
    used = set()
    for n in nodes:
        if n["children"]:
            doc.add_node(Node(n["id"], "op", n["op"], param=n["param"], label=n["name"]))
        else:
            doc.add_node(Node(n["id"], "input", value=number(n["data"]), label=n["name"]))
    for n in nodes:
        for port, child in enumerate(n["children"]):
            doc.connect(child, n["id"], port)
            used.add(child)
    roots = [n["id"] for n in nodes if n["id"] not in used]
    doc.set_output(roots[-1])
    doc.read_only = True
    return doc, None


# -----------------------------------------------------------------------------
# Their grads beside the studio's


def their_grads(objects: dict[str, Any]) -> dict[str, float | None]:
    """{node id: the grad their object holds} (a trace's `objects`), read from the
    attribute their class uses (.grad, .derivative, .d, .g: core/foreign/shapes.py);
    None where it holds none (MiniTorch keeps a derivative on leaves only) or not a
    number -- never a 0 it does not hold, which would be marked wrong. The window's
    show() and the notebook's picture both read them here."""
    from core.foreign.shapes import DATA, GRAD, number

    sample = next(iter(objects.values()), None)
    data = next((a for a in DATA if hasattr(sample, a)), "data")
    field = next((a for a in GRAD if a != data and hasattr(sample, a)), "grad")
    grads: dict[str, float | None] = {}
    for nid, obj in objects.items():
        g = getattr(obj, field, None)
        try:
            grads[nid] = None if g is None else number(g)
        except (TypeError, ValueError):
            grads[nid] = None
    return grads


def grad_differences(
    theirs: dict[str, float], reference: dict[str, float], rel: float = 1e-6, abs_: float = 1e-9
) -> dict[str, tuple[float, float]]:
    """{node id: (their grad, the chain rule's)} where the two disagree."""
    return {
        nid: (g, reference[nid])
        for nid, g in theirs.items()
        if nid in reference and not math.isclose(g, reference[nid], rel_tol=rel, abs_tol=abs_)
    }


def differences_text(diffs: dict[str, tuple[float, float]], names: dict[str, str]) -> str:
    """One line for the status bar: which grads of theirs the chain rule disagrees with."""
    if not diffs:
        return "Your engine's grads are shown; every one agrees with the chain rule."
    shown = "; ".join(f"{names[n]}.grad is {g:.6g}, should be {r:.6g}" for n, (g, r) in list(diffs.items())[:3])
    more = f" (and {len(diffs) - 3} more)" if len(diffs) > 3 else ""
    count = f"{len(diffs)} node{'s' if len(diffs) != 1 else ''}"
    return f"Your engine's grads are shown; at {count}, marked ✗, they differ from the chain rule: {shown}{more}."
