"""What the debugger calls a node, and how it introduces a step: plain text, no markup.

Every text the debugger shows names nodes the way the canvas does
(core/document/names.py: a label, else the formula over its operands' names,
never an id such as 'n7'). In running text a formula name is bracketed, so
that '(x·y).grad' reads as the grad of x·y:

    x, y labelled, m = x * y unlabelled     ->  canvas 'x·y', text '(x·y)'
    p = y ** 2 unlabelled                   ->  '(y^2)'
    a constant 2.0                          ->  '2'

The brackets also say "this is an expression, not a label", which is why a
step of such a node is introduced by its name alone ('(x·y)') rather than as
'(x·y) = x · y', which would say the same thing twice. The app's rich-text
explanation (app/debugger/explain.py) and the headless `DebugSession`
(session.py) both read these functions.
"""

from __future__ import annotations

from core.debugger.forward_stepper import ForwardStepper
from core.debugger.stepper import BackwardStepper, forward_formula
from core.document.compile import Compiled
from core.document.graph import GraphDocument
from core.document.names import sentence_names
from core.engine import Value


def display_names(doc: GraphDocument, compiled: Compiled) -> dict[Value, str]:
    """{Value: name} for every compiled node: the canvas's name, a formula in brackets."""
    shown, values = sentence_names(doc), compiled.values  # made once per version of doc
    return {values[nid]: shown[nid] for nid in compiled.order}


def headline(stepper: BackwardStepper | ForwardStepper, node: Value) -> str:
    """How a step's node is introduced: 'm = x · y', or just '(x·y)' when that is its name."""
    name = stepper.name(node)
    if name.startswith("("):
        return name
    text = forward_formula(node, stepper.name)
    return name if says_the_same(name, text.split(" = ", 1)[1]) else text


def formula(stepper: BackwardStepper | ForwardStepper, node: Value) -> str:
    """'m = x · y' for a labelled node, just 'x · y' for one named by its expression
    or labelled with it (the lecture's `x1w1.label = 'x1*w1'`: not 'x1*w1 = x1 · w1')."""
    text = forward_formula(node, stepper.name)
    name = stepper.name(node)
    right = text.split(" = ", 1)[1]
    if name.startswith("(") or says_the_same(name, right):
        return right
    return text


def says_the_same(label: str, expression: str) -> bool:
    """Whether a label only spells out its node's expression: 'x1*w1' for x1 · w1,
    'x1*w1 + x2*w2' for (x1*w1) + (x2*w2), 'y**2' for y^2 (spaces, brackets and the
    signs for times and power aside)."""

    def bare(text: str) -> str:
        text = text.replace("**", "^").replace("·", "*").replace("×", "*")
        return "".join(ch for ch in text if ch not in " ()")

    return bare(label) == bare(expression)
