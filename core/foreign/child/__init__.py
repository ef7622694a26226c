"""The harness that runs beside a learner's engine, and nothing else.

Copied into the child's box as a package of its own: it imports only Python's
standard library and its own modules (a test proves it), never the studio's engine,
op table or checker. `main` is the process's entry point and `run` the whole run:
`load` loads their file and finds their class, `conventions` finds what it offers
and how its leaves take gradients, `probe` runs one test and reports numbers,
`habits` looks at zero_grad, their own topological sort and a big graph; `shapes`
reads the shapes of Value classes, `graph` reads their graph as plain data, `build`
builds a test program with their class. The verdict is the parent's
(core/foreign/judge.py).
"""
