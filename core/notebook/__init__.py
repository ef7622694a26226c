"""Backprop Studio in a notebook (Jupyter, Colab, VS Code): no Qt, no Graphviz.

    svg.py      a document and its numbers as an SVG picture, drawn as the canvas draws it
    draw.py     a Value graph (ours or a learner's) -> that picture; show_inline, inline_values
    stepper.py  the backward pass stepped with the app's debugger session: the one-file page, or ipywidgets
    page.py     that page: the graph, every step, plain JavaScript (stepper(f).save('f.html'))
    inline.py   a picture in a notebook's output: an <img> of the SVG, at a readable size
    sketch.py   a graph with ops the studio does not know, for the picture only
    blocks.py   a big graph collapsed by the code that made it
    block_page.py  that collapsed picture stepped a block a click: the page stepper() shows over the limit

The floor above the debugger (tests/core/test_layers.py): it draws documents,
traces learners' graphs and steps them, and nothing in core imports it.
"""

from core.foreign.document import their_grads  # noqa: F401 -- read here by the notebook's users too
from core.notebook.block_page import BlockStepper
from core.notebook.draw import (
    MAX_INLINE_NODES,
    NO_GRADS,
    Graph,
    TooBig,
    document_of,
    draw,
    in_notebook,
    inline_values,
    is_value,
    palette_of,
    qt_loop_in_kernel,
    show_inline,
    too_big,
)
from core.notebook.stepper import Stepper, stepper

__all__ = [
    "MAX_INLINE_NODES", "NO_GRADS", "BlockStepper", "Graph", "Stepper", "TooBig", "document_of", "draw", "in_notebook",
    "inline_values", "is_value", "palette_of", "qt_loop_in_kernel", "show_inline", "stepper", "their_grads", "too_big",
]  # fmt: skip
