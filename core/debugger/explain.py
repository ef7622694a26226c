"""What the debugger calls a node, and how it introduces a step: plain text, no markup.

Every text the debugger shows names nodes the way the user knows them. A node
with a label is called by its label. An unlabelled node needs a name too, and
its node id ('n7') means nothing to a learner, so it is named by what it
computes, as long as that is short and made of names the learner knows:

    x, y labelled, m = x * y unlabelled     ->  m is called '(x·y)'
    p = y ** 2 unlabelled                   ->  '(y^2)'
    a constant 2.0                          ->  '2'

The brackets say "this is an expression, not a label", which is also why a
step of such a node is introduced by its name alone ('(x·y)') rather than as
'(x·y) = x · y', which would say the same thing twice.

Only when neither works (a long expression, an operand with no short name)
does the id show. The app's rich-text explanation (app/debugger/explain.py)
and the headless `DebugSession` (session.py) both read these functions.
"""

from core.debugger.stepper import forward_formula
from core.document.graph import node_expression, short_number

NAME_MAX = 14   # an unlabelled op is named by its expression up to this length ('(x·y)')


def display_names(doc, compiled):
    """{Value: name} for every compiled node: its label; a constant's number; an
    unlabelled op whose operands are labelled or constant, its expression in
    brackets ('(x·y)', '(y^2)'); anything else its node id ('n7')."""
    names, simple = {}, {}
    for nid in compiled.order:
        node = doc.nodes[nid]
        value = compiled.values[nid]
        if node.label:
            name, plain = node.label, True
        elif node.kind == "const":
            name, plain = short_number(node.value), True
        elif node.kind == "op":
            args = [simple.get(src) for src in doc.inputs_of(nid)]
            expr = node_expression(node, args) if all(args) else None
            name, plain = (f"({expr})", False) if expr and len(expr) <= NAME_MAX else (nid, False)
        else:
            name, plain = nid, False
        names[value] = name
        simple[nid] = name if plain else None
    return names


def headline(stepper, node):
    """How a step's node is introduced: 'm = x · y', or just '(x·y)' when that is its name."""
    name = stepper.name(node)
    return name if name.startswith("(") else forward_formula(node, stepper.name)


def formula(stepper, node):
    """'m = x · y' for a labelled node, just 'x · y' for one named by its expression."""
    text = forward_formula(node, stepper.name)
    name = stepper.name(node)
    if name.startswith("("):
        return text.split(" = ", 1)[1]
    return text
