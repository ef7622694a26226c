"""Code from the lecture, pasted as it is, run, and opened as a graph.

The expression bar's safe parser (core/document/expr.py) reads formulas and
straight-line micrograd snippets without running them. A cell from Karpathy's
lecture is more: imports, `class Neuron`, `for` loops, `sum(...)`, `zip`, list
comprehensions. That is Python, so it is run as Python -- only when the learner
asks (Run as Python), and never in the studio's process:

    instrument.py   the cell plus calls that record which variable holds which Value
    child.py        the child process: limits, micrograd -> the studio's engine, run
    collect.py      after the run: which graphs the cell made, and their names
    run.py          the studio's side: start the child, read its report, build the document,
                    the chain rule's grads beside the learner's, the progress of a long cell
    figures.py      what the cell plotted, sent to the studio's Plots window
    colormaps.py    the colormaps the lecture's plots name
    standin/        the `micrograd`, `graphviz` (and, where missing, `matplotlib`, `sklearn`)
                    the child imports
"""
